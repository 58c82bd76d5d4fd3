# SPDX-License-Identifier: GPL-2.0-only
# The srarray layout heals (Documentation/srarray.rst, "Rebuild" and
# "Checking and repairing"): a replaced copy is rebuilt under a verifying
# load, replica by replica, and then serves the data alone; check counts
# the sectors where a planted replica differs, repair rewrites them from
# the source, and a check after it finds none; tables that would leave a
# set with no copy to rebuild from are refused.

# 2 sets x 2 replicas x 2 copies over ram0..ram3: 4 MiB of data a member
# (8192 data-space sectors), 8 MiB with its replicas
SRH_LEN=$((2 * 8192))
SRH_OPTS="replicas 2 track_sectors 64 copies 2"
SRH_CHECK="python3 $TOP/tests/kernel/check_srarray.py"

# srh_walk NAME: the status's " <action> <done>/<all> <mismatches>"
srh_walk() { dmsetup status "$1" | awk '{print $(NF-2), $(NF-1), $NF}'; }

# Member 1 (set 0's second copy) replaced by an empty ramdisk, rebuilt at
# a rate that makes the rebuild overlap fio: old data is read back (and
# verified) and new data written and verified meanwhile, a suspend in the
# middle pauses the rebuild; then the raw members are checked
# (check_srarray.py: every replica of every member equal, the copies of
# each set byte-identical, the volume what replica 0 of each set holds),
# and with member 0 failed the volume reads the same from the rebuilt copy.
srarray_rebuild() {
	local rc=0 len=$SRH_LEN v=/dev/mapper/ssat-v i st pid out sum rate=32 d1 d2
	local half=$((len * 256))
	mkdir -p "$WORK"
	wipe 16 /dev/ram0 /dev/ram1 /dev/ram2 /dev/ram3 /dev/ram4 || return 1
	vol_create ssat-v $len srarray 8 "$(ram_members 4)" 6 $SRH_OPTS || return 1
	local old="--name=old --filename=$v --direct=1 --ioengine=libaio --bs=16k
		--offset=$half --size=$half --verify=crc32c --randseed=7"
	fio $old --rw=write --output="$WORK/old.out" >/dev/null 2>&1 || { fail "writing old data"; return 1; }
	expect_eq "walk status before" "$(srh_walk ssat-v)" "idle 8192/8192 0" || rc=1

	# ram4 comes in empty in place of ram1
	klog_mark
	dmsetup reload ssat-v --table "0 $len ssastripe srarray 8 4 /dev/ram0 0 /dev/ram4 0 \
/dev/ram2 0 /dev/ram3 0 10 $SRH_OPTS rebuild 1 rebuild_rate $rate" &&
		dmsetup suspend ssat-v && dmsetup resume ssat-v || { fail "reload with rebuild 1"; return 1; }
	expect_eq "health while rebuilding" "$(vstat ssat-v health)" AaAA || rc=1
	expect_eq "action while rebuilding" "$(srh_walk ssat-v | cut -d' ' -f1)" rebuild || rc=1
	dmsetup message ssat-v 0 check 2>/dev/null && { fail "check accepted during the rebuild"; rc=1; }
	dmsetup message ssat-v 0 fail 0 2>/dev/null &&
		{ fail "fail 0 accepted while its set's other copy is rebuilt"; rc=1; }
	(cd "$WORK" && fio --name=new --filename=$v --direct=1 --ioengine=libaio \
		--rw=randrw --bssplit=4k/40:16k/40:64k/20 --iodepth=8 --size=$half --verify=crc32c \
		--verify_fatal=1 --verify_backlog=16 --time_based --runtime=3 \
		--output="$WORK/new.out" >/dev/null 2>&1) &
	pid=$!
	for i in 1 2; do
		fio $old --rw=read --verify_only=1 --verify_fatal=1 --output="$WORK/old-$i.out" >/dev/null 2>&1 ||
			{ fail "old data read back wrong during the rebuild (pass $i)"; rc=1; }
	done
	# the suspend pauses the rebuild and the resume goes on from its
	# cursor, not from the start
	d1=$(srh_walk ssat-v | awk '{split($2, a, "/"); print a[1]}')
	dmsetup suspend ssat-v && dmsetup resume ssat-v || rc=1
	d2=$(srh_walk ssat-v | awk '{split($2, a, "/"); print a[1]}')
	info "rebuilt before the suspend: $d1 sectors; after the resume: $d2"
	[ "$d2" -ge "$d1" ] || { fail "the resume restarted the rebuild ($d1 -> $d2)"; rc=1; }
	wait $pid || { fail "fio verify failed during the rebuild"; grep -iE "err|verify" "$WORK/new.out" | head -5; rc=1; }
	# 4 MiB of data at 32 KiB/s take 128 s (unlimited, under a second):
	# the rebuild ran under all of fio's load, which takes a few seconds
	# (a loaded host's guest may take several times that: the margin)
	st=$(srh_walk ssat-v)
	info "walk after the fio run: $st"
	[[ $st == rebuild\ * ]] || { fail "the rebuild ended before fio did: $st"; rc=1; }
	expect_eq "health after the fio run" "$(vstat ssat-v health)" AaAA || rc=1
	dmsetup message ssat-v 0 rebuild_rate 0 || { fail "message rebuild_rate 0"; rc=1; }
	rebuilt() { [ "$(vstat ssat-v health)" = AAAA ]; }
	wait_until 60 rebuilt
	expect_eq "health after the rebuild" "$(vstat ssat-v health)" AAAA || rc=1
	expect_eq "walk status after the rebuild" "$(srh_walk ssat-v)" "idle 8192/8192 0" || rc=1
	klog_since | grep -q "member 1 (.*) rebuilt" || { fail "kernel log does not report the rebuild"; rc=1; }
	out=$($SRH_CHECK ssat-v) || { fail "raw check after the rebuild: $out"; rc=1; }
	info "$out"
	# and the replaced member, raw, is the other copy, every replica of it
	expect_eq "ram4 (rebuilt) against ram0, raw" "$(sum_dev /dev/ram4 16384)" "$(sum_dev /dev/ram0 16384)" || rc=1
	fio $old --rw=read --verify_only=1 --verify_fatal=1 --output="$WORK/old-end.out" >/dev/null 2>&1 ||
		{ fail "old data wrong after the rebuild"; rc=1; }
	# the rebuilt copy alone serves set 0
	sum=$(sum_dev $v $len)
	dmsetup message ssat-v 0 fail 0 || { fail "fail 0 after the rebuild"; rc=1; }
	expect_eq "health with member 0 failed" "$(vstat ssat-v health)" DAAA || rc=1
	fio $old --rw=read --verify_only=1 --verify_fatal=1 --output="$WORK/old-m1.out" >/dev/null 2>&1 ||
		{ fail "old data wrong on the rebuilt copy"; rc=1; }
	expect_eq "the volume read from the rebuilt copy" "$(sum_dev $v $len)" "$sum" || rc=1
	vol_remove ssat-v
	return $rc
}
register srarray_rebuild srarray_rebuild

# Check and repair: 3 sectors planted on replica 0 of set 0's second
# copy; on set 1, 8 on replica 1 of its first copy at data-space sector
# 5000 and 8 on replica 0 of its second at 5004: 3 + 12 sectors of the
# sets differ (each counted once however many replicas differ).  None is
# on a set's source (replica 0 of its first copy), so the repair brings
# back the data written.  Then a repair while fio writes and verifies.
srarray_check_repair() {
	local rc=0 len=$SRH_LEN v=/dev/mapper/ssat-v bad planted out pid
	mkdir -p "$WORK"
	vol_create ssat-v $len srarray 8 "$(ram_members 4)" 6 $SRH_OPTS || return 1
	head -c $((len * 512)) /dev/urandom > "$WORK/data"
	dd if="$WORK/data" of=$v bs=1M oflag=direct status=none || { fail "writing the volume"; return 1; }
	bad=$(scrub ssat-v check) || { fail "check did not end: $bad"; rc=1; }
	expect_eq "mismatches after a clean write" "$bad" 0 || rc=1
	expect_eq "walk status after the check" "$(srh_walk ssat-v)" "idle 8192/8192 0" || rc=1

	# data-space sector u, replica r: (u / 32) * 64 + r * 32 + u % 32
	head -c $((19 * 512)) /dev/urandom > "$WORK/plant"
	dd if="$WORK/plant" of=/dev/ram1 bs=512 seek=196 count=3 oflag=direct status=none &&
		dd if="$WORK/plant" of=/dev/ram2 bs=512 skip=3 seek=10024 count=8 oflag=direct status=none &&
		dd if="$WORK/plant" of=/dev/ram3 bs=512 skip=11 seek=9996 count=8 oflag=direct status=none ||
		{ fail "planting"; return 1; }
	planted=$(sum_dev /dev/ram1 3 196)
	out=$($SRH_CHECK ssat-v 2>&1) && { fail "raw check passed with planted sectors: $out"; rc=1; }
	klog_mark
	bad=$(scrub ssat-v check) || { fail "check did not end: $bad"; rc=1; }
	expect_eq "mismatched sectors found by check" "$bad" 15 || rc=1
	klog_since | grep -q "check done: 8192 of 8192 sectors per member, 15 mismatched" ||
		{ fail "kernel log lacks the check's summary"; klog_since | tail -3; rc=1; }
	expect_eq "check leaves the members as they were" "$(sum_dev /dev/ram1 3 196)" "$planted" || rc=1
	bad=$(scrub ssat-v repair) || { fail "repair did not end: $bad"; rc=1; }
	expect_eq "mismatched sectors rewritten by repair" "$bad" 15 || rc=1
	bad=$(scrub ssat-v check) || { fail "check did not end: $bad"; rc=1; }
	expect_eq "mismatches after the repair" "$bad" 0 || rc=1
	out=$($SRH_CHECK ssat-v) || { fail "raw check after the repair: $out"; rc=1; }
	info "$out"
	cmp "$WORK/data" <(dd if=$v bs=1M iflag=direct status=none) ||
		{ fail "the volume after the repair is not the data written"; rc=1; }

	# a repair under a verifying write load finds nothing and loses nothing
	(cd "$WORK" && exec fio --name=cr --filename=$v --direct=1 --ioengine=libaio \
		--rw=randwrite --bssplit=4k/50:16k/30:64k/20 --iodepth=8 \
		--verify=crc32c --verify_fatal=1 --verify_backlog=32 --time_based --runtime=600 \
		--output="$WORK/cr.out" >/dev/null 2>&1) &
	pid=$!
	wait_io ssat-v || rc=1
	bad=$(scrub ssat-v repair) || { fail "repair under load did not end: $bad"; rc=1; }
	expect_eq "mismatches found under load" "$bad" 0 || rc=1
	kill -0 $pid 2>/dev/null || { fail "fio ended before the repair did"; rc=1; }
	kill -INT $pid 2>/dev/null
	wait $pid
	fio_clean "$WORK/cr.out" ||
		{ fail "fio verify failed during the repair"; grep -iE "err|verify" "$WORK/cr.out" | head -5; rc=1; }
	bad=$(scrub ssat-v check) || { fail "check did not end: $bad"; rc=1; }
	expect_eq "mismatches after the load" "$bad" 0 || rc=1
	out=$($SRH_CHECK ssat-v) || { fail "raw check after the load: $out"; rc=1; }
	dmsetup message ssat-v 0 idle || { fail "idle with no walk running refused"; rc=1; }
	vol_remove ssat-v
	return $rc
}
register srarray_check_repair srarray_check_repair

# As mirror_write_rebuilding_only (t_97): one set of two copies, copy 1
# replaced and rebuilt at 1 KiB/s (after its first window the walk waits
# 256 s); copy 0 starts failing.  A write that only the rebuilding copy
# took, and then one sent to it alone, must fail: before 1.19.1 the first
# stood because another copy of its set was "alive", the second because
# the rebuilding copy took all its children.
srarray_write_rebuilding_only() {
	local rc=0 v=/dev/mapper/ssat-v members
	mkdir -p "$WORK"
	members=$(lin_members 3 16384) || return 1
	vol_create ssat-v 8192 srarray 8 "${members% /dev/mapper/ssat-m2 0}" 6 $SRH_OPTS || return 1
	dd if=/dev/urandom of=$v bs=1M count=4 oflag=direct status=none || { fail "writing"; return 1; }
	dmsetup message ssat-v 0 fail 1 || return 1
	dmsetup reload ssat-v --table "0 8192 ssastripe srarray 8 2 /dev/mapper/ssat-m0 0 \
/dev/mapper/ssat-m2 0 10 $SRH_OPTS rebuild 1 rebuild_rate 1" &&
		dmsetup suspend ssat-v && dmsetup resume ssat-v || { fail "reload with rebuild 1"; return 1; }
	expect_eq "health while rebuilding" "$(vstat ssat-v health)" Aa || rc=1
	dmsetup load ssat-m0 --table "0 16384 error" && dmsetup suspend ssat-m0 &&
		dmsetup resume ssat-m0 || return 1
	dd if=/dev/urandom of=$v bs=4k count=1 seek=600 oflag=direct status=none 2>/dev/null &&
		{ fail "a write taken by the rebuilding copy alone was acknowledged"; rc=1; }
	[[ $(vstat ssat-v health) == D* ]] || { fail "member 0 not failed: $(vstat ssat-v health)"; rc=1; }
	dd if=/dev/urandom of=$v bs=4k count=1 seek=700 oflag=direct status=none 2>/dev/null &&
		{ fail "a write sent to the rebuilding copy alone was acknowledged"; rc=1; }
	info "health $(vstat ssat-v health)"
	vol_remove ssat-v
	return $rc
}
register srarray_write_rebuilding_only srarray_write_rebuilding_only

# Tables and messages that cannot heal: a rebuild that would leave a set
# with no copy to rebuild from, of a member the table lacks, with
# background propagation (its replicas differ until copied); check and
# repair where there is nothing to compare or replicas legitimately differ.
srarray_heal_bad() {
	local rc=0 r="/dev/ram0 0 /dev/ram1 0 /dev/ram2 0 /dev/ram3 0" T=ssastripe
	local sets="rebuild would leave an srarray set without a source copy"
	bad_table srh-no-copies "0 16384 $T srarray 8 2 /dev/ram0 0 /dev/ram1 0 4 track_sectors 64 rebuild 0" \
		"$sets" || rc=1
	bad_table srh-whole-set "0 16384 $T srarray 8 4 $r 8 track_sectors 64 copies 2 rebuild 2 rebuild 3" \
		"$sets" || rc=1
	bad_table srh-beyond "0 16384 $T srarray 8 4 $r 6 track_sectors 64 copies 2 rebuild 4" \
		"rebuild names a member the table does not have" || rc=1
	bad_table srh-background "0 16384 $T srarray 8 4 $r 8 track_sectors 64 copies 2 rebuild 1 propagate background" \
		"srarray rebuild needs propagate foreground" || rc=1
	bad_table srh-bitmap-bg "0 16384 $T srarray 8 4 $r 6 track_sectors 64 bitmap /dev/ram5 propagate background" \
		"srarray bitmap needs propagate foreground" || rc=1
	bad_table srh-region "0 16384 $T srarray 8 4 $r 4 track_sectors 64 bitmap_region 4" \
		"bitmap_region needs a bitmap device (option bitmap)" || rc=1
	bad_table srh-rate "0 16384 $T srarray 8 4 $r 6 track_sectors 64 copies 2 rebuild_rate x" \
		"Invalid rebuild_rate" || rc=1
	# one copy of each set rebuilt at once, from the other: taken
	dmsetup create ssat-zv --table "0 16384 $T srarray 8 4 $r 8 track_sectors 64 copies 2 rebuild 0 rebuild 3" &&
		dmsetup remove ssat-zv || { fail "rebuild of one copy of each set refused"; rc=1; }
	vol_create ssat-v 16384 srarray 8 "$r" 4 track_sectors 64 propagate background || return 1
	dmsetup message ssat-v 0 check 2>/dev/null && { fail "check with propagate background accepted"; rc=1; }
	vol_remove ssat-v
	vol_create ssat-v 16384 srarray 8 "$r" 4 replicas 1 track_sectors 64 || return 1
	dmsetup message ssat-v 0 repair 2>/dev/null && { fail "repair with nothing to compare accepted"; rc=1; }
	vol_remove ssat-v
	return $rc
}
register srarray_heal_bad srarray_heal_bad

# A check stopped by a suspend, and one stopped by the removal: over
# members behind dm-delay (20 ms each way) a check of 8 MiB of data takes
# some 3 s.  The suspend must end it within a window ("check stopped" in
# the kernel log, the status idle short of the end), the resumed volume
# read and checked to its end again, and a removal in mid-check end it and
# go (no hang, no oops: the guest's log is checked after the test).
srarray_walk_stopped() {
	local rc=0 v=/dev/mapper/ssat-v i st t0
	mkdir -p "$WORK"
	modprobe dm-delay 2>/dev/null
	for i in 0 1; do
		dmsetup create ssat-m$i --table "0 32768 delay /dev/ram$i 0 20" ||
			{ skip "no dm-delay target"; return; }
	done
	vol_create ssat-v 16384 srarray 8 "/dev/mapper/ssat-m0 0 /dev/mapper/ssat-m1 0" 6 \
		$SRH_OPTS || return 1
	klog_mark
	dmsetup message ssat-v 0 check || { fail "check refused"; return 1; }
	sleep 0.5
	t0=$EPOCHREALTIME
	dmsetup suspend ssat-v || { fail "suspend during the check"; rc=1; }
	info "suspend took $(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }') s"
	klog_since | grep -q "check stopped" || { fail "the suspend did not stop the check"; rc=1; }
	dmsetup resume ssat-v || { fail "resume"; return 1; }
	st=$(srh_walk ssat-v)
	info "walk after the resume: $st"
	[[ $st == idle\ * ]] || { fail "the check goes on after the resume: $st"; rc=1; }
	st=${st#* }; st=${st%% *}
	[ "${st%/*}" -lt "${st#*/}" ] || { fail "the check reached its end before the suspend"; rc=1; }
	dd if=$v of=/dev/null bs=1M iflag=direct status=none || { fail "reading after the resume"; rc=1; }
	st=$(scrub ssat-v check) || { fail "a new check did not end: $st"; rc=1; }
	expect_eq "mismatches of the new check" "$st" 0 || rc=1
	expect_eq "walk after the new check" "$(srh_walk ssat-v)" "idle 16384/16384 0" || rc=1
	# removed in mid-check
	klog_mark
	dmsetup message ssat-v 0 check || { fail "second check refused"; rc=1; }
	sleep 0.5
	dmsetup remove ssat-v || { fail "remove during a check"; rc=1; }
	[ -e $v ] && { fail "the volume is still there"; rc=1; }
	klog_since | grep -q "check stopped" || { fail "the removal did not stop the check"; rc=1; }
	dmsetup remove ssat-m0 ssat-m1 2>/dev/null
	return $rc
}
register srarray_walk_stopped srarray_walk_stopped

# The write-intent bitmap: a 1 x 2 x 2 array (ram0, ram1; 1024 chunks of
# 4 KiB, 64 regions of 16: block b is row b, region b / 16) whose bitmap
# device fails while blocks 40 and 600 (regions 2 and 37) are being
# written -- what a crash leaves.  The "crash" also left block 40's
# replica 1 different on both copies, and block 160 (region 10, clean)
# different on replica 0 of copy 1.  While a slow rebuild of copy 1
# holds the resync back, every read of block 40 returns the source's
# data (replica 0 of copy 0); the resync then makes both copies' replicas
# of region 2 agree (8 sectors rewritten) and leaves region 10 for a
# check to find.
srarray_bitmap() {
	local rc=0 v=/dev/mapper/ssat-v bm i want got bad out
	local tab="0 8192 ssastripe srarray 8 2 /dev/ram0 0 /dev/ram1 0"
	local o="replicas 2 track_sectors 64 copies 2 bitmap /dev/mapper/ssat-bm"
	wipe 8 /dev/ram0 /dev/ram1 || return 1
	loop_members 1 1 || return 1
	bm=${LOOPS[0]}
	dmsetup create ssat-bm --table "0 2048 linear $bm 0" || return 1
	klog_mark
	dmsetup create ssat-v --table "$tab 8 $o" || return 1
	klog_since | grep -q "bitmap .*: new, 64 regions of 16 member chunks" ||
		{ fail "no log line for a new bitmap"; klog_since | grep bitmap; rc=1; }
	expect_eq "bitmap at start" "$(bm_field ssat-v)" 0/64 || rc=1
	dd if=/dev/urandom of=$v bs=1M count=4 oflag=direct status=none || { fail "writing the volume"; rc=1; }
	bm_wait ssat-v 0/64 || rc=1
	bm_writer 40 600
	bm_wait ssat-v 2/64 || rc=1
	bm_wait_disk /dev/mapper/ssat-bm 2 || rc=1
	dmsetup load ssat-bm --table "0 2048 error" && dmsetup suspend ssat-bm && dmsetup resume ssat-bm
	dd if=/dev/urandom of=$v bs=4k count=1 seek=300 oflag=direct status=none ||
		{ fail "a write failed with the bitmap device failing"; rc=1; }
	bm_wait ssat-v failed || rc=1
	kill $BM_PID; wait $BM_PID 2>/dev/null
	vol_remove ssat-v
	dmsetup load ssat-bm --table "0 2048 linear $bm 0" && dmsetup suspend ssat-bm && dmsetup resume ssat-bm

	# data-space sector u, replica r: (u / 32) * 64 + r * 32 + u % 32;
	# block 40 is u = 320 (replica 1 at 672), block 160 u = 1280 (2560)
	dd if=/dev/urandom of=/dev/ram0 bs=512 seek=672 count=8 oflag=direct status=none &&
		dd if=/dev/urandom of=/dev/ram1 bs=512 seek=672 count=8 oflag=direct status=none &&
		dd if=/dev/urandom of=/dev/ram1 bs=512 seek=2560 count=8 oflag=direct status=none ||
		{ fail "planting"; return 1; }
	want=$(sum_dev /dev/ram0 8 640)
	klog_mark
	dmsetup create ssat-v --table "$tab 12 $o rebuild 1 rebuild_rate 1" || return 1
	klog_since | grep -q "stopped without a suspend (a crash?), 2 of 64 regions to resync" ||
		{ fail "no log line for the unclean stop"; klog_since | grep bitmap; rc=1; }
	expect_eq "action during the rebuild" "$(srh_walk ssat-v | cut -d' ' -f1)" rebuild || rc=1
	for ((i = 0; i < 8; i++)); do
		got=$(sum_dev $v 8 320)
		[ "$got" = "$want" ] || { fail "read $i of an unsynced block did not come from the source"; rc=1; break; }
	done
	vol_remove ssat-v

	# the resync (no rebuild now) makes region 2 agree and leaves region 10
	klog_mark
	dmsetup create ssat-v --table "$tab 8 $o" || return 1
	for ((i = 0; i < 300; i++)); do
		[ "$(srh_walk ssat-v | cut -d' ' -f1)" = idle ] && break
		sleep 0.1
	done
	expect_eq "walk after the resync" "$(srh_walk ssat-v)" "idle 8192/8192 8" || rc=1
	klog_since | grep -q "resync done: 8192 of 8192 sectors per member, 8 mismatched (rewritten)" ||
		{ fail "kernel log lacks the resync's summary"; klog_since | tail -3; rc=1; }
	# (the bits are cleared by the daemon's next pass)
	bm_wait ssat-v 0/64 || rc=1
	# track 10 (member sectors 640-703): both replicas of both copies alike
	expect_eq "replica 1 of copy 0 after the resync" "$(sum_dev /dev/ram0 8 672)" "$want" || rc=1
	expect_eq "copy 1 (both replicas) after the resync" "$(sum_dev /dev/ram1 64 640)" \
		"$(sum_dev /dev/ram0 64 640)" || rc=1
	bad=$(scrub ssat-v check) || { fail "check did not end: $bad"; rc=1; }
	expect_eq "the clean region's difference, left to a check" "$bad" 8 || rc=1
	bad=$(scrub ssat-v repair) && bad=$(scrub ssat-v check) || { fail "repair or check did not end"; rc=1; }
	expect_eq "mismatches after a repair" "$bad" 0 || rc=1
	out=$($SRH_CHECK ssat-v) || { fail "raw check after the repair: $out"; rc=1; }
	vol_remove ssat-v
	dmsetup remove ssat-bm
	return $rc
}
register srarray_bitmap srarray_bitmap
