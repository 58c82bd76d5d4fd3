# SPDX-License-Identifier: GPL-2.0-only
# Failing and vanishing members, removal and suspend with I/O in flight,
# module unload while in use.

# Members are dm-linear devices over ramdisks, so that one can be swapped
# for the "error" target (a member that starts failing) mid-run.
member_fails() {
	local rc=0 members h0 events0 events1 n=4 len=$((4 * 8192))
	members=$(lin_members $n 8192) || return 1
	vol_create ssat-v "$len" stripe 128 "$members" || return 1
	mkdir -p "$WORK"
	head -c $((len * 512)) /dev/urandom > "$WORK/data"
	dd if="$WORK/data" of=/dev/mapper/ssat-v bs=1M oflag=direct status=none || return 1
	h0=$(sha256sum < "$WORK/data")
	events0=$(dmsetup info -c --noheadings -o events ssat-v)
	local s0 s1 s3
	s0=$(sum_dev /dev/ram0 8192); s1=$(sum_dev /dev/ram1 8192); s3=$(sum_dev /dev/ram3 8192)

	# member 2 starts failing under a running read load; the load goes on
	# until the volume has seen the failure (at most 30 s), not for a fixed
	# time that a slow machine could use up before the switch
	(cd "$WORK" && exec fio --name=load --filename=/dev/mapper/ssat-v --direct=1 \
		--ioengine=libaio --rw=randread --bssplit=4k/50:256k/50 --iodepth=16 \
		--time_based --runtime=600 --continue_on_error=all --output="$WORK/fio.out" \
		>/dev/null 2>&1) &
	local fio_pid=$! i
	wait_io ssat-v || { kill $fio_pid; wait $fio_pid; return 1; }
	sleep 0.5
	klog_mark
	dmsetup load ssat-m2 --table "0 8192 error" && dmsetup suspend ssat-m2 && dmsetup resume ssat-m2
	for ((i = 0; i < 300; i++)); do
		[ "$(vstat ssat-v health)" = AADA ] && break
		sleep 0.1
	done
	# and a little more I/O against the failed member: 64 more requests
	wait_until 30 io_past ssat-v $(($(io_count ssat-v) + 64)) || rc=1
	kill -INT $fio_pid 2>/dev/null
	wait $fio_pid
	# the table event is raised from a work item: wait for it, bounded
	events_past() { [ "$(dmsetup info -c --noheadings -o events ssat-v)" -gt "$events0" ]; }
	wait_until 10 events_past || true

	local h
	h=$(vstat ssat-v health)
	expect_eq "health after member 2 failed" "$h" AADA || rc=1
	[ "$(mstat ssat-v 2 err)" -gt 0 ] || { fail "no errors counted on member 2"; rc=1; }
	expect_eq "errors on member 0" "$(mstat ssat-v 0 err)" 0 || rc=1
	events1=$(dmsetup info -c --noheadings -o events ssat-v)
	[ "$events1" -gt "$events0" ] || { fail "no table event raised ($events0 -> $events1)"; rc=1; }
	klog_since | grep -q "member 2 (.*) failed" || { fail "kernel log does not name member 2"; rc=1; }
	grep -q "err=" "$WORK/fio.out" || true

	# reads that touch only surviving members still succeed, reads of member 2 fail
	cmp -n 65536 "$WORK/data" <(dd if=/dev/mapper/ssat-v bs=64k count=1 iflag=direct status=none) ||
		{ fail "chunk 0 (member 0) unreadable"; rc=1; }
	dd if=/dev/mapper/ssat-v of=/dev/null bs=64k count=1 skip=2 iflag=direct status=none 2>/dev/null &&
		{ fail "read of a chunk on the failed member succeeded"; rc=1; }
	# the surviving members were not written to
	expect_eq "member 0 untouched" "$(sum_dev /dev/ram0 8192)" "$s0" || rc=1
	expect_eq "member 1 untouched" "$(sum_dev /dev/ram1 8192)" "$s1" || rc=1
	expect_eq "member 3 untouched" "$(sum_dev /dev/ram3 8192)" "$s3" || rc=1

	# the member comes back: no data was lost
	dmsetup load ssat-m2 --table "0 8192 linear /dev/ram2 0" && dmsetup suspend ssat-m2 && dmsetup resume ssat-m2
	expect_eq "volume after the member returned" \
		"$(dd if=/dev/mapper/ssat-v bs=1M iflag=direct status=none | sha256sum)" "$h0" || rc=1
	# a table reload clears the failed mark
	dmsetup reload ssat-v --table "$(dmsetup table ssat-v)" && dmsetup suspend ssat-v && dmsetup resume ssat-v
	expect_eq "health after reload" "$(vstat ssat-v health)" AAAA || rc=1
	return $rc
}

# Writes while a member fails: errors reach the writer, never other members.
# With DEPTH > 0 the failing children complete through the dispatcher's
# counted path.
member_fails_writes() {	# member_fails_writes [DEPTH]
	local rc=0 members len=$((4 * 8192)) depth=${1:-0}
	members=$(lin_members 4 8192) || return 1
	vol_create ssat-v "$len" stripe 8 "$members" 2 queue_depth "$depth" || return 1
	dmsetup load ssat-m1 --table "0 8192 error" && dmsetup suspend ssat-m1 && dmsetup resume ssat-m1
	local s0
	s0=$(sum_dev /dev/ram0 8192)
	# a 16 KiB write covers members 0..3; it must fail as a whole
	dd if=/dev/urandom of=/dev/mapper/ssat-v bs=16k count=1 oflag=direct status=none 2>/dev/null &&
		{ fail "write over a failed member reported success"; rc=1; }
	# a 4 KiB write to member 0 alone succeeds
	dd if=/dev/urandom of=/dev/mapper/ssat-v bs=4k count=1 seek=8 oflag=direct status=none ||
		{ fail "write to a healthy member failed"; rc=1; }
	# a 4 KiB write to member 1 alone fails, and member 1 counts it (at
	# depth 0 it is remapped whole with nothing kept but its member).
	local e1 e2
	e1=$(mstat ssat-v 1 err)
	dd if=/dev/urandom of=/dev/mapper/ssat-v bs=4k count=1 seek=9 oflag=direct status=none 2>/dev/null &&
		{ fail "write to the failed member reported success"; rc=1; }
	e2=$(mstat ssat-v 1 err)
	info "errors on member 1: $e1 before its own write, $e2 after"
	[ "$e2" -gt "$e1" ] || { fail "member 1 did not count its own write's error"; rc=1; }
	expect_eq health "$(vstat ssat-v health)" ADAA || rc=1
	expect_eq "nothing left in flight" "$(mstat_all ssat-v inflight)" "0 0 0 0" || rc=1
	return $rc
}

remove_in_flight() {
	local rc=0
	vol_create ssat-v $((4 * 16384)) stripe 128 "$(ram_members 4)" || return 1
	mkdir -p "$WORK"
	# fio keeps the volume open until it is stopped (not for a fixed time,
	# which a loaded machine could use up before the remove comes)
	(cd "$WORK" && exec fio --name=busy --filename=/dev/mapper/ssat-v --direct=1 --ioengine=libaio \
		--rw=randrw --bssplit=4k/50:512k/50 --iodepth=32 --time_based --runtime=600 \
		--continue_on_error=all >/dev/null 2>&1) &
	local fio_pid=$!
	wait_io ssat-v || { kill -INT $fio_pid; wait $fio_pid; return 1; }
	force_remove_open ssat-v $fio_pid || rc=1
	# members are free again
	[ -z "$(ls /sys/block/ram0/holders)" ] || { fail "ram0 still held"; rc=1; }
	return $rc
}

suspend_in_flight() {
	local rc=0 size=$((682 * 3 * 16 * 512)) i
	vol_create ssat-v $((size / 512)) stripe 16 "$(ram_members 3)" || return 1
	mkdir -p "$WORK"
	(cd "$WORK" && fio --name=sus --filename=/dev/mapper/ssat-v --direct=1 --ioengine=libaio \
		--rw=randwrite --bssplit=4k/40:24k/30:200k/30 --iodepth=32 --size=$size \
		--verify=crc32c --verify_fatal=1 --verify_state_save=0 --output="$WORK/fio.out" >/dev/null 2>&1) &
	local fio_pid=$!
	for i in 1 2 3 4 5; do
		sleep 0.4
		dmsetup suspend ssat-v || { fail "suspend $i failed"; rc=1; }
		sleep 0.2
		dmsetup resume ssat-v || { fail "resume $i failed"; rc=1; }
	done
	wait $fio_pid || { fail "fio verify failed across suspend/resume"; cat "$WORK/fio.out"; rc=1; }
	return $rc
}

rmmod_in_use() {
	local rc=0
	vol_create ssat-v 8192 stripe 8 "$(ram_members 2)" || return 1
	rmmod dm_ssastripe 2>/dev/null && { fail "rmmod succeeded while a table uses the target"; rc=1; }
	grep -q '^dm_ssastripe ' /proc/modules || { fail "module gone while in use"; return 1; }
	dmsetup remove ssat-v || return 1
	rmmod dm_ssastripe || { fail "rmmod failed after the last table went"; rc=1; }
	insmod "$KO" || { fail "insmod after rmmod failed"; rc=1; }
	vol_create ssat-v 8192 stripe 8 "$(ram_members 2)" || rc=1
	dmsetup remove ssat-v || rc=1
	# an ssacache alone holds the module too; its removal destages first
	mkdir -p "$WORK"
	head -c 65536 /dev/urandom > "$WORK/rm-data"
	dmsetup create ssat-c --table "0 8192 ssacache /dev/ram2 8 64 4 low_water 40 high_water 40" || return 1
	dd if="$WORK/rm-data" of=/dev/mapper/ssat-c bs=4k count=16 oflag=direct status=none || rc=1
	rmmod dm_ssastripe 2>/dev/null && { fail "rmmod succeeded while a cache uses the module"; return 1; }
	dmsetup remove ssat-c || rc=1
	cmp -n 65536 "$WORK/rm-data" /dev/ram2 || { fail "the cache's dirty data lost at removal"; rc=1; }
	rmmod dm_ssastripe || { fail "rmmod failed after the cache went"; rc=1; }
	insmod "$KO" || { fail "insmod after rmmod failed"; rc=1; }
	return $rc
}

# The leak check after each test (run, module_leaks) sees the module's
# allocations: a live volume's are listed, and none once it is removed.
leak_check_sees() {
	local rc=0 n
	kasan_kernel && { skip "KASAN's quarantine keeps freed objects in the slab traces (kmemleak checks instead)"; return $KSFT_SKIP; }
	leak_check_ready || { skip "no allocation tracking (boot with slub_debug=U,kmalloc-*)"; return $KSFT_SKIP; }
	[ -z "$(module_leaks)" ] || { fail "module allocations live before the test"; return 1; }
	vol_create ssat-v 8192 stripe 8 "$(ram_members 2)" || return 1
	n=$(module_allocs | grep -c '^/sys.*ssa_ctr')
	info "$n groups of objects allocated by ssa_ctr() while the volume exists"
	[ "$n" -gt 0 ] || { fail "the volume's allocations are not seen"; rc=1; }
	vol_remove ssat-v || return 1
	n=$(module_leaks | grep -c '^/sys')
	expect_eq "groups of module allocations left after the removal" "$n" 0 || rc=1
	return $rc
}

register leak_check_sees leak_check_sees
register member_fails member_fails
register member_fails_writes member_fails_writes 0
register member_fails_writes_d1 member_fails_writes 1
register remove_in_flight remove_in_flight
register suspend_in_flight suspend_in_flight
register rmmod_in_use rmmod_in_use
