# SPDX-License-Identifier: GPL-2.0-only
# The srarray layout (seed 003's SR-Array, Ds x Dr x 1): data verified
# through the volume; every write on every replica and the placement as
# documented, read back raw from the members (check_srarray.py); over
# ssadisk members the reads wait for the replica that comes round first
# (the disks' own rotational delays, traced, fall as 1/Dr); bad tables.

CHECK_SR="python3 $TOP/tests/kernel/check_srarray.py"

# sr_tail NAME FIELD: the srarray tail of the status
#   FIELD: copies | replicas | track | how | predicted | guessed |
#          propagate | stale | copied | dropped
sr_tail() {
	local -a s
	local base
	read -ra s <<< "$(dmsetup status "$1")"
	base=$((ST_MEMBER0 + s[4] * ST_PER_MEMBER))
	case $2 in
	copies) echo "${s[base]}" ;;
	replicas) echo "${s[base + 1]}" ;;
	track) echo "${s[base + 2]}" ;;
	how) echo "${s[base + 3]}" ;;
	predicted) echo "${s[base + 4]}" ;;
	guessed) echo "${s[base + 5]}" ;;
	propagate) echo "${s[base + 6]}" ;;
	stale) echo "${s[base + 7]}" ;;
	copied) echo "${s[base + 8]}" ;;
	dropped) echo "${s[base + 9]}" ;;
	esac
}

# srarray_verify N REPLICAS TRACK CHUNK [OPTS...]: fio crc32c over an
# srarray of N ramdisks, then the raw check
srarray_verify() {
	local n=$1 dr=$2 track=$3 chunk=$4 rc=0 len out
	shift 4
	# 4 MiB of data a member: 8192 sectors, whole arcs
	len=$((n * 8192))
	wipe 16 $(for ((i = 0; i < n; i++)); do echo /dev/ram$i; done) || return 1
	vol_create ssat-v $len srarray "$chunk" "$(ram_members "$n")" \
		$((4 + $#)) replicas "$dr" track_sectors "$track" "$@" || return 1
	run_fio verify.fio DEV=/dev/mapper/ssat-v SIZE=$((len * 512)) \
		BSSPLIT="512/10:4k/40:12k/20:64k/20:256k/10" || { fail "fio verify"; rc=1; }
	expect_eq "health" "$(vstat ssat-v health)" "$(printf 'A%.0s' $(seq "$n"))" || rc=1
	# a suspend puts every write on all its replicas (propagate background)
	dmsetup suspend ssat-v && dmsetup resume ssat-v || { fail "suspend/resume"; rc=1; }
	out=$($CHECK_SR ssat-v) || { fail "raw check: $out"; rc=1; }
	info "$out"
	if [[ " $* " == *" propagate background "* ]]; then
		info "propagation: stale $(sr_tail ssat-v stale) copied $(sr_tail ssat-v copied) dropped $(sr_tail ssat-v dropped)"
		expect_eq "propagate in status" "$(sr_tail ssat-v propagate)" background || rc=1
		expect_eq "stale units after a suspend" "$(sr_tail ssat-v stale)" 0 || rc=1
		expect_eq "units given up" "$(sr_tail ssat-v dropped)" 0 || rc=1
		[ "$(sr_tail ssat-v copied)" -gt 0 ] || { fail "no unit copied in the background"; rc=1; }
	else
		expect_eq "propagate in status" "$(sr_tail ssat-v propagate) $(sr_tail ssat-v copied)" \
			"foreground 0" || rc=1
	fi
	# reads on ramdisks are placed without a model (with one copy, never)
	local guessed predicted how
	guessed=$(sr_tail ssat-v guessed) predicted=$(sr_tail ssat-v predicted)
	how=$(sr_tail ssat-v how)
	info "status tail: replicas $(sr_tail ssat-v replicas) track $(sr_tail ssat-v track) $how $predicted $guessed"
	expect_eq "reads placed by a model" "$predicted" 0 || rc=1
	if [ "$dr" -gt 1 ]; then
		[ "$guessed" -gt 0 ] || { fail "no read placed"; rc=1; }
		# (with copies a member may never have been chosen: "-")
		[[ $how =~ ^[g-]+$ && $how == *g* && ${#how} == "$n" ]] ||
			{ fail "how: '$how', want g (or -) for each of $n members"; rc=1; }
	else
		expect_eq "reads placed" "$guessed" 0 || rc=1
	fi
	vol_remove ssat-v
	return $rc
}

# Background propagation and flushes, over two slow disks (ssadisk,
# mechanical: copying a unit takes two disk accesses, so the copies lag
# far behind a stream of writes).  4 MiB written 64 KiB at a time reads
# back at once, while most of it is on one replica (reads go only to
# replicas that hold the data); 4 MiB more written with an fsync at the
# end (dd conv=fsync): when the fsync returns nothing is stale and the raw
# members hold equal replicas, without a suspend.  Then a suspend drains,
# and the data reads back.
srarray_bg_flush() {
	local rc=0 i m="" phys=9600 out
	mkdir -p "$WORK"
	wipe 8 /dev/ram0 /dev/ram1 || return 1
	for i in 0 1; do
		disk_create ssat-d$i /dev/ram$i $phys $DISK96 || return 1
		m+="/dev/mapper/ssat-d$i 0 "
	done
	vol_create ssat-v $phys srarray 8 "$m" 6 replicas 2 track_sectors 96 propagate background ||
		return 1
	head -c 4M /dev/urandom > "$WORK/sr-a"
	head -c 4M /dev/urandom > "$WORK/sr-b"
	dd if="$WORK/sr-a" of=/dev/mapper/ssat-v bs=64k oflag=direct status=none || { fail "dd"; rc=1; }
	info "after 4 MiB of writes: stale $(sr_tail ssat-v stale) copied $(sr_tail ssat-v copied)"
	cmp "$WORK/sr-a" <(dd if=/dev/mapper/ssat-v bs=64k count=64 iflag=direct status=none) ||
		{ fail "data read back while its replicas propagate"; rc=1; }
	dd if="$WORK/sr-b" of=/dev/mapper/ssat-v bs=64k oflag=direct conv=fsync status=none ||
		{ fail "dd conv=fsync"; rc=1; }
	expect_eq "stale units when the fsync returned" "$(sr_tail ssat-v stale)" 0 || rc=1
	out=$($CHECK_SR ssat-v) || { fail "raw check after the fsync: $out"; rc=1; }
	info "after the fsync: $out; copied $(sr_tail ssat-v copied)"
	# 4 MiB = 1024 units of 4 KiB, each copied at least once
	[ "$(sr_tail ssat-v copied)" -ge 1024 ] ||
		{ fail "units copied in the background: $(sr_tail ssat-v copied), want >= 1024"; rc=1; }
	dd if="$WORK/sr-a" of=/dev/mapper/ssat-v bs=4k count=16 oflag=direct status=none || rc=1
	dmsetup suspend ssat-v && dmsetup resume ssat-v || { fail "suspend/resume"; rc=1; }
	expect_eq "stale units after a suspend" "$(sr_tail ssat-v stale)" 0 || rc=1
	cmp <(head -c 64k "$WORK/sr-a"; tail -c +65537 "$WORK/sr-b") \
		<(dd if=/dev/mapper/ssat-v bs=64k count=64 iflag=direct status=none) ||
		{ fail "data read back after the suspend"; rc=1; }
	out=$($CHECK_SR ssat-v) || { fail "raw check after the suspend: $out"; rc=1; }
	vol_remove ssat-v
	for i in 0 1; do dmsetup remove ssat-d$i; done
	return $rc
}

# A copy that fails: a 1 x 2 srarray whose member (over a slow ssadisk)
# is switched, while most of 1 MiB of writes still waits to be copied,
# to a table whose replica-1 arcs are error targets.  Every copy then
# fails (reading replica 1 or writing it): the units are dropped, the log
# says so, and the fsync after it fails, since those writes are on one
# replica only.
srarray_bg_copy_fails() {
	local rc=0 phys=9600 t tab="" stale
	mkdir -p "$WORK"
	wipe 8 /dev/ram0 || return 1
	disk_create ssat-d0 /dev/ram0 $phys $DISK96 || return 1
	dmsetup create ssat-m0 --table "0 $phys linear /dev/mapper/ssat-d0 0" || return 1
	vol_create ssat-v $((phys / 2)) srarray 8 "/dev/mapper/ssat-m0 0" \
		6 replicas 2 track_sectors 96 propagate background || return 1
	# the new table is loaded (inactive) first: after the writes only
	# the suspend and resume stand between them and the switch
	for ((t = 0; t < phys / 96; t++)); do
		tab+="$((t * 96)) 48 linear /dev/mapper/ssat-d0 $((t * 96))"$'\n'
		tab+="$((t * 96 + 48)) 48 error"$'\n'
	done
	dmsetup load ssat-m0 <<< "$tab" || { fail "loading the member's table"; rc=1; }
	dd if=/dev/urandom of=/dev/mapper/ssat-v bs=64k count=16 oflag=direct status=none ||
		{ fail "dd"; rc=1; }
	stale=$(sr_tail ssat-v stale)
	dmsetup suspend ssat-m0 && dmsetup resume ssat-m0 || { fail "switching the member"; rc=1; }
	info "units still to copy at the switch: $stale of 256"
	[ "$stale" -gt 0 ] || { fail "nothing left to copy at the switch"; rc=1; }
	python3 -c 'import os, sys; os.fsync(os.open(sys.argv[1], os.O_WRONLY))' /dev/mapper/ssat-v \
		2>/dev/null && { fail "the fsync succeeded with writes on one replica"; rc=1; }
	# A flush fails at once when a copy has already failed; the copy
	# work goes on dropping the rest in idle time (bounded wait).
	for ((t = 0; t < 300; t++)); do
		[ "$(sr_tail ssat-v stale)" = 0 ] && break
		sleep 0.1
	done
	info "after the fsync: stale $(sr_tail ssat-v stale) copied $(sr_tail ssat-v copied) dropped $(sr_tail ssat-v dropped)"
	expect_eq "stale units within 30 s of the fsync" "$(sr_tail ssat-v stale)" 0 || rc=1
	[ "$(sr_tail ssat-v dropped)" -gt 0 ] || { fail "no unit dropped"; rc=1; }
	dmesg | grep -q "member 0: sector [0-9]* not copied" ||
		{ fail "no log line for the failed copy"; rc=1; }
	vol_remove ssat-v
	dmsetup remove ssat-m0 && dmsetup remove ssat-d0
	return $rc
}

# A test that can fail: a write planted on one replica raw is caught.
srarray_raw_check() {
	local rc=0 out
	wipe 8 /dev/ram0 /dev/ram1 || return 1
	vol_create ssat-v 16384 srarray 8 "$(ram_members 2)" 4 replicas 2 track_sectors 64 || return 1
	dd if=/dev/urandom of=/dev/mapper/ssat-v bs=64k count=128 oflag=direct status=none || rc=1
	out=$($CHECK_SR ssat-v) || { fail "raw check after writes: $out"; rc=1; }
	# member 1, track 5, replica 1's arc: a sector off from replica 0
	dd if=/dev/urandom of=/dev/ram1 bs=512 seek=$((5 * 64 + 32 + 3)) count=1 oflag=direct status=none
	out=$($CHECK_SR ssat-v) && { fail "a planted replica mismatch passed: $out"; rc=1; }
	info "planted: $out"
	grep -q "mismatched=1 " <<< "$out" || { fail "expected one mismatched track: $out"; rc=1; }
	vol_remove ssat-v
	return $rc
}

# sr_rot DR: "<mean rotational delay, us> <how>" of random 4 KiB reads,
# one at a time, through a 1 x DR x 1 srarray over one 7200 rpm ssadisk
# (96 sectors a track); the disk's own ssadisk_service_start events say
# what it waited, the status tail how the reads were placed.
sr_rot() {
	local dr=$1 phys=32256 n=400 f=$WORK/sr-rot.trace how
	disk_create ssat-d0 /dev/ram0 $phys $DISK96 || return 1
	vol_create ssat-v $((phys / dr)) srarray 8 "/dev/mapper/ssat-d0 0" \
		4 replicas "$dr" track_sectors 96 || return 1
	ssadisk_trace_start "dev == $(dev_t_of ssat-d0)"
	(cd /tmp && DEV=/dev/mapper/ssat-v NIOS=$n DEPTH=1 fio --section=closed \
		--output=/dev/null "$TOP/tests/fio/ssadisk.fio") || { fail "fio"; return 1; }
	mkdir -p "$WORK"
	ssadisk_trace_stop "$f"
	how=$(sr_tail ssat-v how)
	vol_remove ssat-v
	dmsetup remove ssat-d0
	awk -v how="$how" '/ssadisk_service_start:/ { for (i = 1; i < NF; i++) if ($i == "rot") { s += $(i + 1); k++ } }
	     END { if (k < 300) exit 1; printf "%d %s\n", s / k / 1000, how }' "$f"
}

# The replica choice works: with R = 8333 us the mean rotational delay is
# about R/2 for one copy, R/4 for two and R/6 for three.  (Bounds leave
# room for the dispatch latency between the prediction and the arrival on
# a slow guest, which can make a read miss its replica by a turn.)
srarray_rotation() {
	local rc=0 r1 r2 r3 h
	mkdir -p "$WORK"
	read -r r1 h <<< "$(sr_rot 1)" && [ -n "$r1" ] || { fail "replicas 1 run"; return 1; }
	expect_eq "one replica: nothing to place" "$h" - || rc=1
	read -r r2 h <<< "$(sr_rot 2)" && [ -n "$r2" ] || { fail "replicas 2 run"; return 1; }
	expect_eq "two replicas: placed by the model" "$h" P || rc=1
	read -r r3 h <<< "$(sr_rot 3)" && [ -n "$r3" ] || { fail "replicas 3 run"; return 1; }
	expect_eq "three replicas: placed by the model" "$h" P || rc=1
	info "mean rotational delay: 1 replica $r1 us, 2 replicas $r2 us, 3 replicas $r3 us (R = 8333 us)"
	[ "$r1" -gt 3500 ] && [ "$r1" -lt 4900 ] || { fail "1 replica: $r1 us, want about 4167"; rc=1; }
	[ "$r2" -gt 1500 ] && [ "$r2" -lt 2600 ] || { fail "2 replicas: $r2 us, want about 2083"; rc=1; }
	[ "$r3" -gt 900 ] && [ "$r3" -lt 1800 ] || { fail "3 replicas: $r3 us, want about 1389"; rc=1; }
	return $rc
}

# sr_place SCHED: "<exact> <eligible> <placed> <served>" of random 4 KiB
# reads through a 1 x 2 srarray (queue_depth 2, sched SCHED) over one
# mechanical ssadisk: every ssastripe_place event of the volume joined,
# by the sector and length it names, with the disk's ssadisk_service_start
# for that access.  Eligible: placed on the disk's prediction (exact, the
# disk serving in arrival order) and arrived at the disk no later than the
# moment it was predicted to be free; exact: it ended when predicted, to
# the nanosecond.
sr_place() {
	local sched=$1 phys=32256 f=$WORK/sr-place.trace
	disk_create ssat-d0 /dev/ram0 $phys $DISK96 || return 1
	vol_create ssat-v $((phys / 2)) srarray 8 "/dev/mapper/ssat-d0 0" \
		8 replicas 2 track_sectors 96 queue_depth 2 sched "$sched" || return 1
	ssadisk_trace_start "dev == $(dev_t_of ssat-d0)"
	echo "dev == $(dev_t_of ssat-v)" > $TR/events/ssastripe/ssastripe_place/filter
	echo 1 > $TR/events/ssastripe/ssastripe_place/enable
	(cd /tmp && DEV=/dev/mapper/ssat-v NIOS=600 DEPTH=4 fio --section=closed \
		--output=/dev/null "$TOP/tests/fio/ssadisk.fio") || { fail "fio"; return 1; }
	echo 0 > $TR/events/ssastripe/ssastripe_place/enable
	echo 0 > $TR/events/ssastripe/ssastripe_place/filter
	ssadisk_trace_stop "$f"
	vol_remove ssat-v
	dmsetup remove ssat-d0
	awk '
	function val(k,   i) { for (i = 1; i <= NF; i++) if (index($i, k "=") == 1) return substr($i, length(k) + 2); return "" }
	/ssastripe_place:/ {
		placed++
		key = val("bsector") " " val("len")
		pend[key] = pend[key] " " ($0 ~ / predicted / && val("exact") == 1 ? val("free_ns") ":" val("end_ns") : "-")
	}
	/ssadisk_service_start:/ {
		for (i = 1; i < NF; i++) { if ($i == "sector") s = $(i + 1); if ($i == "len") l = $(i + 1)
			if ($i == "arrival") a = $(i + 1); if ($i == "end") e = $(i + 1) }
		key = s " " l
		if (!(key in pend) || pend[key] == "") next
		served++
		split(substr(pend[key], 2), q, " "); p = q[1]
		pend[key] = substr(pend[key], length(p) + 2)
		if (p == "-") next
		split(p, fe, ":")
		if (a + 0 > fe[1] + 0) next
		eligible++
		if (e == fe[2]) exact++
	}
	END { printf "%d %d %d %d\n", exact, eligible, placed, served }' "$f"
}

# The disk's prediction is what the disk then does: a read placed on it
# while the disk was busy (so that it arrived before the disk was free)
# ends at the predicted nanosecond, under FIFO and under RSATF (where the
# scheduler's own prediction places it).  600 random 4 KiB reads, four
# outstanding; the 2 % allowed is for two dispatches that reach the disk
# in the other order than they were placed.
srarray_predict_exact() {
	local rc=0 sched exact eligible placed served
	mkdir -p "$WORK"
	for sched in fifo rsatf; do
		read -r exact eligible placed served <<< "$(sr_place $sched)"
		[ -n "$served" ] || { fail "$sched run"; return 1; }
		info "$sched: $exact of $eligible eligible reads ended when predicted ($placed placed, $served served)"
		[ "$placed" -ge 600 ] || { fail "$sched: $placed placement events for 600 reads"; rc=1; }
		expect_eq "$sched: placed reads the disk served" "$served" "$placed" || rc=1
		[ "$eligible" -ge 300 ] ||
			{ fail "$sched: only $eligible reads reached a busy disk"; rc=1; }
		[ $((exact * 100)) -ge $((eligible * 98)) ] ||
			{ fail "$sched: $exact of $eligible ended when predicted"; rc=1; }
	done
	return $rc
}

# 2 x 2 x 2 (copies 2) over failable members, member 1 an error device:
# reads that meet it are retried on member 0 (a 1 MiB read spreads its
# pieces over both copies), and, after a reload, writes that meet it
# stand on member 0; the data read back is what was written, a verify
# passes degraded, failing member 0 (the last copy of its set) is refused,
# and the live copies are checked raw; then set 1 loses its last copy:
# its pieces fail, set 0's read, and the trace's forks count only the
# children issued (check_trace.py).
srarray_copies_fail() {
	local rc=0 members len=$((2 * 8192)) out
	mkdir -p "$WORK"
	members=$(lin_members 4 16384) || return 1
	wipe 8 /dev/ram0 /dev/ram1 /dev/ram2 /dev/ram3 || return 1
	vol_create ssat-v $len srarray 8 "$members" 6 replicas 2 track_sectors 64 copies 2 || return 1
	expect_eq "copies in status" "$(sr_tail ssat-v copies)" 2 || rc=1
	head -c $((len * 512)) /dev/urandom > "$WORK/sr-a"
	head -c $((len * 512)) /dev/urandom > "$WORK/sr-b"
	dd if="$WORK/sr-a" of=/dev/mapper/ssat-v bs=1M oflag=direct status=none || return 1
	dmsetup load ssat-m1 --table "0 16384 error" && dmsetup suspend ssat-m1 && dmsetup resume ssat-m1
	# reads first: each piece that went to member 1 fails there and is retried
	cmp "$WORK/sr-a" <(dd if=/dev/mapper/ssat-v bs=1M iflag=direct status=none) ||
		{ fail "data read with member 1 failing"; rc=1; }
	expect_eq "health after reads met member 1" "$(vstat ssat-v health)" ADAA || rc=1
	[ "$(mstat ssat-v 1 err)" -gt 0 ] || { fail "no error counted on member 1"; rc=1; }
	# a reload forgets the failure: now writes meet member 1 first
	dmsetup reload ssat-v --table "$(dmsetup table ssat-v)" && dmsetup resume ssat-v ||
		{ fail "reload"; return 1; }
	expect_eq "health after reload" "$(vstat ssat-v health)" AAAA || rc=1
	dd if="$WORK/sr-b" of=/dev/mapper/ssat-v bs=1M oflag=direct status=none ||
		{ fail "writes with member 1 failing"; rc=1; }
	expect_eq "health after writes met member 1" "$(vstat ssat-v health)" ADAA || rc=1
	cmp "$WORK/sr-b" <(dd if=/dev/mapper/ssat-v bs=1M iflag=direct status=none) ||
		{ fail "data written with member 1 failing"; rc=1; }
	run_fio verify.fio DEV=/dev/mapper/ssat-v SIZE=$((len * 512)) \
		BSSPLIT="512/10:4k/40:12k/20:64k/30" > "$WORK/fio2.out" 2>&1 ||
		{ fail "fio verify degraded"; tail -5 "$WORK/fio2.out"; rc=1; }
	dmsetup message ssat-v 0 fail 0 2>/dev/null && { fail "fail 0 (last copy of its set) accepted"; rc=1; }
	dmsetup message ssat-v 0 fail 3 || { fail "fail 3 refused with member 2 alive"; rc=1; }
	expect_eq "health after the fails" "$(vstat ssat-v health)" ADAD || rc=1
	out=$($CHECK_SR ssat-v --skip 1 --skip 3) || { fail "raw check of the live copies: $out"; rc=1; }
	info "$out"
	# set 1's last copy fails too: its chunks (4 KiB, every other one)
	# fail without a child, set 0's still read, and every traced fork
	# announces the children it issued
	dmsetup load ssat-m2 --table "0 16384 error" && dmsetup suspend ssat-m2 && dmsetup resume ssat-m2
	trace_start || return 1
	dd if=/dev/mapper/ssat-v of=/dev/null bs=4k count=1 iflag=direct status=none ||
		{ fail "set 0's first chunk unreadable"; rc=1; }
	dd if=/dev/mapper/ssat-v of=/dev/null bs=4k skip=1 count=1 iflag=direct status=none 2>/dev/null &&
		{ fail "set 1's chunk read with no live copy"; rc=1; }
	dd if=/dev/mapper/ssat-v of=/dev/null bs=64k count=4 iflag=direct status=none 2>/dev/null &&
		{ fail "reads across set 1 succeeded"; rc=1; }
	trace_stop "$WORK/trace.txt"
	expect_eq "health with set 1 lost" "$(vstat ssat-v health)" ADDD || rc=1
	python3 "$TOP/tests/kernel/check_trace.py" "$WORK/trace.txt" > "$WORK/check.out" ||
		{ cat "$WORK/check.out"; fail "trace of reads with no live copy"; rc=1; }
	[ "$(grep -c "ssastripe_fork:" "$WORK/trace.txt")" -ge 3 ] ||
		{ fail "fewer than the 3 reads' forks traced"; rc=1; }
	vol_remove ssat-v
	return $rc
}

# With one copy there is nothing to fail over to: fail is refused.
srarray_fail_refused() {
	local rc=0
	vol_create ssat-v 8192 srarray 8 "$(ram_members 2)" 2 track_sectors 64 || return 1
	dmsetup message ssat-v 0 fail 0 2>/dev/null && { fail "fail accepted without copies"; rc=1; }
	expect_eq "health" "$(vstat ssat-v health)" AA || rc=1
	vol_remove ssat-v
	return $rc
}

srarray_bad_tables() {
	local rc=0 r0=/dev/ram0 r1=/dev/ram1 T=ssastripe
	bad_table sr-no-track "0 8192 $T srarray 8 2 $r0 0 $r1 0 2 replicas 2" \
		"srarray needs track_sectors" || rc=1
	bad_table sr-replicas-0 "0 8192 $T srarray 8 2 $r0 0 $r1 0 4 replicas 0 track_sectors 64" \
		"Invalid replicas" || rc=1
	bad_table sr-replicas-9 "0 8192 $T srarray 8 2 $r0 0 $r1 0 4 replicas 9 track_sectors 72" \
		"Invalid replicas" || rc=1
	bad_table sr-track-0 "0 8192 $T srarray 8 2 $r0 0 $r1 0 2 track_sectors 0" \
		"Invalid track_sectors" || rc=1
	bad_table sr-track-wrap "0 8192 $T srarray 8 2 $r0 0 $r1 0 2 track_sectors 4294967360" \
		"does not fit in 32 bits" || rc=1
	bad_table sr-track-odd "0 8192 $T srarray 8 2 $r0 0 $r1 0 4 replicas 3 track_sectors 64" \
		"track_sectors must be a multiple of replicas" || rc=1
	bad_table sr-chunk-arc "0 8192 $T srarray 16 2 $r0 0 $r1 0 4 replicas 3 track_sectors 72" \
		"The chunk must divide track_sectors / replicas" || rc=1
	bad_table sr-length "0 8336 $T srarray 8 2 $r0 0 $r1 0 4 replicas 2 track_sectors 128" \
		"Length not a multiple of members x track_sectors / replicas" || rc=1
	# 64 MiB ramdisks: 64 MiB of data a member needs 128 MiB with two replicas
	bad_table sr-too-small "0 262144 $T srarray 8 2 $r0 0 $r1 0 4 replicas 2 track_sectors 64" \
		"too small" || rc=1
	bad_table sr-opt-stripe "0 8192 $T stripe 8 2 $r0 0 $r1 0 2 replicas 2" \
		"Option only valid for the srarray layout" || rc=1
	bad_table sr-copies-3-of-2 "0 8192 $T srarray 8 2 $r0 0 $r1 0 4 track_sectors 64 copies 3" \
		"Number of members is not a multiple of copies" || rc=1
	bad_table sr-opt-policy "0 8192 $T srarray 8 2 $r0 0 $r1 0 4 track_sectors 64 read_policy split" \
		"Option only valid for the mirror layout" || rc=1
	bad_table sr-propagate-word "0 8192 $T srarray 8 2 $r0 0 $r1 0 4 track_sectors 64 propagate later" \
		"Invalid propagate: expected foreground or background" || rc=1
	bad_table sr-propagate-stripe "0 8192 $T stripe 8 2 $r0 0 $r1 0 2 propagate background" \
		"Option only valid for the srarray layout" || rc=1
	# the replicas' rotational placement counts tracks from the member's
	# start: an offset that is not whole tracks is refused, and whole
	# tracks (here 128 sectors) are taken
	bad_table sr-offset-track "0 8192 $T srarray 8 2 $r0 0 $r1 32 4 replicas 2 track_sectors 128" \
		"srarray member offsets must be a multiple of track_sectors" || rc=1
	bad_table sr-offset-arc "0 8192 $T srarray 8 2 $r0 64 $r1 0 4 replicas 2 track_sectors 128" \
		"srarray member offsets must be a multiple of track_sectors" || rc=1
	dmsetup create ssat-zv --table "0 8192 $T srarray 8 2 $r0 256 $r1 128 4 replicas 2 track_sectors 128" &&
		dmsetup remove ssat-zv || { fail "member offsets of whole tracks refused"; rc=1; }
	# 2 x 1 TiB zero members: 2^28 units of 8 sectors to track, over the
	# 2^27 the map takes; the same table in the foreground is fine.
	local z="0 2147483648 $T srarray 8 2 /dev/mapper/ssat-z0 0 /dev/mapper/ssat-z1 0"
	dmsetup create ssat-z0 --table "0 2147483648 zero" &&
		dmsetup create ssat-z1 --table "0 2147483648 zero" || { fail "zero members"; return 1; }
	bad_table sr-propagate-units "$z 6 replicas 2 track_sectors 1024 propagate background" \
		"Too many chunks for background propagation: use a larger chunk" || rc=1
	dmsetup create ssat-zv --table "$z 4 replicas 2 track_sectors 1024" &&
		dmsetup remove ssat-zv || { fail "the 1 TiB volume in the foreground"; rc=1; }
	# 512-sector chunks: 2^22 units (a 32 MiB map)
	dmsetup create ssat-zv --table "${z/srarray 8/srarray 512} 6 replicas 2 track_sectors 1024 propagate background" &&
		dmsetup remove ssat-zv || { fail "the 1 TiB volume with 512-sector chunks"; rc=1; }
	dmsetup remove ssat-z0 && dmsetup remove ssat-z1
	return $rc
}

# Removal and suspend while reads wait in the member dispatchers to be
# placed (queue_depth 1 over ssadisk members, RSATF: each waiting read
# carries its replicas and is placed only when dispatched): a remove of
# the open volume is refused, --force swaps in an error table, the volume
# goes once fio closes it and the members are free; suspends in the middle
# of verified writes and reads lose nothing.
srarray_remove_in_flight() {
	local rc=0 i m="" len=32256 fio_pid
	for i in 0 1; do
		disk_create ssat-d$i /dev/ram$i 32256 $DISK96 time_scale 0.1 || return 1
		m+="/dev/mapper/ssat-d$i 0 "
	done
	vol_create ssat-v $len srarray 8 "${m% }" 8 replicas 2 track_sectors 96 \
		queue_depth 1 sched rsatf || return 1
	mkdir -p "$WORK"
	(cd "$WORK" && fio --name=sus --filename=/dev/mapper/ssat-v --direct=1 --ioengine=libaio \
		--rw=randrw --bssplit=4k/60:24k/40 --iodepth=32 --size=$((len * 512)) \
		--verify=crc32c --verify_fatal=1 --verify_state_save=0 --output="$WORK/fio.out" >/dev/null 2>&1) &
	fio_pid=$!
	for i in 1 2 3; do
		wait_io ssat-v || { rc=1; break; }
		suspend_drained ssat-v 2 $i || rc=1
	done
	wait $fio_pid || { fail "fio verify failed across suspends"; cat "$WORK/fio.out"; rc=1; }
	(cd "$WORK" && exec fio --name=busy --filename=/dev/mapper/ssat-v --direct=1 --ioengine=libaio \
		--rw=randread --bs=4k --iodepth=32 --time_based --runtime=600 \
		--continue_on_error=all >/dev/null 2>&1) &
	fio_pid=$!
	wait_io ssat-v || { kill -INT $fio_pid; wait $fio_pid; return 1; }
	force_remove_open ssat-v $fio_pid || rc=1
	for i in 0 1; do
		[ -z "$(ls "/sys/block/$(dm_sysname ssat-d$i)/holders")" ] ||
			{ fail "ssat-d$i still held"; rc=1; }
		dmsetup remove ssat-d$i
	done
	return $rc
}

register srarray_verify_2x2 srarray_verify 2 2 64 8
register srarray_verify_3x3_queued srarray_verify 3 3 96 8 queue_depth 2 merge on
register srarray_verify_1x4_chunk16 srarray_verify 1 4 128 16 queue_depth 1
register srarray_verify_2x1 srarray_verify 2 1 64 8
register srarray_verify_2x2x2 srarray_verify 4 2 64 8 copies 2
register srarray_verify_1x3x2_queued srarray_verify 2 3 96 8 copies 2 queue_depth 2 sched rsatf
register srarray_bg_verify_2x2 srarray_verify 2 2 64 8 propagate background
register srarray_bg_verify_1x4_queued srarray_verify 1 4 128 16 queue_depth 1 merge on propagate background
register srarray_bg_verify_1x3x2_rsatf srarray_verify 2 3 96 8 copies 2 queue_depth 2 sched rsatf propagate background
register srarray_bg_flush srarray_bg_flush
register srarray_bg_copy_fails srarray_bg_copy_fails
register srarray_copies_fail srarray_copies_fail
register srarray_fail_refused srarray_fail_refused
register srarray_raw_check srarray_raw_check
register_clocked srarray_rotation srarray_rotation
register srarray_predict_exact srarray_predict_exact
register srarray_bad_tables srarray_bad_tables
register srarray_remove_in_flight srarray_remove_in_flight
