# SPDX-License-Identifier: GPL-2.0-only
# Per-member dispatchers (queue_depth, priority) and the fork/join
# tracepoints, checked from ftrace captures by check_trace.py.

CHECK_TRACE=$TOP/tests/kernel/check_trace.py

# Data stays intact whatever the dispatcher does.
queue_verify() {	# queue_verify DEPTH PRIORITY
	local size=$((8 << 20))
	vol_create ssat-q $((size / 512)) stripe 8 "$(ram_members 4)" \
		4 queue_depth "$1" priority "$2" || return 1
	run_fio verify.fio DEV=/dev/mapper/ssat-q SIZE=$size \
		BSSPLIT="512/10:4k/30:12k/20:40k/20:1m/20" || fail "fio verify failed (depth $1, priority $2)"
	local rc=$?
	expect_eq "nothing left in flight" "$(mstat_all ssat-q inflight)" "0 0 0 0" || rc=1
	expect_eq "nothing left queued" "$(mstat_all ssat-q qlow) $(mstat_all ssat-q qhigh)" \
		"0 0 0 0 0 0 0 0" || rc=1
	return $rc
}

queue_messages() {
	local rc=0 t
	vol_create ssat-q 16384 stripe 8 "$(ram_members 2)" || return 1
	expect_eq "default depth" "$(vstat ssat-q depth)" 0 || rc=1
	expect_eq "default priority" "$(vstat ssat-q priority)" on || rc=1
	dmsetup message ssat-q 0 queue_depth 3 || { fail "queue_depth message refused"; rc=1; }
	dmsetup message ssat-q 0 priority off || { fail "priority message refused"; rc=1; }
	dmsetup message ssat-q 0 merge on || { fail "merge message refused"; rc=1; }
	expect_eq "depth after message" "$(vstat ssat-q depth)" 3 || rc=1
	expect_eq "priority after message" "$(vstat ssat-q priority)" off || rc=1
	t=$(dmsetup table ssat-q)
	[[ $t == *" 6 queue_depth 3 priority off merge on" ]] || { fail "table does not carry the settings: $t"; rc=1; }
	local bad
	for bad in "queue_depth 65537" "queue_depth -1" "queue_depth x" "priority maybe" \
		"merge 1" "merge" "merge on off" \
		"queue_depth" "coalesce 0" "frobnicate" "debug_inject_high 2 1" \
		"debug_inject_high 0 0" "debug_inject_high 0 5000" "queue_depth 4294967299" \
		"queue_depth +3" "debug_inject_high 4294967297 5"; do
		dmsetup message ssat-q 0 $bad 2>/dev/null && { fail "message '$bad' accepted"; rc=1; }
	done
	expect_eq "depth unchanged by bad messages" "$(vstat ssat-q depth)" 3 || rc=1
	# injected high-priority work is counted per class
	local h0 h1
	h0=$(mstat ssat-q 1 dhigh)
	dmsetup message ssat-q 0 debug_inject_high 1 5 || { fail "debug_inject_high refused"; rc=1; }
	# they are dispatched from a work item: wait for them, bounded
	dhigh_past() { [ "$(mstat ssat-q 1 dhigh)" -ge $((h0 + 5)) ]; }
	wait_until 10 dhigh_past
	h1=$(mstat ssat-q 1 dhigh)
	expect_eq "high-priority children dispatched on member 1" "$((h1 - h0))" 5 || rc=1
	expect_eq "member 0 saw none" "$(mstat ssat-q 0 dhigh)" 0 || rc=1
	# the settings survive a reload of the table the target printed
	dmsetup reload ssat-q --table "$t" && dmsetup suspend ssat-q && dmsetup resume ssat-q
	expect_eq "depth after reload" "$(vstat ssat-q depth)" 3 || rc=1
	return $rc
}

# Random 4 KiB reads 16 deep on 2 members, plus injected high-priority
# reads, traced; then the trace is checked against the dispatcher rules and
# the counts against fio and the status counters.
# Members: null_blk with 2 ms timer completions, so that a member is a
# server with a service time and queues build (on brd a child completes
# inside its own submission and nothing ever waits).
queue_trace() {	# queue_trace DEPTH PRIORITY
	local depth=$1 prio=$2 rc=0 i
	vol_create ssat-q 65536 stripe 8 "$(nullb_members 2)" \
		4 queue_depth "$depth" priority "$prio" || return 1
	local r0 w0 d0
	r0=$(vstat ssat-q req_r); w0=$(vstat ssat-q req_w)
	d0=$(( $(mstat ssat-q 0 dlow) + $(mstat ssat-q 1 dlow) + $(mstat ssat-q 0 dhigh) + $(mstat ssat-q 1 dhigh) ))
	trace_start 65536 || return 1
	mkdir -p "$WORK"
	# fio runs until the injections are done (SIGINT ends its run), not for
	# a fixed time a slow machine could use up before they come (60 s was
	# used up once, with four guests on two host cores); its runtime is
	# only a bound
	(cd "$WORK" && exec fio --name=q --filename=/dev/mapper/ssat-q --direct=1 --ioengine=libaio \
		--rw=randrw --bssplit=4k/70:16k/30 --iodepth=16 --time_based --runtime=600 \
		--output-format=json --output="$WORK/fio.json") &
	local fio_pid=$!
	# inject only once fio's reads and writes are queueing (fio can take
	# a second to start under emulation): high reads injected into idle
	# members would test nothing
	for i in $(seq 100); do
		[ $(( $(vstat ssat-q req_r) + $(vstat ssat-q req_w) - r0 - w0 )) -ge 100 ] && break
		sleep 0.05
	done
	for i in $(seq 10); do
		sleep 0.1
		dmsetup message ssat-q 0 debug_inject_high $((i % 2)) 4
	done
	sleep 0.5
	kill -0 $fio_pid 2>/dev/null || { fail "fio ended before the injections did"; rc=1; }
	kill -INT $fio_pid 2>/dev/null
	# (fio exits non-zero when a signal ended its run, and its JSON report
	# then follows a line about the signal; the report says whether the
	# job had an error)
	wait $fio_pid
	sed -i -n '/^{/,$p' "$WORK/fio.json"
	python3 -c 'import json, sys; sys.exit(any(j["error"] for j in json.load(open(sys.argv[1]))["jobs"]))' \
		"$WORK/fio.json" || { fail "fio failed"; rc=1; }
	sleep 0.5
	trace_stop "$WORK/trace.txt"
	local opts=(--depth "$depth")
	[ "$depth" = 1 ] && opts+=(--priority "$prio")
	python3 "$CHECK_TRACE" "$WORK/trace.txt" "${opts[@]}" --summary "$WORK/sum.json" ||
		{ fail "trace check failed"; rc=1; }
	local forks joins children requests ios dispatched fio_forks
	read -r forks joins children fio_forks <<< "$(python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); c=s["counts"]; print(c.get("fork",0), c.get("join",0), c.get("child_complete",0), s["forks_by_task"].get("fio",0))' "$WORK/sum.json")"
	requests=$(( $(vstat ssat-q req_r) + $(vstat ssat-q req_w) - r0 - w0 ))
	dispatched=$(( $(mstat ssat-q 0 dlow) + $(mstat ssat-q 1 dlow) + $(mstat ssat-q 0 dhigh) + $(mstat ssat-q 1 dhigh) - d0 ))
	ios=$(fio_total_ios "$WORK/fio.json")
	info "forks=$forks (fio's $fio_forks) joins=$joins children=$children requests=$requests dispatched=$dispatched fio_ios=$ios"
	expect_eq "forks = requests in status" "$forks" "$requests" || rc=1
	expect_eq "joins = forks" "$joins" "$forks" || rc=1
	expect_eq "forks by fio = fio's I/Os" "$fio_forks" "$ios" || rc=1
	expect_eq "completed children = dispatched in status" "$children" "$dispatched" || rc=1
	grep -Eq '"high_dispatched": 40[,}]' "$WORK/sum.json" ||
		{ fail "not all 40 injected reads were traced"; rc=1; }
	if [ "$depth" = 1 ] && [ "$prio" = on ]; then
		# the rule was exercised: high children went ahead of waiting low ones
		grep -q '"high_ahead_of_low": 0' "$WORK/sum.json" &&
			{ fail "no high child ever found low ones waiting: priority untested"; rc=1; }
	fi
	if [ "$depth" = 1 ] && [ "$prio" = off ]; then
		# one FIFO: some high-priority reads must have waited behind user I/O
		grep -q '"high_behind_low": 0' "$WORK/sum.json" &&
			{ fail "priority off, yet no high child waited behind a low one"; rc=1; }
	fi
	cat "$WORK/sum.json"
	return $rc
}

# Fork/join shape of known requests: children per request from the trace.
trace_fork_shape() {
	local rc=0
	vol_create ssat-t 32768 stripe 128 "$(ram_members 4)" || return 1
	mkdir -p "$WORK"
	head -c $((1 << 20)) /dev/urandom > "$WORK/one"
	trace_start || return 1
	dd if="$WORK/one" of=/dev/mapper/ssat-t bs=1M count=1 seek=1 oflag=direct status=none   # 4 stripes
	dd if="$WORK/one" of=/dev/mapper/ssat-t bs=4k count=1 oflag=direct status=none          # 1 chunk
	dd if="$WORK/one" of=/dev/mapper/ssat-t bs=8k count=1 seek=$(((64 << 10) - 4096)) \
		oflag=direct,seek_bytes status=none                                              # 2 chunks
	trace_stop "$WORK/trace.txt"
	python3 "$CHECK_TRACE" "$WORK/trace.txt" || { fail "trace check failed"; rc=1; }
	local shape
	shape=$(awk '/ssastripe_fork:/ && / write / { for (i = 1; i <= NF; i++) if ($i ~ /^(len|children)=/) printf "%s ", $i; printf "| " }' "$WORK/trace.txt")
	expect_eq "write forks (len, children)" "$shape" "len=2048 children=4 | len=8 children=1 | len=16 children=2 | " || rc=1
	# the 1 MiB write: children on members 0..3, 512 sectors each
	local kids
	kids=$(awk '/ssastripe_child_dispatch:/ && / write / && / len=512 / { for (i = 1; i <= NF; i++) if ($i ~ /^member=/) printf "%s ", $i }' "$WORK/trace.txt")
	expect_eq "1 MiB write children" "$kids" "member=0 member=1 member=2 member=3 " || rc=1
	return $rc
}

# I/Os a member's block device has completed (reads + writes, from
# /sys/block): a bio-based member counts every bio it is sent.
member_ios() {
	local -a f
	read -ra f < "/sys/block/$(dm_sysname "$1")/stat"
	echo $((f[0] + f[4]))
}

# "merge on": children waiting at a busy member (queue_depth 1) that follow
# each other on it go out as one bio.  Members are ssadisks over zeroed
# ramdisks (a service time, so queues build; bio-based, so nothing below
# merges).  A sequential stream of chunks, or of full stripes on raid5
# (merge.fio, job seq): with merge off each member is sent exactly the
# children dispatched to it; with merge on fewer than three bios for four
# children (seen: a quarter on stripe and mirror, 0.45 on raid5).  Then
# random writes of mixed sizes (job mixed).  Every block reads back
# (crc32c), the parity layouts' parity is recomputed from the members,
# and every child dispatched is traced and completed.  Clocked: merges
# need children waiting, and a slow guest (the debug kernel beside other
# guests) did not keep the member queued -- 7895 bios for 8192 children.
queue_merge() {	# queue_merge LAYOUT MEMBERS
	local layout=$1 n=$2 rc=0 i m="" msz=16384 len opts merge job bs=4k
	for ((i = 0; i < n; i++)); do
		wipe $((msz / 2048)) /dev/ram$i || return 1
		disk_create ssat-d$i /dev/ram$i $msz $MECH time_scale 0.1 || return 1
		m+="/dev/mapper/ssat-d$i 0 "
	done
	case $layout in
	stripe) len=$((n * msz)) opts="4 queue_depth 1" ;;
	mirror) len=$((n / 2 * msz)) opts="4 queue_depth 1" ;;
	*) len=$(((n - 1) * msz)) opts="6 queue_depth 1 initial_sync off"
	   bs=$(((n - 1) * 4))k ;;	# full stripes (a small write's RMW pieces
					# alternate reads and writes: few merge)
	esac
	mkdir -p "$WORK"
	for merge in off on; do
		vol_create ssat-q $len "$layout" 8 "${m% }" $opts merge $merge || return 1
		for job in seq mixed; do
			local ios0=0 ios1=0 d0 d1 ev children bios
			for ((i = 0; i < n; i++)); do ios0=$((ios0 + $(member_ios ssat-d$i))); done
			d0=$(( $(mstat_all ssat-q dlow | tr ' ' '+') + $(mstat_all ssat-q dhigh | tr ' ' '+') ))
			trace_start_only ssastripe_child_dispatch ssastripe_child_complete || return 1
			(cd "$WORK" && DEV=/dev/mapper/ssat-q SIZE=$((len * 512)) BS=$bs fio --section=$job \
				--output="$WORK/fio-$job.out" "$TOP/tests/fio/merge.fio") ||
				{ fail "fio verify failed (merge $merge, $job)"; cat "$WORK/fio-$job.out"; rc=1; }
			trace_stop "$WORK/trace.txt"
			for ((i = 0; i < n; i++)); do ios1=$((ios1 + $(member_ios ssat-d$i))); done
			d1=$(( $(mstat_all ssat-q dlow | tr ' ' '+') + $(mstat_all ssat-q dhigh | tr ' ' '+') ))
			children=$((d1 - d0)) bios=$((ios1 - ios0))
			info "merge $merge, $job: $children children dispatched, $bios member bios"
			ev=$(grep -c 'ssastripe_child_complete:' "$WORK/trace.txt")
			expect_eq "merge $merge, $job: completions traced = children dispatched" \
				"$ev" "$children" || rc=1
			ev=$(grep -c 'ssastripe_child_dispatch:' "$WORK/trace.txt")
			expect_eq "merge $merge, $job: dispatches traced = children dispatched" \
				"$ev" "$children" || rc=1
			if [ $merge = off ]; then
				expect_eq "merge off, $job: a member bio a child" "$bios" "$children" || rc=1
			elif [ $job = seq ] && [ $((bios * 4)) -ge $((children * 3)) ]; then
				fail "merge on, seq: $bios member bios for $children children"; rc=1
			fi
		done
		expect_eq "nothing left in flight" "$(mstat_all ssat-q inflight | tr -d ' 0')" "" || rc=1
		case $layout in raid5 | pstripe) parity_ok ssat-q || rc=1 ;; esac
		vol_remove ssat-q
	done
	return $rc
}

register queue_verify_d1 queue_verify 1 on
register queue_verify_d4_prio_off queue_verify 4 off
register queue_messages queue_messages
register queue_trace_d1_prio_on queue_trace 1 on
register queue_trace_d1_prio_off queue_trace 1 off
register queue_trace_d0 queue_trace 0 on
register trace_fork_shape trace_fork_shape
register_clocked queue_merge_stripe queue_merge stripe 2
register_clocked queue_merge_raid5 queue_merge raid5 4
register_clocked queue_merge_mirror queue_merge mirror 2

# Settings changed under load, with children waiting: depth raised,
# cleared (waiting children drain), restored; priority toggled; internal
# high-priority work injected.  Data stays intact and nothing is left
# queued or in flight.
queue_runtime_switch() {
	local rc=0 i size=$((16 << 20))
	vol_create ssat-q $((size / 512)) stripe 16 "$(nullb_members 2)" 2 queue_depth 1 || return 1
	mkdir -p "$WORK"
	(cd "$WORK" && fio --name=sw --filename=/dev/mapper/ssat-q --direct=1 --ioengine=libaio \
		--rw=randwrite --bssplit=4k/50:24k/30:64k/20 --iodepth=16 --size=$size \
		--verify=crc32c --verify_fatal=1 --verify_state_save=0 \
		--output="$WORK/fio.out" >/dev/null 2>&1) &
	local fio_pid=$!
	for i in $(seq 8); do
		sleep 0.3
		dmsetup message ssat-q 0 queue_depth $(( (i % 4 == 0) ? 0 : i % 4 ))
		dmsetup message ssat-q 0 priority $([ $((i % 2)) = 0 ] && echo on || echo off)
		dmsetup message ssat-q 0 debug_inject_high $((i % 2)) 8
	done
	wait $fio_pid || { fail "fio verify failed while settings changed"; cat "$WORK/fio.out"; rc=1; }
	# the last injected reads may still be on their way: wait, bounded
	idle_q() { [ "$(mstat_all ssat-q inflight) $(mstat_all ssat-q qhigh) $(mstat_all ssat-q qlow)" = "0 0 0 0 0 0" ]; }
	wait_until 10 idle_q
	expect_eq "in flight afterwards" "$(mstat_all ssat-q inflight)" "0 0" || rc=1
	expect_eq "queued afterwards" "$(mstat_all ssat-q qhigh) $(mstat_all ssat-q qlow)" "0 0 0 0" || rc=1
	expect_eq "injected reads dispatched" $(( $(mstat ssat-q 0 dhigh) + $(mstat ssat-q 1 dhigh) )) 64 || rc=1
	return $rc
}

# Removing a volume waits for internal work DM does not know about: 256
# injected reads queued one at a time on a 2 ms member take about 0.5 s,
# and the table may not be freed under them.
remove_with_injected() {
	local rc=0 t0 t1
	vol_create ssat-q 65536 stripe 16 "$(nullb_members 2)" 2 queue_depth 1 || return 1
	dmsetup message ssat-q 0 debug_inject_high 0 256 || return 1
	t0=$(date +%s%N)
	dmsetup remove ssat-q || { fail "remove failed"; rc=1; }
	t1=$(date +%s%N)
	info "remove took $(( (t1 - t0) / 1000000 )) ms"
	[ $(( (t1 - t0) / 1000000 )) -ge 300 ] ||
		{ fail "remove returned before the injected reads could have completed"; rc=1; }
	dmsetup info ssat-q >/dev/null 2>&1 && { fail "volume still there"; rc=1; }
	return $rc
}

register queue_runtime_switch queue_runtime_switch
register remove_with_injected remove_with_injected

# The one-chunk fast path (stripe layout, queue_depth 0, no event of the
# map on) keeps the counters the general path keeps.  Random reads of
# three sizes, the largest of which fork (reads only: a write makes udev
# read the volume when fio closes it, and those reads would be counted
# too): the status counts each of fio's requests and sectors once, every
# child issued is dispatched, and none is left in flight (in flight is
# dispatched less completed: the completions are counted too).
fast_path_counts() {
	local rc=0 size=$((32 << 20)) m
	vol_create ssat-f $((size / 512)) stripe 128 "$(ram_members 4)" || return 1
	local r0 s0=0 c0=0 d0=0
	r0=$(vstat ssat-f req_r)
	for m in 0 1 2 3; do
		s0=$((s0 + $(mstat ssat-f $m sr)))
		c0=$((c0 + $(mstat ssat-f $m cr)))
		d0=$((d0 + $(mstat ssat-f $m dlow)))
	done
	mkdir -p "$WORK"
	(cd "$WORK" && fio --name=fast --filename=/dev/mapper/ssat-f --direct=1 \
		--ioengine=libaio --rw=randread --bssplit=4k/50:16k/30:192k/20 \
		--iodepth=8 --size=$size \
		--output-format=json --output="$WORK/fio.json") ||
		{ fail "fio failed"; return 1; }
	local ios bytes s=0 c=0 d=0
	ios=$(fio_total_ios "$WORK/fio.json")
	bytes=$(python3 -c 'import json,sys; print(sum(j["read"]["io_bytes"] for j in json.load(open(sys.argv[1]))["jobs"]))' "$WORK/fio.json")
	for m in 0 1 2 3; do
		s=$((s + $(mstat ssat-f $m sr)))
		c=$((c + $(mstat ssat-f $m cr)))
		d=$((d + $(mstat ssat-f $m dlow)))
	done
	info "fio: $ios reads, $bytes bytes; children $((c - c0)), dispatched $((d - d0))"
	expect_eq "read requests = fio's reads" "$(( $(vstat ssat-f req_r) - r0 ))" "$ios" || rc=1
	expect_eq "sectors read = fio's bytes / 512" "$((s - s0))" "$((bytes / 512))" || rc=1
	[ $((c - c0)) -gt "$ios" ] || { fail "no request forked: $((c - c0)) children"; rc=1; }
	expect_eq "children dispatched" "$((d - d0))" "$((c - c0))" || rc=1
	expect_eq "nothing in flight" "$(mstat_all ssat-f inflight)" "0 0 0 0" || rc=1
	return $rc
}

# With only the completion events on (join, child completion), a one-chunk
# request takes the fast path, which draws no id at the map: the id is
# drawn when its completion emits the events.  Each request's join must
# still carry an id of its own, never 0, and its one child's completion
# the same id.
fast_path_completion_events() {
	local rc=0 n=64
	vol_create ssat-f 32768 stripe 128 "$(ram_members 4)" || return 1
	local dev r0
	dev=$(dmsetup info -c --noheadings -o major,minor ssat-f | tr -d ' ')
	r0=$(vstat ssat-f req_r)
	mkdir -p "$WORK"
	trace_start_only ssastripe_join ssastripe_child_complete || return 1
	dd if=/dev/mapper/ssat-f of=/dev/null bs=4k count=$n iflag=direct status=none ||
		{ fail "dd failed"; rc=1; }
	trace_stop "$WORK/trace.txt"
	expect_eq "read requests" "$(( $(vstat ssat-f req_r) - r0 ))" $n || rc=1
	python3 - "$WORK/trace.txt" "$dev" $n <<'PY' || rc=1
import re, sys
path, dev, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
joins, kids, others = [], [], []
for line in open(path):
    m = re.search(r"ssastripe_(\w+): (\d+:\d+) id=(\d+)(?: child=(\d+))?", line)
    if not m or m.group(2) != dev:
        continue
    ev = (int(m.group(3)), m.group(4))
    {"join": joins, "child_complete": kids}.get(m.group(1), others).append(ev)
ids = [i for i, _ in joins]
bad = []
if others:
    bad.append(f"{len(others)} events that were off")
if len(joins) != n:
    bad.append(f"{len(joins)} joins, want {n}")
if 0 in ids:
    bad.append("a join with id 0")
if len(set(ids)) != len(ids):
    bad.append("two joins with one id")
if sorted(i for i, _ in kids) != sorted(ids):
    bad.append("child completions do not carry the joins' ids")
if any(c != "0" for _, c in kids):
    bad.append("a child completion that is not child 0")
print(f"# {len(joins)} joins, {len(set(ids))} ids, {len(kids)} child completions")
if bad:
    sys.exit("FAIL: " + "; ".join(bad))
PY
	return $rc
}

# A one-chunk request mapped while no ssastripe event has a probe keeps
# nothing but its member (ssa_map_fast()), and emits no event even if the
# completion events are on by the time it completes: a read is held in a
# suspended member while they are turned on, and completes with the right
# data, counted, and unseen by the trace.  The next read, mapped with them
# on, is seen: one join, one child completion, one request record.
fast_path_events_midflight() {
	local rc=0 members want p dev i r0
	read4k() {
		dd if=/dev/mapper/ssat-f bs=4k count=1 iflag=direct status=none |
			sha256sum | cut -d' ' -f1
	}
	mkdir -p "$WORK"
	# the volume's first 4 KiB, written below it: a write to the volume
	# would have udev read it (and emit events) once dd closes it
	dd if=/dev/urandom of="$WORK/blk" bs=4k count=1 status=none
	dd if="$WORK/blk" of=/dev/ram0 bs=4k count=1 oflag=direct status=none || return 1
	want=$(sha256sum < "$WORK/blk" | cut -d' ' -f1)
	members=$(lin_members 2 8192) || return 1
	vol_create ssat-f 16384 stripe 128 "$members" || return 1
	dev=$(dmsetup info -c --noheadings -o major,minor ssat-f | tr -d ' ')
	r0=$(vstat ssat-f req_r)
	dmsetup suspend ssat-m0 || return 1
	( [ "$(read4k)" = "$want" ] || echo "FAIL: held read" ) > "$WORK/r1" &
	p=$!
	for ((i = 0; i < 100; i++)); do
		[ "$(mstat ssat-f 0 inflight)" = 1 ] && break
		sleep 0.1
	done
	expect_eq "the held read is in flight on member 0" "$(mstat ssat-f 0 inflight)" 1 || rc=1
	trace_start_only ssastripe_join ssastripe_child_complete ssastripe_request ||
		{ dmsetup resume ssat-m0; wait $p; return 1; }
	dmsetup resume ssat-m0
	wait $p
	[ "$(read4k)" = "$want" ] || echo "FAIL: second read" >> "$WORK/r1"
	trace_stop "$WORK/trace.txt"
	cat "$WORK/r1"
	grep -q FAIL "$WORK/r1" && { fail "a read returned the wrong data"; rc=1; }
	expect_eq "read requests" "$(( $(vstat ssat-f req_r) - r0 ))" 2 || rc=1
	expect_eq "nothing in flight" "$(mstat_all ssat-f inflight)" "0 0" || rc=1
	local ev
	for ev in join child_complete request; do
		expect_eq "$ev events (the second read's only)" \
			"$(grep -c "ssastripe_$ev: $dev " "$WORK/trace.txt")" 1 || rc=1
	done
	return $rc
}

# ssastripe_request with the completion events on as well: a one-chunk
# request keeps its record in its per-bio data, and is completed through
# the general completion path (the join event needs it), which must hand
# that record to the event and not to the per-CPU record cache.  Forked
# requests (two chunks) read next take their records from that cache.
# Every request gives one record, with its join's id; a one-chunk record
# has one child, no wait, and its service time is its response time.
fast_path_record_and_join() {
	local rc=0 dev
	vol_create ssat-f 32768 stripe 128 "$(ram_members 4)" || return 1
	dev=$(dmsetup info -c --noheadings -o major,minor ssat-f | tr -d ' ')
	mkdir -p "$WORK"
	trace_start_only ssastripe_request ssastripe_join ssastripe_child_complete || return 1
	dd if=/dev/mapper/ssat-f of=/dev/null bs=4k count=32 iflag=direct status=none ||
		{ fail "dd 4k failed"; rc=1; }
	dd if=/dev/mapper/ssat-f of=/dev/null bs=128k count=8 iflag=direct status=none ||
		{ fail "dd 128k failed"; rc=1; }
	trace_stop "$WORK/trace.txt"
	python3 - "$WORK/trace.txt" "$dev" <<'PY' || rc=1
import re, sys
path, dev = sys.argv[1], sys.argv[2]
joins, recs = [], []
for line in open(path):
    m = re.search(r"ssastripe_(join|request): (\d+:\d+) id=(\d+)(.*)", line)
    if not m or m.group(2) != dev:
        continue
    if m.group(1) == "join":
        joins.append(int(m.group(3)))
        continue
    f = dict(kv.split("=") for kv in m.group(4).split() if "=" in kv)
    recs.append((int(m.group(3)), f))
bad = []
if len(recs) != 40 or len(joins) != 40:
    bad.append(f"{len(recs)} records and {len(joins)} joins, want 40 of each")
if sorted(i for i, _ in recs) != sorted(joins):
    bad.append("records do not carry their joins' ids")
one = [f for _, f in recs if f["len"] == "8"]
two = [f for _, f in recs if f["len"] == "256"]
if [f["sector"] for f in one] != [str(8 * i) for i in range(32)]:
    bad.append("one-chunk records' sectors are not 0, 8, ... 248")
for f in one:
    if (f["children"], f["status"], f["max_wait_ns"], f["skew_ns"]) != ("1/1", "0", "0", "0") \
            or f["max_service_ns"] != f["resp_ns"] or int(f["resp_ns"]) <= 0:
        bad.append(f"one-chunk record {f}")
        break
if len(two) != 8 or any(f["children"] != "2/2" or f["status"] != "0" for f in two):
    bad.append(f"two-chunk records: {two}")
print(f"# {len(one)} one-chunk and {len(two)} two-chunk records, {len(joins)} joins")
if bad:
    sys.exit("FAIL: " + "; ".join(bad))
PY
	vol_remove ssat-f
	return $rc
}

# The per-bio data of a stripe volume has room for a one-chunk record; a
# mirror volume's has not.  A live reload from mirror to stripe (DM then
# sizes the per-bio data anew) and back, with ssastripe_request on: the
# stripe's one-chunk reads record in their per-bio data and read back what
# lies on the members, the mirror's take records of their own.
fast_path_record_after_reload() {
	local rc=0 dev v=/dev/mapper/ssat-f n
	mkdir -p "$WORK"
	# the stripe's first two chunks (64 KiB each), written below it
	head -c $((128 << 10)) /dev/urandom > "$WORK/pat"
	dd if="$WORK/pat" of=/dev/ram0 bs=64k count=1 oflag=direct status=none &&
		dd if="$WORK/pat" of=/dev/ram1 bs=64k skip=1 count=1 oflag=direct status=none ||
		return 1
	vol_create ssat-f 16384 mirror 128 "$(ram_members 4)" || return 1
	dev=$(dmsetup info -c --noheadings -o major,minor ssat-f | tr -d ' ')
	dmsetup reload ssat-f --table "0 16384 ssastripe stripe 128 4 $(ram_members 4)" &&
		dmsetup suspend ssat-f && dmsetup resume ssat-f || { fail "reload to stripe"; return 1; }
	trace_start_only ssastripe_request || return 1
	dd if=$v of="$WORK/back" bs=4k count=32 iflag=direct status=none ||
		{ fail "4k reads through the stripe"; rc=1; }
	trace_stop "$WORK/stripe.txt"
	cmp -s "$WORK/pat" "$WORK/back" || { fail "the stripe read other data than its members hold"; rc=1; }
	n=$(grep -c "ssastripe_request: $dev id=[0-9]* read .*len=8 children=1/1 status=0 " "$WORK/stripe.txt")
	expect_eq "stripe: one-chunk read records" "$n" 32 || rc=1

	dmsetup reload ssat-f --table "0 16384 ssastripe mirror 128 4 $(ram_members 4)" &&
		dmsetup suspend ssat-f && dmsetup resume ssat-f || { fail "reload to mirror"; rc=1; }
	trace_start_only ssastripe_request || return 1
	dd if=$v of=/dev/null bs=4k count=8 iflag=direct status=none ||
		{ fail "4k reads through the mirror"; rc=1; }
	trace_stop "$WORK/mirror.txt"
	n=$(grep -c "ssastripe_request: $dev id=[0-9]* read .*len=8 children=1/1 status=0 " "$WORK/mirror.txt")
	expect_eq "mirror: one-chunk read records" "$n" 8 || rc=1
	vol_remove ssat-f
	return $rc
}

# ssastripe_record alone keeps records as ssastripe_request does: each
# request on a stripe (one-chunk reads record in their per-bio data, the
# two-chunk ones in records of their own) and on a mirror (all in records
# of their own) gives one event,
# after its join, with as many slots as children.  The ids are the
# requests' own: the one-chunk path draws them at the map only while some
# event that follows the request is on.
record_event_only() {	# record_event_only LAYOUT
	local rc=0 dev layout=$1
	vol_create ssat-f 32768 "$layout" 128 "$(ram_members 4)" || return 1
	dev=$(dmsetup info -c --noheadings -o major,minor ssat-f | tr -d ' ')
	mkdir -p "$WORK"
	trace_start_only ssastripe_record || return 1
	dd if=/dev/mapper/ssat-f of=/dev/null bs=4k count=32 iflag=direct status=none ||
		{ fail "dd 4k failed"; rc=1; }
	dd if=/dev/mapper/ssat-f of=/dev/null bs=128k count=8 iflag=direct status=none ||
		{ fail "dd 128k failed"; rc=1; }
	trace_stop "$WORK/trace.txt"
	python3 - "$WORK/trace.txt" "$dev" "$layout" <<'PY' || rc=1
import re, sys
path, dev, layout = sys.argv[1:]
ids, slots = [], []
for line in open(path):
    m = re.search(r"ssastripe_(\w+): (\d+:\d+) id=(\d+) slots=(\d+)$", line.strip())
    if m and m.group(2) == dev:
        if m.group(1) != "record":
            sys.exit(f"FAIL: an event that was off: {line}")
        ids.append(int(m.group(3)))
        slots.append(int(m.group(4)))
# both layouts split a read at the chunk: two children from 128 KiB
want = [1] * 32 + [2] * 8
bad = []
if slots != want:
    bad.append(f"slots {slots}, want {want}")
if len(set(ids)) != len(ids) or 0 in ids:
    bad.append(f"ids not unique and drawn: {ids}")
print(f"# {len(ids)} records, slots {sorted(set(slots))}")
if bad:
    sys.exit("FAIL: " + "; ".join(bad))
PY
	vol_remove ssat-f
	return $rc
}

register fast_path_counts fast_path_counts
register fast_path_completion_events fast_path_completion_events
register fast_path_events_midflight fast_path_events_midflight
register fast_path_record_and_join fast_path_record_and_join
register fast_path_record_after_reload fast_path_record_after_reload
register record_event_only_stripe record_event_only stripe
register record_event_only_mirror record_event_only mirror
