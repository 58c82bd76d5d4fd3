# SPDX-License-Identifier: GPL-2.0-only
# Crash consistency of raid5, pstripe and mirror, measured: every member write is
# recorded in one dm-log-writes log (the members are linear slices of the
# one device it logs), the log is replayed to every crash point
# (crash_replay.py), and at each point acknowledged-and-flushed data must
# still be there, on every copy.  raid5's parity may lie while a write is
# in flight -- the write hole, counted -- and after the module's recovery
# (the initial sync over the crashed members; with a bitmap, of its
# regions; with a partial parity log, its replay, which must also close
# the hole) it must agree again, with the flushed data read back through
# the volume.  A mirror's copies may differ only where a write was in flight,
# and agree again after a repair (with a bitmap: after the resync of its
# regions alone).
#
# Uses wait_synced and parity_ok (t_98), copies_identical (t_97).

# (CRASH_CHUNK: the chunk in sectors, 8 unless set; CRASH_BPW: 4 KiB
# blocks a write, 1 unless set)
crash_layout() {	# crash_layout raid5|pstripe|mirror [bitmap|ppl]
	local layout=$1 bitmap=${2:-} ppl=
	[ "$bitmap" = ppl ] && ppl=1 bitmap=
	modprobe dm-log-writes 2>/dev/null
	grep -qw log-writes <(dmsetup targets) || { skip "no dm-log-writes target"; return; }
	local n=4 msz=$((8 << 11)) chunk=${CRASH_CHUNK:-8} bpw=${CRASH_BPW:-1}
	local rc=0 out k durable i members="" bmsz=0
	local vsz=$(((n - 1) * msz)) opts=(2 initial_sync off)
	[ "$layout" = mirror ] && vsz=$((n / 2 * msz))
	# with a bitmap, its device is a fifth slice after the members'
	[ -n "$bitmap" ] && bmsz=2048 opts=(4 initial_sync off bitmap /dev/mapper/ssat-c$n)
	local mopts=()
	[ -n "$bitmap" ] && mopts=(2 bitmap /dev/mapper/ssat-c$n)
	# with a ppl, so is its device (127 slots of a 4 KiB header and a chunk)
	[ -n "$ppl" ] && bmsz=2048 opts=(4 initial_sync off ppl /dev/mapper/ssat-c$n)
	loop_members 2 64 || return 1
	local data=${LOOPS[0]} log=${LOOPS[1]}
	dmsetup create ssat-lw --table "0 $((n * msz + bmsz)) log-writes $data $log" || return 1
	for ((i = 0; i < n; i++)); do
		dmsetup create ssat-c$i --table "0 $msz linear /dev/mapper/ssat-lw $((i * msz))" ||
			return 1
		members+="/dev/mapper/ssat-c$i 0 "
	done
	if [ -n "$bitmap$ppl" ]; then
		dmsetup create ssat-c$n --table "0 $bmsz linear /dev/mapper/ssat-lw $((n * msz))" || return 1
	fi
	# zeroed members: in sync from the start
	if [ "$layout" != mirror ]; then
		vol_create ssat-c "$vsz" "$layout" $chunk "${members% }" "${opts[@]}" || return 1
	else
		vol_create ssat-c "$vsz" mirror $chunk "${members% }" "${mopts[@]}" || return 1
	fi
	# 240 random 4 KiB writes (one chunk each: a read-modify-write on raid5,
	# two copies on the mirror), a flush and a mark after every 8th
	python3 "$TOP/tests/kernel/crash_writer.py" /dev/mapper/ssat-c ssat-lw \
		$((vsz / 8)) 240 8 7 "$WORK/writes.csv" "$bpw" || { fail "crash_writer failed"; return 1; }
	vol_remove ssat-c
	for ((i = 0; i < n; i++)); do vol_remove ssat-c$i; done
	[ -n "$bitmap$ppl" ] && vol_remove ssat-c$n
	vol_remove ssat-lw	# writes the log's super block: every entry is in
	local replay=("$TOP/tests/kernel/crash_replay.py" --layout "$layout" --log "$log"
		--members $n --member-sectors $msz --chunk $chunk --writes "$WORK/writes.csv")
	[ -n "$bitmap" ] && replay+=(--bitmap-sector $((n * msz)))
	# (the replay fails any point where the log's replay leaves a hole)
	[ -n "$ppl" ] && replay+=(--ppl-sector $((n * msz)))
	out=$(python3 "${replay[@]}" --json "$WORK/crash.json") ||
		{ fail "crash replay: $out"; rc=1; }
	info "replay: $out"
	# (the writer's 240 writes are 480 member writes: data and parity, or
	# two copies)
	local writes marks holes diff
	read -r writes marks holes diff k durable < <(python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
print(r["writes_logged"], r["marks"], r["points_with_hole"], r["points_with_mismatch"],
      r.get("last_hole_point"), r.get("last_hole_durable"))' "$WORK/crash.json")
	if [ "$bpw" = 1 ]; then
		expect_eq "member writes in the log" "$writes" 480 || rc=1
	else
		# (a write within one chunk: two member writes; over two chunks
		# of a group: three; of two groups: four)
		[ "$writes" -gt 480 ] || { fail "only $writes member writes in the log"; rc=1; }
	fi
	if [ -n "$bitmap" ]; then
		# (the replay fails any point where a lying group's bit is clear)
		[ "$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["bitmap_writes"])' \
			"$WORK/crash.json")" -gt 0 ] || { fail "no bitmap write in the log"; rc=1; }
	fi
	# (the writer's 30, and the one dm-log-writes adds when it is removed)
	expect_eq "marks in the log" "$marks" 31 || rc=1
	if [ "$layout" = mirror ]; then
		# copies differ between a write's two member writes, never at rest
		[ "$diff" -gt 0 ] 2>/dev/null || { fail "no crash point between two copies' writes"; rc=1; }
		expect_eq "crash points with copies differing at rest" "$holes" 0 || rc=1
		[ $rc = 0 ] || return 1
		CRASH_BITMAP=$bitmap crash_recover_mirror "$n" "$msz" "$chunk" "$vsz" "$(python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
print(r["last_mismatch_point"], r["last_mismatch_durable"])' "$WORK/crash.json")" "${replay[@]}"
		return
	fi
	# On the raw members (a log or not) a crash between a write's data and
	# parity leaves chunks at rest that a member failure would rebuild
	# wrongly.  The replay must see it (else it could not see it closed).
	[ "$holes" -gt 0 ] 2>/dev/null || { fail "no crash point shows the write hole"; rc=1; }
	[ $rc = 0 ] || return 1
	if [ -n "$ppl" ] && [ "$bpw" != 1 ]; then
		# the entries the test is for: two ranges at different offsets
		out=$(python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
print(r["ppl_ranges_max"], r["ppl_points_mixed_ranges"])' "$WORK/crash.json")
		[ "${out% *}" -ge 2 ] && [ "${out#* }" -gt 0 ] ||
			{ fail "no ppl entry of two ranges at different offsets (ranges max, points: $out)"; rc=1; }
	fi
	if [ -n "$ppl" ]; then
		crash_recover_ppl "$layout" "$n" "$msz" "$chunk" "$vsz" "$k" "$durable" "${replay[@]}"
		return
	fi

	# Recovery from the last crash point that shows the hole: the members
	# as that crash left them, a volume with the initial sync on (with a
	# bitmap: the bitmap as the crash left it, and only its regions
	# resynced); then the parity agrees and the flushed writes read back
	# through the volume.
	members=$(CRASH_BITMAP=$bitmap crash_members "$k" "$n" "$msz" "${replay[@]}") || return 1
	out=$(python3 "$TOP/tests/kernel/check_parity.py" --table \
		"0 $vsz ssastripe $layout $chunk $n $members") &&
		{ fail "the crashed members' parity agrees before recovery: $out"; rc=1; }
	info "crashed at point $k (flushed up to write $durable): $out"
	klog_mark
	if [ -n "$bitmap" ]; then
		vol_create ssat-c "$vsz" "$layout" $chunk "$members" 2 bitmap /dev/mapper/ssat-r$n ||
			return 1
	else
		vol_create ssat-c "$vsz" "$layout" $chunk "$members" || return 1
	fi
	wait_synced ssat-c || rc=1
	if [ -n "$bitmap" ]; then
		out=$(klog_since | grep -o "stopped without a suspend (a crash?), [0-9]* of 128 regions")
		info "bitmap: $out"
		[[ $out =~ ", "([0-9]+)" of 128" ]] && [ "${BASH_REMATCH[1]}" -gt 0 ] &&
			[ "${BASH_REMATCH[1]}" -lt 128 ] || { fail "no partial resync after the crash: '$out'"; rc=1; }
	fi
	parity_ok ssat-c || rc=1
	crash_flushed_back "$durable" || rc=1
	return $rc
}

# crash_flushed_back DURABLE: every block written up to write DURABLE reads
# back through the recovered volume ssat-c, which is then removed
crash_flushed_back() {
	local out rc=0
	out=$(python3 "$TOP/tests/kernel/crash_replay.py" --verify /dev/mapper/ssat-c \
		--durable "$1" --writes "$WORK/writes.csv") || { fail "after recovery: $out"; rc=1; }
	info "after recovery: $out"
	vol_remove ssat-c
	return $rc
}

# crash_members POINT N MSZ REPLAY...: the members as the crash at POINT
# left them: the replayed device in a loop device, cut into N linear
# members ssat-r0.. of MSZ sectors.  Prints "DEV 0 DEV 0 ...".
crash_members() {
	local k=$1 n=$2 msz=$3 img i members=""
	shift 3
	python3 "$@" --dump "$k:$WORK/crashed.img" >/dev/null
	[ -s "$WORK/crashed.img" ] || { fail "no image of crash point $k" >&2; return 1; }
	img=$(losetup -f --show "$WORK/crashed.img") || return 1
	for ((i = 0; i < n; i++)); do
		dmsetup create ssat-r$i --table "0 $msz linear $img $((i * msz))" || return 1
		members+="/dev/mapper/ssat-r$i 0 "
	done
	# CRASH_BITMAP set: and the bitmap device after them, ssat-rN
	if [ -n "${CRASH_BITMAP:-}" ]; then
		dmsetup create ssat-r$n --table "0 $(($(blockdev --getsz "$img") - n * msz)) linear $img $((n * msz))" ||
			return 1
	fi
	echo "${members% }"
}

# crash_members_free: remove what crash_members made
crash_members_free() {
	local d
	for d in $(dmsetup ls | awk '/^ssat-r[0-9]/{print $1}'); do vol_remove "$d"; done
	for d in $(losetup -j "$WORK/crashed.img" | cut -d: -f1); do losetup -d "$d"; done
	rm -f "$WORK/crashed.img"
}

# crash_recover_ppl LAYOUT N MSZ CHUNK VSZ POINT DURABLE REPLAY...: the members
# and the ppl as the crash at POINT (one with the hole) left them.  With
# every member, the ppl's replay alone (no initial sync) must leave the
# parity right; with any one member gone (an error table), the flushed
# blocks must read back through the replayed volume, and the blocks never
# written as zeros -- and, to show the hole was there to close, not through
# one made over the same members without the ppl and without the member
# whose failure the hole would hurt.
crash_recover_ppl() {
	local layout=$1 n=$2 msz=$3 chunk=$4 vsz=$5 k=$6 durable=$7 members out rc=0 g how
	shift 7
	g=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["last_hole_members"][0])' \
		"$WORK/crash.json") || { fail "no member the hole would hurt"; return 1; }
	members=$(CRASH_BITMAP=1 crash_members "$k" "$n" "$msz" "$@") || return 1
	klog_mark
	vol_create ssat-c "$vsz" "$layout" $chunk "$members" 4 initial_sync off \
		ppl /dev/mapper/ssat-r$n || return 1
	out=$(klog_since | grep -o "stopped without a suspend (a crash?), [0-9]* entries replayed")
	info "crashed at point $k (flushed up to write $durable): ppl: $out"
	[[ $out =~ ", "([1-9][0-9]*)" entries" ]] || { fail "no entry replayed: '$out'"; rc=1; }
	parity_ok ssat-c || rc=1
	crash_flushed_back "$durable" || rc=1
	crash_members_free

	# with the ppl, any one member gone (the parity's or a data member's);
	# without it, the one the hole hurts
	local run gone
	for run in $(seq 0 $((n - 1))) none; do
		how=ppl gone=$run
		[ $run = none ] && how=none gone=$g
		members=$(CRASH_BITMAP=1 crash_members "$k" "$n" "$msz" "$@") || return 1
		dmsetup suspend ssat-r$gone && dmsetup load ssat-r$gone --table "0 $msz error" &&
			dmsetup resume ssat-r$gone || return 1
		local opts=(2 initial_sync off)
		[ $how = ppl ] && opts=(4 initial_sync off ppl /dev/mapper/ssat-r$n)
		vol_create ssat-c "$vsz" "$layout" $chunk "$members" "${opts[@]}" || return 1
		# every block: the hole may hurt one never written (zeros)
		out=$(python3 "$TOP/tests/kernel/crash_replay.py" --verify /dev/mapper/ssat-c \
			--durable "$durable" --writes "$WORK/writes.csv" --all-blocks $((vsz / 8)))
		local lost=$?
		info "member $gone gone, $how: $out"
		if [ $how = ppl ] && [ $lost != 0 ]; then
			fail "the ppl did not close the hole with member $gone gone: $out"; rc=1
		elif [ $how = none ] && [ $lost = 0 ]; then
			fail "without the ppl, member $g's loss lost nothing: the test shows no hole"; rc=1
		fi
		vol_remove ssat-c
		crash_members_free
	done
	return $rc
}

# crash_recover_mirror N MSZ CHUNK VSZ "POINT DURABLE" REPLAY...: the members
# as that crash point left them (two copies of a chunk different), a mirror
# over them, a repair; then the copies agree and the flushed blocks read
# back.
crash_recover_mirror() {
	local n=$1 msz=$2 chunk=$3 vsz=$4 k durable members out rc=0
	read -r k durable <<< "$5"
	shift 5
	members=$(crash_members "$k" "$n" "$msz" "$@") || return 1
	if [ -n "${CRASH_BITMAP:-}" ]; then
		# the bitmap as the crash left it: the resync alone, over the
		# regions it holds, must make the copies agree
		klog_mark
		vol_create ssat-c "$vsz" mirror $chunk "$members" 2 bitmap /dev/mapper/ssat-r$n ||
			return 1
		wait_synced ssat-c || rc=1
		out=$(klog_since | grep -o "stopped without a suspend (a crash?), [0-9]* of 128 regions")
		[[ $out =~ ", "([0-9]+)" of 128" ]] && [ "${BASH_REMATCH[1]}" -gt 0 ] &&
			[ "${BASH_REMATCH[1]}" -lt 128 ] || { fail "no partial resync after the crash: '$out'"; rc=1; }
		out="$out; $(klog_since | grep -o "resync done: .*")"
		[[ $out =~ ", "([0-9]+)" mismatched" ]] && [ "${BASH_REMATCH[1]}" -gt 0 ] ||
			{ fail "the resync found no differing copy at crash point $k: '$out'"; rc=1; }
		info "crashed at point $k (flushed up to write $durable): $out"
		copies_identical ssat-c || rc=1
		crash_flushed_back "$durable" || rc=1
		return $rc
	fi
	vol_create ssat-c "$vsz" mirror $chunk "$members" || return 1
	out=$(scrub ssat-c check) || { fail "check did not end: $out"; return 1; }
	[ "$out" -gt 0 ] 2>/dev/null || { fail "check finds no difference at crash point $k: $out"; rc=1; }
	info "crashed at point $k (flushed up to write $durable): check counts $out"
	out=$(scrub ssat-c repair) || { fail "repair did not end: $out"; return 1; }
	copies_identical ssat-c || rc=1
	crash_flushed_back "$durable" || rc=1
	return $rc
}
register crash_raid5 crash_layout raid5
register crash_mirror crash_layout mirror
register crash_raid5_bitmap crash_layout raid5 bitmap
register crash_mirror_bitmap crash_layout mirror bitmap
register crash_raid5_ppl crash_layout raid5 ppl
# 8 KiB writes over 8 KiB chunks, half of them at 4 KiB offsets: a ppl
# entry then holds two ranges at different offsets (the second half of one
# chunk, the first half of the next) or two groups
crash_raid5_ppl_multi() { CRASH_CHUNK=16 CRASH_BPW=2 crash_layout raid5 ppl; }
register crash_raid5_ppl_multi crash_raid5_ppl_multi
# pstripe's writes take the same paths as raid5's: make check-full only
if [ "$FULL" = 1 ]; then
	register crash_pstripe crash_layout pstripe
	register crash_pstripe_ppl crash_layout pstripe ppl
fi
