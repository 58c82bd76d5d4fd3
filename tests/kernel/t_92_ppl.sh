# SPDX-License-Identifier: GPL-2.0-only
# The parity layouts' partial parity log (table option "ppl <dev>"): writes
# of every shape (read-modify-write, reconstruct-write, full stripes, 1 MiB)
# through a log of the fewest slots it takes, so that the ring wraps and
# writes wait for its tail; an entry logged for every group written; a
# clean stop and start with nothing to replay; a log device that fails
# (writes go on, unprotected, and the next table resyncs everything); and
# malformed ppl tables.  What it is for -- no write hole after a crash --
# is shown by crash_raid5_ppl (t_96), on every crash point of a log.
# Also: writes waiting at the log's gate across suspends and a forced remove.
#
# Uses parity_ok and wait_synced (t_98), bad_table (t_50).

# ppl_field NAME: the status's ppl field ("3/64", "failed")
ppl_field() { dmsetup status "$1" | awk '{for (i = 1; i < NF; i++) if ($i == "ppl") print $(i + 1)}'; }

# ppl_sb_flags DEV: the superblock's flags (1: stopped cleanly, 2: given up)
ppl_sb_flags() { od -An -t u4 -j 44 -N 4 "$1" | tr -d ' '; }

# dm_writes NAME: writes the device completed (/sys/block/dm-N/stat)
dm_writes() { awk '{print $5}' "/sys/block/$(dm_sysname "$1")/stat"; }

# 8 sectors of superblock and 64 slots of a 4 KiB header and a 4 KiB chunk:
# the smallest log a 4 KiB chunk takes
PPL_SECTORS=$((8 + 64 * 16))

# ppl_verify LAYOUT: fio verify (every write shape) on a 4-member volume with
# a ppl of 64 slots; every group written has its entry; the parity agrees
ppl_verify() {
	local layout=$1 n=4 c=8 rc=0 pl size unit w0 w1 l0 l1 held
	local cb=$((c * 512)) sb=$((c * 512 * (n - 1)))
	unit=$sb
	[ "$layout" = pstripe ] && unit=$((sb * n))
	size=$((((12 << 20) / unit) * unit))
	wipe $((size / (n - 1) / 1048576 + 1)) /dev/ram0 /dev/ram1 /dev/ram2 /dev/ram3
	loop_members 1 1 || return 1
	pl=${LOOPS[0]}
	dmsetup create ssat-pl --table "0 $PPL_SECTORS linear $pl 0" || return 1
	klog_mark
	vol_create ssat-v $((size / 512)) "$layout" $c "$(ram_members $n)" \
		4 initial_sync off ppl /dev/mapper/ssat-pl || return 1
	klog_since | grep -q "ppl .*: new, 64 slots of 16 sectors" || { fail "no log line for a new ppl"; rc=1; }
	expect_eq "ppl at start" "$(ppl_field ssat-v)" 0/64 || rc=1
	[[ $(dmsetup table ssat-v) =~ " ppl "[0-9]+:[0-9]+ ]] || { fail "table lacks the ppl: $(dmsetup table ssat-v)"; rc=1; }
	w0=$(dm_writes ssat-v) l0=$(dm_writes ssat-pl)
	run_fio overlap.fio DEV=/dev/mapper/ssat-v OFFSET=$((cb - 4096)) REGION=8192 \
		BSSPLIT="512/30:1k/30:4k/40" RUNTIME=2 > "$WORK/overlap.out" 2>&1 ||
		{ fail "overlapping writers failed"; rc=1; }
	parity_ok ssat-v || rc=1
	run_fio verify.fio DEV=/dev/mapper/ssat-v SIZE="$size" \
		BSSPLIT="512/10:2k/15:4k/15:5632/20:$sb/20:1m/20" ||
		{ fail "fio verify reported an error"; rc=1; }
	w1=$(dm_writes ssat-v) l1=$(dm_writes ssat-pl)
	held=$(ppl_field ssat-v)
	info "$layout: $((w1 - w0)) volume writes, $((l1 - l0)) ppl writes (entries and superblocks); ppl $held"
	# an entry (one ppl write) for each group a write changes: at least one
	# for each write the volume completed
	[ $((l1 - l0)) -ge $((w1 - w0)) ] ||
		{ fail "$((l1 - l0)) ppl writes for $((w1 - w0)) volume writes"; rc=1; }
	[[ $held =~ ^[0-9]+/64$ ]] && [ "${held%/*}" -le 64 ] || { fail "ppl field '$held'"; rc=1; }
	parity_ok ssat-v || rc=1
	expect_eq "check: mismatched groups" "$(scrub ssat-v check)" 0 || rc=1

	# a clean stop: the superblock says so, nothing to replay after
	vol_remove ssat-v
	expect_eq "superblock flags after a clean stop" "$(ppl_sb_flags /dev/mapper/ssat-pl)" 1 || rc=1
	klog_mark
	vol_create ssat-v $((size / 512)) "$layout" $c "$(ram_members $n)" \
		2 ppl /dev/mapper/ssat-pl || return 1
	klog_since | grep -q "ppl .*: stopped cleanly, 0 entries replayed, 0 cut short" ||
		{ fail "no clean-stop log line"; klog_since | grep ppl; rc=1; }
	# an existing log keeps the volume in sync (the table's initial_sync
	# is not given): no walk
	expect_eq "action after a clean stop" "$(dmsetup status ssat-v | awk '{print $(NF-2)}')" idle || rc=1
	expect_eq "superblock flags while active" "$(ppl_sb_flags /dev/mapper/ssat-pl)" 0 || rc=1
	vol_remove ssat-v
	dmsetup remove ssat-pl
	return $rc
}
register parity_ppl_raid5 ppl_verify raid5
register parity_ppl_pstripe ppl_verify pstripe

# A log device that fails: the write that met the failure and every write
# after go on, unprotected; status says so; the superblock, still
# writable, asks the next table for a full resync, which it makes.
parity_ppl_failed() {
	local rc=0 pl
	wipe 32 /dev/ram0 /dev/ram1 /dev/ram2 /dev/ram3
	loop_members 1 1 || return 1
	pl=${LOOPS[0]}
	dmsetup create ssat-pl --table "0 $PPL_SECTORS linear $pl 0" || return 1
	vol_create ssat-v $((3 * 65536)) raid5 8 "$(ram_members 4)" \
		4 initial_sync off ppl /dev/mapper/ssat-pl || return 1
	dd if=/dev/urandom of=/dev/mapper/ssat-v bs=4k count=16 oflag=direct status=none ||
		{ fail "a write failed with the ppl whole"; rc=1; }
	# the superblock still writable, the slots not
	printf '0 8 linear %s 0\n8 %d error\n' "$pl" $((PPL_SECTORS - 8)) | dmsetup load ssat-pl &&
		dmsetup suspend ssat-pl && dmsetup resume ssat-pl || return 1
	klog_mark
	dd if=/dev/urandom of=/dev/mapper/ssat-v bs=4k count=64 seek=100 oflag=direct status=none ||
		{ fail "a write failed with the ppl failing"; rc=1; }
	expect_eq "ppl field" "$(ppl_field ssat-v)" failed || rc=1
	# the daemon gives the log up within its second (waited for up to 30 s)
	wait_until 30 klog_has "ppl .* entry write error .*: writes unprotected; a crash now needs a full resync" ||
		{ fail "no log line for the failed ppl"; klog_since | grep ppl; rc=1; }
	parity_ok ssat-v || rc=1
	vol_remove ssat-v
	expect_eq "superblock flags (given up)" "$(ppl_sb_flags /dev/mapper/ssat-pl)" 2 || rc=1
	dmsetup load ssat-pl --table "0 $PPL_SECTORS linear $pl 0" && dmsetup suspend ssat-pl &&
		dmsetup resume ssat-pl || return 1
	klog_mark
	vol_create ssat-v $((3 * 65536)) raid5 8 "$(ram_members 4)" 2 ppl /dev/mapper/ssat-pl || return 1
	klog_since | grep -q "ppl .*: given up earlier (an I/O error): resyncing every group" ||
		{ fail "no full resync after a failed ppl"; klog_since | grep ppl; rc=1; }
	wait_synced ssat-v || rc=1
	klog_since | grep -q "initial sync done: 8192 of 8192 groups" || { fail "the resync was not whole"; rc=1; }
	expect_eq "ppl after the resync" "$(ppl_field ssat-v)" 0/64 || rc=1
	parity_ok ssat-v || rc=1
	vol_remove ssat-v
	dmsetup remove ssat-pl
	return $rc
}
register parity_ppl_failed parity_ppl_failed

# A member fails under logged writes (sync after_service, so that groups
# whose old data cannot be read give up with their data writes held for
# the log): every write ends, the volume goes on degraded, and fio's
# verify of what it wrote holds.  Then the first unlogged write waits for
# the log to be emptied on the device (an entry left there would be
# replayed over it after a crash): once it has returned, status says
# "ppl 0/64" at once, where the daemon alone would take up to a second.
parity_ppl_degraded() {
	local rc=0 pl members fio_pid i held
	wipe 32 /dev/ram0 /dev/ram1 /dev/ram2 /dev/ram3
	loop_members 1 1 || return 1
	pl=${LOOPS[0]}
	dmsetup create ssat-pl --table "0 $PPL_SECTORS linear $pl 0" || return 1
	members=$(lin_members 4 65536) || return 1
	vol_create ssat-v $((3 * 65536)) raid5 8 "$members" \
		6 initial_sync off sync after_service ppl /dev/mapper/ssat-pl || return 1
	(cd "$WORK" && exec fio --name=load --filename=/dev/mapper/ssat-v --direct=1 \
		--ioengine=libaio --rw=randwrite --bs=4k --iodepth=16 --size=16m \
		--time_based --runtime=600 --output="$WORK/fio.out" >/dev/null 2>&1) &
	fio_pid=$!
	wait_io ssat-v || { kill $fio_pid; wait $fio_pid; return 1; }
	sleep 0.5
	dmsetup load ssat-m1 --table "0 65536 error" && dmsetup suspend ssat-m1 && dmsetup resume ssat-m1
	for ((i = 0; i < 300; i++)); do
		[ "$(vstat ssat-v health)" = ADAA ] && break
		sleep 0.1
	done
	# and a little more load on the degraded volume: 64 more requests
	wait_until 30 io_past ssat-v $(($(io_count ssat-v) + 64)) || rc=1
	kill -INT $fio_pid 2>/dev/null
	wait $fio_pid
	grep -q "err= 0" "$WORK/fio.out" ||
		{ fail "writes failed while member 1 failed: $(grep -m1 err= "$WORK/fio.out")"; rc=1; }
	expect_eq "health" "$(vstat ssat-v health)" ADAA || rc=1
	# everything fio wrote reads back, degraded
	(cd "$WORK" && fio --name=load --filename=/dev/mapper/ssat-v --direct=1 \
		--ioengine=libaio --rw=randwrite --bs=4k --iodepth=16 --size=16m \
		--verify=crc32c --verify_only=0 --do_verify=1 --output="$WORK/verify.out" >/dev/null 2>&1) ||
		{ fail "fio verify on the degraded volume failed"; rc=1; }
	# a fresh volume over the members, member 1 failed by message: its
	# first write is unlogged and must find the log empty on the device
	vol_remove ssat-v
	dmsetup load ssat-m1 --table "0 65536 linear /dev/ram1 0" && dmsetup suspend ssat-m1 &&
		dmsetup resume ssat-m1
	vol_create ssat-v $((3 * 65536)) raid5 8 "$members" 2 ppl /dev/mapper/ssat-pl || return 1
	# Logged writes until the log is seen holding an entry (bounded): the
	# daemon's pass, once a second, empties it between writes, and on a
	# slow kernel (the debug kernel beside other guests) a fixed number of
	# writes followed by one look missed it five times in a row.
	dd if=/dev/urandom of=/dev/mapper/ssat-v bs=4k count=2048 oflag=direct status=none &
	local ddpid=$!
	ppl_held_wait ssat-v 1 60 || { fail "no entry held in 60 s of writes: ppl $(ppl_field ssat-v)"; rc=1; }
	held=$(ppl_field ssat-v)
	wait $ddpid || { fail "logged writes failed"; rc=1; }
	dmsetup message ssat-v 0 fail 1 || { fail "fail 1 refused"; rc=1; }
	dd if=/dev/urandom of=/dev/mapper/ssat-v bs=4k count=1 seek=1000 oflag=direct status=none ||
		{ fail "the first unlogged write failed"; rc=1; }
	expect_eq "ppl right after the first unlogged write (was $held)" "$(ppl_field ssat-v)" 0/64 || rc=1
	vol_remove ssat-v
	dmsetup remove ssat-pl
	return $rc
}
register parity_ppl_degraded parity_ppl_degraded

# ppl_held_wait NAME MIN SECS [flowing]: until the ppl holds at least MIN
# slots; 1 if it does not within SECS seconds (by the clock: on a loaded
# host one status call can take a second, and counting sleeps made 60 s
# last 555), or once writes have stopped completing on the volume for 5 s
# (the writer is done: fio verifying what it wrote) -- counted from the
# first write seen, or at once with "flowing" (the writer has been
# writing already)
ppl_held_wait() {
	local f end=$((SECONDS + $3)) w last idle=
	last=$(dm_writes "$1")
	[ "${4:-}" = flowing ] && idle=$SECONDS
	while ((SECONDS < end)); do
		f=$(ppl_field "$1")
		[[ $f =~ ^([0-9]+)/ ]] && [ "${BASH_REMATCH[1]}" -ge "$2" ] && return 0
		w=$(dm_writes "$1")
		[ "$w" != "$last" ] && last=$w idle=$SECONDS
		[ -n "$idle" ] && ((SECONDS - idle >= 5)) && return 1
		sleep 0.1
	done
	return 1
}

# Writes waiting at the ppl's gate -- the ring full, its device slowed by
# dm-delay (20 ms a write) -- across suspends and a forced remove: each
# suspend waits for them and fio's verify holds across; remove --force
# while they wait lets every one end (no oops, no warning), and the
# members and the log device are free once fio has closed the volume.
parity_ppl_gate() {
	local rc=0 n=4 c=8 size=$((24 << 20)) pl i m full=0 fio_pid
	wipe 9 /dev/ram0 /dev/ram1 /dev/ram2 /dev/ram3
	loop_members 1 1 || return 1
	pl=${LOOPS[0]}
	dmsetup create ssat-pl --table "0 $PPL_SECTORS delay $pl 0 0 $pl 0 20" || return 1
	vol_create ssat-v $((size / 512)) raid5 $c "$(ram_members $n)" \
		4 initial_sync off ppl /dev/mapper/ssat-pl || return 1
	# 96 KiB writes, sequential, are 8 whole groups each (12 KiB of data
	# a group): 16 in flight want 128 slots of 64, and no write comes back
	# to a group whose entry is still in the log (such a write waits for a
	# member flush instead, parity.rst: not what this test is after)
	(cd "$WORK" && exec fio --name=gate --filename=/dev/mapper/ssat-v --direct=1 \
		--ioengine=libaio --rw=write --bs=96k --iodepth=16 --size=$size \
		--verify=crc32c --verify_fatal=1 --verify_state_save=0 \
		--output="$WORK/gate.out" >/dev/null 2>&1) &
	fio_pid=$!
	for i in 1 2 3; do
		ppl_held_wait ssat-v 56 60 $( ((i > 1)) && echo flowing) && full=$((full + 1))
		suspend_drained ssat-v 4 $i || rc=1
	done
	wait $fio_pid || { fail "fio verify failed across suspends with a full ring"; cat "$WORK/gate.out"; rc=1; }
	[ $full -gt 0 ] || { fail "the ring never filled (ppl $(ppl_field ssat-v))"; rc=1; }
	info "$full of 3 suspends came with at least 56 of 64 slots held"
	parity_ok ssat-v || rc=1

	(cd "$WORK" && exec fio --name=busy --filename=/dev/mapper/ssat-v --direct=1 --ioengine=libaio \
		--rw=write --bs=96k --iodepth=16 --time_based --runtime=600 \
		--continue_on_error=all >/dev/null 2>&1) &
	fio_pid=$!
	ppl_held_wait ssat-v 56 60 || { fail "the ring never filled before the remove"; rc=1; }
	force_remove_open ssat-v $fio_pid || rc=1
	[ -z "$(ls /sys/block/ram0/holders)" ] || { fail "ram0 still held"; rc=1; }
	[ -z "$(ls "/sys/block/$(dm_sysname ssat-pl)/holders")" ] || { fail "the log device still held"; rc=1; }
	vol_remove ssat-pl
	return $rc
}
register parity_ppl_gate parity_ppl_gate

parity_ppl_bad_tables() {
	local rc=0 pl small T
	wipe 1 /dev/ram0 /dev/ram1 /dev/ram2 /dev/ram3
	loop_members 2 1 || return 1
	pl=${LOOPS[0]}
	T="0 $((3 * 65536)) ssastripe raid5 8 4 $(ram_members 4)"
	# one 4 KiB block short of 64 slots
	truncate -s $(((PPL_SECTORS - 8) * 512)) "$WORK/small.img"
	small=$(losetup -f --show "$WORK/small.img") || return 1
	bad_table ppl-small "$T 2 ppl $small" "ppl device too small" || rc=1
	bad_table ppl-missing "$T 2 ppl /dev/nonexistent" "ppl device lookup failed" || rc=1
	bad_table ppl-member "$T 2 ppl /dev/ram2" "ppl device is also a member" || rc=1
	bad_table ppl-no-value "$T 1 ppl" "Optional argument without a value" || rc=1
	bad_table ppl-twice "$T 4 ppl $pl ppl $pl" "Duplicate optional argument" || rc=1
	bad_table ppl-and-bitmap "$T 4 bitmap $pl ppl ${LOOPS[1]}" "bitmap and ppl exclude each other" || rc=1
	bad_table ppl-mirror "0 8192 ssastripe mirror 8 2 /dev/ram0 0 /dev/ram1 0 2 ppl $pl" \
		"Option only valid for the raid5 and pstripe layouts" || rc=1
	# a log written for one geometry refuses another
	dmsetup create ssat-v --table "$T 4 ppl $pl initial_sync off" || { fail "cannot create the volume"; return 1; }
	vol_remove ssat-v
	bad_table ppl-geometry "0 98304 ssastripe raid5 8 4 $(ram_members 4) 2 ppl $pl" \
		"ppl device holds the log of another geometry" || rc=1
	# a superblock whose checksum does not match
	printf 'X' | dd of="$pl" bs=1 seek=40 conv=notrunc status=none
	bad_table ppl-checksum "$T 2 ppl $pl" "ppl superblock checksum mismatch" || rc=1
	dd if=/dev/zero of="$pl" bs=4k count=1 conv=notrunc status=none
	# a wiped device is a new log again
	dmsetup create ssat-v --table "$T 2 ppl $pl" || { fail "a wiped ppl device refused"; rc=1; }
	vol_remove ssat-v
	return $rc
}
register parity_ppl_bad_tables parity_ppl_bad_tables
