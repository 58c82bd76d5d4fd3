# SPDX-License-Identifier: GPL-2.0-only
# ssa identify's array geometry (Documentation/identify.rst, "Array
# geometry"), told only the device: ssastripe volumes over ssadisk members
# (preset ssa1999 at a drawn speed, each spindle at a random phase) whose
# layout is drawn at random (seeded, five draws: stripe over 2 to 6
# members, or mirror of 2 or 3 copies over 2 or 3 sets; a chunk of 8 to
# 256 KiB in 4 KiB steps; and one ssadisk alone, which must come out as a
# single disk) are measured by ssa.identify_array's measure_array (the
# --quick of python3 -m ssa.identify_array), in one interpreter, which
# must give the layout, the copies, the width and the chunk
# exactly.  Reads only.  Clocked: the order in which reads complete, and
# their times, are what the instruction clock gives.

identify_array_hidden() {
	local rc=0 j
	mkdir -p "$WORK"
	# one interpreter for the six draws: each start of Python reads numpy
	# from the host, and the instruction clock jumps while it waits (35 to
	# 187 s of guest time a draw with a start each, 2 to 13 s measuring)
	PYTHONPATH="$TOP/tools/pylib" "$TOP/.venv/bin/python3" - "$WORK" <<'PY' || rc=1
import json, random, subprocess, sys, time
from ssa import identify_array as ia
work = sys.argv[1]
rng = random.Random(20261129 + 87)
cap = 131072                      # one 64 MiB ramdisk, in sectors
kinds = ["stripe", "mirror", "stripe", "mirror", "stripe", "single"]


def dm(*args):
    subprocess.run(["dmsetup", *args], check=True, capture_output=True)


bad = 0
for i, kind in enumerate(kinds):
    chunk = 8 * rng.randint(2, 64)
    if kind == "stripe":
        members, copies = rng.randint(2, 6), 1
    elif kind == "single":          # one ssadisk: a volume of one member
        members, copies = 1, 1
    else:
        copies = 3 if i == 3 else 2
        members = copies * rng.randint(2, 6 // copies)
    sets = members // copies
    rpm = rng.choice([5400, 7200, 10000, 15000])
    n = cap // chunk * chunk * sets
    print(f"# draw {i}: {kind}, chunk {chunk}, {members} members, copies {copies}, {rpm} rpm",
          flush=True)
    t0 = time.monotonic()
    made = []
    try:
        devs = ""
        for j in range(members):
            dm("create", f"ssat-iad{j}", "--table",
               f"0 {cap} ssadisk /dev/ram{j} 0 4 preset ssa1999 rpm {rpm}")
            made.append(f"ssat-iad{j}")
            devs += f"/dev/mapper/ssat-iad{j} 0 "
        opts = f"2 copies {copies}" if kind == "mirror" else ""
        table = f"0 {n} ssastripe {kind} {chunk} {members} {devs}{opts}"
        # a single disk: the ssadisk itself, no array over it
        if kind == "single":
            table = f"0 {n} linear /dev/mapper/ssat-iad0 0"
        dm("create", "ssat-ia", "--table", table)
        made.insert(0, "ssat-ia")
        log = []
        out = ia.measure_array("/dev/mapper/ssat-ia", quick=True, seed=i + 1,
                               echo=log.append)
        json.dump(out, open(f"{work}/ia-{i}.json", "w"), default=float)
    except Exception as e:          # a refused table, identify's error
        print(f"# draw {i}: {type(e).__name__}: {e}; WRONG")
        bad += 1
        continue
    finally:
        for name in made:
            subprocess.run(["dmsetup", "remove", name], capture_output=True)
    r = out["result"]
    want = {"layout": kind, "copies": copies, "width": 1 if kind == "single" else sets,
            "chunk_sectors": chunk if sets > 1 else None}
    got = {k: r[k] for k in want}
    ok = got == want
    print(f"# draw {i}: -> {r['layout']} chunk {r['chunk_sectors']}, width {r['width']}, "
          f"copies {r['copies']}, turn {r['round_s'] * 1e3:.3f} ms, "
          f"confidence {r['confidence']}, {out['reads']} reads, {out['elapsed_s']:.1f} s "
          f"measuring, {time.monotonic() - t0:.0f} s in all: {'ok' if ok else 'WRONG'}",
          flush=True)
    if not ok:
        for line in log:
            print("#   " + line)
    bad += not ok
sys.exit(1 if bad else 0)
PY
	dmsetup remove ssat-ia 2>/dev/null
	for ((j = 0; j < 6; j++)); do dmsetup remove ssat-iad$j 2>/dev/null; done
	[ $rc = 0 ] || { fail "a hidden geometry was not recovered"; return 1; }
	return 0
}

register_clocked identify_array_hidden identify_array_hidden
