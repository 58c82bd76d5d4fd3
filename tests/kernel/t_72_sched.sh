# SPDX-License-Identifier: GPL-2.0-only
# The dispatchers' schedulers (option and message "sched"): data verified
# under each order and across a switch mid-run; over an ssadisk member the
# orders do what they claim (the disk's own mean service falls under RSATF
# and RLOOK against FIFO, and further with srarray's replicas); input
# checks.

# sched_verify LAYOUT SCHED [OPTS...]: fio crc32c over two ssadisk members
# (a tenth of the disk's times), queue_depth 2, the order switched
# mid-run; srarray with "propagate background": then a suspend leaves
# nothing stale and equal raw replicas
sched_verify() {
	local layout=$1 sched=$2 other rc=0 pid opts len i m="" out
	shift 2
	for i in 0 1; do
		disk_create ssat-d$i /dev/ram$i 32256 $DISK96 time_scale 0.1 || return 1
		m+="/dev/mapper/ssat-d$i 0 "
	done
	case $layout in
	srarray) opts="$((8 + $#)) replicas 2 track_sectors 96 sched $sched queue_depth 2 $*" len=32256 ;;
	mirror) opts="6 sched $sched queue_depth 2 copies 2" len=32256 ;;
	*) opts="4 sched $sched queue_depth 2" len=64512 ;;
	esac
	vol_create ssat-v $len "$layout" 8 "${m% }" $opts || return 1
	other=$([ "$sched" = rsatf ] && echo rlook || echo rsatf)
	# the order changes under the verify's load: once 200 requests have
	# come (not after a fixed 3 s, which a loaded machine can spend
	# starting fio, nor later than 120 s)
	(wait_until 120 io_past ssat-v 200 && dmsetup message ssat-v 0 sched "$other") &
	pid=$!
	run_fio verify.fio DEV=/dev/mapper/ssat-v SIZE=$((len * 512)) \
		BSSPLIT="512/10:4k/50:12k/20:64k/20" || { fail "fio verify"; rc=1; }
	wait $pid || { fail "sched message refused"; rc=1; }
	grep -qw "sched $other" <<< "$(dmsetup table ssat-v)" ||
		{ fail "table after the message: $(dmsetup table ssat-v)"; rc=1; }
	# the IMA status (dmsetup measure, where dmsetup has it) says so too
	if dmsetup help 2>&1 | grep -qw measure; then
		grep -q ",sched=$other," <<< "$(dmsetup measure ssat-v)" ||
			{ fail "IMA status: $(dmsetup measure ssat-v)"; rc=1; }
	fi
	expect_eq "health" "$(vstat ssat-v health)" AA || rc=1
	if [[ " $* " == *" propagate background "* ]]; then
		dmsetup suspend ssat-v && dmsetup resume ssat-v || { fail "suspend/resume"; rc=1; }
		info "propagation: copied $(sr_tail ssat-v copied) dropped $(sr_tail ssat-v dropped)"
		expect_eq "stale units after a suspend" "$(sr_tail ssat-v stale)" 0 || rc=1
		[ "$(sr_tail ssat-v copied)" -gt 0 ] || { fail "no unit copied in the background"; rc=1; }
		out=$($CHECK_SR ssat-v) || { fail "raw check: $out"; rc=1; }
	fi
	vol_remove ssat-v
	dmsetup remove ssat-d0
	dmsetup remove ssat-d1
	return $rc
}

# sched_svc LAYOUT SCHED [OPTS...]: "<mean service, us> <mean seek
# distance, cylinders>" of the disk for 600 random 4 KiB reads kept 8
# outstanding through a one-member volume with queue_depth 2: one child in
# service, one waiting in the disk, six for the scheduler to choose from,
# chosen while the disk serves (with queue_depth 1 the choice is made with
# the disk idle, and a slow guest -- a debug kernel -- sends the child so
# late after it that the predicted rotation is gone)
sched_svc() {
	local layout=$1 sched=$2 len=32256 svc
	shift 2
	disk_create ssat-d0 /dev/ram0 32256 $DISK96 || return 1
	[ "$layout" = srarray ] && len=$((32256 / 2))
	vol_create ssat-v $len "$layout" 8 "/dev/mapper/ssat-d0 0" \
		$((4 + $#)) queue_depth 2 sched "$sched" "$@" || return 1
	dmsetup message ssat-d0 0 reset_stats
	(cd /tmp && DEV=/dev/mapper/ssat-v NIOS=600 DEPTH=8 fio --section=closed \
		--output=/dev/null "$TOP/tests/fio/ssadisk.fio") || { fail "fio"; return 1; }
	local -a s
	read -ra s <<< "$(dmsetup status ssat-d0)"
	vol_remove ssat-v
	dmsetup remove ssat-d0
	[ "${s[5]}" -ge 600 ] || { fail "the disk served ${s[5]} reads"; return 1; }
	svc=${s[11]}
	echo "${svc%.*} ${s[14]%.*}"
}

# FIFO pays a random seek and half a turn a read; SATF with 8 to choose
# from much less; LOOK sweeps, so its seeks are short (on this disk the
# seek's constant 1 ms dominates, so its service falls little); RSATF
# over two replicas saves more than SATF.
sched_orders() {
	local rc=0 fifo satf look rsatf fd sd ld rd
	read -r fifo fd <<< "$(sched_svc stripe fifo)" && [ -n "$fd" ] || return 1
	read -r satf sd <<< "$(sched_svc stripe rsatf)" && [ -n "$sd" ] || return 1
	read -r look ld <<< "$(sched_svc stripe rlook)" && [ -n "$ld" ] || return 1
	read -r rsatf rd <<< "$(sched_svc srarray rsatf replicas 2 track_sectors 96)" &&
		[ -n "$rd" ] || return 1
	info "mean service (us) / seek distance (cylinders): fifo $fifo/$fd, satf $satf/$sd, look $look/$ld, srarray 2 replicas rsatf $rsatf/$rd"
	[ "$satf" -lt $((fifo * 7 / 10)) ] || { fail "rsatf $satf us not well below fifo $fifo us"; rc=1; }
	[ "$look" -lt "$fifo" ] || { fail "rlook $look us not below fifo $fifo us"; rc=1; }
	[ "$ld" -lt $((fd * 6 / 10)) ] || { fail "rlook seeks $ld cylinders, fifo $fd"; rc=1; }
	[ "$satf" -lt "$look" ] || { fail "rsatf $satf us not below rlook $look us"; rc=1; }
	[ "$rsatf" -lt $((satf * 9 / 10)) ] || { fail "two replicas $rsatf us not below one $satf us"; rc=1; }
	return $rc
}

sched_bad_input() {
	local rc=0 r0=/dev/ram0 r1=/dev/ram1 r2=/dev/ram2 T=ssastripe
	bad_table sched-word "0 8192 $T stripe 8 2 $r0 0 $r1 0 2 sched elevator" \
		"Invalid sched: expected fifo, rsatf or rlook" || rc=1
	bad_table sched-raid5 "0 8192 $T raid5 8 3 $r0 0 $r1 0 $r2 0 2 sched rsatf" \
		"sched is an option of the stripe, mirror and srarray layouts" || rc=1
	vol_create ssat-v 8192 stripe 8 "$(ram_members 2)" 2 queue_depth 1 || return 1
	dmsetup message ssat-v 0 sched bogus 2>/dev/null && { fail "sched bogus accepted"; rc=1; }
	dmsetup message ssat-v 0 sched rlook || { fail "sched rlook refused"; rc=1; }
	grep -q "sched rlook" <<< "$(dmsetup table ssat-v)" || { fail "table lacks sched rlook"; rc=1; }
	# ramdisks cannot be asked: the order falls back to arrival order
	run_fio verify.fio DEV=/dev/mapper/ssat-v SIZE=$((8192 * 512)) \
		BSSPLIT="4k/50:64k/50" || { fail "fio verify over ramdisks"; rc=1; }
	vol_remove ssat-v
	vol_create ssat-v 12288 raid5 8 "$(ram_members 3)" 4 queue_depth 1 initial_sync off || return 1
	dmsetup message ssat-v 0 sched rsatf 2>/dev/null && { fail "sched accepted by raid5"; rc=1; }
	vol_remove ssat-v
	return $rc
}

register sched_verify_stripe_rsatf sched_verify stripe rsatf
register sched_verify_mirror_rlook sched_verify mirror rlook
register sched_verify_srarray_rsatf sched_verify srarray rsatf
register sched_verify_srarray_rlook sched_verify srarray rlook
register sched_verify_srarray_rsatf_bg sched_verify srarray rsatf propagate background
register sched_verify_srarray_rlook_bg sched_verify srarray rlook propagate background
register_clocked sched_orders sched_orders
register sched_bad_input sched_bad_input
