# SPDX-License-Identifier: GPL-2.0-only
# Fork/join accounting: how many children a request becomes (coalescing),
# the status format, the table round trip and the queue limits.

# delta NAME FIELD CMD... : run CMD, print the per-member change of FIELD
delta() {
	local name=$1 field=$2 m
	shift 2
	local -a a b
	read -ra a <<< "$(mstat_all "$name" "$field")"
	"$@" || return 1
	read -ra b <<< "$(mstat_all "$name" "$field")"
	local out=""
	for ((m = 0; m < ${#a[@]}; m++)); do out+="$((b[m] - a[m])) "; done
	echo "${out% }"
}

dwrite() {	# dwrite DEV BYTES OFFSET_BYTES
	dd if="$WORK/rand" of="$1" bs="$2" count=1 seek="$3" oflag=direct,seek_bytes status=none
}
dread() {
	dd if="$1" of=/dev/null bs="$2" count=1 skip="$3" iflag=direct,skip_bytes status=none
}

coalesce_counts() {
	local v=/dev/mapper/ssat-c rc=0 d
	mkdir -p "$WORK"
	head -c $((4 << 20)) /dev/urandom > "$WORK/rand"
	vol_create ssat-c 32768 stripe 128 "$(ram_members 4)" || return 1	# 64 KiB x 4

	d=$(delta ssat-c cw dwrite $v $((1 << 20)) $((1 << 20)))
	expect_eq "4 full stripes, write children per member" "$d" "1 1 1 1" || rc=1
	d=$(delta ssat-c sw dwrite $v $((1 << 20)) $((2 << 20)))
	expect_eq "4 full stripes, sectors per member" "$d" "512 512 512 512" || rc=1
	d=$(delta ssat-c cr dread $v $((1 << 20)) $((1 << 20)))
	expect_eq "4 full stripes, read children per member" "$d" "1 1 1 1" || rc=1
	# 3 stripes from the middle of a chunk: 13 chunks, still one child each
	d=$(delta ssat-c cw dwrite $v $((768 << 10)) $((32 << 10)))
	expect_eq "unaligned 3 stripes, children per member" "$d" "1 1 1 1" || rc=1
	# inside one chunk: the parent goes to one member
	d=$(delta ssat-c cw dwrite $v 4096 $(((64 << 10) + 8192)))
	expect_eq "4 KiB inside chunk 1" "$d" "0 1 0 0" || rc=1
	# across one chunk boundary: two children
	d=$(delta ssat-c cw dwrite $v 8192 $((3 * (64 << 10) - 4096)))
	expect_eq "8 KiB across chunks 2|3" "$d" "0 0 1 1" || rc=1
	# requests counted once each
	local r0 r1
	r0=$(vstat ssat-c req_w)
	dwrite $v $((1 << 20)) 0
	r1=$(vstat ssat-c req_w)
	expect_eq "logical write requests" "$((r1 - r0))" 1 || rc=1
	return $rc
}

coalesce_off() {
	local v=/dev/mapper/ssat-c rc=0 d
	mkdir -p "$WORK"
	head -c $((4 << 20)) /dev/urandom > "$WORK/rand"
	vol_create ssat-c 32768 stripe 128 "$(ram_members 4)" 2 coalesce 0 || return 1
	d=$(delta ssat-c cw dwrite $v $((1 << 20)) $((1 << 20)))
	expect_eq "coalesce 0: 4 stripes give one child per chunk" "$d" "4 4 4 4" || rc=1
	dwrite $v $((1 << 20)) $((1 << 20))
	cmp -n $((1 << 20)) "$WORK/rand" <(dd if=$v bs=1M count=1 skip=1 iflag=direct status=none) ||
		{ fail "coalesce 0: data read back differs"; rc=1; }
	return $rc
}

# A coalesced child takes the request's segments whole, each cut where its
# chunk piece ends.  Buffers in huge pages make each 1 MiB request one
# physically contiguous segment, so with 4.5 KiB chunks every piece starts
# inside it, past its first page and mid-page: the child's vectors must
# point at the right page and offset, or the verify fails.
coalesce_huge_segments() {
	local v=/dev/mapper/ssat-h rc=0 old d n=0 x
	old=$(cat /proc/sys/vm/nr_hugepages)
	echo 16 > /proc/sys/vm/nr_hugepages 2>/dev/null
	if [ "$(cat /proc/sys/vm/nr_hugepages)" -lt 8 ]; then
		echo "$old" > /proc/sys/vm/nr_hugepages
		skip "no huge pages to be had"
		return
	fi
	vol_create ssat-h $((3 * 9 * 2048)) stripe 9 "$(ram_members 3)" || rc=1
	if [ $rc = 0 ]; then
		mkdir -p "$WORK"
		d=$(delta ssat-h cw fio --name=h --filename=$v --direct=1 --ioengine=libaio \
			--iomem=shmhuge --rw=write --bs=1M --iodepth=2 --size=8M \
			--verify=crc32c --verify_fatal=1 --verify_state_save=0 \
			--output="$WORK/fio.out") || { fail "fio verify failed"; cat "$WORK/fio.out"; rc=1; }
		for x in $d; do n=$((n + x)); done
		# 1864 chunk pieces; coalesced (and cut at 256 vectors at worst), far fewer children
		[ "$n" -gt 0 ] && [ "$n" -le 186 ] ||
			{ fail "write children: got $n, want 1..186 (coalesced)"; rc=1; }
		vol_remove ssat-h
	fi
	echo "$old" > /proc/sys/vm/nr_hugepages
	return $rc
}

# 512-byte chunks over 2 members: a 1 MiB request would need 1024 bvecs per
# child, more than a bio holds; the target takes 256 KiB at a time.
coalesce_vec_limit() {
	local v=/dev/mapper/ssat-c rc=0 d r0 r1
	mkdir -p "$WORK"
	head -c $((4 << 20)) /dev/urandom > "$WORK/rand"
	vol_create ssat-c 32768 stripe 1 "$(ram_members 2)" || return 1
	r0=$(vstat ssat-c req_w)
	d=$(delta ssat-c cw dwrite $v $((1 << 20)) $((1 << 20)))
	r1=$(vstat ssat-c req_w)
	expect_eq "children per member" "$d" "4 4" || rc=1
	expect_eq "requests after the split" "$((r1 - r0))" 4 || rc=1
	cmp -n $((1 << 20)) "$WORK/rand" <(dd if=$v bs=1M count=1 skip=1 iflag=direct status=none) ||
		{ fail "data read back differs"; rc=1; }
	return $rc
}

status_format() {
	local rc=0 s n
	vol_create ssat-s 24576 stripe 8 "$(ram_members 3)" || return 1
	read -ra s <<< "$(dmsetup status ssat-s)"
	expect_eq "field count" "${#s[@]}" $((ST_MEMBER0 + 3 * ST_PER_MEMBER)) || rc=1
	expect_eq "layout" "${s[3]}" stripe || rc=1
	expect_eq "members" "${s[4]}" 3 || rc=1
	expect_eq "health" "${s[5]}" AAA || rc=1
	expect_eq "queue_depth" "${s[6]}" 0 || rc=1
	expect_eq "priority" "${s[7]}" on || rc=1
	expect_eq "member 1 device" "${s[$((ST_MEMBER0 + ST_PER_MEMBER))]}" \
		"$(lsblk -ndo MAJ:MIN /dev/ram1 | tr -d ' ')" || rc=1
	for n in "${s[@]:8}"; do
		[[ $n =~ ^[0-9]+$|^[0-9]+:[0-9]+$ ]] || { fail "non-numeric field '$n'"; rc=1; }
	done
	return $rc
}

table_roundtrip() {
	local rc=0 t1 t2 maj
	vol_create ssat-t 61440 stripe 192 "$(ram_members 4 16)" || return 1
	t1=$(dmsetup table ssat-t)
	maj=$(lsblk -ndo MAJ:MIN /dev/ram0 | tr -d ' ' | cut -d: -f1)
	expect_eq "table" "$t1" "0 61440 ssastripe stripe 192 4 $maj:0 16 $maj:1 16 $maj:2 16 $maj:3 16" || rc=1
	dmsetup remove ssat-t
	dmsetup create ssat-t --table "$t1" || return 1
	expect_eq "reloaded table" "$(dmsetup table ssat-t)" "$t1" || rc=1
	dmsetup remove ssat-t

	vol_create ssat-t 61440 stripe 192 "$(ram_members 4 16)" 2 COALESCE 0 || return 1
	t2=$(dmsetup table ssat-t)
	expect_eq "table with options" "$t2" "$t1 2 coalesce 0" || rc=1
	dmsetup remove ssat-t
	dmsetup create ssat-t --table "$t2" || return 1
	expect_eq "reloaded table with options" "$(dmsetup table ssat-t)" "$t2" || rc=1
	return $rc
}

queue_limits() {
	local rc=0 dm
	vol_create ssat-q 61440 stripe 192 "$(ram_members 4)" || return 1
	dm=$(dm_sysname ssat-q)
	expect_eq "minimum_io_size" "$(cat /sys/block/$dm/queue/minimum_io_size)" $((192 * 512)) || rc=1
	expect_eq "optimal_io_size" "$(cat /sys/block/$dm/queue/optimal_io_size)" $((192 * 512 * 4)) || rc=1
	return $rc
}

register coalesce_counts coalesce_counts
register coalesce_off coalesce_off
register coalesce_vec_limit coalesce_vec_limit
register coalesce_huge_segments coalesce_huge_segments
register status_format status_format
register table_roundtrip table_roundtrip
register queue_limits queue_limits
