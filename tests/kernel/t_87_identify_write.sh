# SPDX-License-Identifier: GPL-2.0-only
# ssa identify's small-write method of a RAID 5 (Documentation/identify.rst,
# "The small-write method"; ssa.identify_write, --destructive): where a
# 4 KiB write waits, told apart on six raid5 left-symmetric arrays over
# ssadisk members (preset ssa1999 at 10,000 rpm, random phases, 8 MiB
# each, their ramdisks filled with random bytes first):
#   ssastripe raid5, 4 members, write_method rmw -> rmw
#   ssastripe raid5, 4 members, write_method rcw -> rcw
#   ssastripe raid5, 4 and 5 members, write_method auto -> rcw, rmw
#   md raid5 (mdadm; skipped without it), 4 members -> rcw (a tie: md
#     takes rcw), 5 members -> rmw (two reads against three)
# each with every control (the target's and the parity's member) waited
# on, and the arrays' data the same before and after (md5 of every data
# sector through the array): the probe writes back what it read.
# Clocked: the order in which the write and the reads complete.

identify_write_method() {
	local rc=0 j
	command -v mdadm > /dev/null && modprobe raid456 2>/dev/null && local md=1
	mkdir -p "$WORK" /run/mdadm
	for ((j = 0; j < 5; j++)); do
		dd if=/dev/urandom of=/dev/ram$j bs=1M count=8 oflag=direct status=none
		dmsetup create ssat-iwd$j --table \
			"0 16384 ssadisk /dev/ram$j 0 4 preset ssa1999 rpm 10000" ||
			{ fail "member $j refused"; rc=1; }
	done
	[ $rc = 0 ] && { MDADM_NO_UDEV=1 SSA_MD=${md:-0} PYTHONPATH="$TOP/tools/pylib" \
		"$TOP/.venv/bin/python3" - <<'PY' || rc=1
import hashlib, mmap, os, subprocess, sys, time
from ssa import identify_write as iw

D = [f"/dev/mapper/ssat-iwd{j}" for j in range(5)]


def md5(dev):
    """Of every sector, read with O_DIRECT (the page cache would keep
    what the first pass read)."""
    h, buf = hashlib.md5(), mmap.mmap(-1, 1 << 20)
    fd = os.open(dev, os.O_RDONLY | os.O_DIRECT)
    try:
        off = 0
        while True:
            got = os.preadv(fd, [buf], off)
            if not got:
                return h.hexdigest()
            h.update(buf[:got])
            off += got
    finally:
        os.close(fd)


def ssa(n, method):
    devs = " ".join(f"{d} 0" for d in D[:n])
    table = (f"0 {16384 * (n - 1)} ssastripe raid5 128 {n} {devs} "
             f"4 write_method {method} initial_sync off")
    subprocess.run(["dmsetup", "create", "ssat-iw", "--table", table], check=True)
    return "/dev/mapper/ssat-iw", 128, lambda: subprocess.run(
        ["dmsetup", "remove", "ssat-iw"], capture_output=True)


def md(n):
    subprocess.run(["mdadm", "--create", "/dev/md88", "--run", "--quiet", "--level=5",
                    "--layout=left-symmetric", "--chunk=128", f"--raid-devices={n}",
                    "--assume-clean", "--bitmap=none", "--metadata=1.2", *D[:n]], check=True)

    def stop():
        subprocess.run(["mdadm", "--stop", "/dev/md88"], capture_output=True)
        for d in D[:n]:
            subprocess.run(["mdadm", "--zero-superblock", d], capture_output=True)
    return "/dev/md88", 256, stop


cases = [("ssastripe rmw, 4", lambda: ssa(4, "rmw"), 4, "rmw"),
         ("ssastripe rcw, 4", lambda: ssa(4, "rcw"), 4, "rcw"),
         ("ssastripe auto, 4", lambda: ssa(4, "auto"), 4, "rcw"),
         ("ssastripe auto, 5", lambda: ssa(5, "auto"), 5, "rmw")]
if os.environ.get("SSA_MD") == "1":
    cases += [("md raid5, 4", lambda: md(4), 4, "rcw"), ("md raid5, 5", lambda: md(5), 5, "rmw")]
else:
    print("# md: mdadm or raid456 missing, its two cases not run")
bad = 0
for i, (name, make, n, want) in enumerate(cases):
    t = [time.monotonic()]
    dev, chunk, remove = make()
    try:
        t.append(time.monotonic())
        before = md5(dev)
        t.append(time.monotonic())
        log = []
        geo = {"layout": "raid5", "parity": "left-symmetric", "members": n,
               "chunk_sectors": chunk}
        out = iw.measure_write_method(dev, geo, quick=True, seed=88 + i, echo=log.append)
        t.append(time.monotonic())
        after = md5(dev)
        t.append(time.monotonic())
    finally:
        remove()
    ok = out["method"] == want and before == after
    print(f"# {name}: {out['summary']}; data {'unchanged' if before == after else 'CHANGED'}: "
          f"{'ok' if ok else 'WRONG (want ' + want + ')'} (guest s: " + ", ".join(
              f"{what} {b - a:.1f}" for what, a, b in
              zip(("made", "md5", "probes", "md5"), t, t[1:])) + ")")
    for line in log[1:]:
        print("#   " + line)
    bad += not ok
sys.exit(1 if bad else 0)
PY
	}
	for ((j = 0; j < 5; j++)); do dmsetup remove ssat-iwd$j 2>/dev/null; done
	[ $rc = 0 ] || { fail "a small-write method was not told"; return 1; }
	return 0
}

register_clocked identify_write_method identify_write_method
