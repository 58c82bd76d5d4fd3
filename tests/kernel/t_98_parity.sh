# SPDX-License-Identifier: GPL-2.0-only
# The parity layouts (raid5, pstripe): data integrity with every sync
# policy, write method and queue depth; parity recomputed from the raw
# members after many writers hammered the same groups; what full-stripe and
# small writes cost in children; the placement; the BS/AS ordering in the
# trace; malformed tables.
#
# Uses delta/dwrite/dread (t_30), bad_table (t_50) and msum (t_90).

# parity_ok NAME: the independent checker finds every group consistent
parity_ok() {
	local out
	out=$(python3 "$TOP/tests/kernel/check_parity.py" "$1") || { fail "parity: $out"; return 1; }
	info "parity: $out"
}

# wait_synced NAME: wait for the initial sync to end (status action idle)
wait_synced() {
	local i
	for i in $(seq 1200); do
		[ "$(dmsetup status "$1" | awk '{print $(NF-2)}')" = idle ] && return 0
		sleep 0.1
	done
	fail "$1: the initial sync did not end: $(dmsetup status "$1")"
}

# pvol_create: vol_create, then wait for the initial sync
pvol_create() { vol_create "$@" && wait_synced "$1"; }

# parity_verify LAYOUT MEMBERS CHUNK SYNC DEPTH METHOD [ROTATION]
parity_verify() {
	local layout=$1 n=$2 c=$3 sync=$4 depth=$5 method=$6 rot=${7:-} rc=0
	local cb=$((c * 512)) sb=$((c * 512 * (n - 1)))
	local unit=$sb
	[ "$layout" = pstripe ] && unit=$((sb * n))
	local size=$((((12 << 20) / unit) * unit))
	[ "$size" -lt "$unit" ] && size=$unit
	local small=$((cb / 2 < 512 ? 512 : cb / 2 / 512 * 512))
	local big=$((sb > (1 << 20) ? (1 << 20) : sb))
	local bssplit="512/10:$small/15:$cb/15:$((cb + 1536))/20:$big/20:1m/20"
	local opts="6 sync $sync write_method $method queue_depth $depth"
	mkdir -p "$WORK"
	[ -n "$rot" ] && opts="8 sync $sync write_method $method queue_depth $depth parity_layout $rot"

	wipe $((size / (n - 1) / 1048576 + 1)) $(for ((m = 0; m < n; m++)); do echo /dev/ram$m; done)
	pvol_create ssat-v $((size / 512)) "$layout" "$c" "$(ram_members "$n")" $opts || return 1
	info "$layout members=$n chunk=${cb}B sync=$sync depth=$depth method=$method ${rot} size=$size"
	# 8 writers on two chunks' worth around a chunk boundary
	run_fio overlap.fio DEV=/dev/mapper/ssat-v OFFSET=$((cb > 4096 ? cb - 4096 : 0)) \
		REGION=$((cb > 4096 ? 8192 : 2 * cb)) BSSPLIT="512/30:1k/30:4k/40" RUNTIME=2 \
		> "$WORK/overlap.out" 2>&1 || { fail "overlapping writers failed"; rc=1; }
	parity_ok ssat-v || rc=1
	run_fio verify.fio DEV=/dev/mapper/ssat-v SIZE="$size" BSSPLIT="$bssplit" ||
		{ fail "fio verify reported an error"; rc=1; }
	parity_ok ssat-v || rc=1
	expect_eq "check: mismatched groups" "$(scrub ssat-v check)" 0 || rc=1
	expect_eq health "$(vstat ssat-v health)" "$(printf 'A%.0s' $(seq "$n"))" || rc=1
	vol_remove ssat-v
	return $rc
}

if [ "$FULL" = 1 ]; then
	for _l in raid5 pstripe; do
		for _n in 3 5 8; do
			for _c in 8 2048; do
				for _s in before_service after_service; do
					for _d in 0 1; do
						for _w in auto rmw rcw; do
							register "parity_verify_${_l}_n${_n}_c$((_c / 2))k_${_s%%_*}_d${_d}_$_w" \
								parity_verify $_l $_n $_c $_s $_d $_w
						done
					done
				done
			done
		done
	done
	unset _l _n _c _s _d _w
else
	register parity_verify_raid5_n3_c4k_before_d0_auto parity_verify raid5 3 8 before_service 0 auto
	register parity_verify_raid5_n4_c64k_after_d1_rmw parity_verify raid5 4 128 after_service 1 rmw
	register parity_verify_raid5_n5_c1m_before_d0_rcw parity_verify raid5 5 2048 before_service 0 rcw
	register parity_verify_raid5_n4_c4k_before_d1_rcw_ra parity_verify raid5 4 8 before_service 1 rcw right_asymmetric
	register parity_verify_raid5_n6_c64k_before_d1_rmw_ls parity_verify raid5 6 128 before_service 1 rmw left_asymmetric
	register parity_verify_pstripe_n3_c4k_before_d0_auto parity_verify pstripe 3 8 before_service 0 auto
	register parity_verify_pstripe_n5_c64k_after_d1_rmw parity_verify pstripe 5 128 after_service 1 rmw
	register parity_verify_pstripe_n8_c4k_before_d0_rcw parity_verify pstripe 8 8 before_service 0 rcw
fi

# vnode NAME: a private device node of the volume.  udev watches the
# volume's /dev node and probes (reads) it after every close that wrote;
# writes through another node of the same device raise no such event, so
# the read counters see only what the write itself did.
vnode() {
	local mm
	mm=$(dmsetup info -c --noheadings -o major,minor "$1" | tr ':' ' ')
	rm -f "$WORK/$1.node"
	mknod "$WORK/$1.node" b $mm && echo "$WORK/$1.node"
}

# Children per member for full-stripe, small and boundary-crossing writes.
parity_children() {
	local v=/dev/mapper/ssat-v rc=0 d
	mkdir -p "$WORK"
	head -c $((4 << 20)) /dev/urandom > "$WORK/rand"
	wipe 4 /dev/ram0 /dev/ram1 /dev/ram2 /dev/ram3
	# raid5, 4 members, 64 KiB chunks: a stripe holds 192 KiB of data
	pvol_create ssat-v $((3 * 8192)) raid5 128 "$(ram_members 4)" || return 1
	v=$(vnode ssat-v) || return 1
	d=$(delta ssat-v cr dwrite $v $((192 << 10)) 0)
	expect_eq "full-stripe write: reads per member" "$d" "0 0 0 0" || rc=1
	d=$(delta ssat-v cw dwrite $v $((192 << 10)) $((192 << 10)))
	expect_eq "full-stripe write: writes per member" "$d" "1 1 1 1" || rc=1
	# sequential full stripes, 8 deep: never a read
	d=$(delta ssat-v cr fio --name=fs --filename=$v --direct=1 --ioengine=libaio --rw=write \
		--bs=$((192 << 10)) --iodepth=8 --size=$((10 * 192 << 10)) --output=/dev/null)
	expect_eq "sequential full stripes: reads per member" "$d" "0 0 0 0" || rc=1
	# 4 KiB inside chunk 0 (member 0, parity of row 0 on member 3), rmw
	dmsetup message ssat-v 0 write_method rmw || rc=1
	d=$(delta ssat-v cr dwrite $v 4096 8192)
	expect_eq "4 KiB rmw write: reads per member" "$d" "1 0 0 1" || rc=1
	d=$(delta ssat-v cw dwrite $v 4096 8192)
	expect_eq "4 KiB rmw write: writes per member" "$d" "1 0 0 1" || rc=1
	# across the row boundary (chunks 2 and 3): two parity updates
	d=$(delta ssat-v cw dwrite $v 8192 $(((192 << 10) - 4096)))
	expect_eq "row-crossing write: writes per member (P0 on 3, P1 on 2)" "$d" "0 0 2 2" || rc=1
	# rcw of one 4 KiB piece reads the other two data chunks' same range
	dmsetup message ssat-v 0 write_method rcw || rc=1
	d=$(delta ssat-v cr dwrite $v 4096 8192)
	expect_eq "4 KiB rcw write: reads per member" "$d" "0 1 1 0" || rc=1
	# auto picks rcw on a tie (2 reads each way), as md does
	dmsetup message ssat-v 0 write_method auto || rc=1
	d=$(delta ssat-v cr dwrite $v 4096 8192)
	expect_eq "4 KiB auto write (a tie): rcw's reads per member" "$d" "0 1 1 0" || rc=1
	# and rcw when cheaper
	d=$(delta ssat-v cr dwrite $v $((128 << 10)) 0)
	expect_eq "auto, two full chunks of three: rcw reads one" "$d" "0 0 1 0" || rc=1
	parity_ok ssat-v || rc=1
	vol_remove ssat-v

	# pstripe, 5 members, 64 KiB chunks: small writes touch two members
	wipe 4 /dev/ram0 /dev/ram1 /dev/ram2 /dev/ram3 /dev/ram4
	pvol_create ssat-v $((4 * 5 * 128 * 8)) pstripe 128 "$(ram_members 5)" || return 1
	v=$(vnode ssat-v) || return 1
	d=$(delta ssat-v cr dread $v $((64 << 10)) 0)
	expect_eq "pstripe chunk read: reads per member" "$d" "1 0 0 0 0" || rc=1
	d=$(delta ssat-v cr dread $v 4096 $((40 * 64 << 10)))
	expect_eq "pstripe read in member 1's area" "$d" "0 1 0 0 0" || rc=1
	# four chunks in one data area: one read, as one disk access
	d=$(delta ssat-v cr dread $v $((256 << 10)) 0)
	expect_eq "pstripe 256 KiB read in one area: one child" "$d" "1 0 0 0 0" || rc=1
	# across the end of member 0's area into member 1's: one child each
	d=$(delta ssat-v cr dread $v $((128 << 10)) $((31 * 64 << 10)))	# D = 32 chunks an area
	expect_eq "pstripe read across two areas: one child each" "$d" "1 1 0 0 0" || rc=1
	d=$(delta ssat-v cw dwrite $v 4096 4096)
	expect_eq "pstripe 4 KiB write: writes per member (data 0, parity 1)" "$d" "1 1 0 0 0" || rc=1
	d=$(delta ssat-v cw dwrite $v $((256 << 10)) 0)
	expect_eq "pstripe 256 KiB write in one segment: one child each" "$d" "1 1 0 0 0" || rc=1
	parity_ok ssat-v || rc=1
	vol_remove ssat-v
	return $rc
}
register parity_children parity_children

# loop_writes LOOPDEV...: write requests completed and merged by the loop
# devices' queues, summed (/sys/block/loopN/stat fields 5 and 6)
loop_writes() {
	local d s w=0 m=0
	for d in "$@"; do
		read -ra s < "/sys/block/${d#/dev/}/stat"
		w=$((w + s[4])) m=$((m + s[5]))
	done
	echo "$w $m"
}

# Whole-stripe writes go out under one plug (Documentation/parity.rst,
# target 1.17.0): the children of the groups of one bio reach each member
# together, and a blk-mq member merges the adjacent ones into one request.
# raid5 over four loop devices (their scheduler "none": only a plug merges
# there), 64 KiB chunks, a sequential stream of 768 KiB writes (four whole
# stripes each): the members must complete fewer than half as many write
# requests as the children the target sent them (without the plug, one
# each: the check fails), the data reads back, the parity holds.
parity_plug_merges() {
	local rc=0 d w0 m0 w1 m1 c0 c1 req merged children
	loop_members 4 32 || return 1
	for d in "${LOOPS[@]}"; do echo none > "/sys/block/${d#/dev/}/queue/scheduler"; done
	vol_create ssat-v $((3 * 32 * 2048)) raid5 128 "${LOOPS[0]} 0 ${LOOPS[1]} 0 ${LOOPS[2]} 0 ${LOOPS[3]} 0" \
		2 initial_sync off || return 1
	head -c $((24 << 20)) /dev/urandom > "$WORK/rand"
	read -r w0 m0 <<< "$(loop_writes "${LOOPS[@]}")"
	c0=$(msum ssat-v 4 cw)
	dd if="$WORK/rand" of=/dev/mapper/ssat-v bs=768k oflag=direct status=none ||
		{ fail "the writes failed"; rc=1; }
	read -r w1 m1 <<< "$(loop_writes "${LOOPS[@]}")"
	c1=$(msum ssat-v 4 cw)
	children=$((c1 - c0)) req=$((w1 - w0)) merged=$((m1 - m0))
	info "$children children written, $req member write requests, $merged merges"
	[ "$children" -ge 512 ] || { fail "only $children children for 24 MiB of whole stripes"; rc=1; }
	[ $((2 * req)) -lt "$children" ] ||
		{ fail "$req member requests for $children children: the plug did not merge"; rc=1; }
	cmp -s "$WORK/rand" <(dd if=/dev/mapper/ssat-v bs=1M count=24 iflag=direct status=none) ||
		{ fail "the data did not read back"; rc=1; }
	parity_ok ssat-v || rc=1
	vol_remove ssat-v
	return $rc
}
register parity_plug_merges parity_plug_merges

# Where logical chunks land, against the pictures in Documentation/parity.rst.
parity_placement() {
	local rc=0 k m c want got
	mkdir -p "$WORK"
	wipe 1 /dev/ram0 /dev/ram1 /dev/ram2 /dev/ram3
	# raid5 left-symmetric, 4 members, 4 KiB chunks: chunk k filled with byte k
	pvol_create ssat-v $((3 * 8 * 16)) raid5 8 "$(ram_members 4)" || return 1
	for k in $(seq 0 11); do
		python3 -c "import sys; sys.stdout.buffer.write(bytes([$k + 1]) * 4096)" |
			dd of=/dev/mapper/ssat-v bs=4096 seek=$k oflag=direct status=none
	done
	# member, row, byte: the picture's D0 .. D11 (byte k + 1)
	for want in "0 0 1" "1 0 2" "2 0 3" "3 1 4" "0 1 5" "1 1 6" "2 2 7" "3 2 8" "0 2 9" "1 3 10" "2 3 11" "3 3 12"; do
		read -r m c k <<< "$want"
		got=$(dd if=/dev/ram$m bs=4096 skip=$c count=1 iflag=direct status=none | od -An -tu1 -N1 | tr -d ' ')
		[ "$got" = "$k" ] || { fail "member $m row $c holds chunk byte $got, want $k"; rc=1; }
	done
	parity_ok ssat-v || rc=1
	vol_remove ssat-v
	return $rc
}
register parity_placement parity_placement

# The sync policies in the trace (raid5, queue_depth 1, rmw, 4 KiB writes:
# a data task and a parity task each).  before_service: the parity task is
# queued as its data task is dispatched (after that event, before the read
# completes); after_service: only after the old data read completed.
# Both: one task in service per member at a time.
parity_sync_trace() {
	local rc=0 sync tr
	mkdir -p "$WORK"
	wipe 4 /dev/ram0 /dev/ram1 /dev/ram2 /dev/ram3
	pvol_create ssat-v $((3 * 8192)) raid5 128 "$(ram_members 4)" \
		4 queue_depth 1 write_method rmw || return 1
	for sync in before_service after_service; do
		tr=$WORK/trace-$sync.txt
		dmsetup message ssat-v 0 sync $sync || rc=1
		trace_start || return 1
		fio --name=t --filename=/dev/mapper/ssat-v --direct=1 --ioengine=libaio --rw=randwrite \
			--bs=4k --iodepth=8 --number_ios=300 --size=12m --output="$WORK/fio.out" \
			>/dev/null 2>&1 || { fail "fio failed"; rc=1; }
		trace_stop "$tr"
		python3 "$TOP/tests/kernel/check_trace.py" "$tr" --depth 1 --priority on > "$WORK/check.out" ||
			{ cat "$WORK/check.out"; fail "$sync: trace lifecycle, depth or priority"; rc=1; }
		python3 - "$tr" "$sync" <<'PY' || rc=1
import os, sys
from collections import defaultdict
sys.path.insert(0, os.environ["TOP"] + "/tests/kernel")
import check_trace as ct
events, _ = ct.parse(open(sys.argv[1]).read())
sync = sys.argv[2]
pos = defaultdict(dict)     # request -> {(child, event): position}
kinds = defaultdict(dict)   # request -> {child: (class, op)}
writes = {e["id"] for e in events if e["ev"] == "fork" and e["op"] == "write"}
for i, e in enumerate(events):
    if e["ev"].startswith("child_") and e["id"] in writes:
        pos[e["id"]][(e["child"], e["ev"])] = i
        kinds[e["id"]][e["child"]] = (e["class"], e["op"])
bad = []
for rid, k in kinds.items():
    want = {0: ("low", "read"), 1: ("low", "write"), 2: ("high", "read"), 3: ("high", "write")}
    if k != want:
        bad.append(f"request {rid}: children {k}")
        continue
    p = pos[rid]
    pq = p[(2, "child_queue")]
    if sync == "before_service" and not p[(0, "child_dispatch")] < pq < p[(0, "child_complete")]:
        bad.append(f"request {rid}: parity not queued as its data task started")
    if sync == "after_service" and not pq > p[(0, "child_complete")]:
        bad.append(f"request {rid}: parity queued before the old data was read")
print(f"# {sync}: {len(kinds)} writes, {len(bad)} violations")
for b in bad[:5]:
    print("# " + b)
sys.exit(1 if bad or len(kinds) < 300 else 0)
PY
	done
	parity_ok ssat-v || rc=1
	vol_remove ssat-v
	return $rc
}
register parity_sync_trace parity_sync_trace

parity_bad_tables() {
	local rc=0 T="ssastripe" M3="/dev/ram0 0 /dev/ram1 0 /dev/ram2 0" m
	bad_table raid5-2 "0 1024 $T raid5 8 2 /dev/ram0 0 /dev/ram1 0" "Too few members" || rc=1
	bad_table raid5-chunk "0 8192 $T raid5 4096 3 $M3" "Chunk too large for raid5/pstripe" || rc=1
	bad_table raid5-length "0 1000 $T raid5 8 3 $M3" "not a multiple of the stripe size" || rc=1
	bad_table pstripe-length "0 1024 $T pstripe 8 3 $M3" "pstripe: length is not a multiple" || rc=1
	bad_table sync "0 1536 $T raid5 8 3 $M3 2 sync sometimes" "Invalid sync" || rc=1
	bad_table method "0 1536 $T raid5 8 3 $M3 2 write_method fast" "Invalid write_method" || rc=1
	bad_table rotation "0 1536 $T raid5 8 3 $M3 2 parity_layout diagonal" "Invalid parity_layout" || rc=1
	bad_table pstripe-rotation "0 1536 $T pstripe 8 3 $M3 2 parity_layout left_symmetric" "parity_layout is an option of raid5 only" || rc=1
	bad_table raid5-coalesce "0 1536 $T raid5 8 3 $M3 2 coalesce 1" "coalesce is not an option" || rc=1
	bad_table raid5-copies "0 1536 $T raid5 8 3 $M3 2 copies 2" "copies is an option of the mirror and srarray layouts" || rc=1
	bad_table stripe-sync "0 1536 $T stripe 8 3 $M3 2 sync after_service" "only valid for the raid5 and pstripe layouts" || rc=1
	bad_table initial-sync "0 1536 $T raid5 8 3 $M3 2 initial_sync maybe" "Invalid initial_sync" || rc=1
	bad_table rebuild-two "0 1536 $T raid5 8 3 $M3 4 rebuild 0 rebuild 1" "rebuild one member at a time" || rc=1
	bad_table rebuild-range "0 1536 $T pstripe 8 3 $M3 2 rebuild 3" "rebuild names a member the table does not have" || rc=1
	bad_table stripe-initial-sync "0 1536 $T stripe 8 3 $M3 2 initial_sync off" "only valid for the raid5 and pstripe layouts" || rc=1
	vol_create ssat-v 1536 raid5 8 "$M3" 2 initial_sync off || return 1
	for m in "sync x" "write_method x" "parity_layout right_symmetric" "read_policy split" "copies 2"; do
		dmsetup message ssat-v 0 $m 2>/dev/null && { fail "raid5: message '$m' accepted"; rc=1; }
	done
	dmsetup message ssat-v 0 sync after_service || { fail "sync message refused"; rc=1; }
	dmsetup message ssat-v 0 write_method rcw || { fail "write_method message refused"; rc=1; }
	expect_eq "status tail" "$(dmsetup status ssat-v | awk '{print $(NF-5), $(NF-4), $(NF-3), $(NF-2), $(NF-1), $NF}')" \
		"left_symmetric after_service rcw idle 0/96 0" || rc=1
	expect_eq "table" "$(dmsetup table ssat-v | cut -d" " -f13-)" "6 sync after_service write_method rcw initial_sync off" || rc=1
	vol_remove ssat-v
	vol_create ssat-v 1536 stripe 8 "$M3" || return 1
	dmsetup message ssat-v 0 sync before_service 2>/dev/null && { fail "stripe: sync accepted"; rc=1; }
	vol_remove ssat-v
	return $rc
}
register parity_bad_tables parity_bad_tables

# check counts groups with bad parity and repair rewrites them: parity
# chunks corrupted on the raw member are found by check, by the independent
# checker, and are gone after repair.
parity_check_repair() {
	local rc=0 layout st
	mkdir -p "$WORK"
	for layout in raid5 pstripe; do
		wipe 4 /dev/ram0 /dev/ram1 /dev/ram2 /dev/ram3
		# 4 members, 16 KiB chunks, 3 MiB: 64 groups
		pvol_create ssat-v 6144 $layout 32 "$(ram_members 4)" || return 1
		fio --name=f --filename=/dev/mapper/ssat-v --direct=1 --ioengine=libaio --rw=randwrite \
			--bs=4k --iodepth=8 --size=3m --output=/dev/null || rc=1
		expect_eq "$layout: check of a good volume" "$(scrub ssat-v check)" 0 || rc=1
		# corrupt two parity chunks: raid5 rows 0 (member 3) and 5 (member 2);
		# pstripe parity area (chunks 48..63): member 0's chunks 48 and 50
		if [ $layout = raid5 ]; then
			dd if=/dev/urandom of=/dev/ram3 bs=16k count=1 seek=0 oflag=direct status=none
			dd if=/dev/urandom of=/dev/ram2 bs=16k count=1 seek=5 oflag=direct status=none
		else
			dd if=/dev/urandom of=/dev/ram0 bs=16k count=1 seek=48 oflag=direct status=none
			dd if=/dev/urandom of=/dev/ram0 bs=4k count=1 seek=$((50 * 4 + 1)) oflag=direct status=none
		fi
		python3 "$TOP/tests/kernel/check_parity.py" ssat-v > "$WORK/cp.out" &&
			{ fail "$layout: the checker missed the corruption"; rc=1; }
		info "$layout: $(cat "$WORK/cp.out")"
		expect_eq "$layout: check after corruption" "$(scrub ssat-v check)" 2 || rc=1
		expect_eq "$layout: repair" "$(scrub ssat-v repair)" 2 || rc=1
		expect_eq "$layout: check after repair" "$(scrub ssat-v check)" 0 || rc=1
		parity_ok ssat-v || rc=1
		st=$(dmsetup status ssat-v | awk '{print $(NF-1)}')
		expect_eq "$layout: progress" "$st" "64/64" || rc=1
		# a check may be stopped; a second one while running is refused
		dmsetup message ssat-v 0 check || rc=1
		dmsetup message ssat-v 0 check 2>/dev/null && info "second check accepted (first had finished)"
		dmsetup message ssat-v 0 idle || rc=1
		expect_eq "$layout: idle after stop" "$(dmsetup status ssat-v | awk '{print $(NF-2)}')" idle || rc=1
		klog_since | grep -q "check done: 64 of 64 groups, 0 mismatched" || { fail "$layout: no log line"; rc=1; }
		vol_remove ssat-v
	done
	return $rc
}
register parity_check_repair parity_check_repair

# A member that starts failing (swapped for the error target): a read
# that meets it first is rebuilt from the others and the member turns D;
# a write to it then succeeds (its parity keeps the data), and what was
# written reads back rebuilt from the others.  A second member
# failing ends writes and reads of the lost members, with a log line.
# Uses lin_members (t_60).
parity_member_fails() {
	local rc=0 members v=/dev/mapper/ssat-v
	mkdir -p "$WORK"
	members=$(lin_members 3 8192) || return 1
	# raid5, 3 members, 4 KiB chunks: row 0 = D0 on 0, D1 on 1, P on 2
	pvol_create ssat-v 16384 raid5 8 "$members" || return 1
	head -c 8M /dev/urandom > "$WORK/ref"
	dd if="$WORK/ref" of=$v bs=1M oflag=direct status=none || { fail "initial write"; rc=1; }
	klog_mark
	dmsetup load ssat-m1 --table "0 8192 error" && dmsetup suspend ssat-m1 && dmsetup resume ssat-m1
	# a read that meets the failure first is rebuilt from the others
	dd if=$v of="$WORK/got" bs=4k count=1 skip=1 iflag=direct status=none ||
		{ fail "a read of the failing member was not rebuilt"; rc=1; }
	expect_eq "block read from the failing member" "$(sha256sum < "$WORK/got" | cut -d' ' -f1)" \
		"$(dd if="$WORK/ref" bs=4k count=1 skip=1 status=none | sha256sum | cut -d' ' -f1)" || rc=1
	expect_eq "health after the read" "$(vstat ssat-v health)" ADA || rc=1
	head -c 4096 /dev/urandom > "$WORK/blk"
	dd if="$WORK/blk" of="$WORK/ref" bs=4k seek=1 conv=notrunc status=none
	dd if="$WORK/blk" of=$v bs=4k count=1 seek=1 oflag=direct status=none ||
		{ fail "a write to the failing member was not absorbed"; rc=1; }
	expect_eq health "$(vstat ssat-v health)" ADA || rc=1
	klog_since | grep -q "member 1 (.*) failed: I/O error" || { fail "kernel log does not name member 1"; rc=1; }
	expect_eq "volume after the failure" "$(sum_dev $v 16384)" "$(sha256sum < "$WORK/ref" | cut -d' ' -f1)" || rc=1

	klog_mark
	dmsetup load ssat-m0 --table "0 8192 error" && dmsetup suspend ssat-m0 && dmsetup resume ssat-m0
	dd if=/dev/zero of=$v bs=4k count=1 seek=0 oflag=direct status=none 2>/dev/null &&
		{ fail "a write with two members lost succeeded"; rc=1; }
	expect_eq health "$(vstat ssat-v health)" DDA || rc=1
	dd if=/dev/zero of=$v bs=4k count=1 seek=3 oflag=direct status=none 2>/dev/null &&
		{ fail "a later write with two members lost succeeded"; rc=1; }
	klog_since | grep -q "two members have failed: writes are refused" || { fail "no log line for refused writes"; rc=1; }
	# row 1 (left-symmetric): P on 1, D2 on 2, D3 on 0
	dd if=$v of=/dev/null bs=4k count=1 skip=2 iflag=direct status=none ||
		{ fail "a read of a surviving member failed"; rc=1; }
	dd if=$v of=/dev/null bs=4k count=1 skip=1 iflag=direct status=none 2>/dev/null &&
		{ fail "a read of a lost member succeeded"; rc=1; }
	vol_remove ssat-v
	return $rc
}
register parity_member_fails parity_member_fails

# Degraded operation by message: "fail M", then every byte reads back
# rebuilt from the others, fio verifies random writes made degraded (over
# the first half), the second half is untouched, status and an event say
# so, and a second "fail" is refused.
# parity_degraded LAYOUT MEMBERS CHUNK_SECTORS FAILED SYNC DEPTH
parity_degraded() {
	local layout=$1 n=$2 c=$3 f=$4 sync=$5 depth=$6 rc=0 v=/dev/mapper/ssat-v
	local unit=$((c * 512 * (n - 1)))
	[ "$layout" = pstripe ] && unit=$((unit * n))
	local size=$((((8 << 20) / unit) * unit)) ev0 ev1 want half
	[ "$size" -lt "$unit" ] && size=$unit
	half=$((size / 2 / 4096 * 4096))
	mkdir -p "$WORK"
	wipe $((size / (n - 1) / 1048576 + 1)) $(for ((m = 0; m < n; m++)); do echo /dev/ram$m; done)
	pvol_create ssat-v $((size / 512)) "$layout" "$c" "$(ram_members "$n")" \
		4 sync "$sync" queue_depth "$depth" || return 1
	head -c "$size" /dev/urandom > "$WORK/ref"
	dd if="$WORK/ref" of=$v bs=1M oflag=direct status=none || { fail "initial write"; return 1; }
	ev0=$(dmsetup info -c --noheadings -o events ssat-v)
	klog_mark
	dmsetup message ssat-v 0 fail "$f" || { fail "fail $f refused"; return 1; }
	want=$(printf 'A%.0s' $(seq "$n")); want="${want:0:$f}D${want:$((f + 1))}"
	expect_eq health "$(vstat ssat-v health)" "$want" || rc=1
	events_past() { [ "$(dmsetup info -c --noheadings -o events ssat-v)" -gt "$ev0" ]; }
	wait_until 10 events_past ||
		{ fail "no event for the failure ($ev0 -> $(dmsetup info -c --noheadings -o events ssat-v))"; rc=1; }
	klog_since | grep -q "member $f (.*) failed: by message" || { fail "no log line for fail $f"; rc=1; }
	expect_eq "degraded read of the whole volume" "$(sum_dev $v $((size / 512)))" \
		"$(sha256sum < "$WORK/ref" | cut -d' ' -f1)" || rc=1
	dmsetup message ssat-v 0 fail $(((f + 1) % n)) 2>/dev/null &&
		{ fail "a second fail was accepted"; rc=1; }
	dmsetup message ssat-v 0 check 2>/dev/null && { fail "check ran degraded"; rc=1; }
	run_fio degraded.fio DEV=$v SIZE=$half RUNTIME=3 \
		BSSPLIT="512/20:4k/30:$((c * 512))/20:$((c * 512 + 1536))/15:256k/15" \
		> "$WORK/fio.out" 2>&1 || { tail -20 "$WORK/fio.out"; fail "fio verify of degraded writes failed"; rc=1; }
	expect_eq "untouched half" "$(sum_dev $v $(((size - half) / 512)) $((half / 512)))" \
		"$(tail -c $((size - half)) "$WORK/ref" | sha256sum | cut -d' ' -f1)" || rc=1
	expect_eq health "$(vstat ssat-v health)" "$want" || rc=1
	klog_since | grep -E "BUG|WARNING|Oops" && { fail "kernel warning"; rc=1; }
	vol_remove ssat-v
	return $rc
}
register parity_degraded_raid5_n4_c4k_m1_before_d0 parity_degraded raid5 4 8 1 before_service 0
register parity_degraded_raid5_n5_c64k_m4_after_d1 parity_degraded raid5 5 128 4 after_service 1
register parity_degraded_pstripe_n4_c4k_m0_before_d1 parity_degraded pstripe 4 8 0 before_service 1
register parity_degraded_pstripe_n3_c64k_m2_after_d0 parity_degraded pstripe 3 128 2 after_service 0

# A member that fails under load, through dm-flakey: fio writes and verifies
# random blocks while the member's table is swapped for one that fails its
# reads (no features) or its writes (error_writes); fio sees no error, the
# member turns D, the untouched half of the volume is intact.
# Rebuild onto a replacement.  A volume full of known data loses member F
# (by message); the table is reloaded with, in its place, a device full of
# random bytes and "rebuild F".  The new member's writes are slow (dm-delay,
# 100 ms each: the walk writes one chunk at a time, so it lasts at least
# 100 ms a group and outlasts fio by far).  While the rebuild runs: status
# "rebuild", health 'a', fail of another member, check and idle are
# refused, fio verifies writes over the first half, and the second half
# reads back byte-exact.  Then the delay is taken off (the new member's
# table swapped for a linear one) and the rest of the rebuild runs at
# ramdisk speed.  After: health all 'A', the log line, the second half
# unchanged, and the checker and check find every group consistent, i.e.
# the new member holds what the others say.
# parity_rebuild LAYOUT MEMBERS CHUNK_SECTORS F SYNC [MB]
#   MB: the volume's size (default 4); with few groups the rebuild may end
#   before the checks made "during" it, so those are made only with 64 or
#   more groups
parity_rebuild() {
	local layout=$1 n=$2 c=$3 f=$4 sync=$5 mb=${6:-4} rc=0 v=/dev/mapper/ssat-v m members="" want
	local unit=$((c * 512 * (n - 1)))
	[ "$layout" = pstripe ] && unit=$((unit * n))
	local size=$((((mb << 20) / unit) * unit)) half per mid
	mid=$((size / (c * 512 * (n - 1)) >= 64))
	half=$((size / 2 / 4096 * 4096))
	per=$((size / (n - 1) / 512))
	mkdir -p "$WORK"
	wipe $((mb / (n - 1) + 1)) $(for ((m = 0; m < n; m++)); do echo /dev/ram$m; done)
	pvol_create ssat-v $((size / 512)) "$layout" "$c" "$(ram_members "$n")" 2 sync "$sync" || return 1
	head -c "$size" /dev/urandom > "$WORK/ref"
	dd if="$WORK/ref" of=$v bs=1M oflag=direct status=none || { fail "initial write"; return 1; }
	dmsetup message ssat-v 0 fail "$f" || { fail "fail $f refused"; return 1; }
	dd if=/dev/urandom of=/dev/ram$n bs=1M count=$((mb / (n - 1) + 1)) oflag=direct status=none
	dmsetup create ssat-new --table "0 $per delay /dev/ram$n 0 0 /dev/ram$n 0 100" || return 1
	for ((m = 0; m < n; m++)); do
		if [ $m -eq "$f" ]; then members+="/dev/mapper/ssat-new 0 "; else members+="/dev/ram$m 0 "; fi
	done
	klog_mark
	dmsetup suspend ssat-v &&
		dmsetup load ssat-v --table "0 $((size / 512)) ssastripe $layout $c $n ${members}4 sync $sync rebuild $f" &&
		dmsetup resume ssat-v || { fail "cannot load the rebuild table"; return 1; }
	if [ "$mid" = 1 ]; then
		expect_eq "action" "$(dmsetup status ssat-v | awk '{print $(NF-2)}')" rebuild || rc=1
		want=$(printf 'A%.0s' $(seq "$n")); want="${want:0:$f}a${want:$((f + 1))}"
		expect_eq "health while rebuilding" "$(vstat ssat-v health)" "$want" || rc=1
		dmsetup message ssat-v 0 fail $(((f + 1) % n)) 2>/dev/null && { fail "a second loss accepted"; rc=1; }
		dmsetup message ssat-v 0 check 2>/dev/null && { fail "check during the rebuild"; rc=1; }
		dmsetup message ssat-v 0 idle 2>/dev/null && { fail "idle stopped the rebuild"; rc=1; }
	fi
	# the walk starts at group 0: these writes mostly meet groups not yet
	# rebuilt, whose chunk of the new member is rebuilt before they start
	run_fio degraded.fio DEV=$v SIZE=$half RUNTIME=2 BSSPLIT="512/20:4k/40:$((c * 512))/20:64k/20" \
		> "$WORK/fio.out" 2>&1 || { tail -20 "$WORK/fio.out"; fail "fio verify during the rebuild"; rc=1; }
	[ "$mid" = 1 ] && { expect_eq "action after fio" "$(dmsetup status ssat-v | awk '{print $(NF-2)}')" rebuild || rc=1; }
	expect_eq "read during the rebuild" "$(dd if=$v bs=4096 skip=$((half / 4096)) iflag=direct status=none |
		sha256sum | cut -d' ' -f1)" "$(tail -c $((size - half)) "$WORK/ref" | sha256sum | cut -d' ' -f1)" || rc=1
	dmsetup suspend ssat-new && dmsetup load ssat-new --table "0 $per linear /dev/ram$n 0" &&
		dmsetup resume ssat-new || { fail "cannot take the delay off the new member"; rc=1; }
	wait_synced ssat-v || rc=1
	expect_eq "health after" "$(vstat ssat-v health)" "$(printf 'A%.0s' $(seq "$n"))" || rc=1
	klog_since | grep -q "rebuild of member $f done" || { fail "no log line"; rc=1; }
	expect_eq "untouched half" "$(sum_dev $v $(((size - half) / 512)) $((half / 512)))" \
		"$(tail -c $((size - half)) "$WORK/ref" | sha256sum | cut -d' ' -f1)" || rc=1
	parity_ok ssat-v || rc=1
	expect_eq "check after the rebuild" "$(scrub ssat-v check)" 0 || rc=1
	klog_since | grep -E "BUG|WARNING|Oops" && { fail "kernel warning"; rc=1; }
	vol_remove ssat-v
	dmsetup remove ssat-new
	return $rc
}
# rb_start NEWTABLE: ssat-v, a raid5 of 4 members (4 KiB chunks, 341
# groups) over ram0-3 holding $WORK/ref, is reloaded to rebuild member 1
# onto ssat-new, whose dm table is NEWTABLE (lines; over /dev/ram4, filled with
# random bytes).  The kernel log is marked just before the reload.
RB_SIZE=$((3 * 8 * 512 * 341))
rb_start() {
	mkdir -p "$WORK"
	wipe 2 /dev/ram0 /dev/ram1 /dev/ram2 /dev/ram3
	pvol_create ssat-v $((RB_SIZE / 512)) raid5 8 "$(ram_members 4)" || return 1
	head -c "$RB_SIZE" /dev/urandom > "$WORK/ref"
	dd if="$WORK/ref" of=/dev/mapper/ssat-v bs=1M oflag=direct status=none ||
		{ fail "initial write"; return 1; }
	dd if=/dev/urandom of=/dev/ram4 bs=1M count=2 oflag=direct status=none
	echo "$1" | dmsetup create ssat-new || { fail "cannot create the new member"; return 1; }
	klog_mark
	dmsetup suspend ssat-v && dmsetup load ssat-v --table "0 $((RB_SIZE / 512)) ssastripe raid5 8 4 \
/dev/ram0 0 /dev/mapper/ssat-new 0 /dev/ram2 0 /dev/ram3 0 2 rebuild 1" &&
		dmsetup resume ssat-v || { fail "cannot load the rebuild table"; return 1; }
}

# rb_end: no kernel warning since rb_start; ssat-v and ssat-new removed
rb_end() {
	local rc=0
	klog_since | grep -E "BUG|WARNING|Oops" && { fail "kernel warning"; rc=1; }
	vol_remove ssat-v
	dmsetup remove ssat-new
	return $rc
}

# The new member fails during its rebuild (by message): the rebuild stops
# ("rebuild_stopped", health D), the volume goes on degraded and reads back
# byte-exact, and a further fail is refused.
parity_rebuild_fails() {
	local rc=0 v=/dev/mapper/ssat-v size=$RB_SIZE
	rb_start "0 $((size / 3 / 512)) delay /dev/ram4 0 20" || return 1
	wait_until 60 sync_past ssat-v rebuild 0 || rc=1
	dmsetup message ssat-v 0 fail 1 || { fail "fail of the member being rebuilt refused"; rc=1; }
	expect_eq "action" "$(dmsetup status ssat-v | awk '{print $(NF-2)}')" rebuild_stopped || rc=1
	expect_eq "health" "$(vstat ssat-v health)" ADAA || rc=1
	expect_eq "degraded read" "$(sum_dev $v $((size / 512)))" "$(sha256sum < "$WORK/ref" | cut -d' ' -f1)" || rc=1
	dmsetup message ssat-v 0 fail 2 2>/dev/null && { fail "a second loss accepted"; rc=1; }
	rb_end || rc=1
	return $rc
}
register parity_rebuild_fails parity_rebuild_fails

# A write that waits for its group's rebuild while the new member fails:
# the new member (slow, dm-delay) fails writes of its chunk of group 300,
# the walk is still far from it when a 4 KiB write meets that group, so the
# write's own rebuild of the chunk fails.  The write fails with an I/O
# error and a log line and changes nothing (the whole volume reads back as
# before); the member is failed, the rebuild stopped, and the same write
# made again then succeeds, degraded.
parity_rebuild_refuse() {
	local rc=0 st pos v=/dev/mapper/ssat-v g=300 per=$((8 * 341)) size=$RB_SIZE
	rb_start "$(printf '0 %d delay /dev/ram4 0 20\n%d 8 error\n%d %d delay /dev/ram4 %d 20' \
		$((g * 8)) $((g * 8)) $((g * 8 + 8)) $((per - g * 8 - 8)) $((g * 8 + 8)))" || return 1
	# group g holds logical chunks 3g..3g+2; write the first of them
	head -c 4096 /dev/urandom > "$WORK/blk"
	dd if="$WORK/blk" of=$v bs=4k seek=$((3 * g)) oflag=direct status=none 2>/dev/null &&
		{ fail "the write whose rebuild failed succeeded"; rc=1; }
	st=$(dmsetup status ssat-v | awk '{print $(NF-2), $(NF-1)}')
	info "status after the failure: $st"
	expect_eq "action" "${st% *}" rebuild_stopped || rc=1
	pos=${st#* }; pos=${pos%/*}
	[ "$pos" -lt "$g" ] || { fail "the walk reached group $g first ($pos): no test"; rc=1; }
	expect_eq "health" "$(vstat ssat-v health)" ADAA || rc=1
	klog_since | grep -q "rebuild of member 1 cut short by a failure: a write fails" ||
		{ fail "no log line for the refused write"; rc=1; }
	klog_since | grep -q "member 1 (.*) failed: I/O error" || { fail "no log line for member 1"; rc=1; }
	expect_eq "volume after the refused write" "$(sum_dev $v $((size / 512)))" \
		"$(sha256sum < "$WORK/ref" | cut -d' ' -f1)" || rc=1
	dd if="$WORK/blk" of=$v bs=4k seek=$((3 * g)) oflag=direct status=none ||
		{ fail "the write made again, degraded, failed"; rc=1; }
	dd if="$WORK/blk" of="$WORK/ref" bs=4k seek=$((3 * g)) conv=notrunc status=none
	expect_eq "volume after the degraded write" "$(sum_dev $v $((size / 512)))" \
		"$(sha256sum < "$WORK/ref" | cut -d' ' -f1)" || rc=1
	rb_end || rc=1
	return $rc
}
register parity_rebuild_refuse parity_rebuild_refuse

# Little free memory: a process takes all but about 32 MiB of what the
# guest has available (first in line for the OOM killer), then fio verifies
# writes to a raid5 volume (queue_depth 1, so children queue), first
# healthy, then degraded: the target's allocations fall back on its
# reserves and nothing fails.  The checker finds the parity consistent
# before the loss, fio sees no error, and the log has no warning and no
# allocation failure.
# hog_signal PID SIG WORD: signal the hog and wait for its line saying WORD
hog_signal() {
	local n i
	n=$(grep -c "$3" "$WORK/hog.out")
	kill -"$2" "$1" 2>/dev/null || return 0
	for i in $(seq 600); do
		[ "$(grep -c "$3" "$WORK/hog.out")" -gt "$n" ] && return 0
		sleep 0.2
	done
}

parity_memory_pressure() {
	local rc=0 v=/dev/mapper/ssat-v avail hog_pid t size=$((12 << 20))
	mkdir -p "$WORK"
	wipe 5 /dev/ram0 /dev/ram1 /dev/ram2 /dev/ram3
	pvol_create ssat-v $((size / 512)) raid5 128 "$(ram_members 4)" 2 queue_depth 1 || return 1
	klog_mark
	# what earlier tests left cached would otherwise be reclaimed, slowly,
	# while the hog fills, and MemAvailable only estimates it
	sync
	echo 3 > /proc/sys/vm/drop_caches
	# no proactive compaction: under TCG on a busy host, kcompactd moving
	# pages for minutes stalled a vCPU (an RCU stall report, the test
	# killed at 900 s); the pressure this test is for is reclaim's
	local proactive
	proactive=$(cat /proc/sys/vm/compaction_proactiveness 2>/dev/null)
	[ -n "$proactive" ] && echo 0 > /proc/sys/vm/compaction_proactiveness
	avail=$(awk '/^MemAvailable:/ {print int($2 / 1024)}' /proc/meminfo)
	# the kernel faults the pages in (MAP_POPULATE writes to a private
	# mapping), far quicker under TCG than a loop in Python
	# MemAvailable is an estimate, and what the first fill leaves of it
	# varies from boot to boot (24-66 MiB seen): the hog then tops up
	# 4 MiB at a time until what is left is the spare at most.  SIGUSR1
	# gives 128 MiB back (for the independent parity check, a Python
	# process that would otherwise spend minutes paging itself in),
	# SIGUSR2 takes it again; each prints a line when done.
	python3 -c '
import mmap, signal, sys, time
def available():
    for line in open("/proc/meminfo"):
        if line.startswith("MemAvailable:"):
            return int(line.split()[1]) >> 10
def fill(mib):
    return mmap.mmap(-1, mib << 20, flags=mmap.MAP_PRIVATE | mmap.MAP_POPULATE)
def tighten(*_):
    while available() > spare and len(held) < 4096:
        held.append(fill(4))
    print("hog holds", sum(len(m) for m in held) >> 20, "MiB", flush=True)
def relax(*_):
    while len(held) > 1 and available() < spare + 128:
        held.pop().close()
    print("hog relaxed to", sum(len(m) for m in held) >> 20, "MiB", flush=True)
open("/proc/self/oom_score_adj", "w").write("1000")  # first, before it fills
spare = int(sys.argv[2])
signal.signal(signal.SIGUSR1, relax)
signal.signal(signal.SIGUSR2, tighten)
held = [fill(64) for _ in range((int(sys.argv[1]) - spare) // 64)]
tighten()
while True:
    time.sleep(3600)
' "$avail" "${SSA_HOG_SPARE:-32}" > "$WORK/hog.out" 2>&1 &
	hog_pid=$!
	t=$SECONDS
	for _ in $(seq 600); do
		grep -q "hog holds" "$WORK/hog.out" && break
		kill -0 $hog_pid 2>/dev/null || break
		sleep 0.2
	done
	info "$(cat "$WORK/hog.out") after $((SECONDS - t)) s; $(grep -E '^(MemFree|MemAvailable):' /proc/meminfo | tr -s ' ' | tr '\n' ' ')"
	grep -E '^(allocstall|pgscan_direct|pgsteal_direct|pgscan_kswapd|pgsteal_kswapd|oom_kill|compact_stall)' \
		/proc/vmstat > "$WORK/vm0"
	t=$SECONDS
	run_fio verify.fio DEV=$v SIZE=$size BSSPLIT="4k/40:64k/30:256k/20:1m/10" > "$WORK/fio.out" 2>&1 ||
		{ tail -20 "$WORK/fio.out"; fail "fio verify under memory pressure"; rc=1; }
	info "fio verify: $((SECONDS - t)) s"
	t=$SECONDS
	hog_signal $hog_pid USR1 relaxed
	parity_ok ssat-v || rc=1
	hog_signal $hog_pid USR2 holds
	info "parity check: $((SECONDS - t)) s"
	dmsetup message ssat-v 0 fail 2 || rc=1
	t=$SECONDS
	run_fio degraded.fio DEV=$v SIZE=$size RUNTIME=5 BSSPLIT="4k/50:64k/30:1m/20" > "$WORK/fio2.out" 2>&1 ||
		{ tail -20 "$WORK/fio2.out"; fail "fio verify, degraded, under memory pressure"; rc=1; }
	info "fio verify, degraded: $((SECONDS - t)) s"
	kill -0 $hog_pid 2>/dev/null || { fail "the memory hog did not last the test (OOM-killed?)"; rc=1; }
	grep -E '^(allocstall|pgscan_direct|pgsteal_direct|pgscan_kswapd|pgsteal_kswapd|oom_kill|compact_stall)' \
		/proc/vmstat > "$WORK/vm1"
	info "vmstat: $(awk 'NR == FNR {a[$1] = $2; next} {printf "%s +%d ", $1, $2 - a[$1]}' \
		"$WORK/vm0" "$WORK/vm1")"
	# the pressure was real: the kernel had to reclaim memory while fio ran
	local scanned
	scanned=$(awk 'NR == FNR {a[$1] = $2; next} /^pgscan_(kswapd|direct) / {n += $2 - a[$1]} END {print n + 0}' \
		"$WORK/vm0" "$WORK/vm1")
	t=$SECONDS
	kill $hog_pid 2>/dev/null; wait $hog_pid 2>/dev/null
	info "hog ended in $((SECONDS - t)) s"
	[ -n "$proactive" ] && echo "$proactive" > /proc/sys/vm/compaction_proactiveness
	klog_since | grep -E "BUG|WARNING|Oops|allocation failure|invoked oom-killer" && { fail "kernel log"; rc=1; }
	vol_remove ssat-v
	# Free memory can stay above the low watermark with MemAvailable at
	# the spare (seen once: MemFree 98 MiB, MemAvailable 33 MiB), and then
	# nothing wakes reclaim: the checks above passed, but not under the
	# pressure this test is for.
	if [ $rc = 0 ] && [ "$scanned" -le 0 ]; then
		skip "no page was reclaimed while fio ran: the memory pressure did not develop"
		return
	fi
	return $rc
}
# make check-full only: its time follows the host's load (29 s to 721 s
# of fio verify seen, the test killed at 900 s once, four guests on two
# host cores), and a starved guest's compaction can stall a vCPU long
# enough for the kernel to report it
if [ "$FULL" = 1 ]; then
	register parity_memory_pressure parity_memory_pressure
fi

# Suspend and rmmod while rebuilt reads are queued: a degraded volume whose
# survivors are slow (dm-delay, 20 ms) is read whole; meanwhile a suspend
# waits for the rebuilt reads in flight and returns, rmmod is refused, and
# after the resume the read completes byte-exact.
parity_degraded_suspend() {
	local rc=0 v=/dev/mapper/ssat-v m members="" size=$((3 * 8 * 512 * 341)) sum
	mkdir -p "$WORK"
	wipe 2 /dev/ram0 /dev/ram1 /dev/ram2 /dev/ram3
	for m in 1 2 3; do
		dmsetup create ssat-dl$m --table "0 $((size / 3 / 512)) delay /dev/ram$m 0 20" || return 1
		members+=" /dev/mapper/ssat-dl$m 0"
	done
	vol_create ssat-v $((size / 512)) raid5 8 "/dev/ram0 0$members" 2 initial_sync off || return 1
	head -c "$size" /dev/urandom > "$WORK/ref"
	dd if="$WORK/ref" of=$v bs=1M oflag=direct status=none || { fail "initial write"; return 1; }
	dmsetup message ssat-v 0 fail 0 || { fail "fail 0 refused"; return 1; }
	klog_mark
	(dd if=$v bs=64k iflag=direct status=none | sha256sum | cut -d' ' -f1 > "$WORK/sum") &
	wait_io ssat-v 60 || rc=1
	timeout 60 dmsetup suspend ssat-v || { fail "suspend with rebuilt reads queued"; rc=1; }
	expect_eq "suspended" "$(dmsetup info -c --noheadings -o attr ssat-v | cut -c3)" s || rc=1
	rmmod dm_ssastripe 2>/dev/null && { fail "rmmod succeeded with a volume in use"; rc=1; }
	sleep 0.5
	dmsetup resume ssat-v || rc=1
	wait
	expect_eq "read across the suspend" "$(cat "$WORK/sum")" "$(sha256sum < "$WORK/ref" | cut -d' ' -f1)" || rc=1
	klog_since | grep -E "BUG|WARNING|Oops" && { fail "kernel warning"; rc=1; }
	vol_remove ssat-v
	for m in 1 2 3; do dmsetup remove ssat-dl$m; done
	return $rc
}
register parity_degraded_suspend parity_degraded_suspend
register parity_rebuild_raid5_n4_c4k_m1_before parity_rebuild raid5 4 8 1 before_service
register parity_rebuild_pstripe_n4_c4k_m2_after parity_rebuild pstripe 4 8 2 after_service
if [ "$FULL" = 1 ]; then
	register parity_rebuild_raid5_n5_c4k_m4_after parity_rebuild raid5 5 8 4 after_service
	register parity_rebuild_pstripe_n3_c8k_m0_before parity_rebuild pstripe 3 16 0 before_service
	# chunks of several 64 KiB slices
	register parity_rebuild_raid5_n3_c256k_m1_before parity_rebuild raid5 3 512 1 before_service 16
	register parity_rebuild_pstripe_n4_c1m_m3_after parity_rebuild pstripe 4 2048 3 after_service 12
fi

# The initial sync.  Over members full of old data, the first resume
# computes the parity of every group ("resync", then "idle" with the groups
# it rewrote), and the independent checker and "check" agree.  With
# initial_sync off the parity is left as found.  A member lost while the
# sync runs (slow dm-delay members) leaves the groups not yet synced
# unrebuildable: reads there fail, while synced groups rebuild right.
parity_initial_sync() {
	local rc=0 layout bad m st pos v=/dev/mapper/ssat-v
	random_members() {
		for m in 0 1 2 3; do
			dd if=/dev/urandom of=/dev/ram$m bs=1M count=2 oflag=direct status=none
		done
	}
	for layout in raid5 pstripe; do
		random_members
		klog_mark
		pvol_create ssat-v 6144 $layout 32 "$(ram_members 4)" || return 1
		parity_ok ssat-v || rc=1
		bad=$(dmsetup status ssat-v | awk '{print $NF}')
		[ "$bad" -gt 0 ] || { fail "$layout: the sync rewrote no group over random members"; rc=1; }
		klog_since | grep -q "initial sync done: 64 of 64 groups, $bad mismatched" ||
			{ fail "$layout: no log line for the sync"; rc=1; }
		expect_eq "$layout: check after the sync" "$(scrub ssat-v check)" 0 || rc=1
		vol_remove ssat-v
		random_members
		vol_create ssat-v 6144 $layout 32 "$(ram_members 4)" 2 initial_sync off || return 1
		expect_eq "$layout: status with initial_sync off" \
			"$(dmsetup status ssat-v | awk '{print $(NF-2), $(NF-1)}')" "idle 0/64" || rc=1
		python3 "$TOP/tests/kernel/check_parity.py" ssat-v > /dev/null &&
			{ fail "$layout: initial_sync off, yet random members are in sync"; rc=1; }
		[ "$(scrub ssat-v check)" -gt 0 ] || { fail "$layout: check found nothing"; rc=1; }
		vol_remove ssat-v
	done

	# a member lost half-way through the sync (40 ms a member I/O)
	random_members
	for m in 0 1 2 3; do
		dmsetup create ssat-dl$m --table "0 4096 delay /dev/ram$m 0 40" || return 1
	done
	klog_mark
	vol_create ssat-v 6144 raid5 32 "$(for m in 0 1 2 3; do echo -n "/dev/mapper/ssat-dl$m 0 "; done)" || return 1
	wait_until 60 sync_past ssat-v resync 0 || rc=1
	st=$(dmsetup status ssat-v | awk '{print $(NF-2)}')
	expect_eq "action while syncing" "$st" resync || rc=1
	# a suspend pauses the sync, the resume goes on from there
	dmsetup suspend ssat-v || rc=1
	st=$(dmsetup status ssat-v | awk '{print $(NF-2), $(NF-1)}')
	pos=${st#* }; pos=${pos%/*}
	expect_eq "action while suspended" "${st% *}" unsynced || rc=1
	dmsetup resume ssat-v || rc=1
	wait_until 30 sync_past ssat-v resync "$pos" || rc=1
	st=$(dmsetup status ssat-v | awk '{print $(NF-2), $(NF-1)}')
	expect_eq "action after the resume" "${st% *}" resync || rc=1
	st=${st#* }; st=${st%/*}
	[ "$st" -gt "$pos" ] || { fail "the sync did not go on after the resume ($pos, then $st)"; rc=1; }
	dmsetup message ssat-v 0 idle 2>/dev/null && { fail "idle stopped the initial sync"; rc=1; }
	dmsetup message ssat-v 0 check 2>/dev/null && { fail "check ran during the initial sync"; rc=1; }
	dmsetup message ssat-v 0 fail 1 || { fail "fail 1 refused"; rc=1; }
	st=$(dmsetup status ssat-v | awk '{print $(NF-2)}')
	pos=$(dmsetup status ssat-v | awk '{print $(NF-1)}'); pos=${pos%/*}
	expect_eq "action after the loss" "$st" unsynced || rc=1
	info "the sync stopped at group $pos of 64"
	[ "$pos" -gt 0 ] && [ "$pos" -lt 63 ] || { fail "sync stopped at group $pos (want 1..62)"; rc=1; }
	klog_since | grep -q "member 1 lost before the initial sync: groups $pos-63 not rebuildable" ||
		{ fail "no log line for the loss"; klog_since | tail -3; rc=1; }
	# row 0 (synced): member 1's chunk (logical chunk 1) rebuilds to what it holds
	expect_eq "rebuilt synced chunk" "$(sum_dev $v 32 32)" \
		"$(dd if=/dev/ram1 bs=512 count=32 iflag=direct status=none | sha256sum | cut -d' ' -f1)" || rc=1
	# row 63 (not synced): member 1 holds data there; reading it fails
	dd if=$v of=/dev/null bs=512 skip=$((63 * 96)) count=96 iflag=direct status=none 2>/dev/null &&
		{ fail "a read of an unsynced group of the lost member succeeded"; rc=1; }
	klog_since | grep -q "group 63 was never synced: member 1 cannot be rebuilt there" ||
		{ fail "no log line for the refused rebuild"; rc=1; }
	vol_remove ssat-v
	# removed while the sync runs: the walk stops, nothing is left behind
	vol_create ssat-v 6144 raid5 32 "$(for m in 0 1 2 3; do echo -n "/dev/mapper/ssat-dl$m 0 "; done)" || return 1
	wait_until 60 sync_past ssat-v resync 0 || rc=1
	timeout 30 dmsetup remove ssat-v || { fail "remove during the sync"; rc=1; }
	klog_since | grep -E "BUG|WARNING|Oops" && { fail "kernel warning"; rc=1; }
	for m in 0 1 2 3; do dmsetup remove ssat-dl$m || rc=1; done
	return $rc
}
register parity_initial_sync parity_initial_sync

# A walk's own read meets a failing member: the member fails, as for a
# user's I/O.  Member 2 fails reads of one sector range only: its parity
# chunk of group 510 (raid5, 3 members, 4 KiB chunks: the groups 3k have
# their parity on member 2), which no healthy read of data touches.  A
# check stops at that group with member 2 failed and the volume reads back
# byte-exact (rebuilt); an initial sync stops there too, unsynced.
# Uses lin_members (t_60).
parity_walk_errors() {
	local rc=0 members st m v=/dev/mapper/ssat-v g=510
	mkdir -p "$WORK"
	members=$(lin_members 3 8192) || return 1
	pvol_create ssat-v 16384 raid5 8 "$members" || return 1
	head -c 8M /dev/urandom > "$WORK/ref"
	dd if="$WORK/ref" of=$v bs=1M oflag=direct status=none || { fail "initial write"; rc=1; }
	printf '0 %d linear /dev/ram2 0\n%d 8 error\n%d %d linear /dev/ram2 %d\n' \
		$((g * 8)) $((g * 8)) $((g * 8 + 8)) $((8192 - g * 8 - 8)) $((g * 8 + 8)) |
		dmsetup load ssat-m2 && dmsetup suspend ssat-m2 && dmsetup resume ssat-m2 ||
		{ fail "cannot put the error range into member 2"; return 1; }
	expect_eq "health before the check" "$(vstat ssat-v health)" AAA || rc=1
	klog_mark
	expect_eq "check: mismatched groups" "$(scrub ssat-v check)" 0 || rc=1
	expect_eq "health after the check" "$(vstat ssat-v health)" AAD || rc=1
	klog_since | grep -q "check: member 2: read error -5" ||
		{ fail "no log line for the check's read error"; rc=1; }
	klog_since | grep -q "member 2 (.*) failed: I/O error -5" || { fail "member 2 not failed"; rc=1; }
	klog_since | grep -q "check failed: $g of 1024 groups" ||
		{ fail "the check did not stop at group $g"; klog_since | tail -3; rc=1; }
	expect_eq "volume after the check" "$(sum_dev $v 16384)" \
		"$(sha256sum < "$WORK/ref" | cut -d' ' -f1)" || rc=1
	dmsetup message ssat-v 0 check 2>/dev/null && { fail "check accepted with a member failed"; rc=1; }
	vol_remove ssat-v

	# the same range met by the initial sync of a new table
	klog_mark
	vol_create ssat-v 16384 raid5 8 "$members" || return 1
	for m in $(seq 1200); do
		st=$(dmsetup status ssat-v | awk '{print $(NF-2), $(NF-1)}')
		[ "${st% *}" = resync ] || break
		sleep 0.1
	done
	expect_eq "status after the sync met the error" "$st" "unsynced $g/1024" || rc=1
	expect_eq "health after the sync" "$(vstat ssat-v health)" AAD || rc=1
	klog_since | grep -q "initial sync: member 2: read error -5" ||
		{ fail "no log line for the sync's read error"; rc=1; }
	klog_since | grep -q "member 2 lost before the initial sync: groups $g-1023 not rebuildable" ||
		{ fail "no log line for the unsynced groups"; klog_since | tail -3; rc=1; }
	# row 1 (synced): member 2's chunk (logical chunk 2) rebuilds to what it holds
	expect_eq "rebuilt synced chunk" "$(sum_dev $v 8 16)" \
		"$(dd if=/dev/ram2 bs=512 count=8 skip=8 iflag=direct status=none | sha256sum | cut -d' ' -f1)" || rc=1
	vol_remove ssat-v
	for m in 0 1 2; do dmsetup remove ssat-m$m || rc=1; done
	return $rc
}
register parity_walk_errors parity_walk_errors

# parity_flakey LAYOUT MEMBERS CHUNK_SECTORS FAILED FEATURES...
parity_flakey() {
	local layout=$1 n=$2 c=$3 f=$4 rc=0 v=/dev/mapper/ssat-v members="" m
	shift 4
	local unit=$((c * 512 * (n - 1)))
	[ "$layout" = pstripe ] && unit=$((unit * n))
	local size=$((((8 << 20) / unit) * unit)) half per fio_pid want i w0
	half=$((size / 2 / 4096 * 4096))
	per=$(((size / (n - 1) + 1048575) / 1048576 * 2048))
	mkdir -p "$WORK"
	for ((m = 0; m < n; m++)); do
		if [ $m -eq "$f" ]; then
			dmsetup create ssat-fl --table "0 $per flakey /dev/ram$m 0 3600 0" || return 1
			members+="/dev/mapper/ssat-fl 0 "
		else
			members+="/dev/ram$m 0 "
		fi
	done
	pvol_create ssat-v $((size / 512)) "$layout" "$c" "${members% }" 2 queue_depth 2 || return 1
	head -c "$size" /dev/urandom > "$WORK/ref"
	dd if="$WORK/ref" of=$v bs=1M oflag=direct status=none || { fail "initial write"; return 1; }
	parity_ok ssat-v || rc=1
	klog_mark
	# fio writes until the failure has been met and 200 more requests
	# have gone through (bounded), not for a fixed time: on a loaded
	# guest the table swap alone can outlast a short run
	(cd "$WORK" && exec env DEV=$v SIZE=$half RUNTIME=600 \
		BSSPLIT="512/20:4k/40:$((c * 512))/20:64k/20" \
		fio --output-format=normal "$TOP/tests/fio/degraded.fio" > "$WORK/fio.out" 2>&1) &
	fio_pid=$!	# fio itself (exec): SIGINT stops it
	wait_io ssat-v || rc=1
	dmsetup load ssat-fl --table "0 $per flakey /dev/ram$f 0 0 3600 $*" &&
		dmsetup suspend ssat-fl && dmsetup resume ssat-fl || { fail "cannot swap the flakey table"; rc=1; }
	for ((i = 0; i < 300; i++)); do
		[[ $(vstat ssat-v health) == *D* ]] && break
		kill -0 $fio_pid 2>/dev/null || break
		sleep 0.1
	done
	w0=$(vstat ssat-v req_w)
	for ((i = 0; i < 300; i++)); do
		[ $(($(vstat ssat-v req_w) - w0)) -ge 200 ] && break
		kill -0 $fio_pid 2>/dev/null || break
		sleep 0.1
	done
	kill -0 $fio_pid 2>/dev/null || { fail "fio ended before it was stopped"; rc=1; }
	kill -INT $fio_pid 2>/dev/null
	wait $fio_pid
	fio_clean "$WORK/fio.out" || { tail -20 "$WORK/fio.out"; fail "fio saw an error"; rc=1; }
	want=$(printf 'A%.0s' $(seq "$n")); want="${want:0:$f}D${want:$((f + 1))}"
	expect_eq health "$(vstat ssat-v health)" "$want" || rc=1
	klog_since | grep -q "member $f (.*) failed: I/O error" || { fail "no log line for member $f"; rc=1; }
	expect_eq "untouched half" "$(sum_dev $v $(((size - half) / 512)) $((half / 512)))" \
		"$(tail -c $((size - half)) "$WORK/ref" | sha256sum | cut -d' ' -f1)" ||
		{ rc=1; dd if=$v bs=1M iflag=direct status=none | cmp -l - "$WORK/ref" |
			awk -v h="$((size - half))" '$1 > h {print int(($1-1)/512)}' | uniq -c | head -20; }
	klog_since | grep -E "BUG|WARNING|Oops" && { fail "kernel warning"; rc=1; }
	vol_remove ssat-v
	return $rc
}
register parity_flakey_raid5_reads parity_flakey raid5 4 8 2
register parity_flakey_raid5_writes parity_flakey raid5 4 8 1 1 error_writes
register parity_flakey_pstripe_reads parity_flakey pstripe 4 8 3
