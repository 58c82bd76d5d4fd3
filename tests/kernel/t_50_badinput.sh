# SPDX-License-Identifier: GPL-2.0-only
# Malformed tables: each fails "dmsetup create" with a clear message, leaves
# no device behind and holds no member.

# bad_table NAME 'TABLE' 'EXPECTED MESSAGE'
bad_table() {
	local name=$1 table=$2 want=$3 rc=0 log d
	klog_mark
	if dmsetup create ssat-bad --table "$table" >/dev/null 2>&1; then
		dmsetup remove ssat-bad
		fail "$name: table was accepted: $table"
		return 1
	fi
	log=$(klog_since)
	grep -qF -- "$want" <<< "$log" || { fail "$name: kernel log lacks '$want'"; echo "$log" | tail -3; rc=1; }
	dmsetup info ssat-bad >/dev/null 2>&1 && { fail "$name: device left behind"; dmsetup remove ssat-bad; rc=1; }
	# (BAD_TABLE_HELD: the test holds those devices itself, through
	# volumes of its own)
	[ -n "${BAD_TABLE_HELD:-}" ] && return $rc
	# a glob, not ls: a process per device costs ~0.15 s under TCG
	for d in /sys/block/ram*/holders/* /sys/block/loop*/holders/*; do
		[ -e "$d" ] && { fail "$name: ${d%/holders/*} still held by ${d##*/}"; rc=1; }
	done
	return $rc
}

bad_tables() {
	local rc=0 r0=/dev/ram0 r1=/dev/ram1
	local T="ssastripe"
	bad_table no-args "0 1024 $T" "Not enough arguments" || rc=1
	bad_table few-args "0 1024 $T stripe 8" "Not enough arguments" || rc=1
	bad_table layout "0 1024 $T raid9 8 1 $r0 0" "Unknown layout" || rc=1
	bad_table chunk-0 "0 1024 $T stripe 0 1 $r0 0" "Invalid chunk size" || rc=1
	bad_table chunk-text "0 1024 $T stripe 8k 1 $r0 0" "Invalid chunk size" || rc=1
	bad_table chunk-neg "0 1024 $T stripe -8 1 $r0 0" "Invalid chunk size" || rc=1
	bad_table chunk-huge "0 4194304 $T stripe 4194304 1 $r0 0" "Chunk size too large" || rc=1
	bad_table members-0 "0 1024 $T stripe 8 0 $r0 0" "Invalid number of members" || rc=1
	bad_table members-65 "0 1024 $T stripe 8 65 $r0 0" "Invalid number of members" || rc=1
	bad_table members-text "0 1024 $T stripe 8 two $r0 0" "Invalid number of members" || rc=1
	bad_table missing-member "0 1024 $T stripe 8 2 $r0 0" "Not enough member arguments" || rc=1
	bad_table missing-offset "0 1024 $T stripe 8 2 $r0 0 $r1" "Not enough member arguments" || rc=1
	bad_table length "0 1032 $T stripe 8 2 $r0 0 $r1 0" "not a multiple of the stripe size" || rc=1
	bad_table no-device "0 1024 $T stripe 8 2 $r0 0 /dev/ssat-nonexistent 0" "Member device lookup failed" || rc=1
	bad_table too-small "0 $((3 * 131072)) $T stripe 8 2 $r0 0 $r1 0" "Member device too small" || rc=1
	bad_table offset-end "0 1024 $T stripe 8 2 $r0 0 $r1 131072" "Member offset is past the end" || rc=1
	bad_table offset-fit "0 1024 $T stripe 8 2 $r0 0 $r1 130816" "Member device too small" || rc=1
	bad_table offset-text "0 1024 $T stripe 8 2 $r0 0 $r1 1k" "Invalid member offset" || rc=1
	bad_table overlap "0 1024 $T stripe 8 2 $r0 0 $r0 256" "Member areas overlap" || rc=1
	bad_table opt-unknown "0 1024 $T stripe 8 2 $r0 0 $r1 0 2 foo 1" "Unknown optional argument" || rc=1
	bad_table opt-dup "0 1024 $T stripe 8 2 $r0 0 $r1 0 4 coalesce 1 coalesce 0" "Duplicate optional argument" || rc=1
	bad_table opt-novalue "0 1024 $T stripe 8 2 $r0 0 $r1 0 1 coalesce" "Optional argument without a value" || rc=1
	bad_table opt-value "0 1024 $T stripe 8 2 $r0 0 $r1 0 2 coalesce 7" "Invalid coalesce value" || rc=1
	bad_table opt-merge "0 1024 $T stripe 8 2 $r0 0 $r1 0 2 merge 1" "Invalid merge" || rc=1
	bad_table opt-count "0 1024 $T stripe 8 2 $r0 0 $r1 0 4 coalesce 1" "Invalid number of optional arguments" || rc=1
	bad_table opt-count-text "0 1024 $T stripe 8 2 $r0 0 $r1 0 junk" "Invalid number of optional arguments" || rc=1
	# at most 2 x (14 options + 64 rebuild members) = 156 words
	bad_table opt-count-big "0 1024 $T stripe 8 2 $r0 0 $r1 0 300 $(seq -s ' ' 300)" "Invalid number of optional arguments" || rc=1
	bad_table trailing "0 1024 $T stripe 8 2 $r0 0 $r1 0 2 coalesce 1 extra" "Too many arguments" || rc=1
	bad_numbers || rc=1
	return $rc
}

# Numbers that wrap, carry a sign or trail characters.  DM core's
# dm_read_arg() would take 4294967297 members (2^32 + 1) as 1 and an
# offset of 2^64 + 8 as 8: valid tables, of other numbers.  Each is refused
# and one that does not fit says so.
bad_numbers() {
	local rc=0 r0=/dev/ram0 r1=/dev/ram1 T=ssastripe
	local two32=4294967296 two64_8=18446744073709551624	# 2^32; 2^64 + 8
	bad_table members-wrap "0 1024 $T stripe 8 $((two32 + 1)) $r0 0" "Member count too large" || rc=1
	bad_table members-wrap-2 "0 1024 $T stripe 8 $((two32 + 2)) $r0 0 $r1 0" "Member count too large" || rc=1
	bad_table members-plus "0 1024 $T stripe 8 +1 $r0 0" "Invalid number of members" || rc=1
	bad_table members-neg "0 1024 $T stripe 8 -1 $r0 0" "Invalid number of members" || rc=1
	bad_table members-trail "0 1024 $T stripe 8 1x $r0 0" "Invalid number of members" || rc=1
	bad_table chunk-wrap "0 1024 $T stripe $((two32 + 8)) 1 $r0 0" "Chunk size too large" || rc=1
	bad_table chunk-plus "0 1024 $T stripe +8 1 $r0 0" "Invalid chunk size" || rc=1
	bad_table offset-wrap "0 1024 $T stripe 8 2 $r0 0 $r1 $two64_8" "Member offset too large" || rc=1
	bad_table offset-plus "0 1024 $T stripe 8 2 $r0 0 $r1 +8" "Invalid member offset" || rc=1
	bad_table offset-neg "0 1024 $T stripe 8 2 $r0 0 $r1 -8" "Invalid member offset" || rc=1
	bad_table offset-hex "0 1024 $T stripe 8 2 $r0 0 $r1 0x8" "Invalid member offset" || rc=1
	bad_table opt-count-wrap "0 1024 $T stripe 8 2 $r0 0 $r1 0 $((two32 + 2)) coalesce 1" \
		"Optional argument count too large" || rc=1
	bad_table opt-count-plus "0 1024 $T stripe 8 2 $r0 0 $r1 0 +2 coalesce 1" \
		"Invalid number of optional arguments" || rc=1
	bad_table opt-value-wrap "0 1024 $T stripe 8 2 $r0 0 $r1 0 2 queue_depth $((two32 + 1))" \
		"Optional argument value too large" || rc=1
	bad_table opt-value-plus "0 1024 $T stripe 8 2 $r0 0 $r1 0 2 queue_depth +1" "Invalid queue_depth" || rc=1
	bad_table opt-value-trail "0 1024 $T stripe 8 2 $r0 0 $r1 0 2 queue_depth 1x" "Invalid queue_depth" || rc=1
	return $rc
}

# Members with 4 KiB logical blocks refuse 512-byte granularity.
bad_block_size() {
	local rc=0
	loop_members 2 8 4096 || return 1
	local a=${LOOPS[0]} b=${LOOPS[1]}
	bad_table chunk-lbs "0 1024 ssastripe stripe 4 2 $a 0 $b 0" "Chunk size not a multiple of a member's logical block size" || rc=1
	bad_table offset-lbs "0 1024 ssastripe stripe 8 2 $a 0 $b 3" "Member offset not aligned" || rc=1
	# and accept a table that fits
	dmsetup create ssat-ok --table "0 1024 ssastripe stripe 8 2 $a 0 $b 8" || { fail "4 KiB-block table refused"; rc=1; }
	return $rc
}

# The limits themselves are accepted: odd chunk, 1 member, 64 members.
good_edges() {
	local rc=0 members="" i
	vol_create ssat-e1 $((3 * 7 * 100)) stripe 3 "$(ram_members 7)" || rc=1
	vol_create ssat-e2 1024 stripe 1 "/dev/ram0 4096" || rc=1
	for ((i = 0; i < 64; i++)); do members+="/dev/ram7 $((i * 512)) "; done
	vol_create ssat-e3 $((64 * 512)) stripe 512 "$members" || rc=1
	# the 64-member volume works
	mkdir -p "$WORK"
	dd if=/dev/urandom of="$WORK/r" bs=1M count=4 status=none
	dd if="$WORK/r" of=/dev/mapper/ssat-e3 bs=1M oflag=direct status=none
	cmp -n $((4 << 20)) "$WORK/r" <(dd if=/dev/mapper/ssat-e3 bs=1M count=4 iflag=direct status=none) ||
		{ fail "64-member volume read back differs"; rc=1; }
	return $rc
}

# 64 members with "rebuild": the member mask's check once shifted a 64-bit
# mask by 64 (undefined; x86 shifts by 0, so the table was refused as
# naming a member it did not have).  Each redundant layout takes rebuild
# of its first and its last member at that width, says so in its table,
# and the mirror rebuilds the copy; a member past the table is refused.
rebuild_64_members() {
	local rc=0 members="" i t lay len
	for ((i = 0; i < 64; i++)); do members+="/dev/ram7 $((i * 512)) "; done
	# mirror: 32 sets of 2 copies of 512 sectors; raid5 and pstripe: 64
	# rows of 63 data chunks of 8 sectors
	for t in "mirror $((32 * 512)) 63" "mirror $((32 * 512)) 0" \
		"raid5 $((63 * 512)) 63" "pstripe $((63 * 512)) 0"; do
		read -r lay len i <<< "$t"
		vol_create ssat-r64 "$len" "$lay" 8 "$members" 2 rebuild "$i" ||
			{ fail "$lay: 64 members with rebuild $i refused"; rc=1; continue; }
		[[ $(dmsetup table ssat-r64) == *" rebuild $i" ]] ||
			{ fail "$lay: table lacks rebuild $i: $(dmsetup table ssat-r64)"; rc=1; }
		if [ "$lay" = mirror ]; then
			wait_synced ssat-r64 || rc=1
			expect_eq "mirror health after the rebuild" \
				"$(vstat ssat-r64 health | tr -d A)" "" || rc=1
		fi
		vol_remove ssat-r64
	done
	# one member fewer: rebuild 63 names no member
	bad_table rebuild-past "0 $((62 * 512)) ssastripe raid5 8 63 ${members% /dev/ram7*} 2 rebuild 63" \
		"rebuild names a member the table does not have" || rc=1
	return $rc
}

register bad_tables bad_tables
register bad_block_size bad_block_size
register good_edges good_edges
register rebuild_64_members rebuild_64_members
