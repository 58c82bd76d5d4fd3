# SPDX-License-Identifier: GPL-2.0-only
# ssa identify --array on Linux's own md (Documentation/identify.rst, "A
# worked example: md"), and identify's refusals (bad input).
#
# identify_md (clocked): md raid1 over 2, raid10 near2 (64 KiB chunks) over
# 4 and raid5 left-symmetric (128 KiB chunks) over 4 ssadisk members, by
# mdadm, and that raid5 again as a dm-raid table (raid5_ls, nosync,
# metadata devices on /dev/ram4)
# (preset ssa1999 at 10,000 rpm, random spindle phases; mdadm
# --assume-clean, no bitmap), each measured by ssa.identify_array's
# --quick told only /dev/md87: the layout, copies, chunk, width and
# members must be md's, and the read policy what md's read_balance() does
# over members that say they are not rotational (raid1: a sequential run
# stays on one copy; raid10: it is spread).  Not a sector is written to
# the array or a member meanwhile (their stat files' counts).
#
# identify_bad_input (clocked: its read-only case measures a disk's turn,
# which a busy host's delays on plain TCG could spoil): a device too
# small (2,048 sectors), one that returns errors (dm-error; dm-flakey
# over an ssadisk, up 2 s and down 1 s), a budget too short, and a
# read-only device (which identify measures, as it opens every device
# read-only), single disk and --array: a non-zero
# exit with the message expected (exit 0 for the read-only one), the
# read-only notice first, and the backing ramdisks' checksums unchanged
# (the first 8 MiB of each, all that the 8 MiB devices use).

IMD_DISK="preset ssa1999 rpm 10000"

identify_md() {
	local rc=0 j
	command -v mdadm > /dev/null || { skip "mdadm is not installed"; return; }
	modprobe raid1 && modprobe raid10 && modprobe raid456 ||
		{ skip "no md raid modules"; return; }
	mkdir -p "$WORK" /run/mdadm
	modprobe dm-raid 2>/dev/null
	# dm-raid's metadata devices: 4 MiB each of /dev/ram4, zeroed (a fresh
	# superblock)
	dd if=/dev/zero of=/dev/ram4 bs=1M count=16 oflag=direct status=none
	for ((j = 0; j < 4; j++)); do
		dd if=/dev/zero of=/dev/ram$j bs=1M count=1 oflag=direct status=none
		dmsetup create ssat-imd$j --table "0 131072 ssadisk /dev/ram$j 0 4 $IMD_DISK" ||
			{ fail "member $j refused"; rc=1; }
		dmsetup create ssat-imeta$j --table "0 8192 linear /dev/ram4 $((j * 8192))" ||
			{ fail "metadata device $j refused"; rc=1; }
	done
	[ $rc = 0 ] && info "members rotational: $(cat /sys/block/dm-$(dmsetup info -c \
		--noheadings -o minor ssat-imd0 | tr -d ' ')/queue/rotational) (0: md balances them by pending reads)"
	# one interpreter for the three arrays (each start reads numpy from the
	# host, and the instruction clock jumps while it waits): mdadm from it
	[ $rc = 0 ] && { MDADM_NO_UDEV=1 PYTHONPATH="$TOP/tools/pylib" "$TOP/.venv/bin/python3" - \
		"$WORK" <<'PY' || rc=1
import json, os, subprocess, sys, time
from ssa import identify_array as ia
work = sys.argv[1]
RAID5 = {"layout": "raid5", "copies": 1, "chunk_sectors": 256, "width": 3,
         "members": 4, "parity": "left-symmetric", "sequential": None}
arrays = {          # mdadm options (or a dm-raid table), members, what identify must say
    "raid1": (["--level=1"], 2,
              {"layout": "mirror", "copies": 2, "chunk_sectors": None, "width": 1,
               "members": 2, "parity": None, "sequential": 1}),
    "raid10": (["--level=10", "--layout=n2", "--chunk=64"], 4,
               {"layout": "mirror", "copies": 2, "chunk_sectors": 128, "width": 2,
                "members": 4, "parity": None, "sequential": 2}),
    "raid5": (["--level=5", "--layout=left-symmetric", "--chunk=128"], 4, RAID5),
    # md's raid5 again, through device-mapper's raid target: a table, no
    # mdadm; its superblocks on 4 MiB metadata devices (ssat-imeta*)
    "dm-raid raid5_ls": ("raid raid5_ls 2 256 nosync", 4, RAID5),
}


def create(opts, devs):
    """The array: /dev/md87 by mdadm, or /dev/mapper/ssat-idr (dm-raid)."""
    if isinstance(opts, list):
        subprocess.run(["mdadm", "--create", "/dev/md87", "--run", "--quiet", *opts,
                        f"--raid-devices={len(devs)}", "--assume-clean", "--bitmap=none",
                        "--metadata=1.2", *devs], check=True)
        return "/dev/md87"
    pairs = " ".join(f"/dev/mapper/ssat-imeta{j} {d}" for j, d in enumerate(devs))
    table = f"0 {131072 * (len(devs) - 1)} {opts} {len(devs)} {pairs}"
    subprocess.run(["dmsetup", "create", "ssat-idr", "--table", table], check=True)
    return "/dev/mapper/ssat-idr"


def destroy(opts, devs):
    if isinstance(opts, list):
        subprocess.run(["mdadm", "--stop", "/dev/md87"], capture_output=True)
        for d in devs:
            subprocess.run(["mdadm", "--zero-superblock", d], capture_output=True)
    else:
        subprocess.run(["dmsetup", "remove", "ssat-idr"], capture_output=True)


def writes(devs):
    """Sectors written to each block device so far (its stat file's 7th
    field): identify must add none, to the array or to a member."""
    out = []
    for d in devs:
        name = os.path.basename(os.path.realpath(d))
        if name.startswith("ssat-"):            # a node libdevmapper made itself
            name = "dm-" + str(os.minor(os.stat(d).st_rdev))
        with open(f"/sys/block/{name}/stat") as f:
            out.append(int(f.read().split()[6]))
    return out


bad = 0
for kind, (opts, n, want) in arrays.items():
    devs = [f"/dev/mapper/ssat-imd{j}" for j in range(n)]
    dev = create(opts, devs)
    try:
        if isinstance(opts, list):
            det = subprocess.run(["mdadm", "--detail", dev], capture_output=True,
                                 text=True).stdout
            print("# " + kind + ": md says " + "; ".join(
                " ".join(l.split()) for l in det.splitlines()
                if any(k in l for k in ("Raid Level", "Layout", "Chunk Size"))))
        else:
            print(f"# {kind}: dm says " + subprocess.run(
                ["dmsetup", "status", "ssat-idr"], capture_output=True,
                text=True).stdout.strip())
        before = writes([dev] + devs)
        log = []
        out = ia.measure_array(dev, quick=True, seed=87, echo=log.append)
        out["device"] = dev
        for line in log:
            print("#   " + line)
        json.dump(out, open(f"{work}/imd-{kind.replace(' ', '-')}.json", "w"), default=float)
        after = writes([dev] + devs)
        if after != before:
            print(f"# {kind}: sectors written during identify: {before} -> {after}")
            bad += 1
    finally:
        destroy(opts, devs)
    r = out["result"]
    got = {k: r[k] for k in want if k != "sequential"}
    got["sequential"] = out.get("read_policy", {}).get("sequential_copies")
    ok = got == want
    par = out.get("parity")
    extra = (f"; parity test: raid0 explains {par['score']['raid0']}, raid5 "
             f"{par['score']['raid5-left-symmetric']} of {par['n']}" if par else "")
    print(f"# {kind}: {out['summary']}{extra}; {out['reads']} reads, "
          f"{out['elapsed_s']:.1f} s, no sector written: "
          f"{'ok' if ok else 'WRONG ' + str(got)}")
    bad += not ok
sys.exit(1 if bad else 0)
PY
	}
	dmsetup remove ssat-idr 2>/dev/null
	for ((j = 0; j < 4; j++)); do
		dmsetup remove ssat-imd$j 2>/dev/null
		dmsetup remove ssat-imeta$j 2>/dev/null
	done
	[ $rc = 0 ] || { fail "md's geometry was not recovered"; return 1; }
	return 0
}

identify_bad_input() {
	local rc=0
	mkdir -p "$WORK"
	modprobe dm-flakey 2>/dev/null
	dmsetup create ssat-ib-small --table "0 2048 ssadisk /dev/ram0 0 4 $IMD_DISK" &&
	dmsetup create ssat-ib-err --table "0 131072 error" &&
	dmsetup create ssat-ib-d1 --table "0 16384 ssadisk /dev/ram1 0 4 $IMD_DISK" &&
	dmsetup create ssat-ib-flakey --table "0 16384 flakey /dev/mapper/ssat-ib-d1 0 2 1" &&
	dmsetup create ssat-ib-d2 --table "0 16384 ssadisk /dev/ram2 0 4 $IMD_DISK" &&
	dmsetup create ssat-ib-ro --readonly --table "0 16384 ssadisk /dev/ram3 0 4 $IMD_DISK" ||
		{ fail "devices refused"; rc=1; }
	info "ssat-ib-ro read-only: $(blockdev --getro /dev/mapper/ssat-ib-ro)"
	# one interpreter: each case is identify's main() (the exit status, and
	# what it says on standard error)
	[ $rc = 0 ] && { PYTHONPATH="$TOP/tools/pylib" "$TOP/.venv/bin/python3" - <<'PY' || rc=1
import contextlib, hashlib, io, sys
from ssa import identify, identify_array
M = "/dev/mapper/ssat-ib-"


def sums():
    """md5 of the first 8 MiB of /dev/ram0-3 (all the devices use),
    computed here: a process started per ramdisk reads its program from
    the host, and the instruction clock jumps while it waits."""
    out = []
    for j in range(4):
        with open(f"/dev/ram{j}", "rb") as f:
            out.append(hashlib.md5(f.read(8 << 20)).hexdigest())
    return out


before = sums()
cases = [   # name, main, arguments, exit status (None: non-zero), what it must end with
    ("small-disk", identify.main, [M + "small", "--quick"], None, "at least 4096"),
    ("small-array", identify_array.main, [M + "small", "--quick"], None, "at least 8192"),
    ("error-disk", identify.main, [M + "err", "--quick"], None, "Input/output error"),
    ("error-array", identify_array.main, [M + "err", "--quick"], None, "Input/output error"),
    ("flakey-disk", identify.main, [M + "flakey", "--quick"], None, "Input/output error"),
    ("flakey-array", identify_array.main, [M + "flakey"], None, "Input/output error"),
    ("budget-disk", identify.main, [M + "d2", "--budget", "1"], None, "time budget (1 s) ran out"),
    ("budget-array", identify_array.main, [M + "d2", "--budget", "0.2"], None,
     "time budget (0.2 s) ran out"),
    ("read-only", identify_array.main, [M + "ro", "--quick", "--seed", "1"], 0,
     "array: one server"),
]
bad = 0
for name, main, args, want, pat in cases:
    err, out = io.StringIO(), io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
        rc = main(args)
    lines = err.getvalue().splitlines()
    last = (out.getvalue().strip().splitlines() or lines or [""])[-1]
    ok = (rc != 0 if want is None else rc == want) and pat in last and \
        lines[0] == identify.READ_ONLY.format(device=args[0])
    print(f"# {name}: exit {rc}: {last}: {'ok' if ok else 'WRONG'}")
    bad += not ok
after = sums()
print(f"# ramdisks 0-3, first 8 MiB: md5 {' '.join(x[:8] for x in before)} before, "
      f"{' '.join(x[:8] for x in after)} after: {'ok' if after == before else 'CHANGED'}")
sys.exit(1 if bad or after != before else 0)
PY
	}
	for d in ro d2 flakey d1 err small; do dmsetup remove ssat-ib-$d 2>/dev/null; done
	[ $rc = 0 ] || { fail "a bad input was not refused as it should be"; return 1; }
	return 0
}

register_clocked identify_md identify_md
register_clocked identify_bad_input identify_bad_input
