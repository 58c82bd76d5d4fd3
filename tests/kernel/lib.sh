# SPDX-License-Identifier: GPL-2.0-only
# tests/kernel/lib.sh - helpers for the dm-ssastripe kernel tests (sourced).
#
# Conventions: volumes and helper devices are named ssat-*; a test function
# returns 0 (pass), 1 (fail) or 4 (skip, with the reason in $SKIP_REASON).
# Helpers print what they check on failure ("FAIL: ...") to the test log.

KSFT_SKIP=4
KO=${SSA_KO:-$TOP/dm-ssastripe/dm-ssastripe.ko}	# SSA_KO: a build for another kernel
WORK=${WORK:-/tmp/ssat}
NR_RAM=8
RAM_MB=64

fail() { echo "FAIL: $*"; return 1; }
skip() { SKIP_REASON=$*; return $KSFT_SKIP; }
info() { echo "# $*"; }

# expect_eq WHAT GOT WANT
expect_eq() {
	[ "$2" = "$3" ] && return 0
	fail "$1: got '$2', want '$3'"
}

sectors() { blockdev --getsz "$1"; }

# A volume over members: vol_create NAME LEN_SECTORS LAYOUT CHUNK "DEV OFF ..." [OPTS...]
# suspend_drained NAME N TAG: suspend NAME, check that none of its N
# members has a child in flight, resume; failures name TAG.
suspend_drained() {
	local name=$1 n=$2 tag=$3 rc=0 m
	dmsetup suspend "$name" || { fail "suspend $tag failed"; return 1; }
	expect_eq "children in flight while suspended ($tag)" \
		"$(for ((m = 0; m < n; m++)); do mstat "$name" $m inflight; done |
		   awk '{ s += $1 } END { print s }')" 0 || rc=1
	dmsetup resume "$name" || { fail "resume $tag failed"; rc=1; }
	return $rc
}

# An ssadisk model (disk_create's arguments): 7200 rpm, 96 sectors a
# track, two heads, 1000 cylinders; the scheduler and srarray tests'.
DISK96="mode mechanical cylinders 1000 heads 2 sectors_per_track 96 rpm 7200 seek_a 1ms seek_b 100us"

vol_create() {
	local name=$1 len=$2 layout=$3 chunk=$4 members=$5
	shift 5
	local -a m=($members)
	local table="0 $len ssastripe $layout $chunk $((${#m[@]} / 2)) $members"
	[ $# -gt 0 ] && table+=" $*"
	dmsetup create "$name" --table "$table" || { echo "# table: $table"; return 1; }
}

# dm_sysname NAME: the volume's block device name (dm-N) in /sys/block.
# (/dev/mapper/NAME is a node of its own, not a link to /dev/dm-N, when
# libdevmapper makes it, as it does during the suite: see run.)
dm_sysname() { echo "dm-$(dmsetup info -c --noheadings -o minor "$1" | tr -d ' ')"; }

# dm_major NAME: the device-mapper major of NAME (254 on Debian's
# kernels, not on every kernel: the debug kernel's is 252)
dm_major() { dmsetup info -c --noheadings -o major "$1" | tr -d ' '; }

vol_remove() { dmsetup remove "$1" 2>/dev/null || dmsetup remove --retry "$1"; }

# Members that can be made to fail: linear devices ssat-m0.. over the first
# N ramdisks (load an "error" table into one to fail it).
lin_members() {	# lin_members N SECTORS -> "DEV 0 ..."
	local i out=""
	for ((i = 0; i < $1; i++)); do
		dmsetup create ssat-m$i --table "0 $2 linear /dev/ram$i 0" || return 1
		out+="/dev/mapper/ssat-m$i 0 "
	done
	echo "${out% }"
}

# "DEV 0 DEV 0 ..." for the first N ramdisks
ram_members() {
	local i out=""
	for ((i = 0; i < $1; i++)); do out+="/dev/ram$i ${2:-0} "; done
	echo "${out% }"
}

# Status (INFO) layout: 0 LEN ssastripe <layout> <#members> <health>
# <queue_depth> <priority> <reads> <writes> <others>, then 12 fields per
# member (Documentation/ssastripe.rst).
ST_MEMBER0=11
ST_PER_MEMBER=12

# status field of a volume: vstat NAME FIELD
#   FIELD: health | depth | priority | req_r | req_w | req_o
vstat() {
	local -a s
	read -ra s <<< "$(dmsetup status "$1")"
	case $2 in
	health) echo "${s[5]}" ;;
	depth) echo "${s[6]}" ;;
	priority) echo "${s[7]}" ;;
	req_r) echo "${s[8]}" ;;
	req_w) echo "${s[9]}" ;;
	req_o) echo "${s[10]}" ;;
	esac
}

# member counter: mstat NAME MEMBER FIELD
#   FIELD: dev | cr | cw | sr | sw | co | err | qhigh | qlow | inflight | dhigh | dlow
mstat() {
	local -a s
	local base f
	read -ra s <<< "$(dmsetup status "$1")"
	base=$((ST_MEMBER0 + $2 * ST_PER_MEMBER))
	case $3 in
	dev) f=0 ;; cr) f=1 ;; cw) f=2 ;; sr) f=3 ;; sw) f=4 ;; co) f=5 ;; err) f=6 ;;
	qhigh) f=7 ;; qlow) f=8 ;; inflight) f=9 ;; dhigh) f=10 ;; dlow) f=11 ;;
	esac
	echo "${s[$((base + f))]}"
}

# all member values of FIELD, space separated: mstat_all NAME FIELD
mstat_all() {
	local n m out=""
	n=$(dmsetup status "$1" | awk '{print $5}')
	for ((m = 0; m < n; m++)); do out+="$(mstat "$1" $m "$2") "; done
	echo "${out% }"
}

# Wait until a load started in the background has the volume open and
# requests are arriving: wait_io NAME [SECONDS]. A fixed sleep is not enough
# on a slow guest, where fio can take seconds to start.
wait_io() {
	local name=$1 secs=${2:-30} n0 i
	n0=$(($(vstat "$name" req_r) + $(vstat "$name" req_w)))
	for ((i = 0; i < secs * 10; i++)); do
		if [ "$(dmsetup info -c --noheadings -o open "$name")" -gt 0 ] &&
		   [ $(($(vstat "$name" req_r) + $(vstat "$name" req_w))) -gt "$n0" ]; then
			return 0
		fi
		sleep 0.1
	done
	fail "no I/O reached $name within $secs s"
}

# wait_until SECS CMD...: run CMD every 0.1 s until it succeeds; fail after
# SECS seconds.  For a test that needs a state (a sync under way, a line in
# the log, an event counted) rather than a fixed sleep, which a loaded
# machine can overrun and a fast one wastes.
wait_until() {
	local secs=$1 i
	shift
	for ((i = 0; i < secs * 10; i++)); do
		"$@" && return 0
		sleep 0.1
	done
	"$@" && return 0
	fail "not within $secs s: $*"
}

# klog_has REGEX: the kernel log since the last mark has a matching line
klog_has() { grep -q -- "$1" <<< "$(klog_since)"; }

# io_count NAME: requests the volume has taken (reads and writes);
# io_past NAME N: it has taken at least N
io_count() { echo $(($(vstat "$1" req_r) + $(vstat "$1" req_w))); }
io_past() { [ "$(io_count "$1")" -ge "$2" ]; }

# sync_past NAME ACTION N: a parity or mirror status line's
# <action> <done>/<all> <mismatches> has ACTION, and <done> past N
sync_past() {
	local st
	st=$(dmsetup status "$1" | awk '{print $(NF-2), $(NF-1)}')
	[ "${st% *}" = "$2" ] && st=${st#* } && [ "${st%/*}" -gt "$3" ]
}

# force_remove_open NAME FIO_PID: remove a volume that fio holds open --
# refused without --force, which swaps in a table that fails I/O; then
# stop fio, and the volume must go once closed.  1 on any failure.
force_remove_open() {
	local rc=0
	dmsetup remove "$1" 2>/dev/null && { fail "remove of an open volume succeeded"; rc=1; }
	dmsetup remove --force "$1" >/dev/null 2>&1
	kill -INT "$2" 2>/dev/null
	wait "$2"
	dmsetup remove "$1" >/dev/null 2>&1
	dmsetup info "$1" >/dev/null 2>&1 && { fail "volume still present after fio closed it"; rc=1; }
	return $rc
}

# zero the first MB mebibytes of devices
wipe() {
	local mb=$1 d
	shift
	for d in "$@"; do
		dd if=/dev/zero of="$d" bs=1M count="$mb" oflag=direct status=none || return 1
	done
}

# sha256 of the first SECTORS sectors of DEV from sector OFF
sum_dev() {
	# in 1 MiB reads (512-byte ones made a 12 MiB sum take seconds in TCG)
	dd if="$1" bs=1M skip=$((${3:-0} * 512)) count=$(($2 * 512)) \
		iflag=direct,skip_bytes,count_bytes status=none | sha256sum | cut -d' ' -f1
}

# Loop devices over sparse files: loop_members N MB [SECTOR_SIZE] -> LOOPS array
LOOPS=()
loop_members() {
	local i f
	LOOPS=()
	mkdir -p "$WORK"
	for ((i = 0; i < $1; i++)); do
		f=$WORK/member$i.img
		rm -f "$f"
		truncate -s "${2}M" "$f"
		LOOPS+=("$(losetup -f --show ${3:+-b $3} "$f")") || return 1
	done
}

# Remove every ssat-* device and every loop device we made.  Run after
# every test, mostly with nothing to do: one dmsetup ls (a device with no
# table yet has no sysfs entry, so only DM's own list is exact) and a look
# at the loop devices in sysfs, since each process started costs tens of
# ms under TCG.
cleanup_all() {
	local d f n left=0
	while read -r n _; do
		[[ $n == ssat-* ]] && left=1
	done < <(dmsetup ls 2>/dev/null)
	if [ $left = 1 ]; then
		for d in $(dmsetup ls 2>/dev/null | awk '/^ssat-/{print $1}' | sort -r); do
			dmsetup remove --retry "$d" >/dev/null 2>&1 ||
				dmsetup remove --force "$d" >/dev/null 2>&1
		done
		for d in $(dmsetup ls 2>/dev/null | awk '/^ssat-/{print $1}'); do
			dmsetup remove "$d" >/dev/null 2>&1
		done
	fi
	for f in /sys/block/loop*/loop/backing_file; do
		[ -r "$f" ] && read -r n < "$f" && [[ $n == "$WORK"/* ]] || continue
		d=${f#/sys/block/}
		losetup -d "/dev/${d%%/*}" 2>/dev/null
	done
	cfg_nullb_remove
	[ ! -e "$WORK" ] || rm -rf "$WORK"
	return 0
}

# Leak check.  Booted with slub_debug=U,kmalloc-* (tests/run-all does
# that), the kernel keeps the allocation stack of every live kmalloc object
# and lists them, grouped by stack, in /sys/kernel/debug/slab/*/alloc_traces.
# When a test's volumes are gone, no object allocated with one of the
# module's functions on its stack may be left.  Page, per-CPU and vmalloc
# allocations are not tracked this way.
SLAB_DBG=/sys/kernel/debug/slab
# kasan_kernel: true on a KASAN kernel, whose quarantine holds freed
# objects back from their slab, so that its allocation traces list them
# as live: the leak check cannot be trusted there (kmemleak can)
kasan_kernel() { grep -qw kasan_report /proc/kallsyms 2>/dev/null; }
leak_check_ready() {
	mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug 2>/dev/null
	[ "$(cat /sys/kernel/slab/kmalloc-64/store_user 2>/dev/null)" = 1 ] &&
		[ -r $SLAB_DBG/kmalloc-64/alloc_traces ]
}

# Print every group of live kmalloc objects that the module allocated
# (nothing when there is none).  A group starts with a count line
# ("  N site+off/len [mod] age=..."), the frames of its stack follow,
# innermost first.  The group is the module's when, walking out from the
# allocation, the first frame of a module other than dm_mod (DM core works
# for its targets: dm_get_device()) is one of dm_ssastripe's and no
# submit_bio frame came before it: what a member device allocates while
# serving the module's I/O (null_blk's pages for the data written) is the
# device's.  Nor is a group allocated while a module was loading
# (do_one_initcall) a volume's: a module's init code is freed once it has
# run, and a test that loads one (null_blk) leaves stacks whose init
# frames a later lookup can name after an unrelated function of ours
# (seen: null_blk's driver_register() "called from" ssa_apply_opts()).
# Nor is one the slab allocator made for itself: from Linux 6.18 a CPU
# keeps objects in per-CPU "sheaves", and a sheaf is kmalloc'ed when the
# CPU's runs empty or full, on the stack of whoever allocated or freed just
# then (seen on 7.2: a bio_alloc_bioset() of ssa_map_data(), a
# mempool_exit() of the target's destructor); such a stack has a
# __pcs_replace_* or *sheaf* frame before any module's.
module_allocs() {
	grep -qs '\[dm_ssastripe\]' $SLAB_DBG/kmalloc-*/alloc_traces || return 0
	module_allocs_in $SLAB_DBG/kmalloc-*/alloc_traces
}

module_allocs_in() {	# module_allocs_in ALLOC_TRACES...
	awk 'function out() { if (ours && blk !~ /do_one_initcall/) print blk }
	     function frame() {
		if (decided) return
		if ($0 ~ /submit_bio/) { decided = 1; return }
		if ($0 ~ /__pcs_replace_|sheaf/) { decided = 1; return }	# the slab allocator, for itself
		if ($0 ~ /\[dm_mod\]/) return	# DM core, for its target
		if ($0 ~ /\[[A-Za-z0-9_]+\]/) {
			decided = 1
			ours = $0 ~ /\[dm_ssastripe\]/
		}
	     }
	     FNR == 1 { out(); blk = ""; ours = 0; decided = 1 }
	     /^ *[0-9]+ / { out(); blk = FILENAME ":" $0; ours = 0; decided = 0; frame(); next }
	     { blk = blk "\n" $0; frame() }
	     END { out() }' "$@"
}

# module_leaks: module_allocs, asked again before anything is called a
# leak: with the dentry cache dropped and after a grace period (objects
# freed through RCU may still be waiting).  A sysfs link that is gone (the
# member's holders/ entry that DM core made for the target's
# dm_get_device()) keeps its name allocated for as long as a dentry of it
# is cached, and a path walk through /sys leaves one behind.  It takes two
# drops: the first only clears a recently used dentry's mark.
module_leaks() {
	local left
	left=$(module_allocs)
	[ -n "$left" ] || return 0
	echo 2 > /proc/sys/vm/drop_caches
	echo 2 > /proc/sys/vm/drop_caches
	# up to 10 s for the deferred frees (it was a fixed 2 s): a leak stays
	local i
	for ((i = 0; i < 20; i++)); do
		sleep 0.5
		left=$(module_allocs)
		[ -n "$left" ] || return 0
	done
	echo "$left"
}

# Kernel log since the last mark: klog_mark; ...; klog_since
# What a mark clears is kept in $SSA_KLOG (tests/kernel/run sets it), so
# a test that greps the log for one line leaves the whole trace behind.
klog_mark() { dmesg -c >> "${SSA_KLOG:-/dev/null}"; }
klog_since() { dmesg; }

# fio with the project's job files: run_fio JOBFILE [VAR=VALUE...]
# Output goes to the test log; the exit status is fio's.
run_fio() {
	local job=$1
	shift
	mkdir -p "$WORK"
	(cd "$WORK" && env "$@" fio --output-format=normal "$TOP/tests/fio/$job")
}

# ftrace capture of the target's tracepoints.  The "counter" clock orders
# events across CPUs exactly (the checks need order, not time).
TR=/sys/kernel/tracing
trace_start() {
	mountpoint -q $TR || mount -t tracefs nodev $TR || return 1
	[ -d $TR/events/ssastripe ] || { echo "no ssastripe events in $TR"; return 1; }
	echo 0 > $TR/tracing_on
	echo "${2:-counter}" > $TR/trace_clock
	echo "${1:-16384}" > $TR/buffer_size_kb
	echo > $TR/trace
	echo 1 > $TR/events/ssastripe/enable
	echo 1 > $TR/tracing_on
}
trace_start_only() {	# trace_start_only EVENT... (the target's other events off)
	trace_start || return 1
	echo 0 > $TR/tracing_on
	echo 0 > $TR/events/ssastripe/enable
	echo > $TR/trace
	local e
	for e in "$@"; do
		echo 1 > "$TR/events/ssastripe/$e/enable" || return 1
	done
	echo 1 > $TR/tracing_on
}
trace_stop() {	# trace_stop FILE
	echo 0 > $TR/tracing_on
	cat $TR/trace > "$1"
	echo 0 > $TR/events/ssastripe/enable
	echo > $TR/trace
	echo local > $TR/trace_clock
}

# fio JSON: total I/Os issued (reads + writes) of all jobs in FILE
fio_total_ios() {
	python3 -c 'import json,sys; j=json.load(open(sys.argv[1]))["jobs"]; print(sum(x["read"]["total_ios"] + x["write"]["total_ios"] for x in j))' "$1"
}

# null_blk members with 2 ms timer completions: servers with a service time
# (long enough that fio's own per-I/O overhead under TCG is small beside it),
# memory-backed so that data written can be verified.
# Loaded once per boot (the module's parameters are fixed at load).
nullb_members() {	# nullb_members N -> "DEV 0 ..." (N <= 4)
	grep -q '^null_blk ' /proc/modules ||
		modprobe null_blk nr_devices=4 gb=1 bs=512 irqmode=2 completion_nsec=2000000 memory_backed=1 || return 1
	local i out=""
	for ((i = 0; i < $1; i++)); do out+="/dev/nullb$i 0 "; done
	echo "${out% }"
}

# null_blk members of a test's own, made through configfs, so that a test
# can choose their service time: N devices ssatslow0.. completing
# NSEC ns after submission in a timer, memory-backed, 64 MiB each.
# cleanup_all removes them.
NULLB_CFG=/sys/kernel/config/nullb
cfg_nullb_members() {	# cfg_nullb_members N NSEC -> "DEV 0 ..."
	local i d dev out=""
	grep -q '^null_blk ' /proc/modules || nullb_members 0 > /dev/null || return 1
	mountpoint -q /sys/kernel/config ||
		mount -t configfs none /sys/kernel/config || return 1
	[ -d $NULLB_CFG ] || { echo "FAIL: no $NULLB_CFG (null_blk without configfs?)" >&2; return 1; }
	for ((i = 0; i < $1; i++)); do
		d=$NULLB_CFG/ssatslow$i
		[ -d "$d" ] || mkdir "$d" || return 1
		if [ "$(cat "$d/power")" = 0 ]; then
			echo 64 > "$d/size" && echo 512 > "$d/blocksize" &&
				echo 2 > "$d/irqmode" && echo "$2" > "$d/completion_nsec" &&
				echo 1 > "$d/memory_backed" && echo 1 > "$d/power" || return 1
		fi
		# named after the item (6.0 on), nullbINDEX before
		dev=/dev/ssatslow$i
		[ -b $dev ] || dev=/dev/nullb$(cat "$d/index")
		[ -b $dev ] || { echo "FAIL: $d powered on, but no block device" >&2; return 1; }
		[ "$(cat "$d/completion_nsec")" = "$2" ] ||
			{ echo "FAIL: $dev exists with another completion_nsec" >&2; return 1; }
		out+="$dev 0 "
	done
	echo "${out% }"
}

cfg_nullb_remove() {
	local d
	[ -d $NULLB_CFG ] || return 0
	for d in $NULLB_CFG/ssatslow*; do
		[ -d "$d" ] || continue
		echo 0 > "$d/power" 2>/dev/null
		rmdir "$d"
	done
}

SSATRACE=$TOP/build/ssatrace/ssatrace
SSALOAD=$TOP/build/ssaload/ssaload
# Start ssatrace with ARGS, its stderr in $WORK/ssatrace.err; wait until it
# is attached.  Sets SSAT_PID.
ssatrace_start() {
	mkdir -p "$WORK"
	"$SSATRACE" "$@" 2> "$WORK/ssatrace.err" &
	SSAT_PID=$!
	local i
	for i in $(seq 240); do
		grep -q "tracing dm-ssastripe" "$WORK/ssatrace.err" && return 0
		kill -0 $SSAT_PID 2>/dev/null || break
		sleep 0.25
	done
	cat "$WORK/ssatrace.err"
	return 1
}
ssatrace_stop() { stop_tracer "$SSAT_PID" ssatrace; }

# stop_tracer PID NAME: SIGINT a tracer and wait for it to print and exit;
# a tracer still running after 60 s is killed and the test fails (a wait
# without a bound would stall the suite until the runner's timeout).
#
# bpftrace 0.17 can miss a SIGINT: the suite has seen it sit in epoll_wait()
# for 60 s after one, with the load over (bpftrace_ssalat, once).  Its poll
# loop seems to look at the flag its handler sets only when an event comes
# or the wait is interrupted, so a signal that lands between two waits goes
# unseen.  bpftrace is sent SIGINT again every 5 s, and the test log says
# so; ssatrace checks its flag on every wake-up and gets one SIGINT only.
stop_tracer() {
	local pid=$1 i
	kill -INT "$pid" 2>/dev/null
	for ((i = 0; i < 240; i++)); do
		kill -0 "$pid" 2>/dev/null || { wait "$pid"; return; }
		if [ "$2" = bpftrace ] && [ $((i % 20)) = 19 ]; then
			info "bpftrace still running $(((i + 1) / 4)) s after SIGINT: SIGINT again"
			kill -INT "$pid" 2>/dev/null
		fi
		sleep 0.25
	done
	diag_tasks
	kill -KILL "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	fail "$2 did not exit within 60 s of SIGINT"
}

# bt_start OUT READY_RE ARGS...: run bpftrace ARGS in the background, output
# to OUT, and wait until OUT matches READY_RE (a line its BEGIN prints, so
# every probe is attached).  BT_PID is its pid.
BT_PID=
bt_start() {
	local out=$1 ready=$2 i
	shift 2
	mkdir -p "$WORK"
	bpftrace "$@" > "$out" 2>&1 &
	BT_PID=$!
	for ((i = 0; i < 480; i++)); do
		grep -Eq -- "$ready" "$out" && return 0
		kill -0 $BT_PID 2>/dev/null || break
		sleep 0.25
	done
	cat "$out"
	stop_tracer $BT_PID bpftrace
	fail "bpftrace did not attach within 120 s"
}
bt_stop() { stop_tracer "$BT_PID" bpftrace; }

# What the tasks that matter are doing: every task in D state with its kernel
# stack, and the tests' own processes (for a hung test's log).
diag_tasks() {
	local p
	echo "# tasks in D state:"
	for p in $(ps -eo pid=,stat= | awk '$2 ~ /^D/ {print $1}'); do
		echo "# $(ps -o pid=,wchan:32=,args= -p "$p")"
		sed 's/^/#   /' "/proc/$p/stack" 2>/dev/null
	done
	echo "# processes:"
	ps -eo pid,pgid,stat,wchan:24,etimes,args | \
		grep -E 'fio|dd |bpftrace|ssatrace|dmsetup|mkfs|python|sleep' | grep -v grep | sed 's/^/#   /'
	dmesg | tail -n 8 | sed 's/^/# dmesg: /'
}

# For a task that not even SIGKILL ends (tests/kernel/run prints it on the
# console): diag_tasks, the kernel's list of blocked tasks (sysrq w) and
# the volumes' status, whose per-member counters show a child that never
# came back.  dmsetup runs in the background: it may block too.
diag_stuck() {
	diag_tasks
	echo w > /proc/sysrq-trigger 2>/dev/null
	sleep 1
	echo "# kernel log (blocked tasks):"
	dmesg | tail -n 120 | sed 's/^/#   /'
	local f=/tmp/ssat-diag-status
	rm -f "$f"	# a blocked dmsetup leaves none, not an old one
	(dmsetup status 2>&1 | grep '^ssat' > "$f") &
	sleep 3
	echo "# dmsetup status:"
	sed 's/^/#   /' "$f" 2>/dev/null
}

# scrub NAME check|repair: run it to the end, print the mismatch count.
# raid5, pstripe and mirror status lines end alike: <action> <done>/<all>
# <mismatches>.
scrub() {
	local i st
	dmsetup message "$1" 0 "$2" || return 1
	for i in $(seq 1200); do
		st=$(dmsetup status "$1")
		[ "$(awk '{print $(NF-2)}' <<< "$st")" = idle ] && { awk '{print $NF}' <<< "$st"; return 0; }
		sleep 0.1
	done
	echo "timeout"
	return 1
}

# fio_clean FILE: fio's normal-format report in FILE shows its job ended
# without an error and its verification found nothing wrong.  For a run a
# signal ended: fio then exits non-zero, whatever the job did.
fio_clean() {
	grep -q "err= 0:" "$1" && ! grep -qiE "verify.*(fail|mismatch)|bad magic|crc32c" "$1"
}
