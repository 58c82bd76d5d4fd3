# SPDX-License-Identifier: GPL-2.0-only
# The write-intent bitmap (table option "bitmap <dev>") of the parity
# layouts and the mirror: bits set before writes and cleared once idle, a
# clean stop that leaves nothing to resync, a stop without a suspend (the
# bitmap device failing, as a crash would leave it) after which only the
# regions that were being written are resynced -- shown by stale parity
# (differing copies) planted in one of them, which the resync mends, and in
# another, which it does not touch -- faster than a full initial sync; the
# mirror's reads of a region waiting for its resync all served by one copy;
# and malformed bitmap tables.
#
# Uses parity_ok and wait_synced (t_98), bad_table (t_50).

# bm_field NAME: the status's bitmap field ("3/512", "failed")
bm_field() { dmsetup status "$1" | awk '{for (i = 1; i < NF; i++) if ($i == "bitmap") print $(i + 1)}'; }

# bm_wait NAME WANT: until the bitmap field is WANT (bounded: 30 s)
bm_wait() {
	local i
	for ((i = 0; i < 300; i++)); do
		[ "$(bm_field "$1")" = "$2" ] && return 0
		sleep 0.1
	done
	fail "bitmap $(bm_field "$1"), not $2, after 30 s"
}

# bm_writer BLOCK...: write those 4 KiB blocks of ssat-v over and over in
# the background (BM_PID: one fio, a job a block, each rewriting its block
# without pause), keeping their regions dirty.  (A dd a write left a
# region idle for over a second on the debug kernel, where the daemon
# cleared its bit before the test's crash.)
bm_writer() {
	local b args=()
	for b in "$@"; do args+=(--name="b$b" --offset=$((b * 4096))); done
	(cd /tmp && exec fio --filename=/dev/mapper/ssat-v --direct=1 --ioengine=psync \
		--rw=write --bs=4k --size=4k --time_based --runtime=900 \
		--output=/dev/null "${args[@]}") &
	BM_PID=$!
}

# bm_wait_disk DEV N: until the on-device bitmap of DEV (after its 4 KiB
# superblock) has N bits set (bounded: 30 s): what a crash would leave.
bm_wait_disk() {
	local i n
	for ((i = 0; i < 300; i++)); do
		n=$(dd if="$1" bs=4k skip=1 count=1 iflag=direct status=none |
			python3 -c 'import sys; print(sum(bin(x).count("1") for x in sys.stdin.buffer.read()))')
		[ "$n" = "$2" ] && return 0
		sleep 0.1
	done
	fail "on-device bitmap of $1: $n bits set, not $2, after 30 s"
}

# ram_reads: reads completed on member 0 (ssat-m0, over ram0)
ram_reads() { awk '{print $1}' "/sys/block/$(dm_sysname ssat-m0)/stat"; }

# bm_sb_flags DEV: the superblock's flags (1: stopped cleanly)
bm_sb_flags() { od -An -t u4 -j 36 -N 4 "$1" | tr -d ' '; }

# bm_plant BLOCK: stale parity in the row of 4 KiB logical block BLOCK of
# the raid5 below (4 members, 4 KiB chunks): its parity chunk overwritten
bm_plant() {
	local row=$(($1 / 3)) pm
	pm=$((3 - row % 4))	# left-symmetric: parity on N - 1 - row mod N
	dd if=/dev/urandom of=/dev/mapper/ssat-m$pm bs=4k seek=$row count=1 oflag=direct status=none
}

# The volume: raid5 over ssat-m0..3, linear over ram0-3 (32 MiB each, 4 KiB chunks: 8192 groups,
# 512 regions of 16), the bitmap on ssat-bm, a linear device over a loop
# file (an "error" table fails it).
BM_LEN=$((3 * 65536))
bm_volume() {	# bm_volume [OPTS...]
	local -a o=(bitmap /dev/mapper/ssat-bm "$@")
	vol_create ssat-v $BM_LEN raid5 8 "$BM_MEMBERS" "${#o[@]}" "${o[@]}"
}

# bm_cycle CREATE: on the volume CREATE made (ssat-v, 512 regions), a
# region's bit set by writes and cleared once they stop, then a clean stop
# (superblock flags 1) and CREATE again, which logs nothing to resync
bm_cycle() {
	local rc=0
	bm_writer 0
	bm_wait ssat-v 1/512 || rc=1
	kill $BM_PID; wait $BM_PID 2>/dev/null
	bm_wait ssat-v 0/512 || rc=1
	vol_remove ssat-v
	expect_eq "superblock flags after a clean stop" "$(bm_sb_flags /dev/mapper/ssat-bm)" 1 || rc=1
	klog_mark
	"$1" || return 1
	klog_since | grep -q "stopped cleanly, 0 of 512 regions to resync" || { fail "no clean-stop log line"; rc=1; }
	return $rc
}

parity_bitmap() {
	local rc=0 v=/dev/mapper/ssat-v bm t0 t1 r0 r1 full part preads out
	wipe 32 /dev/ram0 /dev/ram1 /dev/ram2 /dev/ram3
	BM_MEMBERS=$(lin_members 4 65536) || return 1
	loop_members 1 1 || return 1
	bm=${LOOPS[0]}
	dmsetup create ssat-bm --table "0 2048 linear $bm 0" || return 1

	# a new bitmap, members zeroed: no sync
	klog_mark
	bm_volume initial_sync off || return 1
	klog_since | grep -q "bitmap .*: new, 512 regions of 16 groups" || { fail "no log line for a new bitmap"; rc=1; }
	expect_eq "bitmap at start" "$(bm_field ssat-v)" 0/512 || rc=1
	[[ $(dmsetup table ssat-v) =~ " bitmap "[0-9]+:[0-9]+ ]] || { fail "table lacks the bitmap: $(dmsetup table ssat-v)"; rc=1; }
	# writes set their region's bit; idle, it is cleared again; a clean
	# stop: the superblock says so, nothing to resync after
	bm_cycle bm_volume || rc=1
	expect_eq "action after a clean stop" "$(dmsetup status ssat-v | awk '{print $(NF-2)}')" idle || rc=1
	expect_eq "superblock flags while active" "$(bm_sb_flags /dev/mapper/ssat-bm)" 0 || rc=1

	# Writes keep regions 5 (block 240: row 80) and 77 (block 3696: row
	# 1232) dirty while the bitmap device fails: the volume goes on
	# without it, and its last state is what a crash would leave.
	bm_writer 240 3696
	bm_wait ssat-v 2/512 || rc=1
	bm_wait_disk /dev/mapper/ssat-bm 2 || rc=1
	klog_mark
	dmsetup load ssat-bm --table "0 2048 error" && dmsetup suspend ssat-bm && dmsetup resume ssat-bm
	# the next bitmap write fails: a write in a clean region needs one
	dd if=/dev/urandom of=$v bs=4k count=1 seek=30 oflag=direct status=none ||
		{ fail "a write failed with the bitmap device failing"; rc=1; }
	bm_wait ssat-v failed || rc=1
	kill $BM_PID; wait $BM_PID 2>/dev/null
	klog_since | grep -q "bitmap .* write error .*: unprotected; a crash now needs a full resync" || { fail "no log line for the failed bitmap"; rc=1; }
	parity_ok ssat-v || rc=1
	vol_remove ssat-v
	dmsetup load ssat-bm --table "0 2048 linear $bm 0" && dmsetup suspend ssat-bm && dmsetup resume ssat-bm
	expect_eq "superblock flags after the failure" "$(bm_sb_flags /dev/mapper/ssat-bm)" 0 || rc=1

	# stale parity in region 5 (dirty) and in region 40 (block 1920: row
	# 640, clean): the resync mends the first and never looks at the second
	bm_plant 240
	bm_plant 1920
	klog_mark
	t0=$EPOCHREALTIME r0=$(ram_reads)
	bm_volume || return 1
	wait_synced ssat-v || rc=1
	t1=$EPOCHREALTIME r1=$(ram_reads)
	klog_since | grep -q "stopped without a suspend (a crash?), 2 of 512 regions to resync" ||
		{ fail "no log line for the unclean stop"; klog_since | grep bitmap; rc=1; }
	part=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }') preads=$((r1 - r0))
	out=$(scrub ssat-v check)
	expect_eq "groups with stale parity after the resync (the clean region's)" "$out" 1 || rc=1
	bm_wait ssat-v 0/512 || rc=1
	vol_remove ssat-v

	# against a full initial sync of the same volume
	t0=$EPOCHREALTIME r0=$(ram_reads)
	vol_create ssat-v $BM_LEN raid5 8 "$BM_MEMBERS" || return 1
	wait_synced ssat-v || rc=1
	t1=$EPOCHREALTIME r1=$(ram_reads)
	full=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
	info "resync after the unclean stop: $part s, $preads reads of member 0 (2 regions: 32 groups);" \
		"full initial sync: $full s, $((r1 - r0)) reads (8192 groups); each from table load to idle"
	# the walk reads each group it visits once on every member
	[ "$preads" -ge 32 ] && [ "$preads" -lt 64 ] ||
		{ fail "the bitmap's resync read member 0 $preads times, not about 32"; rc=1; }
	[ $((r1 - r0)) -ge 8192 ] || { fail "the full sync read member 0 only $((r1 - r0)) times"; rc=1; }
	parity_ok ssat-v || rc=1
	vol_remove ssat-v
	dmsetup remove ssat-bm
	return $rc
}
register parity_bitmap parity_bitmap

# A bitmap given up on a write error says so in its superblock when it
# still can (here only its bits fail): the next table resyncs every group
# rather than trust bits that missed the writes made since.
parity_bitmap_untrusted() {
	local rc=0 bm
	wipe 32 /dev/ram0 /dev/ram1 /dev/ram2 /dev/ram3
	BM_MEMBERS=$(lin_members 4 65536) || return 1
	loop_members 1 1 || return 1
	bm=${LOOPS[0]}
	dmsetup create ssat-bm --table "0 2048 linear $bm 0" || return 1
	bm_volume initial_sync off || return 1
	vol_remove ssat-v
	# the superblock still writable, the bits not
	printf '0 8 linear %s 0\n8 2040 error\n' "$bm" | dmsetup load ssat-bm &&
		dmsetup suspend ssat-bm && dmsetup resume ssat-bm || return 1
	klog_mark
	bm_volume || return 1
	dd if=/dev/urandom of=/dev/mapper/ssat-v bs=4k count=1 seek=100 oflag=direct status=none ||
		{ fail "a write failed with the bitmap failing"; rc=1; }
	bm_wait ssat-v failed || rc=1
	vol_remove ssat-v
	expect_eq "superblock flags (untrusted)" "$(bm_sb_flags /dev/mapper/ssat-bm)" 2 || rc=1
	dmsetup load ssat-bm --table "0 2048 linear $bm 0" && dmsetup suspend ssat-bm && dmsetup resume ssat-bm
	klog_mark
	bm_volume || return 1
	klog_since | grep -q "given up earlier (an I/O error): resyncing every group" ||
		{ fail "no full resync after an untrusted bitmap"; klog_since | grep bitmap; rc=1; }
	wait_synced ssat-v || rc=1
	klog_since | grep -q "initial sync done: 8192 of 8192 groups" || { fail "the resync was not whole"; rc=1; }
	bm_wait ssat-v 0/512 || rc=1
	vol_remove ssat-v
	expect_eq "superblock flags after a clean stop" "$(bm_sb_flags /dev/mapper/ssat-bm)" 1 || rc=1
	dmsetup remove ssat-bm
	return $rc
}
register parity_bitmap_untrusted parity_bitmap_untrusted

parity_bitmap_bad_tables() {
	local rc=0 bm big small
	wipe 1 /dev/ram0 /dev/ram1 /dev/ram2 /dev/ram3
	# four sparse 1 GiB members (for a volume of 2^21 groups) and the bitmap
	loop_members 5 1025 || return 1
	bm=${LOOPS[4]}
	big="${LOOPS[0]} 0 ${LOOPS[1]} 0 ${LOOPS[2]} 0 ${LOOPS[3]} 0"
	local T="0 $BM_LEN ssastripe raid5 8 4 $(ram_members 4)"
	truncate -s 4096 "$WORK/small.img"
	small=$(losetup -f --show "$WORK/small.img") || return 1
	bad_table bitmap-small "$T 2 bitmap $small" "Bitmap device too small" || rc=1
	bad_table bitmap-missing "$T 2 bitmap /dev/nonexistent" "Bitmap device lookup failed" || rc=1
	bad_table bitmap-member "$T 2 bitmap /dev/ram2" "Bitmap device is also a member" || rc=1
	bad_table bitmap-no-value "$T 1 bitmap" "Optional argument without a value" || rc=1
	bad_table bitmap-twice "$T 4 bitmap $bm bitmap $bm" "Duplicate optional argument" || rc=1
	bad_table bitmap-region-0 "$T 4 bitmap $bm bitmap_region 0" "Invalid bitmap_region" || rc=1
	bad_table bitmap-region-alone "$T 2 bitmap_region 16" "bitmap_region needs a bitmap device" || rc=1
	bad_table bitmap-region-tiny "0 $((3 << 21)) ssastripe raid5 1 4 $big 4 bitmap $bm bitmap_region 1" \
		"bitmap_region too small" || rc=1
	bad_table bitmap-stripe "0 8192 ssastripe stripe 8 2 /dev/ram0 0 /dev/ram1 0 2 bitmap $bm" \
		"bitmap is an option of the mirror, raid5, pstripe and srarray layouts" || rc=1
	# a bitmap written for one geometry refuses another
	dmsetup create ssat-v --table "$T 4 bitmap $bm initial_sync off" || { fail "cannot create the volume"; return 1; }
	vol_remove ssat-v
	bad_table bitmap-geometry "0 $((BM_LEN / 2)) ssastripe raid5 8 4 $(ram_members 4) 2 bitmap $bm" \
		"Bitmap device holds the bitmap of another geometry" || rc=1
	bad_table bitmap-region-other "$T 4 bitmap $bm bitmap_region 32" \
		"Bitmap device holds the bitmap of another geometry" || rc=1
	# the same geometry still loads
	dmsetup create ssat-v --table "$T 2 bitmap $bm" || { fail "the bitmap's own geometry refused"; rc=1; }
	vol_remove ssat-v
	return $rc
}
register parity_bitmap_bad_tables parity_bitmap_bad_tables

# ---- the mirror's bitmap ------------------------------------------------

# mb_sum MEMBER BLOCK: sha256 of 4 KiB block BLOCK of ssat-mMEMBER
mb_sum() { dd if=/dev/mapper/ssat-m$1 bs=4k skip="$2" count=1 iflag=direct status=none | sha256sum | cut -d' ' -f1; }

# vol_sum BLOCK: sha256 of 4 KiB block BLOCK of ssat-v
vol_sum() { dd if=/dev/mapper/ssat-v bs=4k skip="$1" count=1 iflag=direct status=none | sha256sum | cut -d' ' -f1; }

# A three-copy RAID 1 over ssat-m0..2 (linear over ram0-2, 32 MiB each;
# 4 KiB chunks: 8192 member chunks, 512 regions of 16), the bitmap on
# ssat-bm.  Logical block b is member chunk b on every copy.
mbm_volume() {	# mbm_volume [OPTS...]
	local -a o=(copies 3 read_policy round_robin bitmap /dev/mapper/ssat-bm "$@")
	vol_create ssat-v 65536 mirror 8 "$BM_MEMBERS" "${#o[@]}" "${o[@]}"
}

mirror_bitmap() {
	local rc=0 v=/dev/mapper/ssat-v bm i want got out t0 t1 r0 r1 part preads
	wipe 32 /dev/ram0 /dev/ram1 /dev/ram2
	BM_MEMBERS=$(lin_members 3 65536) || return 1
	loop_members 1 1 || return 1
	bm=${LOOPS[0]}
	dmsetup create ssat-bm --table "0 2048 linear $bm 0" || return 1

	klog_mark
	mbm_volume || return 1
	klog_since | grep -q "bitmap .*: new, 512 regions of 16 member chunks" || { fail "no log line for a new bitmap"; rc=1; }
	expect_eq "bitmap at start" "$(bm_field ssat-v)" 0/512 || rc=1
	expect_eq "action at start" "$(dmsetup status ssat-v | awk '{print $(NF-2)}')" idle || rc=1
	bm_cycle mbm_volume || rc=1

	# regions 15 (block 240) and 231 (block 3696) dirty while the bitmap
	# device fails: its last state is what a crash would leave
	bm_writer 240 3696
	bm_wait ssat-v 2/512 || rc=1
	bm_wait_disk /dev/mapper/ssat-bm 2 || rc=1
	dmsetup load ssat-bm --table "0 2048 error" && dmsetup suspend ssat-bm && dmsetup resume ssat-bm
	dd if=/dev/urandom of=$v bs=4k count=1 seek=30 oflag=direct status=none ||
		{ fail "a write failed with the bitmap device failing"; rc=1; }
	bm_wait ssat-v failed || rc=1
	kill $BM_PID; wait $BM_PID 2>/dev/null
	vol_remove ssat-v
	dmsetup load ssat-bm --table "0 2048 linear $bm 0" && dmsetup suspend ssat-bm && dmsetup resume ssat-bm

	# The crash left copy 1 different in block 240 (dirty region) and in
	# block 1920 (region 120, clean).  While a rebuild of copy 2 holds the
	# resync back (it runs after the rebuild), every read of block 240
	# comes from copy 0, the copy the resync will copy from; round robin
	# would give copy 1's data to every other read.
	dd if=/dev/urandom of=/dev/mapper/ssat-m1 bs=4k seek=240 count=1 oflag=direct status=none
	dd if=/dev/urandom of=/dev/mapper/ssat-m1 bs=4k seek=1920 count=1 oflag=direct status=none
	want=$(mb_sum 0 240)
	klog_mark
	mbm_volume rebuild 2 rebuild_rate 1 || return 1
	klog_since | grep -q "stopped without a suspend (a crash?), 2 of 512 regions to resync" ||
		{ fail "no log line for the unclean stop"; klog_since | grep bitmap; rc=1; }
	expect_eq "action during the rebuild" "$(dmsetup status ssat-v | awk '{print $(NF-2)}')" rebuild || rc=1
	for ((i = 0; i < 8; i++)); do
		got=$(vol_sum 240)
		[ "$got" = "$want" ] || { fail "read $i of an unsynced block did not come from copy 0"; rc=1; break; }
	done
	# nor are split reads divided among the copies there: 64 KiB from
	# block 232 (split would read 240-247 from copy 1)
	dmsetup message ssat-v 0 read_policy split || rc=1
	got=$(dd if=$v bs=64k skip=$((232 * 4096)) count=1 iflag=direct,skip_bytes status=none |
		tail -c +$((8 * 4096 + 1)) |
		head -c 4096 | sha256sum | cut -d' ' -f1)
	expect_eq "block 240 of a split read over the unsynced region" "$got" "$want" || rc=1
	dmsetup message ssat-v 0 read_policy round_robin || rc=1
	# the clean region is read round robin: copy 1's block is seen
	got=0
	for ((i = 0; i < 4; i++)); do [ "$(vol_sum 1920)" = "$(mb_sum 1 1920)" ] && got=1; done
	expect_eq "copy 1's block of the clean region read" $got 1 || rc=1
	vol_remove ssat-v

	# the resync (no rebuild now) makes block 240 agree and leaves 1920
	klog_mark
	t0=$EPOCHREALTIME r0=$(ram_reads)
	mbm_volume || return 1
	wait_synced ssat-v || rc=1
	t1=$EPOCHREALTIME r1=$(ram_reads)
	part=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }') preads=$((r1 - r0))
	klog_since | grep -q "stopped cleanly, 2 of 512 regions to resync" || { fail "no log line for the pending resync"; rc=1; }
	klog_since | grep -q "resync done: 65536 of 65536 sectors per member, 8 mismatched (rewritten)" ||
		{ fail "no resync log line with 8 mismatched sectors"; klog_since | grep resync; rc=1; }
	for i in 1 2; do
		expect_eq "copy $i of block 240 after the resync" "$(mb_sum $i 240)" "$want" || rc=1
	done
	bm_wait ssat-v 0/512 || rc=1
	# a check walks every region: what a resync without the bitmap costs
	t0=$EPOCHREALTIME r0=$(ram_reads)
	out=$(scrub ssat-v check)
	t1=$EPOCHREALTIME r1=$(ram_reads)
	expect_eq "sectors differing after the resync (the clean region's)" "$out" 8 || rc=1
	info "resync after the unclean stop: $part s, $preads reads of copy 0 (2 regions of 64 KiB);" \
		"a check of the whole volume: $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }') s," \
		"$((r1 - r0)) reads (32 MiB); the first from table load to idle"
	[ "$preads" -ge 2 ] && [ "$preads" -le 8 ] ||
		{ fail "the resync read copy 0 $preads times, not about 2"; rc=1; }
	[ $((r1 - r0)) -ge 128 ] || { fail "the check read copy 0 only $((r1 - r0)) times"; rc=1; }
	vol_remove ssat-v
	# the mirror's bitmap is refused by a table of another layout
	BAD_TABLE_HELD=1 bad_table mirror-bitmap-raid5 "0 $((2 * 65536)) ssastripe raid5 8 3 $BM_MEMBERS 2 bitmap /dev/mapper/ssat-bm" \
		"Bitmap device holds the bitmap of another geometry" || rc=1
	dmsetup remove ssat-bm
	return $rc
}
register mirror_bitmap mirror_bitmap

# The mirror refuses bitmap_region without a bitmap, as the parity
# layouts do (it once took it and echoed it back in its table).
mirror_bitmap_bad_tables() {
	local rc=0 T="0 8192 ssastripe mirror 8 2 /dev/ram0 0 /dev/ram1 0"
	bad_table mirror-bitmap-region-alone "$T 2 bitmap_region 16" \
		"bitmap_region needs a bitmap device (option bitmap)" || rc=1
	bad_table mirror-bitmap-region-rebuild "$T 4 rebuild 1 bitmap_region 16" \
		"bitmap_region needs a bitmap device (option bitmap)" || rc=1
	return $rc
}
register mirror_bitmap_bad_tables mirror_bitmap_bad_tables

# One bitmap (or ppl) device, two live volumes: the second is refused,
# whatever its layout or geometry, so that neither overwrites the other's
# superblock and bits; the same volume reloaded (dmsetup reload, a table
# swap) keeps it, a table of two targets on one device is refused, and
# once the first volume is removed the second loads.
bitmap_shared() {
	local rc=0 bm t other
	wipe 1 /dev/ram0 /dev/ram1 /dev/ram2 /dev/ram3 /dev/ram4 /dev/ram5 /dev/ram6 /dev/ram7
	loop_members 1 1 || return 1
	bm=${LOOPS[0]}
	t="0 $((3 * 8192)) ssastripe raid5 8 4 $(ram_members 4)"
	# the same geometry on four other members
	other="0 $((3 * 8192)) ssastripe raid5 8 4 /dev/ram4 0 /dev/ram5 0 /dev/ram6 0 /dev/ram7 0"
	dmsetup create ssat-v --table "$t 4 bitmap $bm initial_sync off" ||
		{ fail "cannot create the first volume"; return 1; }
	export BAD_TABLE_HELD=1
	bad_table bitmap-shared "$other 4 bitmap $bm initial_sync off" \
		"Bitmap device is in use by another live volume" || rc=1
	bad_table bitmap-shared-mirror "0 8192 ssastripe mirror 8 2 /dev/ram4 0 /dev/ram5 0 2 bitmap $bm" \
		"Bitmap device is in use by another live volume" || rc=1
	bad_table bitmap-shared-ppl "$other 2 ppl $bm" \
		"ppl device is in use by another live volume" || rc=1
	klog_mark
	dmsetup create ssat-bad --table "$other 4 bitmap $bm initial_sync off" >/dev/null 2>&1 &&
		dmsetup remove ssat-bad
	klog_since | grep -q "bitmap [0-9:]*: in use by volume ssat-v" ||
		{ fail "the refusal does not name the volume that holds it"; klog_since | tail -3; rc=1; }
	# two targets of one table on one device
	dmsetup load ssat-v --table "$t 4 bitmap $bm initial_sync off
$((3 * 8192)) $((3 * 8192)) ssastripe raid5 8 4 /dev/ram4 0 /dev/ram5 0 /dev/ram6 0 /dev/ram7 0 2 bitmap $bm" \
		>/dev/null 2>&1 && { fail "a table of two targets on one bitmap was loaded"; dmsetup clear ssat-v; rc=1; }
	unset BAD_TABLE_HELD
	# the same volume reloaded, with another option: keeps its bitmap
	klog_mark
	dmsetup reload ssat-v --table "$t 6 bitmap $bm initial_sync off queue_depth 2" &&
		dmsetup suspend ssat-v && dmsetup resume ssat-v ||
		{ fail "the volume's own reload refused"; klog_since | tail -3; rc=1; }
	[[ $(dmsetup table ssat-v) == *"queue_depth 2"* ]] || { fail "the reload did not take: $(dmsetup table ssat-v)"; rc=1; }
	klog_since | grep -Eq "stopped cleanly, 0 of [0-9]+ regions to resync" ||
		{ fail "the reloaded table did not read the bitmap the first left clean"; klog_since | grep bitmap; rc=1; }
	dd if=/dev/urandom of=/dev/mapper/ssat-v bs=4k count=4 oflag=direct status=none ||
		{ fail "writes after the reload failed"; rc=1; }
	# the inactive table loaded and then replaced by another, before a resume
	dmsetup reload ssat-v --table "$t 4 bitmap $bm initial_sync off" &&
		dmsetup reload ssat-v --table "$t 6 bitmap $bm initial_sync off queue_depth 1" &&
		dmsetup suspend ssat-v && dmsetup resume ssat-v ||
		{ fail "two reloads of the volume's own table refused"; rc=1; }
	vol_remove ssat-v
	# released: the other volume loads now (the same geometry: it reads the bitmap)
	dmsetup create ssat-v2 --table "$other 4 bitmap $bm initial_sync off" ||
		{ fail "the bitmap is still claimed after its volume was removed"; rc=1; }
	dmsetup remove ssat-v2 2>/dev/null
	return $rc
}
register bitmap_shared bitmap_shared
