"""tools/vm: the QEMU options a guest gets, checked without booting one.

Under TCG the kernel suite relies on both vCPUs running in one host thread
(QEMU's thread-per-vCPU TCG loses a 6.1 guest when the kernel patches its
own code during I/O; Documentation/testing.rst, "The guest").  These cases
read the command line tools/vm would start QEMU with (VM_DRY_RUN=1, which
boots nothing), so losing that option fails here rather than as a guest
that stops without a word an hour into a CI run.
"""
import os
import pathlib
import subprocess

import pytest

TOP = pathlib.Path(__file__).resolve().parents[2]
VM = TOP / "tools" / "vm"


def qemu_command(tmp_path, *args, **env):
    """The QEMU command line tools/vm would run, and its banner line."""
    environ = dict(os.environ, VM_DRY_RUN="1", **env)
    done = subprocess.run([str(VM), "-o", str(tmp_path), *args, "--", "true"],
                          env=environ, capture_output=True, text=True, timeout=120)
    if done.returncode != 0:
        if "no guest kernel" in done.stderr or "virtme-ng missing" in done.stderr:
            pytest.skip("no guest to describe: " + done.stderr.strip().splitlines()[-1])
        pytest.fail("tools/vm failed: " + done.stderr)
    qemu = [line for line in done.stdout.splitlines() if "qemu-system-" in line]
    assert len(qemu) == 1, done.stdout
    banner = [line for line in done.stderr.splitlines() if line.startswith("tools/vm: guest")]
    return qemu[0].split(), banner


def option(argv, name):
    """Every value given to QEMU option NAME."""
    return [argv[i + 1] for i, a in enumerate(argv[:-1]) if a == name]


def test_tcg_guest_runs_its_vcpus_in_one_host_thread(tmp_path):
    argv, banner = qemu_command(tmp_path, VM_ACCEL="tcg")
    assert option(argv, "-accel") == ["tcg,thread=single"]
    assert option(argv, "-smp") == ["2"]
    assert "one host thread" in banner[0]


def test_multi_threaded_tcg_only_when_asked(tmp_path):
    argv, banner = qemu_command(tmp_path, VM_ACCEL="tcg", VM_TCG_THREAD="multi")
    assert not any("thread=single" in a for a in argv)
    assert "one host thread" not in banner[0]


def test_instruction_clock_guest(tmp_path):
    argv, banner = qemu_command(tmp_path, "-i")
    assert option(argv, "-icount") == ["shift=3,sleep=off"]
    assert option(argv, "-smp") == ["1"]
    assert "instruction clock" in banner[0]
