# SPDX-License-Identifier: GPL-2.0-only
# The ssacache target (seed 001's array cache): data verified through the
# cache (fio crc32c) and, once it is drained, on the origin itself; the
# water marks and the dirty maximum to the block; flush and FUA honoured
# (a crash loses exactly what was never flushed); suspend, reload and
# removal lose nothing; discard and write-zeroes; sequential prefetch; a
# failing origin; bad tables; and, on the instruction clock, the emulated
# transfer rate.

# Status (INFO): 0 LEN ssacache <dirty> <clean> <free> <destage_runs>
# <read_hits> <read_misses> <write_hits> <write_through> <destaged>
# <prefetched> <prefetch_hits> <throttled> <lost> <errors> <mode>
cstat() {
	local -a s
	local i
	read -ra s <<< "$(dmsetup status "$1")"
	case $2 in
	dirty) i=3 ;; clean) i=4 ;; free) i=5 ;; runs) i=6 ;;
	read_hits) i=7 ;; read_misses) i=8 ;; write_hits) i=9 ;;
	write_through) i=10 ;; destaged) i=11 ;; prefetched) i=12 ;;
	prefetch_hits) i=13 ;; throttled) i=14 ;; lost) i=15 ;;
	errors) i=16 ;; mode) i=17 ;;
	esac
	echo "${s[i]}"
}

# cache_quiet NAME: wait (bounded) until no destage is in flight
cache_quiet() {
	local i
	for ((i = 0; i < 200; i++)); do
		[ "$(cstat "$1" runs)" = 0 ] && return 0
		sleep 0.1
	done
	fail "$1: destages still in flight after 20 s"
}

cache_create() {	# cache_create NAME ORIGIN LEN BLOCK COUNT [#ARGS ARGS...]
	local name=$1 origin=$2 len=$3
	shift 3
	dmsetup create "$name" --table "0 $len ssacache $origin $*" ||
		{ echo "# table: 0 $len ssacache $origin $*"; return 1; }
}

# cache_data BLOCKS: BLOCKS x 4 KiB of random data in $WORK/cache-data
cache_data() {
	mkdir -p "$WORK"
	head -c $(($1 * 4096)) /dev/urandom > "$WORK/cache-data"
}

# drained_equal NAME ORIGIN SECTORS: suspend (the cache destages
# everything), then the volume and the origin read the same
drained_equal() {
	local rc=0 a b
	dmsetup suspend "$1" && dmsetup resume "$1" || { fail "suspend/resume"; return 1; }
	expect_eq "dirty after suspend" "$(cstat "$1" dirty)" 0 || rc=1
	a=$(sum_dev "/dev/mapper/$1" "$3") b=$(sum_dev "$2" "$3")
	expect_eq "volume and origin after the drain" "$a" "$b" || rc=1
	return $rc
}

# cache_verify ORIGIN_KIND BLOCK COUNT [#ARGS ARGS...]: fio verify through
# the cache, then the counters that show each path was taken, then the
# drained volume against its origin
cache_verify() {
	local kind=$1 rc=0 len=32768 origin
	shift
	wipe 16 /dev/ram0 /dev/ram1 /dev/ram2 /dev/ram3 || return 1
	case $kind in
	ram) origin=/dev/ram0 ;;
	stripe)
		vol_create ssat-o $len stripe 16 "$(ram_members 4)" || return 1
		origin=/dev/mapper/ssat-o ;;
	esac
	cache_create ssat-c $origin $len "$@" || return 1
	run_fio verify.fio DEV=/dev/mapper/ssat-c SIZE=$((len * 512)) \
		BSSPLIT="512/10:4k/40:16k/30:64k/10:256k/10" || { fail "fio verify"; rc=1; }
	info "status: $(dmsetup status ssat-c)"
	[ "$(cstat ssat-c write_hits)" -gt 0 ] || { fail "no write absorbed"; rc=1; }
	[ "$(cstat ssat-c read_hits)" -gt 0 ] || { fail "no read hit"; rc=1; }
	[ "$(cstat ssat-c write_through)" -gt 0 ] || { fail "no write went through"; rc=1; }
	[ "$(cstat ssat-c destaged)" -gt 0 ] || { fail "nothing destaged"; rc=1; }
	expect_eq "errors" "$(cstat ssat-c errors)" 0 || rc=1
	drained_equal ssat-c $origin $len || rc=1
	vol_remove ssat-c
	[ "$kind" = stripe ] && vol_remove ssat-o
	return $rc
}

# The water marks and the dirty maximum, to the block.  The origin is slow
# to write (dm-delay, 300 ms) so that writes meet a full cache: 4 KiB
# blocks, low_water 8, high_water 16, max_dirty 20, one destage at a time.
cache_water_marks() {
	local rc=0 t0 t1
	wipe 4 /dev/ram0 || return 1
	dmsetup create ssat-slow --table "0 8192 delay /dev/ram0 0 0 /dev/ram0 0 300" || return 1
	cache_create ssat-c /dev/mapper/ssat-slow 8192 8 64 \
		8 low_water 8 high_water 16 max_dirty 20 destage_depth 1 || return 1
	cache_data 64 || return 1
	# 16 dirty blocks: at the high water mark, nothing destaged
	dd if="$WORK/cache-data" of=/dev/mapper/ssat-c bs=4k count=16 oflag=direct status=none || rc=1
	expect_eq "dirty at high_water" "$(cstat ssat-c dirty)" 16 || rc=1
	expect_eq "destaged at high_water" "$(cstat ssat-c destaged)" 0 || rc=1
	# one more: destaged down to low_water, the oldest first, as one write
	dd if="$WORK/cache-data" of=/dev/mapper/ssat-c bs=4k skip=16 seek=16 count=1 oflag=direct status=none || rc=1
	cache_quiet ssat-c || rc=1
	expect_eq "dirty at low_water" "$(cstat ssat-c dirty)" 8 || rc=1
	expect_eq "destaged down to low_water" "$(cstat ssat-c destaged)" 9 || rc=1
	# 24 more: past max_dirty the writes wait for destages (300 ms each)
	t0=$(date +%s%N)
	dd if="$WORK/cache-data" of=/dev/mapper/ssat-c bs=4k skip=17 seek=17 count=24 oflag=direct status=none || rc=1
	t1=$(date +%s%N)
	info "24 writes took $(((t1 - t0) / 1000000)) ms; status: $(dmsetup status ssat-c)"
	[ "$(cstat ssat-c throttled)" -gt 0 ] || { fail "no write waited for dirty room"; rc=1; }
	[ "$(cstat ssat-c dirty)" -le 20 ] || { fail "more than max_dirty dirty blocks"; rc=1; }
	cache_quiet ssat-c || rc=1
	local d
	d=$(cstat ssat-c dirty)
	[ "$d" -ge 8 ] && [ "$d" -le 16 ] || { fail "dirty $d after the writes, want 8..16"; rc=1; }
	drained_equal ssat-c /dev/ram0 $((41 * 8)) || rc=1
	cmp -n $((41 * 4096)) "$WORK/cache-data" /dev/ram0 || { fail "origin differs from the data written"; rc=1; }
	vol_remove ssat-c
	vol_remove ssat-slow
	return $rc
}

# dev_writes NAME: write I/Os completed by DM device NAME (/sys/block stat)
dev_writes() {
	local -a st
	read -ra st < "/sys/block/$(dm_sysname "$1")/stat"
	echo "${st[4]}"
}

# destage_run: 17 consecutive dirty blocks past high_water 16 destage 9
# blocks down to low_water 8 -- as one write by default, as 9 writes with
# destage_run 1, as 5 with destage_run 2 (counted on a linear origin)
cache_destage_run() {
	local rc=0 run want w0
	wipe 4 /dev/ram0 || return 1
	dmsetup create ssat-m0 --table "0 8192 linear /dev/ram0 0" || return 1
	cache_data 17 || return 1
	for run in default 1 2; do
		case $run in
		default) want=1 ;;
		1) want=9 ;;
		2) want=5 ;;
		esac
		local opts="6 low_water 8 high_water 16 max_dirty 32"
		[ $run = default ] || opts="8 low_water 8 high_water 16 max_dirty 32 destage_run $run"
		cache_create ssat-c /dev/mapper/ssat-m0 8192 8 64 $opts || return 1
		w0=$(dev_writes ssat-m0)
		dd if="$WORK/cache-data" of=/dev/mapper/ssat-c bs=4k count=17 oflag=direct status=none || rc=1
		cache_quiet ssat-c || rc=1
		expect_eq "destage_run $run: destaged" "$(cstat ssat-c destaged)" 9 || rc=1
		expect_eq "destage_run $run: destage writes" "$(($(dev_writes ssat-m0) - w0))" $want || rc=1
		vol_remove ssat-c
	done
	cmp -n $((17 * 4096)) "$WORK/cache-data" /dev/ram0 || { fail "origin differs"; rc=1; }
	vol_remove ssat-m0
	return $rc
}

# flush, FUA and a crash: the flushed data and the FUA writes are on the
# origin, the data written after the last flush is not (the "crash"
# message drops the cache as a power loss would)
cache_flush_crash() {
	local rc=0 c=/dev/mapper/ssat-c
	wipe 8 /dev/ram0 || return 1
	cache_create ssat-c /dev/ram0 16384 8 256 4 low_water 200 high_water 200 || return 1
	cache_data 112 || return 1
	# A: 64 blocks, then a flush (fsync of the block device)
	dd if="$WORK/cache-data" of=$c bs=4k count=64 oflag=direct status=none || rc=1
	expect_eq "dirty before the flush" "$(cstat ssat-c dirty)" 64 || rc=1
	python3 -c "import os; fd = os.open('$c', os.O_RDWR); os.fsync(fd)" || { fail "fsync"; rc=1; }
	expect_eq "dirty after the flush" "$(cstat ssat-c dirty)" 0 || rc=1
	expect_eq "destaged by the flush" "$(cstat ssat-c destaged)" 64 || rc=1
	# C: 16 O_DIRECT | O_DSYNC writes at 2 MiB: each a FUA write, which
	# goes through to the origin, and a flush after it (generic_write_sync)
	local wh=$(cstat ssat-c write_hits) wt=$(cstat ssat-c write_through)
	dd if="$WORK/cache-data" of=$c bs=4k skip=96 seek=512 count=16 oflag=direct,dsync status=none || rc=1
	expect_eq "FUA writes through" "$(($(cstat ssat-c write_through) - wt))" 16 || rc=1
	expect_eq "FUA writes absorbed" "$(($(cstat ssat-c write_hits) - wh))" 0 || rc=1
	# B: 32 blocks at 1 MiB, never flushed
	dd if="$WORK/cache-data" of=$c bs=4k skip=64 seek=256 count=32 oflag=direct status=none || rc=1
	expect_eq "dirty before the crash" "$(cstat ssat-c dirty)" 32 || rc=1
	dmsetup message ssat-c 0 crash || { fail "crash message"; rc=1; }
	expect_eq "lost" "$(cstat ssat-c lost)" 32 || rc=1
	cmp -n $((64 * 4096)) "$WORK/cache-data" /dev/ram0 || { fail "flushed data not on the origin"; rc=1; }
	cmp -n $((16 * 4096)) -i $((96 * 4096)):$((512 * 4096)) "$WORK/cache-data" /dev/ram0 ||
		{ fail "FUA data not on the origin"; rc=1; }
	cmp -n $((32 * 4096)) -i 0:$((256 * 4096)) /dev/zero /dev/ram0 ||
		{ fail "data written after the last flush reached the origin"; rc=1; }
	# and the volume reads what the origin holds now
	local a b
	a=$(sum_dev $c 16384) b=$(sum_dev /dev/ram0 16384)
	expect_eq "volume after the crash" "$a" "$b" || rc=1
	vol_remove ssat-c
	return $rc
}

# A reload (suspend, new table, resume) and a removal destage first
cache_reload_remove() {
	local rc=0 c=/dev/mapper/ssat-c table
	wipe 8 /dev/ram0 || return 1
	cache_create ssat-c /dev/ram0 16384 8 256 4 low_water 200 high_water 200 || return 1
	cache_data 128 || return 1
	dd if="$WORK/cache-data" of=$c bs=4k count=64 oflag=direct status=none || rc=1
	expect_eq "dirty" "$(cstat ssat-c dirty)" 64 || rc=1
	table=$(dmsetup table ssat-c)
	dmsetup reload ssat-c --table "$table" && dmsetup resume ssat-c || { fail "reload"; rc=1; }
	expect_eq "dirty in the new table" "$(cstat ssat-c dirty)" 0 || rc=1
	cmp -n $((64 * 4096)) "$WORK/cache-data" $c || { fail "data lost across the reload"; rc=1; }
	dd if="$WORK/cache-data" of=$c bs=4k skip=64 seek=64 count=64 oflag=direct status=none || rc=1
	expect_eq "dirty before removal" "$(cstat ssat-c dirty)" 64 || rc=1
	vol_remove ssat-c
	cmp -n $((128 * 4096)) "$WORK/cache-data" /dev/ram0 || { fail "data lost at removal"; rc=1; }
	return $rc
}

# discard drops the dirty blocks it covers whole; write-zeroes zeroes the
# cached copy and the origin
cache_discard_zeroes() {
	local rc=0 c=/dev/mapper/ssat-c
	loop_members 1 16 || return 1
	cache_create ssat-c "${LOOPS[0]}" 16384 8 256 4 low_water 200 high_water 200 || return 1
	[ "$(cat "/sys/block/$(dm_sysname ssat-c)/queue/discard_max_bytes")" -gt 0 ] ||
		{ fail "the cache does not pass discards"; rc=1; }
	cache_data 64 || return 1
	dd if="$WORK/cache-data" of=$c bs=4k count=64 oflag=direct status=none || rc=1
	expect_eq "dirty" "$(cstat ssat-c dirty)" 64 || rc=1
	# 16 whole blocks and half of one more
	blkdiscard -o 0 -l $((16 * 4096 + 2048)) $c || { fail "blkdiscard"; rc=1; }
	expect_eq "dirty after the discard" "$(cstat ssat-c dirty)" 48 || rc=1
	# zero blocks 32..39 (dirty): the cache and then the origin read zeroes
	blkdiscard -z -o $((32 * 4096)) -l $((8 * 4096)) $c || { fail "blkdiscard -z"; rc=1; }
	cmp -n $((8 * 4096)) -i 0:$((32 * 4096)) /dev/zero $c || { fail "zeroed range not zero through the cache"; rc=1; }
	cmp -n $((8 * 4096)) -i $((40 * 4096)):$((40 * 4096)) "$WORK/cache-data" $c ||
		{ fail "data after the zeroed range changed"; rc=1; }
	dmsetup suspend ssat-c && dmsetup resume ssat-c || rc=1
	cmp -n $((8 * 4096)) -i 0:$((32 * 4096)) /dev/zero "${LOOPS[0]}" || { fail "zeroed range not zero on the origin"; rc=1; }
	cmp -n $((24 * 4096)) -i $((40 * 4096)):$((40 * 4096)) "$WORK/cache-data" "${LOOPS[0]}" ||
		{ fail "dirty data after the zeroed range not on the origin"; rc=1; }
	vol_remove ssat-c
	return $rc
}

# Sequential reads: prefetched after two in a row, the later ones hit
cache_prefetch() {
	local rc=0 c=/dev/mapper/ssat-c hits
	dd if=/dev/urandom of=/dev/ram0 bs=1M count=2 oflag=direct status=none || return 1
	cache_create ssat-c /dev/ram0 16384 8 256 2 prefetch 8 || return 1
	cmp -n $((128 * 4096)) /dev/ram0 <(dd if=$c bs=4k count=128 iflag=direct status=none) ||
		{ fail "data read through the cache differs"; rc=1; }
	info "status: $(dmsetup status ssat-c)"
	[ "$(cstat ssat-c prefetched)" -ge 100 ] || { fail "too little prefetched"; rc=1; }
	[ "$(cstat ssat-c prefetch_hits)" -ge 100 ] || { fail "too few prefetch hits"; rc=1; }
	hits=$(cstat ssat-c read_hits)
	[ "$hits" -ge 100 ] || { fail "read hits $hits, want >= 100 of 128"; rc=1; }
	vol_remove ssat-c
	# without prefetch, one pass over new data hits nothing
	cache_create ssat-c /dev/ram0 16384 8 256 || return 1
	dd if=$c of=/dev/null bs=4k count=128 iflag=direct status=none || rc=1
	expect_eq "read hits without prefetch" "$(cstat ssat-c read_hits)" 0 || rc=1
	# and a second pass hits every block (rereference)
	dd if=$c of=/dev/null bs=4k count=128 iflag=direct status=none || rc=1
	expect_eq "read hits of a second pass" "$(cstat ssat-c read_hits)" 128 || rc=1
	vol_remove ssat-c
	return $rc
}

# The origin fails to write (dm-flakey error_writes): destages fail, the
# cache says so (mode E), writes go through (and fail), a flush fails; the
# cached data can still be read, also by a read larger than cache_max,
# which goes to the origin and gets the dirty blocks copied over it
cache_origin_fails() {
	local rc=0 c=/dev/mapper/ssat-c
	wipe 8 /dev/ram0 || return 1
	dmsetup create ssat-m0 --table "0 16384 linear /dev/ram0 0" || return 1
	cache_create ssat-c /dev/mapper/ssat-m0 16384 8 256 6 low_water 200 high_water 200 cache_max 64 || return 1
	cache_data 16 || return 1
	dd if="$WORK/cache-data" of=$c bs=4k count=16 oflag=direct status=none || rc=1
	dmsetup suspend --noflush ssat-m0 &&
		dmsetup load ssat-m0 --table "0 16384 flakey /dev/ram0 0 0 1 1 error_writes" &&
		dmsetup resume ssat-m0 || { fail "failing the origin"; rc=1; }
	python3 -c "import os; fd = os.open('$c', os.O_RDWR); os.fsync(fd)" 2>/dev/null &&
		{ fail "a flush succeeded with its blocks not destaged"; rc=1; }
	expect_eq "mode" "$(cstat ssat-c mode)" E || rc=1
	[ "$(cstat ssat-c errors)" -gt 0 ] || { fail "no error counted"; rc=1; }
	cmp -n $((16 * 4096)) "$WORK/cache-data" $c || { fail "cached data unreadable"; rc=1; }
	# 64 KiB in one read, past cache_max: from the origin, dirty blocks over it
	timeout 60 dd if=$c of="$WORK/big-read" bs=64k count=1 iflag=direct status=none ||
		{ fail "a read past cache_max failed or hung"; rc=1; }
	cmp -n $((16 * 4096)) "$WORK/cache-data" "$WORK/big-read" ||
		{ fail "a read past cache_max missed the dirty blocks"; rc=1; }
	dd if="$WORK/cache-data" of=$c bs=4k seek=100 count=1 oflag=direct status=none 2>/dev/null &&
		{ fail "a write to a failed origin succeeded"; rc=1; }
	klog_mark
	vol_remove ssat-c || { fail "remove"; rc=1; }
	klog_since | grep -q "dirty blocks could not be destaged" || { fail "no log line for the lost blocks"; rc=1; }
	vol_remove ssat-m0
	return $rc
}

# Removal while prefetches are in flight (reads from the origin take
# 500 ms): the suspend waits for them; the next table works
cache_remove_prefetching() {
	local rc=0 c=/dev/mapper/ssat-c
	dd if=/dev/urandom of=/dev/ram0 bs=1M count=4 oflag=direct status=none || return 1
	dmsetup create ssat-slow --table "0 8192 delay /dev/ram0 0 500 /dev/ram0 0 0" || return 1
	cache_create ssat-c /dev/mapper/ssat-slow 8192 8 256 2 prefetch 64 || return 1
	# two reads in a row: the second starts a prefetch of 64 blocks
	dd if=$c of=/dev/null bs=4k count=2 iflag=direct status=none || rc=1
	[ "$(cstat ssat-c prefetched)" -gt 0 ] || { fail "nothing prefetched"; rc=1; }
	vol_remove ssat-c || { fail "remove"; rc=1; }
	cache_create ssat-c /dev/mapper/ssat-slow 8192 8 256 || return 1
	cmp -n $((256 * 4096)) /dev/ram0 $c || { fail "data read after the removal differs"; rc=1; }
	vol_remove ssat-c
	vol_remove ssat-slow
	return $rc
}

cache_bad_tables() {
	local rc=0 r0=/dev/ram0 T="ssacache"
	bad_table c-no-args "0 1024 $T" "Not enough arguments" || rc=1
	bad_table c-few "0 1024 $T $r0 8" "Not enough arguments" || rc=1
	bad_table c-block-0 "0 1024 $T $r0 0 64" "Invalid block size" || rc=1
	bad_table c-block-odd "0 1024 $T $r0 24 64" "Invalid block size" || rc=1
	bad_table c-block-big "0 4096 $T $r0 4096 64" "Invalid block size" || rc=1
	bad_table c-block-text "0 1024 $T $r0 8k 64" "Invalid block size" || rc=1
	bad_table c-block-wrap "0 1024 $T $r0 4294967304 64" "Block size too large" || rc=1
	bad_table c-count-0 "0 1024 $T $r0 8 0" "Invalid cache size" || rc=1
	bad_table c-count-wrap "0 1024 $T $r0 8 4294967360" "Cache size too large" || rc=1
	bad_table c-count-neg "0 1024 $T $r0 8 -64" "Invalid cache size" || rc=1
	bad_table c-opt-count "0 1024 $T $r0 8 64 4 prefetch 2" "Invalid number of optional arguments" || rc=1
	bad_table c-opt-wrap "0 1024 $T $r0 8 64 4294967298 prefetch 2" "Too many optional arguments" || rc=1
	bad_table c-opt-odd "0 1024 $T $r0 8 64 1 prefetch" "Optional argument without a value" || rc=1
	bad_table c-opt-unknown "0 1024 $T $r0 8 64 2 size 2" "Unknown optional argument" || rc=1
	bad_table c-opt-dup "0 1024 $T $r0 8 64 4 prefetch 2 prefetch 4" "Duplicate optional argument" || rc=1
	bad_table c-opt-value "0 1024 $T $r0 8 64 2 prefetch 2x" "Invalid optional argument value" || rc=1
	bad_table c-opt-wrapv "0 1024 $T $r0 8 64 2 prefetch 4294967298" "Optional argument value too large" || rc=1
	bad_table c-water "0 1024 $T $r0 8 64 4 low_water 20 high_water 10" "Water marks" || rc=1
	bad_table c-water-max "0 1024 $T $r0 8 64 4 high_water 32 max_dirty 32" "Water marks" || rc=1
	bad_table c-max-dirty "0 1024 $T $r0 8 64 2 max_dirty 65" "max_dirty must be" || rc=1
	bad_table c-cache-max "0 1024 $T $r0 8 64 2 cache_max 12" "cache_max must be" || rc=1
	bad_table c-cache-max-big "0 1024 $T $r0 8 64 2 cache_max 512" "cache_max must be" || rc=1
	bad_table c-depth "0 1024 $T $r0 8 64 2 destage_depth 0" "destage_depth must be" || rc=1
	bad_table c-run-0 "0 1024 $T $r0 8 64 2 destage_run 0" "destage_run must be" || rc=1
	bad_table c-run-big "0 1024 $T $r0 8 64 2 destage_run 257" "destage_run must be" || rc=1
	bad_table c-prefetch "0 1024 $T $r0 8 64 2 prefetch 33" "prefetch must be" || rc=1
	bad_table c-length "0 1028 $T $r0 8 64" "multiple of the block size" || rc=1
	bad_table c-no-device "0 1024 $T /dev/ssat-nonexistent 8 64" "Origin device lookup failed" || rc=1
	bad_table c-small "0 $((2 * RAM_MB * 2048)) $T $r0 8 64" "Origin device is smaller" || rc=1
	bad_table c-trailing "0 1024 $T $r0 8 64 2 prefetch 2 extra" "Too many arguments" || rc=1
	# 16 Mi blocks of 1 MiB: no such memory, a clean refusal
	bad_table c-memory "0 2048 $T $r0 2048 16777216" "Cannot allocate the cache's memory" || rc=1
	# a message it does not know
	cache_create ssat-c $r0 1024 8 64 || return 1
	dmsetup message ssat-c 0 destage 2>/dev/null && { fail "unknown message accepted"; rc=1; }
	vol_remove ssat-c
	return $rc
}

# The cache as a server of its own: at transfer_mbps 16 every 16 KiB
# request takes 1.024 ms of transfer, at 32 0.512 ms.  Reads that hit, one
# at a time, at each rate: their median completion latencies differ by
# the difference, 0.512 ms.  Three rounds of the two rates, the median of
# the three differences: a fresh-clone CI once measured 0.766 ms in a
# single round, where 0.497 and 0.506 were measured in other boots (the
# latency at 32 MB/s was as usual, at 16 MB/s 0.27 ms slower than the
# transfer accounts for; not explained), so one disturbed round must not
# decide.  (fio's percentiles are histogram buckets, about 1.5 % wide
# here.)  (Against no rate at all the difference is smaller on the
# instruction clock: without a timer the read completes from the work
# item, and the reader waits for the rest of its pass on the one CPU;
# measured 0.711 ms more for 1.024 ms of transfer.)
# hit_latency MBPS: "<median> <mean>" latency (ns) of 16 KiB hits at that rate
hit_latency() {
	local c=/dev/mapper/ssat-c
	mkdir -p "$WORK"
	cache_create ssat-c /dev/ram0 16384 32 256 2 transfer_mbps "$1" || return 1
	dd if=$c of=/dev/null bs=16k count=128 iflag=direct status=none || return 1
	(cd "$WORK" && fio --name=hits --filename=$c --direct=1 --ioengine=psync \
		--rw=randread --bs=16k --size=2M --number_ios=400 --randrepeat=1 \
		--output-format=json) | python3 -c 'import json,sys; c=json.load(sys.stdin)["jobs"][0]["read"]["clat_ns"]; print(c["percentile"]["50.000000"], round(c["mean"]))'
	[ "$(cstat ssat-c read_misses)" = 128 ] || { fail "the timed reads missed"; return 1; }
	vol_remove ssat-c
}

cache_transfer_rate() {
	local i l32 m32 l16 m16 d ds=() rc=0
	for i in 1 2 3; do
		read -r l32 m32 <<< "$(hit_latency 32)" && [ -n "$l32" ] || return 1
		read -r l16 m16 <<< "$(hit_latency 16)" && [ -n "$l16" ] || return 1
		ds+=($((l16 - l32)))
		info "round $i: median latency of a 16 KiB hit at 32 MB/s $l32 ns, at 16 MB/s $l16 ns: $((l16 - l32)) ns more (means $m32, $m16)"
	done
	d=$(printf '%s\n' "${ds[@]}" | sort -n | sed -n 2p)
	info "median of the three differences: $d ns (want 512000)"
	[ "$d" -ge 486400 ] && [ "$d" -le 537600 ] ||
		{ fail "halving the rate added $d ns, want 512000 +- 5 %"; rc=1; }
	return $rc
}

register cache_verify_small cache_verify ram 8 64 10 low_water 8 high_water 16 max_dirty 32 destage_depth 4 prefetch 4
register cache_verify_stripe cache_verify stripe 32 128 8 prefetch 8 transfer_mbps 400 destage_depth 2 destage_run 2
register cache_verify_default cache_verify ram 8 1024
register cache_water_marks cache_water_marks
register cache_destage_run cache_destage_run
register cache_flush_crash cache_flush_crash
register cache_reload_remove cache_reload_remove
register cache_discard_zeroes cache_discard_zeroes
register cache_prefetch cache_prefetch
register cache_origin_fails cache_origin_fails
register cache_remove_prefetching cache_remove_prefetching
register cache_bad_tables cache_bad_tables
register_clocked cache_transfer_rate cache_transfer_rate
