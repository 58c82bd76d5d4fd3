# SPDX-License-Identifier: GPL-2.0-only
# Flush, discard and write-zeroes, over loop devices on sparse files (which
# have a write cache and support both) with a data offset on each member.

ops_setup() {	# 4 loop members of 16 MiB, volume of 4 x 12 MiB, chunk 64 KiB
	loop_members 4 16 || return 1
	local members="" l
	for l in "${LOOPS[@]}"; do members+="$l 2048 "; done
	vol_create ssat-o $((4 * 12 * 2048)) stripe 128 "$members" || return 1
	mkdir -p "$WORK"
	head -c $((48 << 20)) /dev/urandom > "$WORK/data"
	dd if="$WORK/data" of=/dev/mapper/ssat-o bs=1M oflag=direct status=none
}

dmq() { cat "/sys/block/$(dm_sysname ssat-o)/queue/$1"; }

flush_all_members() {
	ops_setup || return 1
	[ "$(dmq write_cache)" = "write back" ] || { skip "members have no write cache"; return; }
	local -a a b
	read -ra a <<< "$(mstat_all ssat-o co)"
	# fsync of the block device sends one empty REQ_PREFLUSH
	dd if=/dev/zero of=/dev/mapper/ssat-o bs=4k count=1 oflag=direct conv=fsync,notrunc status=none
	read -ra b <<< "$(mstat_all ssat-o co)"
	local m rc=0
	for m in 0 1 2 3; do
		[ $((b[m] - a[m])) -ge 1 ] || { fail "member $m got no flush"; rc=1; }
	done
	# every member saw the same number of flushes
	[ $((b[0] - a[0])) = $((b[3] - a[3])) ] || { fail "unequal flush counts"; rc=1; }
	return $rc
}

# region_check OFF LEN [TOTAL_BYTES]: [OFF, OFF+LEN) of ssat-o reads as
# zeros, the rest as written ($WORK/data)
region_check() {
	local off=$1 len=$2 rc=0 total=${3:-$((48 << 20))}
	cmp -n "$off" "$WORK/data" <(dd if=/dev/mapper/ssat-o bs=1M iflag=direct status=none) ||
		{ fail "data before the range changed"; rc=1; }
	cmp -n "$len" /dev/zero <(dd if=/dev/mapper/ssat-o bs=4096 skip=$((off / 4096)) \
		count=$((len / 4096)) iflag=direct status=none) || { fail "range is not zero"; rc=1; }
	cmp <(tail -c $((total - off - len)) "$WORK/data") \
		<(dd if=/dev/mapper/ssat-o bs=4096 skip=$(((off + len) / 4096)) iflag=direct status=none) ||
		{ fail "data after the range changed"; rc=1; }
	return $rc
}

discard_range() {
	ops_setup || return 1
	[ "$(dmq discard_max_bytes)" -gt 0 ] || { skip "no discard support on members"; return; }
	local off=$(((64 + 4) << 10)) len=$((3 * (256 << 10) + (8 << 10)))
	local -a before after
	local m d="" rc=0
	read -ra before <<< "$(mstat_all ssat-o co)"
	blkdiscard -o "$off" -l "$len" /dev/mapper/ssat-o || return 1
	read -ra after <<< "$(mstat_all ssat-o co)"
	for m in 0 1 2 3; do d+="$((after[m] - before[m])) "; done
	expect_eq "discard children per member" "${d% }" "1 1 1 1" || rc=1
	region_check "$off" "$len" || rc=1
	return $rc
}

write_zeroes_range() {
	ops_setup || return 1
	local off=$(((128 + 12) << 10)) len=$((5 * (256 << 10) + (20 << 10))) rc=0
	local before after
	before=$(mstat_all ssat-o co)
	blkdiscard -z -o "$off" -l "$len" /dev/mapper/ssat-o || return 1
	after=$(mstat_all ssat-o co)
	if [ "$(dmq write_zeroes_max_bytes)" -gt 0 ]; then
		[ "$before" != "$after" ] || { fail "no write-zeroes children counted"; rc=1; }
	fi
	region_check "$off" "$len" || rc=1
	return $rc
}

register flush_all_members flush_all_members
register discard_range discard_range
register write_zeroes_range write_zeroes_range

# Discard, write-zeroes and the I/O hints of the redundant layouts, over
# the same loop members (4 x 12 MiB from sector 2048, 64 KiB chunks):
# mirror (two sets of two copies) passes discards and write-zeroes to
# every copy, and the copies stay identical; raid5 and pstripe offer no
# discard (they would have to keep parity over it) and take write-zeroes
# as written zeros (the block layer's fallback), with their parity
# consistent after it.  minimum_io_size is the chunk; optimal_io_size
# the data of a stripe: 2 chunks (mirror: sets), 3 (raid5: members less
# parity), 1 (pstripe: a member's data area is contiguous).
# each_copy_alike WHAT "BEFORE..." "AFTER...": on ssat-o (two sets of two
# copies) every copy gained children between the two mstat_all co
# snapshots, as many as its set's other copy did
each_copy_alike() {
	local what=$1 m d=()
	local -a before=($2) after=($3)
	for m in 0 1 2 3; do d+=($((after[m] - before[m]))); done
	info "$what children per member: ${d[*]}"
	[ "${d[0]}" -ge 1 ] && [ "${d[2]}" -ge 1 ] &&
		[ "${d[0]}" = "${d[1]}" ] && [ "${d[2]}" = "${d[3]}" ] ||
		fail "$what children per member: ${d[*]}"
}

ops_layout() {	# ops_layout mirror|raid5|pstripe
	local layout=$1 rc=0 members="" l sets total opt before after
	loop_members 4 16 || return 1
	for l in "${LOOPS[@]}"; do members+="$l 2048 "; done
	case $layout in
	mirror) sets=2 opt=$((2 << 16)) ;;
	raid5) sets=3 opt=$((3 << 16)) ;;
	pstripe) sets=3 opt=$((1 << 16)) ;;
	esac
	total=$((sets * (12 << 20)))
	vol_create ssat-o $((total / 512)) "$layout" 128 "${members% }" || return 1
	[ "$layout" = mirror ] || wait_synced ssat-o || return 1
	mkdir -p "$WORK"
	head -c "$total" /dev/urandom > "$WORK/data"
	dd if="$WORK/data" of=/dev/mapper/ssat-o bs=1M oflag=direct status=none || return 1

	expect_eq "minimum_io_size" "$(dmq minimum_io_size)" 65536 || rc=1
	expect_eq "optimal_io_size" "$(dmq optimal_io_size)" $opt || rc=1

	# a discard over chunk and stripe boundaries
	local off=$(((64 + 4) << 10)) len=$((3 * (256 << 10) + (8 << 10)))
	if [ "$layout" = mirror ]; then
		[ "$(dmq discard_max_bytes)" -gt 0 ] || { fail "mirror over loop members offers no discard"; rc=1; }
		before=$(mstat_all ssat-o co)
		blkdiscard -o "$off" -l "$len" /dev/mapper/ssat-o || { fail "discard refused"; rc=1; }
		after=$(mstat_all ssat-o co)
		each_copy_alike discard "$before" "$after" || rc=1
		region_check "$off" "$len" "$total" || rc=1
		copies_identical ssat-o || rc=1
	else
		expect_eq "discard_max_bytes" "$(dmq discard_max_bytes)" 0 || rc=1
		blkdiscard -o "$off" -l "$len" /dev/mapper/ssat-o 2>/dev/null &&
			{ fail "$layout accepted a discard"; rc=1; }
		cmp -s "$WORK/data" <(dd if=/dev/mapper/ssat-o bs=1M iflag=direct status=none) ||
			{ fail "a refused discard changed the data"; rc=1; }
	fi

	# write-zeroes over another range; afterwards the copies or parity agree
	off=$(((1024 + 12) << 10)) len=$((5 * (256 << 10) + (20 << 10)))
	# (the first range reads as zeros from here on, in the reference too)
	[ "$layout" = mirror ] && dd if=/dev/zero of="$WORK/data" bs=4096 seek=$(((64 + 4) >> 2)) \
		count=$(((3 * 256 + 8) >> 2)) conv=notrunc status=none
	before=$(mstat_all ssat-o co)
	blkdiscard -z -o "$off" -l "$len" /dev/mapper/ssat-o || { fail "write-zeroes failed"; rc=1; }
	after=$(mstat_all ssat-o co)
	region_check "$off" "$len" "$total" || rc=1
	if [ "$layout" = mirror ]; then
		# the mirror offers write-zeroes (its loop members do): every copy
		# takes the request, each as its set's other copy does (whether the
		# member then zeroes in place or the block layer falls back to
		# writing zeros, which a tmpfs-backed loop device makes it do)
		[ "$(dmq write_zeroes_max_bytes)" -gt 0 ] || { fail "mirror over loop members offers no write-zeroes"; rc=1; }
		each_copy_alike write-zeroes "$before" "$after" || rc=1
		copies_identical ssat-o || rc=1
	else
		local bad
		bad=$(scrub ssat-o check) || { fail "check did not end: $bad"; rc=1; }
		expect_eq "parity mismatches after write-zeroes" "$bad" 0 || rc=1
		parity_ok ssat-o || rc=1
	fi
	vol_remove ssat-o
	return $rc
}
register ops_mirror ops_layout mirror
register ops_raid5 ops_layout raid5
register ops_pstripe ops_layout pstripe

# FUA writes: every child carries REQ_FUA to its member (seen at the block
# layer's block_bio_queue event, with ftrace: the flags are its rwbs field).
fua_children() {
	loop_members 2 16 || return 1
	local a=${LOOPS[0]} b=${LOOPS[1]} da db rc=0 ev
	vol_create ssat-f 16384 stripe 8 "$a 0 $b 0" || return 1
	da=$(( (0x$(stat -c %t "$a") << 20) | 0x$(stat -c %T "$a") ))
	db=$(( (0x$(stat -c %t "$b") << 20) | 0x$(stat -c %T "$b") ))
	trace_start || return 1
	echo 0 > $TR/tracing_on
	echo 0 > $TR/events/ssastripe/enable
	ev=$TR/events/block/block_bio_queue
	echo "dev == $da || dev == $db" > $ev/filter || { fail "block_bio_queue filter refused"; return 1; }
	echo 1 > $ev/enable
	echo 1 > $TR/tracing_on
	# three 8 KiB O_DSYNC writes, each spanning both members (4 KiB chunks)
	timeout 120 dd if=/dev/zero of=/dev/mapper/ssat-f bs=8k count=3 oflag=direct,dsync status=none ||
		{ fail "dd failed or hung"; diag_tasks; rc=1; }
	echo 0 > $ev/enable
	echo 0 > $ev/filter
	trace_stop "$WORK/fua.trace"
	grep block_bio_queue "$WORK/fua.trace" | sed 's/^/# /'
	# "block_bio_queue: 7,0 WFS 2048 + 8 [dd]": count the writes with FUA
	local fa fb ma=$(( da >> 20 )),$(( da & 0xfffff )) mb=$(( db >> 20 )),$(( db & 0xfffff ))
	fa=$(awk -v d="$ma" '$0 ~ /block_bio_queue:/ { for (i = 1; i < NF; i++) if ($i == "block_bio_queue:" && $(i + 1) == d && $(i + 2) ~ /^W.*F/) n++ } END { print n + 0 }' "$WORK/fua.trace")
	fb=$(awk -v d="$mb" '$0 ~ /block_bio_queue:/ { for (i = 1; i < NF; i++) if ($i == "block_bio_queue:" && $(i + 1) == d && $(i + 2) ~ /^W.*F/) n++ } END { print n + 0 }' "$WORK/fua.trace")
	expect_eq "FUA writes on member 0" "$fa" 3 || rc=1
	expect_eq "FUA writes on member 1" "$fb" 3 || rc=1
	return $rc
}
register fua_children fua_children
