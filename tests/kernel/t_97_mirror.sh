# SPDX-License-Identifier: GPL-2.0-only
# The mirror layout (RAID 1 and RAID 1/0): data integrity under every read
# policy, what each policy and coalescing do to the children, failing
# members (by message and by a member that starts failing mid-run), and
# rebuild onto a fresh device while fio verifies.
#
# Uses delta/dwrite/dread (t_30), bad_table (t_50) and lin_members (t_60).

# /dev path of a MAJ:MIN device number
devpath() {
	local d
	for d in /sys/class/block/*; do
		[ "$(cat "$d/dev")" = "$1" ] && { echo "/dev/${d##*/}"; return 0; }
	done
	return 1
}

# Every member of every set holds the same bytes: copies_identical NAME
copies_identical() {
	local name=$1 n k set len rc=0 ref s
	local -a t
	read -ra t <<< "$(dmsetup table "$name")"
	n=${t[5]}
	k=$(dmsetup status "$name" | awk '{print $(NF-4)}')
	# member_len = the progress field's denominator
	len=$(dmsetup status "$name" | awk '{split($(NF-1), a, "/"); print a[2]}')
	for ((set = 0; set < n / k; set++)); do
		ref=""
		for ((m = set * k; m < set * k + k; m++)); do
			s=$(sum_dev "$(devpath "${t[$((6 + 2 * m))]}")" "$len" "${t[$((7 + 2 * m))]}")
			[ -z "$ref" ] && ref=$s
			[ "$s" = "$ref" ] || { fail "set $set: member $m differs from member $((set * k))"; rc=1; }
		done
	done
	return $rc
}

# mirror_verify MEMBERS COPIES CHUNK POLICY COALESCE
mirror_verify() {
	local n=$1 k=$2 c=$3 policy=$4 coalesce=$5 rc=0
	local sets=$((n / k)) sb=$((c * 512 * n / k))
	local size=$((((12 << 20) / sb) * sb))
	local cb=$((c * 512))
	local bssplit="512/10:$((cb / 2))/15:$cb/15:$((cb + 1536))/20:$((2 * sb + cb / 2))/20:1m/20"

	wipe 1 $(for ((m = 0; m < n; m++)); do echo /dev/ram$m; done)
	vol_create ssat-v $((size / 512)) mirror "$c" "$(ram_members "$n")" \
		6 copies "$k" read_policy "$policy" coalesce "$coalesce" || return 1
	info "members=$n copies=$k sets=$sets chunk=${cb}B policy=$policy coalesce=$coalesce"
	run_fio verify.fio DEV=/dev/mapper/ssat-v SIZE="$size" BSSPLIT="$bssplit" ||
		{ fail "fio verify reported an error"; rc=1; }
	expect_eq health "$(vstat ssat-v health)" "$(printf 'A%.0s' $(seq "$n"))" || rc=1
	copies_identical ssat-v || rc=1
	# every copy served reads (split and the balancing policies spread them)
	local cr
	for cr in $(mstat_all ssat-v cr); do
		[ "$cr" -gt 0 ] || { fail "a copy served no reads: $(mstat_all ssat-v cr)"; rc=1; break; }
	done
	vol_remove ssat-v
	return $rc
}

# make check: every policy on RAID 1 (K = 2) and RAID 1/0 (6 members,
# K = 3), and a few more shapes; make check-full (SSA_FULL=1): every
# policy x {RAID 1 K = 2, 3; RAID 1/0 4 members K = 2, 6 members K = 3}
# x coalescing on and off.
if [ "$FULL" = 1 ]; then
	for _p in adaptive queue split nearest round_robin; do
		for _s in "raid1_k2 2 2 128" "raid1_k3 3 3 128" "raid10_n4_k2 4 2 16" "raid10_n6_k3 6 3 8"; do
			read -r _name _n _k _c <<< "$_s"
			register "mirror_verify_${_name}_${_p}" mirror_verify "$_n" "$_k" "$_c" "$_p" 1
			register "mirror_verify_${_name}_${_p}_nocoalesce" mirror_verify "$_n" "$_k" "$_c" "$_p" 0
		done
	done
	unset _s _name _n _k _c
else
	for _p in adaptive queue split nearest round_robin; do
		register "mirror_verify_raid1_k2_$_p" mirror_verify 2 2 128 "$_p" 1
		register "mirror_verify_raid10_n6_k3_$_p" mirror_verify 6 3 16 "$_p" 1
	done
	register mirror_verify_raid1_k3_split mirror_verify 3 3 128 split 1
	register mirror_verify_raid10_n4_k2_queue mirror_verify 4 2 128 queue 1
	register mirror_verify_raid10_n4_k2_split_nocoalesce mirror_verify 4 2 8 split 0
	register mirror_verify_raid10_n6_k3_queue_nocoalesce mirror_verify 6 3 8 queue 0
fi
unset _p

# Children of one request, per member, as the status counters see them.
mirror_children() {
	local v=/dev/mapper/ssat-v rc=0 d
	mkdir -p "$WORK"
	head -c $((4 << 20)) /dev/urandom > "$WORK/rand"
	# RAID 1/0: 4 members, 2 sets, 4 KiB chunks
	vol_create ssat-v 16384 mirror 8 "$(ram_members 4)" 4 read_policy split coalesce 1 || return 1

	d=$(delta ssat-v cw dwrite $v $((64 << 10)) 0)
	expect_eq "64 KiB write, coalesced: children per member" "$d" "1 1 1 1" || rc=1
	d=$(delta ssat-v sw dwrite $v $((64 << 10)) 0)
	expect_eq "64 KiB write: sectors per member" "$d" "64 64 64 64" || rc=1
	d=$(delta ssat-v cr dread $v $((64 << 10)) 0)
	expect_eq "64 KiB read, split: children per member" "$d" "1 1 1 1" || rc=1
	d=$(delta ssat-v sr dread $v $((64 << 10)) 0)
	expect_eq "64 KiB read, split: sectors per member" "$d" "32 32 32 32" || rc=1
	# 4 KiB, the split granule, is not split: one copy reads it whole
	d=$(delta ssat-v sr dread $v 4096 4096)
	[ "$d" = "0 0 8 0" ] || [ "$d" = "0 0 0 8" ] ||
		{ fail "4 KiB read of chunk 1, split: sectors per member '$d'"; rc=1; }

	dmsetup message ssat-v 0 read_policy round_robin || rc=1
	d=$(delta ssat-v cr dread $v $((64 << 10)) 0)
	[ "$d" = "1 0 1 0" ] || [ "$d" = "0 1 0 1" ] || [ "$d" = "1 0 0 1" ] || [ "$d" = "0 1 1 0" ] ||
		{ fail "64 KiB read, round_robin: one child per set, got '$d'"; rc=1; }

	# coalescing off: one child per chunk and copy
	dmsetup reload ssat-v --table "0 16384 ssastripe mirror 8 4 $(ram_members 4) 2 coalesce 0" &&
		dmsetup suspend ssat-v && dmsetup resume ssat-v || return 1
	d=$(delta ssat-v cw dwrite $v $((64 << 10)) 0)
	expect_eq "64 KiB write, coalesce 0: children per member" "$d" "8 8 8 8" || rc=1
	d=$(delta ssat-v cr dread $v $((64 << 10)) 0)
	local sum
	sum=$(( ${d// /+} ))
	expect_eq "64 KiB read, coalesce 0, adaptive: one child per chunk" "$sum" 16 || rc=1

	# the status tail and the table round trip
	local st
	st=$(dmsetup status ssat-v)
	expect_eq "status tail" "$(awk '{print $(NF-4), $(NF-3), $(NF-2), $(NF-1), $NF}' <<< "$st")" "2 adaptive idle 8192/8192 0" || rc=1
	expect_eq "table" "$(dmsetup table ssat-v | cut -d' ' -f4-6,15-)" "mirror 8 4 2 coalesce 0" || rc=1
	vol_remove ssat-v
	return $rc
}
register mirror_children mirror_children

# The trace of a mixed run: every fork announces the children it has,
# and a split read has children on every copy of its set.
mirror_trace() {
	local rc=0 tr=$WORK/trace.txt
	mkdir -p "$WORK"
	vol_create ssat-v 24576 mirror 16 "$(ram_members 6)" 4 copies 3 read_policy split || return 1
	trace_start || return 1
	fio --name=t --filename=/dev/mapper/ssat-v --direct=1 --ioengine=libaio --rw=randrw \
		--bssplit=4k/40:64k/30:1m/30 --iodepth=8 --number_ios=300 --size=12m \
		--output="$WORK/fio.out" >/dev/null 2>&1 || { fail "fio failed"; rc=1; }
	trace_stop "$tr"
	python3 "$TOP/tests/kernel/check_trace.py" "$tr" > "$WORK/check.out" ||
		{ cat "$WORK/check.out"; fail "trace lifecycle"; rc=1; }
	python3 - "$tr" <<'EOF' || rc=1
import re, sys
from collections import defaultdict
sys.path.insert(0, __import__("os").environ["TOP"] + "/tests/kernel")
import check_trace as ct
events, _ = ct.parse(open(sys.argv[1]).read())
forks, kids = {}, defaultdict(set)
for e in events:
    key = (e["dev"], e["id"])
    if e["ev"] == "fork":
        forks[key] = e
    elif e["ev"] == "child_queue" and key in forks:
        kids[key].add(e["member"])
# 64 KiB and more: each set's piece is at least 32 KiB, split three ways
big = [k for k, f in forks.items() if f["op"] == "read" and f["len"] >= 128]
bad = [k for k in big if len(kids[k]) != 6]
print(f"# {len(forks)} requests, {len(big)} reads of 64 KiB or more; "
      f"{len(bad)} without a child on all 6 members")
sys.exit(1 if bad or not big else 0)
EOF
	vol_remove ssat-v
	return $rc
}
register mirror_trace mirror_trace

# read_policy nearest sends a read to the copy whose last child ended
# closest to it.  Two copies, both heads at 0: a read near the end goes to
# copy 0 (the tie goes to the first copy), one near the start then to copy 1
# (its head is nearer), and from then on two sequential streams, one near
# the end (A) and one at the start (B), interleaved irregularly (35 A, 15 B),
# stay each on its copy: copy 0 serves exactly the A reads and copy 1 the B
# reads.  Round robin and queue (at one read at a time, ties rotate) would
# split them about evenly between the copies.
mirror_nearest() {
	local rc=0 len=32768 v=/dev/mapper/ssat-v i a=0 b=0 seq r0 r1
	vol_create ssat-v $len mirror 128 "$(ram_members 2)" 2 read_policy nearest || return 1
	seq=$(python3 -c 'import random; r = random.Random(5); s = ["A"] * 35 + ["B"] * 15; r.shuffle(s); print("A B " + " ".join(s))')
	r0=$(mstat ssat-v 0 cr) r1=$(mstat ssat-v 1 cr)
	for i in $seq; do
		if [ "$i" = A ]; then	# 4 KiB reads from 15 MiB up
			dd if=$v of=/dev/null bs=4k count=1 skip=$((3840 + a)) iflag=direct status=none || rc=1
			a=$((a + 1))
		else			# 4 KiB reads from 0 up
			dd if=$v of=/dev/null bs=4k count=1 skip=$b iflag=direct status=none || rc=1
			b=$((b + 1))
		fi
	done
	expect_eq "reads served by copy 0 (the stream near the end)" $(($(mstat ssat-v 0 cr) - r0)) $a || rc=1
	expect_eq "reads served by copy 1 (the stream at the start)" $(($(mstat ssat-v 1 cr) - r1)) $b || rc=1
	vol_remove ssat-v
	return $rc
}
register mirror_nearest mirror_nearest

# read_policy queue sends reads to the copy with fewer children waiting:
# copy 0 is slow (dm-delay, 20 ms), copy 1 is a ramdisk.
mirror_queue_policy() {
	local rc=0 c0 c1 policy
	mkdir -p "$WORK"
	dmsetup create ssat-slow --table "0 65536 delay /dev/ram0 0 20" || return 1
	for policy in queue round_robin; do
		vol_create ssat-v 32768 mirror 128 "/dev/mapper/ssat-slow 0 /dev/ram1 0" 2 read_policy $policy || return 1
		fio --name=q --filename=/dev/mapper/ssat-v --direct=1 --ioengine=libaio --rw=randread \
			--bs=4k --iodepth=8 --runtime=3 --time_based --output="$WORK/fio.out" >/dev/null 2>&1 ||
			{ fail "fio failed"; rc=1; }
		c0=$(mstat ssat-v 0 cr)
		c1=$(mstat ssat-v 1 cr)
		info "$policy: reads on the slow copy $c0, on the fast copy $c1"
		if [ $policy = queue ]; then
			[ "$c1" -gt $((10 * c0)) ] || { fail "queue: fast copy served $c1, slow $c0"; rc=1; }
		else
			[ $((c0 - c1)) -le 1 ] && [ $((c1 - c0)) -le 1 ] ||
				{ fail "round_robin: $c0 vs $c1"; rc=1; }
		fi
		vol_remove ssat-v
	done
	dmsetup remove ssat-slow
	# one sequential stream, one read at a time: every copy is idle when
	# a read is chosen, so "queue" has a tie each time, and the copy the
	# stream is on (its last child ended where the read starts) takes it:
	# the stream stays on one copy (round robin would alternate them)
	vol_create ssat-v 32768 mirror 128 "/dev/ram0 0 /dev/ram1 0" 2 read_policy queue || return 1
	fio --name=s --filename=/dev/mapper/ssat-v --direct=1 --ioengine=psync --rw=read \
		--bs=64k --number_ios=256 --output="$WORK/fio.out" >/dev/null 2>&1 ||
		{ fail "fio (sequential) failed"; rc=1; }
	c0=$(mstat ssat-v 0 cr)
	c1=$(mstat ssat-v 1 cr)
	info "queue, one sequential stream: reads on copy 0 $c0, on copy 1 $c1"
	[ $((c0 + c1)) -ge 256 ] && { [ "$c0" -le 1 ] || [ "$c1" -le 1 ]; } ||
		{ fail "queue: a sequential stream moved between copies ($c0 / $c1)"; rc=1; }
	vol_remove ssat-v
	return $rc
}
register mirror_queue_policy mirror_queue_policy

# The default read policy, adaptive, spreads one sequential stream over
# every copy, as md's raid10 does.  RAID 1/0: 4 members, 2 sets, 64 KiB
# chunks, no options; 1 MiB reads one at a time.  Each read's piece on a
# set (512 KiB, coalesced) finds both copies idle and is divided, 256 KiB
# from each: every member serves one child of 512 sectors per read.  Under
# read_policy queue the same stream stays on one copy of each set.  Small
# random reads, 8 deep, are never divided (one child per read), and what
# 1 MiB writes put down reads back through the divided path intact (fio
# verify=crc32c, one 1 MiB read at a time).
mirror_adaptive_read() {	# the reads of mirror_adaptive
	case $1 in
	stream) dd if=/dev/mapper/ssat-v of=/dev/null bs=1M count="$2" iflag=direct status=none ;;
	random) fio --name=r --filename=/dev/mapper/ssat-v --direct=1 --ioengine=libaio \
			--rw=randread --bs=4k --iodepth=8 --number_ios="$2" --randseed=7 \
			--output="$WORK/fio-r.out" >/dev/null 2>&1 ;;
	esac
}
mirror_adaptive() {
	local v=/dev/mapper/ssat-v rc=0 n=32 d r0 set
	local -a c
	mkdir -p "$WORK"
	vol_create ssat-v 65536 mirror 128 "$(ram_members 4)" || return 1
	expect_eq "default read_policy" "$(dmsetup status ssat-v | awk '{print $(NF-3)}')" adaptive || rc=1
	fio --name=w --filename=$v --direct=1 --ioengine=psync --rw=write --bs=1m --size=32m \
		--verify=crc32c --verify_fatal=1 --output="$WORK/fio.out" >/dev/null 2>&1 ||
		{ fail "fio (write, read back, verify) failed"; rc=1; }
	fio_clean "$WORK/fio.out" || { fail "fio verify reported an error"; rc=1; }

	d=$(delta ssat-v cr mirror_adaptive_read stream $n)
	expect_eq "1 MiB stream, adaptive: read children per member" "$d" "$n $n $n $n" || rc=1
	d=$(delta ssat-v sr mirror_adaptive_read stream $n)
	expect_eq "1 MiB stream, adaptive: sectors per member" "$d" \
		"$((n * 512)) $((n * 512)) $((n * 512)) $((n * 512))" || rc=1

	dmsetup message ssat-v 0 read_policy queue || rc=1
	d=$(delta ssat-v cr mirror_adaptive_read stream $n)
	info "1 MiB stream, queue: read children per member $d"
	read -ra c <<< "$d"
	for set in 0 1; do
		[ $((c[2 * set] + c[2 * set + 1])) -eq $n ] &&
			{ [ "${c[2 * set]}" -le 1 ] || [ "${c[2 * set + 1]}" -le 1 ]; } ||
			{ fail "queue: set $set's piece of the stream was divided or moved ($d)"; rc=1; }
	done

	dmsetup message ssat-v 0 read_policy adaptive || rc=1
	r0=$(vstat ssat-v req_r)
	d=$(delta ssat-v cr mirror_adaptive_read random 2000)
	fio_clean "$WORK/fio-r.out" || { fail "fio (random reads) reported an error"; rc=1; }
	expect_eq "4 KiB random reads, adaptive: children per read" \
		"$(( ${d// /+} ))" "$(($(vstat ssat-v req_r) - r0))" || rc=1
	info "4 KiB random reads, adaptive: read children per member $d"
	vol_remove ssat-v
	return $rc
}
register mirror_adaptive mirror_adaptive

# fio verify while a member fails: random writes, each block read back and
# checked soon after it was written (verify_backlog).  The load is not
# timed: it runs until the volume's health shows the failure and 200 more
# requests have arrived after it (at most 60 s), then fio is stopped
# (SIGINT, which it takes as the end of its run).  On a single-threaded TCG
# guest loading and resuming an error table under this load has taken close
# to 3 s, longer than a fixed run was sure to last.
# mirror_fail_run NAME SIZE_BYTES CMD... : CMD runs once fio's writes arrive
mirror_fail_run() {
	local name=$1 size=$2 rc=0 i n0
	shift 2
	(cd "$WORK" && exec fio --name=v --filename=/dev/mapper/$name --direct=1 --ioengine=libaio \
		--rw=randwrite --bssplit=4k/30:64k/40:512k/30 --iodepth=16 --size="$size" \
		--verify=crc32c --verify_fatal=1 --verify_backlog=16 --time_based --runtime=600 \
		--output="$WORK/fio.out" >/dev/null 2>&1) &
	local pid=$! t0
	wait_io "$name" || rc=1
	sleep 0.3
	t0=$EPOCHREALTIME
	"$@" || { fail "could not fail the member: $*"; rc=1; }
	info "failing it took $(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }') s"
	for ((i = 0; i < 300; i++)); do
		[[ $(vstat "$name" health) == *D* ]] && break
		sleep 0.1
	done
	n0=$(vstat "$name" req_w)
	for ((i = 0; i < 300; i++)); do
		[ $(($(vstat "$name" req_w) - n0)) -ge 200 ] && break
		kill -0 $pid 2>/dev/null || break
		sleep 0.1
	done
	info "member failed with fio running: $(kill -0 $pid 2>/dev/null && echo yes || echo no)"
	kill -INT $pid 2>/dev/null
	wait $pid
	fio_clean "$WORK/fio.out" ||
		{ fail "fio reported an error"; grep -iE "err|verify" "$WORK/fio.out" | head -5; rc=1; }
	info "fio: $(grep -E '^ +(write|read):' "$WORK/fio.out" | tr -s ' ' | tr '\n' ';')"
	return $rc
}

mirror_fail_message() {
	local rc=0 ev0 ev1 w1
	mkdir -p "$WORK"
	vol_create ssat-v 32768 mirror 64 "$(ram_members 4)" 2 read_policy split || return 1
	ev0=$(dmsetup info -c --noheadings -o events ssat-v)
	klog_mark
	mirror_fail_run ssat-v 16m dmsetup message ssat-v 0 fail 1 || rc=1
	expect_eq health "$(vstat ssat-v health)" ADAA || rc=1
	# the fail came mid-run: its copy missed writes that its partner took
	info "write children per member: $(mstat_all ssat-v cw)"
	[ "$(mstat ssat-v 0 cw)" -gt "$(mstat ssat-v 1 cw)" ] || { fail "member 1 failed after fio ended"; rc=1; }
	ev1=$(dmsetup info -c --noheadings -o events ssat-v)
	[ "$ev1" -gt "$ev0" ] || { fail "no table event ($ev0 -> $ev1)"; rc=1; }
	klog_since | grep -q "member 1 (.*) failed: by message" || { fail "kernel log does not name member 1"; rc=1; }
	# the failed copy takes no more I/O; the survivor serves all of set 0
	w1=$(mstat ssat-v 1 cw)
	dd if=/dev/urandom of=/dev/mapper/ssat-v bs=1M count=4 oflag=direct status=none || rc=1
	dd if=/dev/mapper/ssat-v of=/dev/null bs=1M count=4 iflag=direct status=none || rc=1
	expect_eq "writes to the failed member" "$(mstat ssat-v 1 cw)" "$w1" || rc=1
	# the last copy of set 0 cannot be failed by hand
	dmsetup message ssat-v 0 fail 0 2>/dev/null && { fail "failing the last copy was accepted"; rc=1; }
	expect_eq "health after refusing" "$(vstat ssat-v health)" ADAA || rc=1
	vol_remove ssat-v
	return $rc
}
register mirror_fail_message mirror_fail_message

# A member that starts failing mid-run (dm-linear swapped for dm-error).
mirror_fail_error() {
	local rc=0 members
	mkdir -p "$WORK"
	members=$(lin_members 4 16384) || return 1
	vol_create ssat-v 32768 mirror 64 "$members" 2 read_policy round_robin || return 1
	klog_mark
	mirror_fail_run ssat-v 16m sh -c 'dmsetup load ssat-m2 --table "0 16384 error" &&
		dmsetup suspend ssat-m2 && dmsetup resume ssat-m2' || rc=1
	expect_eq health "$(vstat ssat-v health)" AADA || rc=1
	[ "$(mstat ssat-v 2 err)" -gt 0 ] || { fail "no errors counted on member 2"; rc=1; }
	klog_since | grep -q "member 2 (.*) failed: I/O error" || { fail "kernel log does not name member 2"; rc=1; }
	# everything reads back from the surviving copies
	fio --name=r --filename=/dev/mapper/ssat-v --direct=1 --ioengine=libaio --rw=read --bs=1m \
		--size=16m --output="$WORK/fio2.out" >/dev/null 2>&1 || { fail "read-back failed"; rc=1; }
	# set 1 now has one copy: when it fails too, I/O to set 1 fails cleanly
	dmsetup load ssat-m3 --table "0 16384 error" && dmsetup suspend ssat-m3 && dmsetup resume ssat-m3
	dd if=/dev/mapper/ssat-v of=/dev/null bs=32k count=1 skip=1 iflag=direct status=none 2>/dev/null &&
		{ fail "a read of a set with no copy left succeeded"; rc=1; }
	dd if=/dev/mapper/ssat-v of=/dev/null bs=32k count=1 iflag=direct status=none ||
		{ fail "a read of set 0 failed"; rc=1; }
	vol_remove ssat-v
	return $rc
}
register mirror_fail_error mirror_fail_error

# Rebuild a failed copy onto a fresh device while fio verifies: new data in
# one half of the volume (randrw with verify), old data in the other half
# read back and checked (verify_only) throughout.
mirror_rebuild() {
	local rc=0 len=65536 half=$((16 << 20)) i st
	mkdir -p "$WORK"
	wipe 32 /dev/ram2
	vol_create ssat-v $len mirror 128 "/dev/ram0 0 /dev/ram1 0" || return 1
	local old="--name=old --filename=/dev/mapper/ssat-v --direct=1 --ioengine=libaio --bs=64k
		--offset=$half --size=$half --verify=crc32c --randseed=7"
	fio $old --rw=write --output="$WORK/old.out" >/dev/null 2>&1 || { fail "writing old data"; return 1; }
	dmsetup message ssat-v 0 fail 1 || return 1

	# the replacement comes in empty: ram2 in place of ram1, rate-limited
	klog_mark
	local rate=3072 t0 t1
	dmsetup reload ssat-v --table "0 $len ssastripe mirror 128 2 /dev/ram0 0 /dev/ram2 0 4 rebuild 1 rebuild_rate $rate" &&
		dmsetup suspend ssat-v && dmsetup resume ssat-v || return 1
	t0=$(date +%s.%N)
	expect_eq "health while rebuilding" "$(vstat ssat-v health)" Aa || rc=1
	dmsetup message ssat-v 0 check 2>/dev/null && { fail "check accepted during the rebuild"; rc=1; }
	dmsetup message ssat-v 0 idle 2>/dev/null && { fail "idle accepted during the rebuild"; rc=1; }
	expect_eq "action while rebuilding" "$(dmsetup status ssat-v | awk '{print $(NF-2)}')" rebuild || rc=1
	(cd "$WORK" && fio --name=new --filename=/dev/mapper/ssat-v --direct=1 --ioengine=libaio \
		--rw=randrw --bssplit=4k/40:64k/40:256k/20 --iodepth=8 --size=$half --verify=crc32c \
		--verify_fatal=1 --verify_backlog=16 --time_based --runtime=4 \
		--output="$WORK/new.out" >/dev/null 2>&1) &
	local pid=$!
	for i in 1 2 3; do
		fio $old --rw=read --verify_only=1 --verify_fatal=1 --output="$WORK/old-$i.out" >/dev/null 2>&1 ||
			{ fail "old data read back wrong during rebuild (pass $i)"; rc=1; }
	done
	# a suspend in the middle: the rebuild stops and goes on after resume
	dmsetup suspend ssat-v && dmsetup resume ssat-v || rc=1
	wait $pid || { fail "fio verify failed during rebuild"; rc=1; }
	st=$(dmsetup status ssat-v | awk '{print $(NF-1)}')
	info "progress after the fio run: $st"
	[ "${st%/*}" -lt "${st#*/}" ] || info "the rebuild finished before fio did (rate too high to overlap)"
	for i in $(seq 240); do
		[ "$(vstat ssat-v health)" = AA ] && break
		sleep 0.25
	done
	t1=$(date +%s.%N)
	expect_eq "health after rebuild" "$(vstat ssat-v health)" AA || rc=1
	# 32 MiB at the rate takes 32768 / rate seconds; the limit is a ceiling
	python3 -c "import sys; t = $t1 - $t0; want = 0.9 * 32768 / $rate
print(f'# rebuild took {t:.1f} s, at least {want:.1f} s at {$rate} KiB/s')
sys.exit(t < want)" || { fail "rebuild ran faster than rebuild_rate"; rc=1; }
	expect_eq "progress after rebuild" "$(dmsetup status ssat-v | awk '{print $(NF-2), $(NF-1)}')" "idle 65536/65536" || rc=1
	klog_since | grep -q "member 1 (.*) rebuilt" || { fail "kernel log does not report the rebuild"; rc=1; }
	copies_identical ssat-v || rc=1
	fio $old --rw=read --verify_only=1 --verify_fatal=1 --output="$WORK/old-end.out" >/dev/null 2>&1 ||
		{ fail "old data wrong after rebuild"; rc=1; }
	# the rebuilt copy alone serves the data: fail the other and read back
	dmsetup message ssat-v 0 fail 0 || rc=1
	fio $old --rw=read --verify_only=1 --verify_fatal=1 --output="$WORK/old-m1.out" >/dev/null 2>&1 ||
		{ fail "old data wrong on the rebuilt copy"; rc=1; }
	vol_remove ssat-v
	return $rc
}
register mirror_rebuild mirror_rebuild

# A write whose only copy that took it is one being rebuilt is an error:
# that copy is not in sync, and with no copy of its set in sync left its
# rebuild has no source and it fails too (md's raid1 counts no write on a
# recovering device either).  Before 1.19.1 both writes below were
# acknowledged: the first once the rebuilding copy took it, the second
# sent to that copy alone.
mirror_write_rebuilding_only() {
	local rc=0 len=16384 v=/dev/mapper/ssat-v members
	mkdir -p "$WORK"
	members=$(lin_members 3 $len) || return 1
	vol_create ssat-v $len mirror 64 "${members% /dev/mapper/ssat-m2 0}" || return 1
	dd if=/dev/urandom of=$v bs=1M count=8 oflag=direct status=none || { fail "writing"; return 1; }
	dmsetup message ssat-v 0 fail 1 || return 1
	# the replacement, rebuilt at 1 KiB/s: after its first window the walk
	# waits 256 s, and reads nothing from member 0 while the test runs
	dmsetup reload ssat-v --table "0 $len ssastripe mirror 64 2 /dev/mapper/ssat-m0 0 \
/dev/mapper/ssat-m2 0 4 rebuild 1 rebuild_rate 1" &&
		dmsetup suspend ssat-v && dmsetup resume ssat-v || return 1
	expect_eq "health while rebuilding" "$(vstat ssat-v health)" Aa || rc=1
	# the copy in sync starts failing: a write lands on the rebuilding one only
	dmsetup load ssat-m0 --table "0 $len error" && dmsetup suspend ssat-m0 &&
		dmsetup resume ssat-m0 || return 1
	klog_mark
	dd if=/dev/urandom of=$v bs=4k count=1 seek=1000 oflag=direct status=none 2>/dev/null &&
		{ fail "a write taken by the rebuilding copy alone was acknowledged"; rc=1; }
	[[ $(vstat ssat-v health) == D* ]] || { fail "member 0 not failed: $(vstat ssat-v health)"; rc=1; }
	# member 0 is failed now: the next write goes to the rebuilding copy alone
	dd if=/dev/urandom of=$v bs=4k count=1 seek=1200 oflag=direct status=none 2>/dev/null &&
		{ fail "a write sent to the rebuilding copy alone was acknowledged"; rc=1; }
	info "health $(vstat ssat-v health); $(klog_since | grep -c 'failed') failure lines"
	vol_remove ssat-v
	return $rc
}
register mirror_write_rebuilding_only mirror_write_rebuilding_only

# Check and repair: the copies of each set compared sector by sector with
# the set's first in-sync copy.  Sectors planted on the members directly
# are counted (each sector of a set once, however many copies differ
# there), a check writes nothing, a repair writes the first copy over the
# others, and a check after it finds none.  Then repairs run while fio
# writes and verifies: the walk holds writes to the window it compares,
# so it never counts a write caught on one copy and not yet on the other,
# nor copies old data over new.
mirror_check_repair() {
	local rc=0 len=32768 mlen=16384 bad v=/dev/mapper/ssat-v i walks pid
	mkdir -p "$WORK"
	# two sets of two copies: members 0, 1 and 2, 3
	vol_create ssat-v $len mirror 128 "$(ram_members 4)" || return 1
	head -c $((len * 512)) /dev/urandom > "$WORK/data"
	dd if="$WORK/data" of=$v bs=1M oflag=direct status=none || { fail "writing the volume"; return 1; }
	bad=$(scrub ssat-v check) || { fail "check did not end: $bad"; rc=1; }
	expect_eq "mismatches after a clean write" "$bad" 0 || rc=1
	expect_eq "status tail after the check" \
		"$(dmsetup status ssat-v | awk '{print $(NF-2), $(NF-1), $NF}')" "idle $mlen/$mlen 0" || rc=1

	# 3 sectors on set 0's second copy; on set 1, 8 on its first copy at
	# 5000 and 8 on its second at 5004: 3 + 12 sectors differ
	head -c $((19 * 512)) /dev/urandom > "$WORK/plant"
	dd if="$WORK/plant" of=/dev/ram1 bs=512 seek=100 count=3 oflag=direct status=none &&
		dd if="$WORK/plant" of=/dev/ram2 bs=512 skip=3 seek=5000 count=8 oflag=direct status=none &&
		dd if="$WORK/plant" of=/dev/ram3 bs=512 skip=11 seek=5004 count=8 oflag=direct status=none ||
		{ fail "planting"; return 1; }
	local planted
	planted=$(dd if=/dev/ram1 bs=512 skip=100 count=3 iflag=direct status=none | sha256sum)
	klog_mark
	bad=$(scrub ssat-v check) || { fail "check did not end: $bad"; rc=1; }
	expect_eq "mismatched sectors found by check" "$bad" 15 || rc=1
	klog_since | grep -q "check done: $mlen of $mlen sectors per member, 15 mismatched" ||
		{ fail "kernel log lacks the check's summary"; klog_since | tail -3; rc=1; }
	expect_eq "check leaves the members as they were" \
		"$(dd if=/dev/ram1 bs=512 skip=100 count=3 iflag=direct status=none | sha256sum)" "$planted" || rc=1
	bad=$(scrub ssat-v repair) || { fail "repair did not end: $bad"; rc=1; }
	expect_eq "mismatched sectors rewritten by repair" "$bad" 15 || rc=1
	bad=$(scrub ssat-v check) || { fail "check did not end: $bad"; rc=1; }
	expect_eq "mismatches after the repair" "$bad" 0 || rc=1
	copies_identical ssat-v || rc=1
	# set 0's first copy was right: the volume's data there is the original
	expect_eq "set 0's data after the repair" \
		"$(dd if=$v bs=64k count=1 iflag=direct status=none | sha256sum)" \
		"$(head -c 65536 "$WORK/data" | sha256sum)" || rc=1

	# repairs under a verifying write load: fio writes (time-based, at
	# most 600 s) until two repair walks have run from start to end while it
	# ran, then a signal ends its run
	walks=0
	(cd "$WORK" && exec fio --name=cr --filename=$v --direct=1 --ioengine=libaio \
		--rw=randwrite --bssplit=4k/50:64k/30:256k/20 --iodepth=8 \
		--verify=crc32c --verify_fatal=1 --verify_backlog=32 --time_based --runtime=600 \
		--output="$WORK/cr.out" >/dev/null 2>&1) &
	pid=$!
	wait_io ssat-v || rc=1
	while [ $walks -lt 2 ] && kill -0 $pid 2>/dev/null; do
		bad=$(scrub ssat-v repair) || { fail "repair under load did not end: $bad"; rc=1; break; }
		[ "$bad" = 0 ] || { fail "repair under load found $bad mismatched sectors"; rc=1; }
		kill -0 $pid 2>/dev/null && walks=$((walks + 1))
	done
	kill -INT $pid 2>/dev/null
	wait $pid
	fio_clean "$WORK/cr.out" ||
		{ fail "fio verify failed during the repairs"; grep -iE "err|verify" "$WORK/cr.out" | head -5; rc=1; }
	info "$walks repair walks ran whole under fio's writes"
	[ $walks -gt 0 ] || { fail "no repair walk overlapped the write load"; rc=1; }
	bad=$(scrub ssat-v check) || { fail "check did not end: $bad"; rc=1; }
	expect_eq "mismatches after the load" "$bad" 0 || rc=1
	copies_identical ssat-v || rc=1
	dmsetup message ssat-v 0 idle || { fail "idle with no walk running refused"; rc=1; }
	vol_remove ssat-v
	return $rc
}
register mirror_check_repair mirror_check_repair

mirror_bad_tables() {
	local rc=0 r0=/dev/ram0 r1=/dev/ram1 r2=/dev/ram2 T="ssastripe"
	local M2="$r0 0 $r1 0"
	bad_table mirror-1 "0 1024 $T mirror 8 1 $r0 0" "Too few members" || rc=1
	bad_table copies-1 "0 1024 $T mirror 8 2 $M2 2 copies 1" "Invalid copies" || rc=1
	bad_table copies-3-of-2 "0 1024 $T mirror 8 2 $M2 2 copies 3" "not a multiple of copies" || rc=1
	bad_table copies-2-of-3 "0 1024 $T mirror 8 3 $M2 $r2 0 2 copies 2" "not a multiple of copies" || rc=1
	bad_table copies-text "0 1024 $T mirror 8 2 $M2 2 copies two" "Invalid copies" || rc=1
	bad_table policy "0 1024 $T mirror 8 2 $M2 2 read_policy fastest" "Invalid read_policy" || rc=1
	bad_table rebuild-range "0 1024 $T mirror 8 2 $M2 2 rebuild 2" "rebuild names a member" || rc=1
	bad_table rebuild-text "0 1024 $T mirror 8 2 $M2 2 rebuild one" "Invalid rebuild member" || rc=1
	bad_table rebuild-twice "0 1024 $T mirror 8 2 $M2 4 rebuild 1 rebuild 1" "Duplicate rebuild member" || rc=1
	bad_table rebuild-all "0 1024 $T mirror 8 2 $M2 4 rebuild 0 rebuild 1" "without a source copy" || rc=1
	bad_table rate "0 1024 $T mirror 8 2 $M2 2 rebuild_rate -1" "Invalid rebuild_rate" || rc=1
	bad_table stripe-copies "0 1024 $T stripe 8 2 $M2 2 copies 2" "copies is an option of the mirror and srarray layouts" || rc=1
	bad_table stripe-policy "0 1024 $T stripe 8 2 $M2 2 read_policy split" "only valid for the mirror layout" || rc=1
	bad_table mirror-length "0 1028 $T mirror 8 2 $M2" "not a multiple of the stripe size" || rc=1
	bad_table mirror-small "0 $((2 * 131072)) $T mirror 8 2 $M2" "Member device too small" || rc=1
	# messages a volume refuses, leaving it as it was
	vol_create ssat-v 1024 mirror 8 "$M2" || return 1
	local m
	for m in "fail 2" "fail x" "read_policy fastest" "rebuild_rate x" "copies 3" \
		"fail 4294967297" "fail +1" "rebuild_rate 4294967296"; do
		dmsetup message ssat-v 0 $m 2>/dev/null && { fail "message '$m' accepted"; rc=1; }
	done
	expect_eq "health after bad messages" "$(vstat ssat-v health)" AA || rc=1
	vol_remove ssat-v
	vol_create ssat-v 1024 stripe 8 "$M2" || return 1
	for m in "fail 0" "read_policy split" "rebuild_rate 10" "check" "repair" "idle"; do
		dmsetup message ssat-v 0 $m 2>/dev/null && { fail "stripe: message '$m' accepted"; rc=1; }
	done
	vol_remove ssat-v
	return $rc
}
register mirror_bad_tables mirror_bad_tables
