# SPDX-License-Identifier: GPL-2.0-only
# ssatrace, the libbpf tracer: records match fio and the status counters,
# timestamps are ordered, response times agree with fio's, JSON, binary
# (decoded afterwards) and histogram modes, filters, a ring-buffer overrun that loses records
# without harm, two volumes traced at once, parity children and records
# too small for a request's children, and attaching or detaching while
# requests are in flight.

CHECK_SSAT=$TOP/tests/kernel/check_ssatrace.py

ssat_ready() {
	[ -x "$SSATRACE" ] || { skip "build/ssatrace/ssatrace not built"; return 1; }
}

# sum of a member field over members 0..N-1
msum() {
	local n=$2 f=$3 m t=0
	for ((m = 0; m < n; m++)); do t=$((t + $(mstat "$1" $m "$f"))); done
	echo $t
}

# Members of its own with 10 ms service: fio's clat also holds the time
# from fio to the fork and from the join back to fio, CPU work that
# stretches when the host running the guest is busy (by 0.4-1.1 ms under
# TCG).  Beside 2 ms services that was 6-14 % of clat; beside 10 ms it is
# a few per cent, so the 10 % check tests the tracer, not the host.
ssatrace_record() {	# ssatrace_record csv|json
	local fmt=$1 rc=0 members
	ssat_ready || return $KSFT_SKIP
	members=$(cfg_nullb_members 4 10000000) || return 1
	vol_create ssat-s $((4 * 65536)) stripe 16 "$members" 2 queue_depth 1 || return 1
	local r0 d0
	r0=$(( $(vstat ssat-s req_r) + $(vstat ssat-s req_w) ))
	d0=$(msum ssat-s 4 dlow)
	ssatrace_start record --format "$fmt" -o "$WORK/rec.$fmt" || { fail "ssatrace did not start"; return 1; }
	(cd "$WORK" && fio --name=s --filename=/dev/mapper/ssat-s --direct=1 --ioengine=libaio \
		--rw=randrw --bssplit=4k/60:32k/20:64k/20 --iodepth=4 --number_ios=1000 \
		--output-format=json --output="$WORK/fio.json") || { fail "fio failed"; rc=1; }
	sleep 1
	ssatrace_stop
	cat "$WORK/ssatrace.err"
	python3 "$CHECK_SSAT" "$WORK/rec.$fmt" --format "$fmt" > "$WORK/sum.json" ||
		{ fail "record check failed"; rc=1; }
	cat "$WORK/sum.json"
	local requests dispatched
	requests=$(( $(vstat ssat-s req_r) + $(vstat ssat-s req_w) - r0 ))
	dispatched=$(( $(msum ssat-s 4 dlow) - d0 ))
	python3 - "$WORK/sum.json" "$WORK/fio.json" "$requests" "$dispatched" <<'PY' || rc=1
import json, sys
s = json.load(open(sys.argv[1]))
jobs = json.load(open(sys.argv[2]))["jobs"]
requests, dispatched = int(sys.argv[3]), int(sys.argv[4])
ios = sum(j[d]["total_ios"] for j in jobs for d in ("read", "write"))
clat = sum(j[d]["clat_ns"]["mean"] * j[d]["total_ios"] for j in jobs for d in ("read", "write")) / ios
fio = s["by_comm"].get("fio", {"records": 0, "mean_resp_ns": 0})
ok = True
def want(what, got, exp):
    global ok
    print(f"# {what}: {got} (want {exp})")
    if got != exp:
        print(f"FAIL: {what}")
        ok = False
want("records = requests in status", s["records"], requests)
want("children = dispatched in status", s["children"], dispatched)
want("fio's records = fio's I/Os", fio["records"], ios)
# 4 KiB requests stay inside a chunk: remapped, joined as their child completes
want("one-child records joined at the child's completion", s["joined_at_completion"], s["one_child"])
if not s["one_child"]:
    print("FAIL: no one-child records")
    ok = False
# The record's response time lies inside fio's completion latency (fio's
# clock starts before the submission reaches the target and stops after
# the completion reaches fio), and every request waited at least for its
# member's 10 ms timer.  How much less than fio's it is depends on how
# fast the guest runs fio, so only the bounds are checked.
resp = fio["mean_resp_ns"]
print(f"# mean response {resp/1e3:.1f} us, fio clat mean {clat/1e3:.1f} us, {1 - resp/clat:.1%} below it")
if not 10e6 <= resp <= clat * 1.001:
    print("FAIL: mean response time outside [10 ms, fio's mean completion latency]")
    ok = False
sys.exit(0 if ok else 1)
PY
	grep -q " 0 lost" "$WORK/ssatrace.err" || { fail "records were lost"; rc=1; }
	grep -q " 0 children not recorded, 0 requests truncated" "$WORK/ssatrace.err" ||
		{ fail "children were not recorded"; rc=1; }
	return $rc
}

# --format bin (record's default for a file named neither .csv nor .json):
# the ring buffer's contents written as they are, decoded
# afterwards, are the CSV lines a second ssatrace recorded beside it,
# record for record (sorted, so a record lost or written twice shows), and
# as many as the requests the status counters saw.  The binary recorder's
# ring buffer is the smallest there is (16 KiB, some 120 one-child records)
# and the run writes tens of times that, so the reader's stretches wrap
# around its end again and again.  A file cut short or not of this format
# is refused with its message.
ssatrace_record_bin() {
	local rc=0 members pid_csv n i r0 requests bytes
	ssat_ready || return $KSFT_SKIP
	members=$(cfg_nullb_members 4 2000000) || return 1
	vol_create ssat-s $((4 * 65536)) stripe 16 "$members" 2 queue_depth 1 || return 1
	mkdir -p "$WORK"
	r0=$(( $(vstat ssat-s req_r) + $(vstat ssat-s req_w) ))
	"$SSATRACE" record -o "$WORK/rec.csv" 2> "$WORK/csv.err" &
	pid_csv=$!
	for i in $(seq 240); do
		grep -q "tracing dm-ssastripe" "$WORK/csv.err" && break
		sleep 0.25
	done
	# no --format: binary, for a file named neither .csv nor .json
	ssatrace_start record -b 16 -o "$WORK/rec.trace" ||
		{ fail "ssatrace (binary) did not start"; stop_tracer "$pid_csv" ssatrace; return 1; }
	(cd "$WORK" && fio --name=s --filename=/dev/mapper/ssat-s --direct=1 --ioengine=libaio \
		--rw=randrw --bssplit=4k/60:32k/20:64k/20 --iodepth=4 --number_ios=1500 \
		--output="$WORK/fio.out") || { fail "fio failed"; rc=1; }
	sleep 1
	ssatrace_stop
	stop_tracer "$pid_csv" ssatrace
	requests=$(( $(vstat ssat-s req_r) + $(vstat ssat-s req_w) - r0 ))
	cat "$WORK/ssatrace.err" "$WORK/csv.err"
	grep -q " 0 lost" "$WORK/ssatrace.err" && grep -q " 0 lost" "$WORK/csv.err" ||
		{ fail "records were lost"; rc=1; }
	"$SSATRACE" decode "$WORK/rec.trace" -o "$WORK/dec.csv" 2> "$WORK/dec.err" ||
		{ cat "$WORK/dec.err"; fail "decode failed"; rc=1; }
	cat "$WORK/dec.err"
	n=$(($(wc -l < "$WORK/rec.csv") - 1))
	expect_eq "CSV records = requests in status" "$n" "$requests" || rc=1
	grep -q "^ssatrace: $requests records, 0 lost" "$WORK/ssatrace.err" ||
		{ fail "the binary recorder did not count $requests records"; rc=1; }
	grep -q "^ssatrace: $requests records decoded$" "$WORK/dec.err" ||
		{ fail "decode did not count $requests records"; rc=1; }
	expect_eq "decoded records = CSV records" "$(sort "$WORK/dec.csv" | sha256sum)" \
		"$(sort "$WORK/rec.csv" | sha256sum)" || rc=1
	bytes=$(stat -c %s "$WORK/rec.trace")
	info "$bytes bytes of records through a 16 KiB ring buffer"
	[ "$bytes" -gt $((10 * 16384)) ] ||
		{ fail "the ring buffer did not wrap around ten times ($bytes bytes)"; rc=1; }
	head -c $((bytes - 10)) "$WORK/rec.trace" > "$WORK/cut.bin"
	"$SSATRACE" decode "$WORK/cut.bin" -o /dev/null 2> "$WORK/cut.err" &&
		{ fail "a file cut short decoded without an error"; rc=1; }
	grep -q "cut short after $((n - 1)) records" "$WORK/cut.err" ||
		{ cat "$WORK/cut.err"; fail "no message for the cut file"; rc=1; }
	"$SSATRACE" decode "$WORK/rec.csv" -o /dev/null 2> "$WORK/bad.err" &&
		{ fail "a CSV file decoded"; rc=1; }
	grep -q "not a file of ssatrace record --format bin" "$WORK/bad.err" ||
		{ cat "$WORK/bad.err"; fail "no message for a file of another format"; rc=1; }
	return $rc
}

# The histograms are counted in BPF and printed as what each gained since
# the last print, so the counts summed over all prints must equal what the
# status counters say happened: one response time per request, one queueing
# and one service time per dispatched child, per member.
ssatrace_hist() {
	local rc=0 m r0 d d0=()
	ssat_ready || return $KSFT_SKIP
	vol_create ssat-s $((4 * 65536)) stripe 16 "$(nullb_members 4)" 2 queue_depth 1 || return 1
	mkdir -p "$WORK"
	r0=$(( $(vstat ssat-s req_r) + $(vstat ssat-s req_w) ))
	for m in 0 1 2 3; do d0+=("$(mstat ssat-s $m dlow)"); done
	ssatrace_start hist -i 1 -D ssat-s > "$WORK/hist.txt" ||
		{ cat "$WORK/hist.txt"; fail "ssatrace did not start"; return 1; }
	(cd "$WORK" && fio --name=s --filename=/dev/mapper/ssat-s --direct=1 --ioengine=libaio \
		--rw=randrw --bssplit=4k/70:64k/30 --iodepth=8 --time_based --runtime=3 \
		--output-format=terse >/dev/null) || { fail "fio failed"; rc=1; }
	sleep 1.5
	ssatrace_stop
	cat "$WORK/ssatrace.err"
	head -30 "$WORK/hist.txt"
	local re
	for re in "device $(dm_major ssat-s):[0-9]+ read: response time" \
		"device $(dm_major ssat-s):[0-9]+ write: response time" \
		"member 3 low: queueing time" "member 0 low: service time" \
		"^ +[0-9]+ -> [0-9]+ +: [0-9]+ +\|\*"; do
		grep -Eq "$re" "$WORK/hist.txt" || { fail "histogram output lacks /$re/"; rc=1; }
	done
	[ "$(grep -c "read: response time" "$WORK/hist.txt")" -ge 2 ] ||
		{ fail "-i 1 over 3 s printed fewer than two read histograms"; rc=1; }
	local sums requests
	sums=$(python3 "$CHECK_SSAT" "$WORK/hist.txt" --format hist)
	info "sums: $sums"
	hsum() { python3 -c 'import json, sys; print(json.loads(sys.argv[1]).get(sys.argv[2], 0))' "$sums" "$1"; }
	requests=$(( $(vstat ssat-s req_r) + $(vstat ssat-s req_w) - r0 ))
	expect_eq "response times counted vs requests in status" "$(hsum response)" $requests || rc=1
	for m in 0 1 2 3; do
		d=$(( $(mstat ssat-s $m dlow) - d0[m] ))
		expect_eq "member $m queueing times vs dispatched" "$(hsum m$m.low.queueing)" $d || rc=1
		expect_eq "member $m service times vs dispatched" "$(hsum m$m.low.service)" $d || rc=1
	done
	expect_eq "high-class times (none issued)" "$(hsum high)" 0 || rc=1
	grep -Eq " 0 times lost.* 0 children not recorded" "$WORK/ssatrace.err" ||
		{ fail "times were lost or children not recorded"; rc=1; }
	return $rc
}

ssatrace_filters() {
	local rc=0 n
	ssat_ready || return $KSFT_SKIP
	vol_create ssat-s $((4 * 65536)) stripe 16 "$(nullb_members 4)" || return 1
	vol_create ssat-o 8192 stripe 8 "$(ram_members 2)" || return 1
	load() {
		(cd "$WORK" && fio --name=s --filename=/dev/mapper/ssat-s --direct=1 --ioengine=libaio \
			--rw=randrw --bs=4k --iodepth=4 --number_ios=400 --output-format=terse >/dev/null)
	}
	ssatrace_start record -O write -o "$WORK/w.csv" || return 1
	load; sleep 0.5; ssatrace_stop
	n=$(tail -n +2 "$WORK/w.csv" | wc -l)
	[ "$n" -gt 0 ] || { fail "-O write recorded nothing"; rc=1; }
	tail -n +2 "$WORK/w.csv" | cut -d, -f5 | grep -qv '^write$' && { fail "-O write recorded other ops"; rc=1; }
	ssatrace_start record -D ssat-o -o "$WORK/o.csv" || return 1
	load; sleep 0.5; ssatrace_stop
	expect_eq "records for the idle device" "$(tail -n +2 "$WORK/o.csv" | wc -l)" 0 || rc=1
	ssatrace_start record -m 100000 -o "$WORK/m.csv" || return 1	# >= 100 ms: none
	load; sleep 0.5; ssatrace_stop
	expect_eq "records slower than 100 ms" "$(tail -n +2 "$WORK/m.csv" | wc -l)" 0 || rc=1
	# records that cannot be written end the run with an error and a reason
	# (binary, the default for a file not named .csv: at its header)
	"$SSATRACE" record -o /dev/full -d 5 2> "$WORK/full.err" &&
		{ fail "ssatrace record -o /dev/full (binary) exited 0"; rc=1; }
	grep -q "writing the records failed: No space left on device" "$WORK/full.err" ||
		{ cat "$WORK/full.err"; fail "no write error reported for binary /dev/full"; rc=1; }
	ssatrace_start record -f csv -o /dev/full || return 1
	load
	local i st
	for i in $(seq 40); do kill -0 $SSAT_PID 2>/dev/null || break; sleep 0.25; done
	if kill -0 $SSAT_PID 2>/dev/null; then
		fail "ssatrace record -o /dev/full still running"; ssatrace_stop; rc=1
	else
		wait $SSAT_PID; st=$?
		cat "$WORK/ssatrace.err"
		[ "$st" -ne 0 ] || { fail "ssatrace record -o /dev/full exited 0"; rc=1; }
		grep -q "writing the records failed: No space left on device" "$WORK/ssatrace.err" ||
			{ fail "no write error reported for /dev/full"; rc=1; }
	fi
	"$SSATRACE" record -D /dev/ssat-nonexistent 2>/dev/null && { fail "unknown device accepted"; rc=1; }
	"$SSATRACE" frobnicate 2>/dev/null && { fail "unknown mode accepted"; rc=1; }
	"$SSATRACE" hist --disk -d 1 2>/dev/null && { fail "hist --disk accepted"; rc=1; }
	local b
	for b in 8 24 0 2097152 x; do
		"$SSATRACE" record -b $b -d 1 2>/dev/null && { fail "record -b $b accepted"; rc=1; }
	done
	"$SSATRACE" hist -b 64 -d 1 2>/dev/null && { fail "hist -b accepted"; rc=1; }
	return $rc
}

# Stop ssatrace while a fast volume runs: the 16 MiB ring buffer fills, the
# BPF side counts what it could not send, and nothing breaks.
ssatrace_overrun() {
	local rc=0 r0 requests rec lost
	ssat_ready || return $KSFT_SKIP
	vol_create ssat-s 65536 stripe 8 "$(ram_members 4)" || return 1
	r0=$(( $(vstat ssat-s req_r) + $(vstat ssat-s req_w) ))
	# 16 KiB hold some 120 one-child records; 4000 requests overrun them
	# however fast the guest runs
	ssatrace_start record -b 16 -o "$WORK/rec.csv" || return 1
	kill -STOP $SSAT_PID
	(cd "$WORK" && fio --name=s --filename=/dev/mapper/ssat-s --direct=1 --ioengine=libaio \
		--rw=randread --bs=4k --iodepth=16 --number_ios=4000 --output-format=terse >/dev/null)
	kill -CONT $SSAT_PID
	sleep 1
	ssatrace_stop || { fail "ssatrace exited with an error"; rc=1; }
	cat "$WORK/ssatrace.err"
	requests=$(( $(vstat ssat-s req_r) + $(vstat ssat-s req_w) - r0 ))
	rec=$(sed -n 's/^ssatrace: \([0-9]*\) records, \([0-9]*\) lost.*/\1/p' "$WORK/ssatrace.err")
	lost=$(sed -n 's/^ssatrace: \([0-9]*\) records, \([0-9]*\) lost.*/\2/p' "$WORK/ssatrace.err")
	info "requests=$requests records=$rec lost=$lost"
	[ "${lost:-0}" -gt 0 ] || { fail "no loss reported though the buffer must have filled"; rc=1; }
	expect_eq "records + lost = requests" "$((rec + lost))" "$requests" || rc=1
	expect_eq "records in the file" "$(tail -n +2 "$WORK/rec.csv" | wc -l)" "$rec" || rc=1
	return $rc
}

# Two volumes at once: both number their requests from the same start, so
# only the device tells their records apart.  Each device's records and
# children match its own status counters, up to what the "nested" count
# says was missed; no request is recorded twice.
ssatrace_two_devices() {
	local rc=0 v a b
	local -A r0 d0 dev
	ssat_ready || return $KSFT_SKIP
	vol_create ssat-s $((4 * 65536)) stripe 16 "$(nullb_members 4)" || return 1
	vol_create ssat-o 8192 stripe 8 "$(ram_members 2)" || return 1
	for v in ssat-s ssat-o; do
		r0[$v]=$(( $(vstat $v req_r) + $(vstat $v req_w) ))
		d0[$v]=$(msum $v "$([ $v = ssat-s ] && echo 4 || echo 2)" dlow)
		dev[$v]=$(dmsetup info -c --noheadings -o major,minor $v | tr -d ' ')
	done
	ssatrace_start record -o "$WORK/two.csv" || { fail "ssatrace did not start"; return 1; }
	(cd "$WORK" && fio --direct=1 --ioengine=libaio --rw=randrw --bssplit=4k/50:16k/25:64k/25 \
		--iodepth=8 --number_ios=800 --output-format=terse \
		--name=s --filename=/dev/mapper/ssat-s --name=o --filename=/dev/mapper/ssat-o \
		>/dev/null) || { fail "fio failed"; rc=1; }
	sleep 1
	ssatrace_stop
	cat "$WORK/ssatrace.err"
	python3 "$CHECK_SSAT" "$WORK/two.csv" > "$WORK/two.json" || { fail "record check failed"; rc=1; }
	cat "$WORK/two.json"
	# A handler interrupted by an interrupt that fires the same event on
	# that CPU is not run again (ram members complete in the submitting
	# task, null_blk ones in a timer interrupt): each such "nested" miss
	# costs one record, and no more.
	local missed short=0 got
	missed=$(sed -n 's/.* \([0-9]*\) events missed (nested).*/\1/p' "$WORK/ssatrace.err")
	for v in ssat-s ssat-o; do
		a=$(( $(vstat $v req_r) + $(vstat $v req_w) - ${r0[$v]} ))
		b=$(( $(msum $v "$([ $v = ssat-s ] && echo 4 || echo 2)" dlow) - ${d0[$v]} ))
		got=$(jq_dev "$WORK/two.json" "${dev[$v]}" records)
		info "$v (${dev[$v]}): $got records of $a requests"
		[ "$got" -le "$a" ] || { fail "$v: more records than requests"; rc=1; }
		[ "$got" -gt 0 ] || { fail "$v: no records"; rc=1; }
		short=$((short + a - got))
		if [ "${missed:-0}" = 0 ]; then
			expect_eq "$v records" "$got" "$a" || rc=1
			expect_eq "$v children" "$(jq_dev "$WORK/two.json" "${dev[$v]}" children)" "$b" || rc=1
		fi
	done
	[ "$short" -le "${missed:-0}" ] ||
		{ fail "$short requests unrecorded, but only ${missed:-0} events missed"; rc=1; }
	grep -q " 0 lost (ring buffer full)" "$WORK/ssatrace.err" ||
		{ fail "records were lost"; rc=1; }
	return $rc
}

# hist keeps a row of histograms per device, for the first 16 devices it
# sees: one read on each of 17 volumes must give 16 devices one response
# time each, and the 17th's request counted as lost, not in another's row.
ssatrace_hist_devices() {
	local rc=0 i n=17 sums titles
	ssat_ready || return $KSFT_SKIP
	for ((i = 0; i < n; i++)); do
		vol_create ssat-h$i 64 stripe 8 "/dev/ram0 $((i * 64))" || return 1
	done
	mkdir -p "$WORK"
	ssatrace_start hist > "$WORK/hist.txt" || { fail "ssatrace did not start"; return 1; }
	for ((i = 0; i < n; i++)); do
		dd if=/dev/mapper/ssat-h$i of=/dev/null bs=4k count=1 iflag=direct status=none ||
			{ fail "read of ssat-h$i failed"; rc=1; }
	done
	ssatrace_stop
	cat "$WORK/ssatrace.err"
	titles=$(grep -c "^device [0-9:]* read: response time" "$WORK/hist.txt")
	expect_eq "devices with a read histogram" "$titles" 16 || rc=1
	local last
	last=$(dmsetup info -c --noheadings -o major,minor ssat-h16 | tr -d ' ')
	! grep -q "^device $last " "$WORK/hist.txt" ||
		{ fail "the 17th device ($last) has histograms"; rc=1; }
	sums=$(python3 "$CHECK_SSAT" "$WORK/hist.txt" --format hist)
	expect_eq "response times counted" \
		"$(python3 -c 'import json, sys; print(json.loads(sys.argv[1])["response"])' "$sums")" 16 || rc=1
	grep -q "16 requests in the histograms, 1 times lost (more devices than 16)" \
		"$WORK/ssatrace.err" || { fail "the 17th device's request was not reported lost"; rc=1; }
	return $rc
}

# jq_dev SUMMARY DEV FIELD: a per-device count from check_ssatrace.py's
# summary; DEV "" for a top-level count
jq_dev() {
	python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); d=s["by_dev"].get(sys.argv[2], {}) if sys.argv[2] else s; print(d.get(sys.argv[3], 0))' "$@"
}

# raid5 small writes: each is a read-modify-write of one data chunk and the
# parity, four children on two members (each task a read, then a write of
# the same sectors), the parity's two in the high class.  The records list exactly the children the status counters say
# were dispatched, per class.
ssatrace_parity() {
	local rc=0 m dh=0 dl=0
	ssat_ready || return $KSFT_SKIP
	# write_method rmw: on four members auto takes rcw on a tie (1.17.0)
	vol_create ssat-p $((3 * 16384)) raid5 16 "$(ram_members 4)" 4 initial_sync off \
		write_method rmw || return 1
	local -a h0 l0
	for m in 0 1 2 3; do h0+=("$(mstat ssat-p $m dhigh)"); l0+=("$(mstat ssat-p $m dlow)"); done
	ssatrace_start record --format json -D ssat-p -o "$WORK/p.json" || return 1
	(cd "$WORK" && fio --name=p --filename=/dev/mapper/ssat-p --direct=1 --ioengine=libaio \
		--rw=randwrite --bs=4k --iodepth=4 --number_ios=300 --output-format=terse \
		>/dev/null) || { fail "fio failed"; rc=1; }
	sleep 0.5
	ssatrace_stop
	cat "$WORK/ssatrace.err"
	for m in 0 1 2 3; do
		dh=$((dh + $(mstat ssat-p $m dhigh) - h0[m]))
		dl=$((dl + $(mstat ssat-p $m dlow) - l0[m]))
	done
	python3 "$CHECK_SSAT" "$WORK/p.json" --format json > "$WORK/p.sum" ||
		{ fail "record check failed"; rc=1; }
	python3 - "$WORK/p.json" "$dh" "$dl" <<'PY' || rc=1
import json, sys
every = [json.loads(l) for l in open(sys.argv[1])]
dh, dl = int(sys.argv[2]), int(sys.argv[3])
# (the records are all fio's: udev is held during the suite)
high = sum(c["class"] == "high" for r in every for c in r["children"])
low = sum(r["nr_children"] for r in every) - high
recs = [r for r in every if r["comm"] == "fio"]
shape = {(len(r["children"]), sum(c["class"] == "high" for c in r["children"]),
          len({c["member"] for c in r["children"]})) for r in recs}
print(f"# {len(every)} records, {len(recs)} of fio; {high} high and {low} low children; "
      f"status: {dh} high, {dl} low dispatched; fio's shapes (children, high, members) {shape}")
ok = len(recs) == 300 and all(r["op"] == "write" for r in recs)
ok = ok and high == dh and low == dl and shape == {(4, 2, 2)}
# each task is a read and then a write of the same member sectors
ok = ok and all(r["children"][i]["op"] == "read" and r["children"][i + 1]["op"] == "write" and
                r["children"][i]["member"] == r["children"][i + 1]["member"] and
                r["children"][i]["msector"] == r["children"][i + 1]["msector"]
                for r in recs for i in (0, 2))
print("ok" if ok else "FAIL: records do not match the read-modify-writes issued")
sys.exit(0 if ok else 1)
PY
	return $rc
}

# A request with more children than its record holds (2 x members): with
# coalescing off, a 64 KiB read over 4 KiB chunks on 2 members issues 16
# children and the record keeps the first 4, marked truncated, and the
# exit line counts it.
ssatrace_truncated() {
	local rc=0
	ssat_ready || return $KSFT_SKIP
	vol_create ssat-t 16384 stripe 8 "$(ram_members 2)" 2 coalesce 0 || return 1
	ssatrace_start record --format json -D ssat-t -o "$WORK/t.json" || return 1
	dd if=/dev/mapper/ssat-t of=/dev/null bs=64k count=5 iflag=direct status=none ||
		{ fail "dd failed"; rc=1; }
	dd if=/dev/mapper/ssat-t of=/dev/null bs=4k count=3 iflag=direct status=none
	sleep 0.5
	ssatrace_stop
	cat "$WORK/ssatrace.err"
	python3 "$CHECK_SSAT" "$WORK/t.json" --format json > "$WORK/t.sum" ||
		{ fail "record check failed"; rc=1; }
	python3 - "$WORK/t.json" <<'PY' || rc=1
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
big = [r for r in recs if r["len"] == 128]
small = [r for r in recs if r["len"] == 8]
print(f"# {len(big)} 64 KiB records: nr_children {sorted({r['nr_children'] for r in big})}, "
      f"listed {sorted({len(r['children']) for r in big})}; {len(small)} 4 KiB records")
ok = len(big) == 5 and len(small) == 3
ok = ok and all(r["nr_children"] == 16 and len(r["children"]) == 4 and r["truncated"] and
                [c["child"] for c in r["children"]] == [0, 1, 2, 3] for r in big)
ok = ok and all(not r["truncated"] and len(r["children"]) == 1 for r in small)
print("ok" if ok else "FAIL: truncated records wrong")
sys.exit(0 if ok else 1)
PY
	grep -q " 0 children not recorded, 5 requests truncated" "$WORK/ssatrace.err" ||
		{ fail "exit line should count 5 truncated requests"; rc=1; }
	return $rc
}

# Requests in flight when ssatrace attaches are not recorded (their fork
# came first), and detaching with requests in flight harms nothing.  The
# member is a linear device that is suspended to hold a read in flight:
# one 4 KiB read is held while ssatrace starts, a second one forks after
# it; then a third is held while ssatrace stops.  Only the second is
# recorded; all three read back what was written.
ssatrace_inflight() {
	local rc=0 want got p1 p3
	ssat_ready || return $KSFT_SKIP
	mkdir -p "$WORK"
	dd if=/dev/urandom of=/dev/ram0 bs=4k count=1 oflag=direct status=none || return 1
	want=$(sum4k /dev/ram0)
	dmsetup create ssat-slow --table "0 16384 linear /dev/ram0 0" || return 1
	vol_create ssat-d 16384 stripe 8 "/dev/mapper/ssat-slow 0" || return 1
	dmsetup suspend ssat-slow || return 1
	( [ "$(sum4k /dev/mapper/ssat-d)" = "$want" ] || echo "FAIL: first read" ) > "$WORK/r1" &
	p1=$!
	sleep 0.3
	ssatrace_start record --format json -D ssat-d -o "$WORK/i.json" ||
		{ dmsetup resume ssat-slow; return 1; }
	dmsetup resume ssat-slow
	wait $p1
	got=$(sum4k /dev/mapper/ssat-d)
	[ "$got" = "$want" ] || { fail "second read"; rc=1; }
	dmsetup suspend ssat-slow
	( [ "$(sum4k /dev/mapper/ssat-d)" = "$want" ] || echo "FAIL: third read" ) > "$WORK/r3" &
	p3=$!
	sleep 0.3
	ssatrace_stop || { fail "ssatrace failed to stop"; rc=1; }
	dmsetup resume ssat-slow
	wait $p3
	cat "$WORK/ssatrace.err" "$WORK/r1" "$WORK/r3"
	grep -q FAIL "$WORK/r1" "$WORK/r3" && rc=1
	expect_eq "records" "$(wc -l < "$WORK/i.json")" 1 || rc=1
	python3 "$CHECK_SSAT" "$WORK/i.json" --format json || { fail "record check failed"; rc=1; }
	vol_remove ssat-d
	dmsetup remove ssat-slow
	return $rc
}

# Removing a volume while ssatrace records it frees the records its CPUs
# keep for reuse (ssa_trace_cache_free() with records in the caches: the
# reads span two chunks, since a one-chunk read keeps its record in its
# per-bio data); the
# module cannot be unloaded while ssatrace holds its tracepoint, and can
# be once ssatrace has stopped.  Every request before the removal is
# recorded.
ssatrace_unload() {
	local rc=0
	ssat_ready || return $KSFT_SKIP
	vol_create ssat-u 16384 stripe 8 "$(ram_members 2)" || return 1
	ssatrace_start record -D ssat-u -o "$WORK/u.csv" || return 1
	dd if=/dev/mapper/ssat-u of=/dev/null bs=8k count=200 iflag=direct status=none ||
		{ fail "dd failed"; rc=1; }
	vol_remove ssat-u || { fail "removing the traced volume failed"; rc=1; }
	if rmmod dm_ssastripe 2>/dev/null; then
		fail "rmmod succeeded while ssatrace holds the module's tracepoint"
		insmod "$KO"
		rc=1
	fi
	ssatrace_stop || { fail "ssatrace failed to stop"; rc=1; }
	cat "$WORK/ssatrace.err"
	expect_eq "records" "$(($(wc -l < "$WORK/u.csv") - 1))" 200 || rc=1
	rmmod dm_ssastripe || { fail "rmmod failed once ssatrace stopped"; rc=1; }
	insmod "$KO" || { fail "insmod after rmmod failed"; return 1; }
	return $rc
}

# A failing member in the records: over two members, one of which fails
# every I/O, an 8 KiB read (a child on each member) is recorded with the
# failed child's error on that child and on the request, the healthy
# child's status 0; a 4 KiB read of the healthy member alone succeeds and
# is recorded as such; a 4 KiB read of the failing member alone (a
# remapped request, its record in its per-bio data) fails and is recorded
# with the error.
ssatrace_member_error() {
	local rc=0 members
	ssat_ready || return $KSFT_SKIP
	members=$(lin_members 2 8192) || return 1
	vol_create ssat-e 16384 stripe 8 "$members" || return 1
	dmsetup load ssat-m1 --table "0 8192 error" && dmsetup suspend ssat-m1 &&
		dmsetup resume ssat-m1 || return 1
	ssatrace_start record --format json -D ssat-e -o "$WORK/e.json" || return 1
	dd if=/dev/mapper/ssat-e of=/dev/null bs=8k count=1 iflag=direct status=none 2>/dev/null &&
		{ fail "a read over the failing member succeeded"; rc=1; }
	dd if=/dev/mapper/ssat-e of=/dev/null bs=4k count=1 iflag=direct status=none ||
		{ fail "a read of the healthy member failed"; rc=1; }
	# one chunk, remapped to the failing member: its record is per-bio
	dd if=/dev/mapper/ssat-e of=/dev/null bs=4k skip=1 count=1 iflag=direct status=none \
		2>/dev/null && { fail "a one-chunk read of the failing member succeeded"; rc=1; }
	ssatrace_stop
	cat "$WORK/ssatrace.err"
	python3 "$CHECK_SSAT" "$WORK/e.json" --format json || { fail "record check failed"; rc=1; }
	python3 - "$WORK/e.json" <<'PY' || rc=1
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
got = sorted((r["len"], r["status"], tuple((c["member"], c["status"]) for c in r["children"]))
             for r in recs)
want = [(8, -5, ((1, -5),)), (8, 0, ((0, 0),)), (16, -5, ((0, 0), (1, -5)))]
print(f"# records (sectors, status, (member, status) per child): {got}")
print("ok" if got == want else f"FAIL: want {want}")
sys.exit(0 if got == want else 1)
PY
	return $rc
}

# sum4k DEV: checksum of the device's first 4 KiB, read as one request
sum4k() {
	dd if="$1" bs=4k count=1 iflag=direct status=none | sha256sum | cut -d' ' -f1
}

SCRIBBLE=$TOP/build/tests/scribble
# A BPF program may write the buffer ssastripe_record hands it (a writable
# raw tracepoint); nothing after the event may depend on it.  While
# tests/bpf/scribble.bpf.c writes all ones over every record's request
# and first child, fio writes and verifies data on LAYOUT (a stripe's
# one-chunk requests keep their records in per-bio data, the rest reuse
# records of the per-CPU cache), with ssastripe_request (which fires
# first) in ftrace.  The data reads back; each ssastripe_request event is
# whole; the program ran once per event and found each record whole
# before it wrote.
record_scribbled() {	# record_scribbled LAYOUT
	local rc=0 dev pid layout=$1 size=$((12 << 20)) i n runs sane	# whole stripes of both
	[ -x "$SCRIBBLE" ] || { skip "$SCRIBBLE is not built (make check builds it)"; return; }
	if [ "$layout" = raid5 ]; then
		pvol_create ssat-s $((size / 512)) raid5 128 "$(ram_members 4)" || return 1
	else
		vol_create ssat-s $((size / 512)) "$layout" 128 "$(ram_members 4)" || return 1
	fi
	dev=$(dmsetup info -c --noheadings -o major,minor ssat-s | tr -d ' ')
	mkdir -p "$WORK"
	"$SCRIBBLE" "$dev" > "$WORK/scribble.out" 2>&1 &
	pid=$!
	for ((i = 0; i < 240; i++)); do
		grep -q '^attached' "$WORK/scribble.out" && break
		kill -0 $pid 2>/dev/null || break
		sleep 0.25
	done
	if ! grep -q '^attached' "$WORK/scribble.out"; then
		cat "$WORK/scribble.out"
		stop_tracer $pid scribble
		vol_remove ssat-s
		fail "the scribbler did not attach"
		return
	fi
	trace_start_only ssastripe_request || { stop_tracer $pid scribble; return 1; }
	run_fio verify.fio DEV=/dev/mapper/ssat-s SIZE=$size BSSPLIT="4k/40:12k/20:128k/20:1m/20" ||
		{ fail "fio verify failed with the records written over"; rc=1; }
	trace_stop "$WORK/trace.txt"
	stop_tracer $pid scribble || rc=1
	cat "$WORK/scribble.out"
	read -r _ runs _ sane < <(grep '^runs ' "$WORK/scribble.out")
	n=$(grep -c "ssastripe_request: $dev " "$WORK/trace.txt")
	[ "${n:-0}" -gt 500 ] || { fail "only ${n:-0} ssastripe_request events"; rc=1; }
	expect_eq "scribbler runs (one per ssastripe_request event)" "${runs:-}" "$n" || rc=1
	expect_eq "records whole before the scribble" "${sane:-}" "${runs:-}" || rc=1
	python3 - "$WORK/trace.txt" "$dev" $((size / 512)) <<'PY' || rc=1
import re, sys
path, dev, sectors = sys.argv[1], sys.argv[2], int(sys.argv[3])
ids, bad = set(), []
for line in open(path):
    m = re.search(r"ssastripe_request: (\d+:\d+) id=(\d+) (\w+) (.*)", line)
    if not m or m.group(1) != dev:
        continue
    f = dict(kv.split("=") for kv in m.group(4).split() if "=" in kv)
    valid, total = (int(x) for x in f["children"].split("/"))
    sector, length = int(f["sector"]), int(f["len"])
    # a record reused after the scribble must have been filled in anew
    if m.group(2) in ids or f["status"] != "0" or not 1 <= valid <= total \
            or int(f["resp_ns"]) <= 0 or m.group(3) not in ("read", "write") \
            or length <= 0 or sector + length > sectors \
            or not 0 <= int(f["last"]) < 4:
        bad.append(line.strip())
    ids.add(m.group(2))
print(f"# {len(ids)} ssastripe_request events, {len(bad)} bad")
if bad:
    sys.exit("FAIL: " + "\n".join(bad[:5]))
PY
	vol_remove ssat-s
	return $rc
}

register ssatrace_record_csv ssatrace_record csv
register ssatrace_record_json ssatrace_record json
register ssatrace_record_bin ssatrace_record_bin
register ssatrace_hist ssatrace_hist
register ssatrace_hist_devices ssatrace_hist_devices
register ssatrace_filters ssatrace_filters
register ssatrace_overrun ssatrace_overrun
register ssatrace_two_devices ssatrace_two_devices
register ssatrace_parity ssatrace_parity
register ssatrace_truncated ssatrace_truncated
register ssatrace_inflight ssatrace_inflight
register ssatrace_unload ssatrace_unload
register ssatrace_member_error ssatrace_member_error
register record_scribbled_stripe record_scribbled stripe
register record_scribbled_raid5 record_scribbled raid5
