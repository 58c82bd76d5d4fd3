# SPDX-License-Identifier: GPL-2.0-only
# ssa identify --policies (Documentation/identify.rst, "Array policies"):
# seed 001's elimination on a device, told nothing of it.  The members are
# six ssadisks like the lab's seed 001 disks (cheetah73 over its whole
# stroke, LOOK) at a drawn speed and seek slope; five RAID 1/0 volumes are
# drawn at random (seeded): a chunk of 16 or 32 KiB, two or three pairs,
# and hidden policies, each of three that seed 001's versions describe at
# least once (coalesce 1 + read_policy split, the FC-60's; coalesce 1 +
# read_policy queue; coalesce 0 + read_policy round_robin over three
# pairs).  identify is told each volume and one member's parameters as
# it measured them, and measures the geometry (--array --quick) and
# closed-loop reads, fitting the four model versions.  It must give the
# geometry and the
# balance exactly, and the coalescing where the model can tell it (under
# queue-length balance it cannot: a disk's units lie back to back, and it
# must say so).  The member's parameters are identify's own measurement
# of one member (a disk of one head: every track a cylinder), which must
# be right first: rotation within 1 %, mean seek within 5 %, no command
# overhead within two sector times and 100 us (identify_hidden_disks'
# tolerances).  Two of the draws also put an ssacache in front whose
# write limit is drawn (one or two stripes): identify --policies
# --destructive must say so first and find that limit.  A wrong answer
# fails.  Clocked: response times held to the model.

identify_policy_hidden() {
	local j rc=0
	mkdir -p "$WORK"
	"$TOP/.venv/bin/python3" - "$WORK/ip-draws.json" <<'PY' > "$WORK/ip-disk.args" ||
import json, random, sys
rng = random.Random(20261129 + 84)
disk = f"rpm {rng.choice([7200, 10000, 15000])} seek_b {rng.randint(300, 600)}us"
# the settings whose behaviour one of seed 001's versions describes; the
# round robin only over three pairs: over two, its volume-wide turn falls
# in step with the sets (a request's pieces alternate sets, so each set's
# go to one copy) and it balances like queue-length reduction -- which is
# what identify then reports (Documentation/identify.rst)
pols = [("coalesce 1 read_policy split", True, "transfer"),
        ("coalesce 1 read_policy queue", None, "queue"),
        ("coalesce 0 read_policy round_robin", False, "transfer")]
order = pols + [rng.choice(pols), rng.choice(pols)]
rng.shuffle(order)
cached = set(rng.sample(range(5), 2))
draws = []
for i, (opts, co, ba) in enumerate(order):
    d = {"chunk_kb": rng.choice([16, 32]), "sets": rng.choice([2, 3]), "opts": opts,
         "coalescing": co, "balance": ba}
    if "round_robin" in opts:
        d["sets"] = 3
    if i in cached:
        d["cache_stripes"] = rng.choice([1, 2])
    draws.append(d)
json.dump(draws, open(sys.argv[1], "w"))
print(disk)
PY
		{ fail "draws"; return 1; }
	for ((j = 0; j < 6; j++)); do
		dmsetup create ssat-ipd$j --table "0 131072 ssadisk /dev/ram$j 0 12 preset \
cheetah73 heads 1 cylinders 362 sched look $(cat "$WORK/ip-disk.args")" ||
			{ fail "member $j refused"; rc=1; }
	done
	# one interpreter for the member and every volume, and ssaload run
	# from the guest's memory: under the instruction clock the guest's
	# time jumps ahead whenever it waits for a file from the host
	cp "$SSALOAD" "$WORK/ssaload" || { fail "no ssaload"; rc=1; }
	[ $rc = 0 ] && OPENBLAS_NUM_THREADS=1 PYTHONPATH="$TOP/tools/pylib" SSALOAD="$WORK/ssaload" \
		"$TOP/.venv/bin/python3" - "$WORK" <<'PY' || rc=1
import json, subprocess, sys, time
from ssa import identify, identify_policy as ip
work = sys.argv[1]
print(f"# members: ssadisk cheetah73, {open(f'{work}/ip-disk.args').read().strip()}")
# The member disk's parameters: identify's own measurement of one member,
# held to what the drawn table says before any volume is fitted on it
args = open(f"{work}/ip-disk.args").read().split()
rot = 60 / float(args[args.index("rpm") + 1])
seek_b = float(args[args.index("seek_b") + 1].rstrip("us")) * 1e-6
t0 = time.monotonic()
try:
    m = identify.run("/dev/mapper/ssat-ipd0", quick=True, budget_s=900,
                     out_dir=f"{work}/ip-disk", echo=lambda _: None)["result"]
except identify.IdentifyError as e:
    print(f"FAIL: member: identify failed: {e}")
    sys.exit(1)
mean_true = identify.mean_seek(1e-3, seek_b, 361)          # 131072 sectors: 361 cylinders
ok = (m["heads"] == 1 and abs(m["rotation_s"] / rot - 1) <= 0.01
      and abs(m["mean_seek_s"] / mean_true - 1) <= 0.05
      and m["overhead_s"] <= 2 * rot / 363 + 100e-6)
print(f"# member: identify: {m['heads']} head(s), {m['rotation_s'] * 1e3:.3f} ms a turn, seek "
      f"{m['seek_a_s'] * 1e3:.3f} + {m['seek_b_s'] * 1e6:.0f} sqrt(d) us (mean "
      f"{m['mean_seek_s'] / mean_true - 1:+.2%}), overhead {m['overhead_s'] * 1e6:.0f} us "
      f"({time.monotonic() - t0:.0f} s): {'ok' if ok else 'WRONG'}")
if not ok:
    print("FAIL: member: identify's measurement is not the drawn disk's")
    sys.exit(1)


def dm(*args):
    subprocess.run(["dmsetup", *args], check=True)


bad = 0
for i, d in enumerate(json.load(open(f"{work}/ip-draws.json"))):
    n = 2 * d["sets"]
    chunk = d["chunk_kb"] * 1024
    members = " ".join(f"/dev/mapper/ssat-ipd{j} 0" for j in range(n))
    length = d["sets"] * 131072
    what = f"draw {i}: {d['chunk_kb']} KiB x {d['sets']} pairs, {d['opts']}"
    dm("create", "ssat-ip", "--table", f"0 {length} ssastripe mirror {chunk // 512} {n} "
       f"{members} 6 copies 2 {d['opts']}")
    t0 = time.monotonic()
    try:
        r = ip.run("/dev/mapper/ssat-ip", f"{work}/ip-disk/results.json", mpls=[1, 4, 8],
                   requests=100, out_dir=f"{work}/ip-{i}", quick=True, echo=lambda m: None)
        g = r["geometry"]
        ok = (g["layout"], g["copies"], g["width"], g["chunk_bytes"]) == \
            ("mirror", 2, d["sets"], chunk)
        ok = ok and r["coalescing"] is d["coalescing"] and r["balance"] == d["balance"]
        print(f"# {what}: {r['summary']}; geometry {g['layout']}, {g['copies']} copies, "
              f"width {g['width']}, chunk {g['chunk_bytes']} "
              f"({time.monotonic() - t0:.0f} s): {'ok' if ok else 'WRONG'}")
        bad += not ok
        if "cache_stripes" in d:
            # a write-back cache in front, taking writes of at most the
            # drawn number of stripes; the volume's geometry from above
            # (reads through a cache would hide the members' order)
            limit = d["cache_stripes"] * d["sets"] * chunk
            dm("create", "ssat-ipc", "--table",
               f"0 {length} ssacache /dev/mapper/ssat-ip {chunk // 512} 256 12 low_water 96 "
               f"high_water 96 max_dirty 128 destage_depth 8 cache_max {limit // 512} "
               "transfer_mbps 62")
            try:
                said = []
                t0 = time.monotonic()
                c = ip.run("/dev/mapper/ssat-ipc", f"{work}/ip-disk/results.json",
                           f"{work}/ip-{i}/results.json", units=[2 * d["sets"]], mpls=[1],
                           requests=60, out_dir=f"{work}/ip-{i}-cache", destructive=True,
                           echo=said.append)
                w = c["writes"]
                ok = ("--destructive" in said[0] and w["cache"] and w["clear"]
                      and w["limit_bytes"] == limit)
                print(f"# {what}, cache_max {limit // 1024} KiB: {w['summary']} "
                      f"({time.monotonic() - t0:.0f} s): {'ok' if ok else 'WRONG'}")
                bad += not ok
            finally:
                dm("remove", "ssat-ipc")
    except (OSError, ValueError) as e:
        print(f"FAIL: {what}: identify failed: {e}")
        bad += 1
    finally:
        dm("remove", "ssat-ip")
sys.exit(1 if bad else 0)
PY
	for ((j = 0; j < 6; j++)); do dmsetup remove ssat-ipd$j 2>/dev/null; done
	[ $rc = 0 ] || { fail "a hidden policy was not recovered"; return 1; }
	return 0
}

register_clocked identify_policy_hidden identify_policy_hidden
