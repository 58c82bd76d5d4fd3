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

# region_check OFF LEN: [OFF, OFF+LEN) reads as zeros, the rest as written
region_check() {
	local off=$1 len=$2 rc=0 total=$((48 << 20))
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

# FUA writes: every child carries REQ_FUA to its member (seen at the block
# layer's block_bio_queue tracepoint, with bpftrace).
fua_children() {
	command -v bpftrace >/dev/null || { skip "bpftrace not installed"; return; }
	loop_members 2 16 || return 1
	local a=${LOOPS[0]} b=${LOOPS[1]} da db rc=0 i
	vol_create ssat-f 16384 stripe 8 "$a 0 $b 0" || return 1
	da=$(( (0x$(stat -c %t "$a") << 20) | 0x$(stat -c %T "$a") ))
	db=$(( (0x$(stat -c %t "$b") << 20) | 0x$(stat -c %T "$b") ))
	bt_start "$WORK/bt.out" '^ready' -e "BEGIN { printf(\"ready\\n\"); }
		tracepoint:block:block_bio_queue /args->dev == $da || args->dev == $db/
		{ @[args->dev, args->rwbs] = count(); }" || return 1
	# three 8 KiB O_DSYNC writes, each spanning both members (4 KiB chunks)
	timeout 120 dd if=/dev/zero of=/dev/mapper/ssat-f bs=8k count=3 oflag=direct,dsync status=none ||
		{ fail "dd failed or hung"; diag_tasks; rc=1; }
	sleep 0.5
	bt_stop || rc=1
	cat "$WORK/bt.out"
	local fa fb
	fa=$(awk -v d="$da" -F'[][,: ]+' '$2 == d && $3 ~ /^W.*F/ {n += $NF} END {print n + 0}' "$WORK/bt.out")
	fb=$(awk -v d="$db" -F'[][,: ]+' '$2 == d && $3 ~ /^W.*F/ {n += $NF} END {print n + 0}' "$WORK/bt.out")
	expect_eq "FUA writes on member 0" "$fa" 3 || rc=1
	expect_eq "FUA writes on member 1" "$fb" 3 || rc=1
	return $rc
}
register fua_children fua_children
