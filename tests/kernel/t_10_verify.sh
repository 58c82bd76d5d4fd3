# SPDX-License-Identifier: GPL-2.0-only
# Data integrity: fio verify=crc32c over widths x chunk sizes, with request
# sizes below, equal to and spanning several chunks and full stripes, not
# aligned to the chunk, sequential and random, QD 1/8/32, mixed read/write.

# verify_matrix MEMBERS CHUNK_SECTORS
verify_matrix() {
	local n=$1 c=$2
	local cb=$((c * 512)) sb=$((c * 512 * n))
	local region=$((16 << 20))
	[ "$FULL" = 1 ] && region=$((48 << 20))
	local size=$(((region / sb) * sb))
	[ "$size" -lt "$sb" ] && size=$sb
	local small=$(((cb / 2) / 512 * 512))
	[ "$small" -lt 512 ] && small=512
	local span=$((cb + 1536))
	local big=$((2 * sb + cb / 2))
	[ "$big" -gt $((2 << 20)) ] && big=$(((2 << 20) - 512))
	local mib=$((1 << 20))
	[ "$mib" -gt "$size" ] && mib=$size
	local bssplit="512/10:$small/15:$cb/15:$span/20:$big/20:$mib/20"

	vol_create ssat-v $((size / 512)) stripe "$c" "$(ram_members "$n")" || return 1
	info "members=$n chunk=${cb}B size=$size bssplit=$bssplit"
	run_fio verify.fio DEV=/dev/mapper/ssat-v SIZE="$size" BSSPLIT="$bssplit" ||
		fail "fio verify reported an error"
	local rc=$?
	# a healthy run leaves every member healthy and error-free
	expect_eq health "$(vstat ssat-v health)" "$(printf 'A%.0s' $(seq "$n"))" || rc=1
	vol_remove ssat-v
	return $rc
}

# make check: five (width, chunk) pairs in which every width of 1, 2, 3,
# 4, 8 and every chunk of 512 B, 4 KiB, 64 KiB, 96 KiB, 1 MiB appears once;
# make check-full (SSA_FULL=1): every width from 1 to 8 against every chunk,
# 12 KiB and 2 MiB too.
if [ "$FULL" = 1 ]; then
	for _n in 1 2 3 4 5 6 7 8; do
		for _c in 1 8 24 128 192 2048 4096; do
			register "verify_m${_n}_c$((_c * 512))b" verify_matrix "$_n" "$_c"
		done
	done
else
	for _p in 1:2048 2:1 3:8 4:192 8:128; do
		_n=${_p%:*} _c=${_p#*:}
		register "verify_m${_n}_c$((_c * 512))b" verify_matrix "$_n" "$_c"
	done
fi
unset _n _c _p
