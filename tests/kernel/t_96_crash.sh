# SPDX-License-Identifier: GPL-2.0-only
# Crash consistency of raid5, measured: every member write is recorded in
# one dm-log-writes log (the members are linear slices of the one device
# it logs), the log is replayed to every crash point (crash_replay.py),
# and at each point acknowledged-and-flushed data must still be there; the
# parity may lie while a write is in flight -- the write hole, counted,
# since nothing closes it yet -- and after the module's recovery (the
# initial sync over the crashed members) it must agree again, with the
# flushed data read back through the volume.
#
# Uses wait_synced and parity_ok (t_98).

crash_raid5() {
	modprobe dm-log-writes 2>/dev/null
	grep -qw log-writes <(dmsetup targets) || { skip "no dm-log-writes target"; return; }
	local n=4 msz=$((8 << 11)) chunk=8 rc=0 out k durable i members=""
	local vsz=$(((n - 1) * msz))
	loop_members 2 64 || return 1
	local data=${LOOPS[0]} log=${LOOPS[1]}
	dmsetup create ssat-lw --table "0 $((n * msz)) log-writes $data $log" || return 1
	for ((i = 0; i < n; i++)); do
		dmsetup create ssat-c$i --table "0 $msz linear /dev/mapper/ssat-lw $((i * msz))" ||
			return 1
		members+="/dev/mapper/ssat-c$i 0 "
	done
	# zeroed members: in sync from the start
	vol_create ssat-c "$vsz" raid5 $chunk "${members% }" 2 initial_sync off || return 1
	# 240 random 4 KiB writes (one chunk each: read-modify-write), a flush
	# and a mark after every 8th
	python3 "$TOP/tests/kernel/crash_writer.py" /dev/mapper/ssat-c ssat-lw \
		$((vsz / 8)) 240 8 7 "$WORK/writes.csv" || { fail "crash_writer failed"; return 1; }
	vol_remove ssat-c
	for ((i = 0; i < n; i++)); do vol_remove ssat-c$i; done
	vol_remove ssat-lw	# writes the log's super block: every entry is in
	local replay=("$TOP/tests/kernel/crash_replay.py" --log "$log" --members $n
		--member-sectors $msz --chunk $chunk --writes "$WORK/writes.csv")
	out=$(python3 "${replay[@]}" --json "$WORK/crash.json") ||
		{ fail "crash replay: $out"; rc=1; }
	info "replay: $out"
	# (the writer's 240 writes are 480 member writes: data and parity)
	local writes marks holes
	read -r writes marks holes k durable < <(python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
print(r["writes_logged"], r["marks"], r["points_with_hole"], r.get("last_hole_point"), r.get("last_hole_durable"))' \
		"$WORK/crash.json")
	expect_eq "member writes in the log" "$writes" 480 || rc=1
	# (the writer's 30, and the one dm-log-writes adds when it is removed)
	expect_eq "marks in the log" "$marks" 31 || rc=1
	# Nothing closes the write hole yet: a crash between a write's data and
	# parity leaves chunks at rest that a member failure would rebuild
	# wrongly.  The replay must see it (else it could not see it closed).
	[ "$holes" -gt 0 ] 2>/dev/null || { fail "no crash point shows the write hole"; rc=1; }
	[ $rc = 0 ] || return 1

	# Recovery from the last crash point that shows the hole: the members
	# as that crash left them, a volume with the initial sync on; then the
	# parity agrees and the flushed writes read back through the volume.
	out=$(python3 "${replay[@]}" --dump "$k:$WORK/crashed.img") || true
	local img
	img=$(losetup -f --show "$WORK/crashed.img") || return 1
	LOOPS+=("$img")
	members=""
	for ((i = 0; i < n; i++)); do
		dmsetup create ssat-r$i --table "0 $msz linear $img $((i * msz))" || return 1
		members+="/dev/mapper/ssat-r$i 0 "
	done
	out=$(python3 "$TOP/tests/kernel/check_parity.py" --table \
		"0 $vsz ssastripe raid5 $chunk $n ${members% }") &&
		{ fail "the crashed members' parity agrees before recovery: $out"; rc=1; }
	info "crashed at point $k (flushed up to write $durable): $out"
	vol_create ssat-c "$vsz" raid5 $chunk "${members% }" || return 1
	wait_synced ssat-c || rc=1
	parity_ok ssat-c || rc=1
	out=$(python3 "$TOP/tests/kernel/crash_replay.py" --verify /dev/mapper/ssat-c \
		--durable "$durable" --writes "$WORK/writes.csv") || { fail "after recovery: $out"; rc=1; }
	info "after recovery: $out"
	vol_remove ssat-c
	return $rc
}
register crash_raid5 crash_raid5
