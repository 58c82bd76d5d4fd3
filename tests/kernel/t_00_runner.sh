# SPDX-License-Identifier: GPL-2.0-only
# The runner's own check, opt-in (SSA_RUNNER_SELFTEST=1): a test that
# leaves a task no signal can end must stop the run with a "Bail out!" and
# what the tasks were doing, not hang it.  A read of a suspended volume
# waits in the kernel until the volume is resumed, which this test never
# does.  Run it alone, with a short timeout:
#   SSA_RUNNER_SELFTEST=1 SSA_TEST_TIMEOUT=5 tests/kernel/run runner_stuck
# and expect "not ok 1 runner_stuck", the blocked dd in the diagnostics
# and "Bail out!".  (tools/vm powers the guest off with the read pending.)
# make check-full does this in a guest of its own: tests/runner-selftest.

runner_stuck() {
	vol_create ssat-stuck 16384 stripe 8 "$(ram_members 2)" || return 1
	dmsetup suspend ssat-stuck || return 1
	dd if=/dev/mapper/ssat-stuck of=/dev/null bs=4k count=1 iflag=direct
	fail "a read of a suspended volume returned"
}

# A kernel WARNING that a test moves out of the log (klog_mark) must still
# fail the guest: tools/vm-guest reads the moved logs too.  /dev/kmsg puts
# a line of the shape a WARN() prints into the kernel log; the test itself
# passes, and tests/runner-selftest expects tools/vm to exit 125 naming it.
runner_warning() {
	echo "WARNING: CPU: 0 PID: $$ at runner_warning (provoked by tests/runner-selftest)" > /dev/kmsg
	klog_mark
	dmesg | grep -q "runner_warning (provoked" && { fail "klog_mark left the line in the log"; return 1; }
	return 0
}

if [ "${SSA_RUNNER_SELFTEST:-0}" = 1 ]; then
	register runner_warning runner_warning
	register runner_stuck runner_stuck
fi
