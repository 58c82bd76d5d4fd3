# SPDX-License-Identifier: GPL-2.0-only
# The bpftrace scripts of bpf/ run on a live volume and print what they
# promise.

# bt_run SCRIPT OUT: start SCRIPT, wait until attached, run a short fio load
# over 4 members with full-stripe and small requests, stop SCRIPT.
bt_run() {
	local script=$1 out=$2
	bt_start "$out" "Hit Ctrl-C|FORK_NS" "$TOP/bpf/$script" || return 1
	(cd "$WORK" && fio --name=bt --filename=/dev/mapper/ssat-b --direct=1 --ioengine=libaio \
		--rw=randrw --bssplit=4k/50:256k/25:1m/25 --iodepth=8 --number_ios=400 \
		--output-format=terse >/dev/null) || { bt_stop; fail "fio failed"; return 1; }
	bt_stop
}

bt_script() {	# bt_script SCRIPT REGEX...: each REGEX (MAJ: DM's major) must match the output
	local script=$1 rc=0 re maj
	shift
	command -v bpftrace >/dev/null || { skip "bpftrace not installed"; return; }
	mkdir -p "$WORK"
	vol_create ssat-b 65536 stripe 64 "$(ram_members 4)" 4 queue_depth 2 priority on || return 1
	maj=$(dm_major ssat-b)
	bt_run "$script" "$WORK/bt.out" || return 1
	head -c 3000 "$WORK/bt.out"
	for re in "$@"; do
		re=${re//MAJ/$maj}
		grep -Eq -- "$re" "$WORK/bt.out" || { fail "$script output lacks /$re/"; rc=1; }
	done
	grep -qi "error" "$WORK/bt.out" && { fail "$script reported an error"; rc=1; }
	return $rc
}

register bpftrace_ssalat bt_script ssalat.bt '^@usecs\[MAJ, [0-9]+, read\]:' '^@usecs\[MAJ, [0-9]+, write\]:' '\[[0-9]+, [0-9]+\) +[0-9]+ \|@'
register bpftrace_ssaqueue bt_script ssaqueue.bt '^@wait_us\[MAJ, [0-9]+, 3, low\]:' '^@service_us\[MAJ, [0-9]+, 0, low\]:'
register bpftrace_ssaskew bt_script ssaskew.bt '^@skew_us\[(256|1024)\]:' '^@straggler\[[0-3]\]: [0-9]+'
register bpftrace_ssasnoop bt_script ssasnoop.bt '^FORK_NS' '^[0-9]+ +[0-9]+ +MAJ:[0-9]+ +[0-9]+ +W +[0-9]+ +2048 +4 '

# ssadisk.bt over a stripe of three emulated disks
bt_ssadisk() {
	local i m="" rc=0
	command -v bpftrace >/dev/null || { skip "bpftrace not installed"; return; }
	mkdir -p "$WORK"
	for i in 0 1 2 3; do
		dmsetup create ssat-m$i --table "0 16384 ssadisk /dev/ram$i 0 2 time_scale 0.01" || return 1
		m+="/dev/mapper/ssat-m$i 0 "
	done
	vol_create ssat-b 65536 stripe 64 "${m% }" 2 queue_depth 1 || return 1
	bt_run ssadisk.bt "$WORK/bt.out" || return 1
	head -c 3000 "$WORK/bt.out"
	local re maj
	maj=$(dm_major ssat-b)
	for re in "^@queue_us\\[$maj, [0-9]+, read\\]:" "^@service_us\\[$maj, [0-9]+, write\\]:" \
		"^@rot_us\\[$maj, [0-9]+, read\\]:" "^@seek_cyl\\[$maj, [0-9]+\\]: [0-9]+" \
		"^@late_us\\[$maj, [0-9]+\\]:"; do
		grep -Eq -- "$re" "$WORK/bt.out" || { fail "ssadisk.bt output lacks /$re/"; rc=1; }
	done
	grep -qi "error" "$WORK/bt.out" && { fail "ssadisk.bt reported an error"; rc=1; }
	dmsetup remove ssat-b
	return $rc
}
register bpftrace_ssadisk bt_ssadisk

# ssaplace.bt over a 1 x 2 srarray of one emulated disk, queue_depth 2 (a
# read is placed while the disk is busy): placements are counted, and the
# disk's prediction held for the reads that arrived on time
bt_ssaplace() {
	local rc=0 maj on exact re
	command -v bpftrace >/dev/null || { skip "bpftrace not installed"; return; }
	mkdir -p "$WORK"
	disk_create ssat-d0 /dev/ram0 32256 $DISK96 || return 1
	vol_create ssat-b 16128 srarray 8 "/dev/mapper/ssat-d0 0" 8 replicas 2 \
		track_sectors 96 queue_depth 2 sched rsatf || return 1
	bt_start "$WORK/bt.out" "Hit Ctrl-C" "$TOP/bpf/ssaplace.bt" || return 1
	(cd /tmp && DEV=/dev/mapper/ssat-b NIOS=400 DEPTH=4 fio --section=closed \
		--output=/dev/null "$TOP/tests/fio/ssadisk.fio") || { bt_stop; fail "fio"; return 1; }
	bt_stop
	head -c 3000 "$WORK/bt.out"
	maj=$(dm_major ssat-b)
	for re in "^@placed\\[$maj, [0-9]+, predicted\\]: [0-9]+" "^@replica\\[$maj, [0-9]+, 1\\]: [0-9]+" \
		"^@on_time\\[$maj, [0-9]+\\]: [0-9]+" "^@exact\\[$maj, [0-9]+\\]: [0-9]+"; do
		grep -Eq -- "$re" "$WORK/bt.out" || { fail "ssaplace.bt output lacks /$re/"; rc=1; }
	done
	grep -qi "error" "$WORK/bt.out" && { fail "ssaplace.bt reported an error"; rc=1; }
	on=$(awk -F': ' '/^@on_time\[/ { print $2 }' "$WORK/bt.out")
	exact=$(awk -F': ' '/^@exact\[/ { print $2 }' "$WORK/bt.out")
	info "ssaplace.bt: $exact of $on on-time reads ended when predicted"
	[ "${on:-0}" -ge 200 ] && [ $((${exact:-0} * 100)) -ge $((on * 98)) ] ||
		{ fail "ssaplace.bt: ${exact:-0} of ${on:-0} on time ended when predicted"; rc=1; }
	vol_remove ssat-b
	dmsetup remove ssat-d0
	return $rc
}
register bpftrace_ssaplace bt_ssaplace
