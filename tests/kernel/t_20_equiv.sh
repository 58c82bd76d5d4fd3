# SPDX-License-Identifier: GPL-2.0-only
# Layout equivalence: the same writes through "ssastripe stripe" and through
# the kernel's "striped" target leave the members byte-identical, and each
# target reads back what the other wrote.

# equiv_write DEV SIZE_BYTES CHUNK_BYTES STRIPE_BYTES: a fixed set of writes
equiv_write() {
	local dev=$1 size=$2 cb=$3 sb=$4
	# whole region in 7.5 KiB writes (cross every chunk boundary)
	dd if="$WORK/d1" of="$dev" bs=7680 count=$((size / 7680)) oflag=direct status=none || return 1
	# large writes, stripe multiples plus a half chunk, at odd offsets
	dd if="$WORK/d2" of="$dev" bs=$((2 * sb + cb / 2)) count=1 seek=1536 \
		oflag=direct,seek_bytes status=none || return 1
	dd if="$WORK/d2" of="$dev" bs=1M count=2 seek=$((size / 3 / 512 * 512)) \
		oflag=direct,seek_bytes status=none || return 1
	# single sectors here and there
	dd if="$WORK/d2" of="$dev" bs=512 count=1 seek=$((size / 512 - 1)) oflag=direct status=none
}

# equiv_one MEMBERS CHUNK_SECTORS
equiv_one() {
	local n=$1 c=$2 m
	local cb=$((c * 512)) sb=$((c * 512 * n))
	local size=$((((12 << 20) / sb) * sb))
	[ "$size" -lt $((3 * sb)) ] && size=$((3 * sb))
	local len=$((size / 512)) mlen=$((size / 512 / n))
	local members
	members=$(ram_members "$n" 8)

	mkdir -p "$WORK"
	head -c "$size" /dev/urandom > "$WORK/d1"
	head -c $((4 << 20)) /dev/urandom > "$WORK/d2"

	local -a ssa_sums striped_sums
	wipe $((mlen / 2048 + 1)) $(for ((m = 0; m < n; m++)); do echo /dev/ram$m; done) || return 1
	vol_create ssat-a "$len" stripe "$c" "$members" || return 1
	equiv_write /dev/mapper/ssat-a "$size" "$cb" "$sb" || fail "writes through ssastripe"
	local vol_a
	vol_a=$(sum_dev /dev/mapper/ssat-a "$len")
	vol_remove ssat-a
	for ((m = 0; m < n; m++)); do ssa_sums[m]=$(sum_dev /dev/ram$m $((mlen + 16))); done

	wipe $((mlen / 2048 + 1)) $(for ((m = 0; m < n; m++)); do echo /dev/ram$m; done) || return 1
	dmsetup create ssat-b --table "0 $len striped $n $c $members" || return 1
	equiv_write /dev/mapper/ssat-b "$size" "$cb" "$sb" || fail "writes through striped"
	local vol_b
	vol_b=$(sum_dev /dev/mapper/ssat-b "$len")
	dmsetup remove ssat-b
	for ((m = 0; m < n; m++)); do striped_sums[m]=$(sum_dev /dev/ram$m $((mlen + 16))); done

	local rc=0
	for ((m = 0; m < n; m++)); do
		expect_eq "member $m checksum" "${ssa_sums[m]}" "${striped_sums[m]}" || rc=1
	done
	expect_eq "volume checksum" "$vol_a" "$vol_b" || rc=1

	# ssastripe reads back what striped wrote
	vol_create ssat-a "$len" stripe "$c" "$members" || return 1
	expect_eq "ssastripe reading striped's data" "$(sum_dev /dev/mapper/ssat-a "$len")" "$vol_b" || rc=1
	return $rc
}

# make check: 512 B chunks over 3 members and 96 KiB over 4 (the smallest
# chunk and one that is not a power of two); make check-full: 512 B, 4 KiB,
# 64 KiB, 96 KiB and 1 MiB over 3 and over 4.
_pairs="3:1 4:192"
[ "$FULL" = 1 ] && _pairs="3:1 4:1 3:8 4:8 3:128 4:128 3:192 4:192 3:2048 4:2048"
for _p in $_pairs; do
	_n=${_p%:*} _c=${_p#*:}
	register "equiv_striped_m${_n}_c$((_c * 512))b" equiv_one "$_n" "$_c"
done
unset _n _c _p _pairs
