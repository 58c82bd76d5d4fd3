# SPDX-License-Identifier: GPL-2.0-only
# ssa identify (Documentation/identify.rst) told only the device: ssadisks
# whose settings are drawn at random (seeded, six draws: rotation 5400 to
# 15000 rpm, 2 to 6 heads, and one head in the sixth (every track a
# cylinder of its own, as on seed 001's members), 1 to 3 zones of 60 to
# 300 sectors a track, seek a 0.5-3 ms and b 40-250 us, overhead 0-600
# us, a random spindle phase) are measured by identify, which must give
# the rotation within 1 %, the mean seek within 5 %, the transfer rate at
# every zone point within 3 %, the command overhead within 100 us and two
# sector times, the heads and the sectors per track exactly.  Then the
# round trip:
# the first draw's identified table on a second ramdisk, the same random
# reads (fio, the same offsets, QD 1 and 8) on both, the disks' own mean
# service times (status svc_mean_us) within 2 %.  Clocked: a read's time
# is what the instruction clock counts.

identify_hidden_disks() {
	local rc=0 i out args n
	mkdir -p "$WORK"
	"$TOP/.venv/bin/python3" - "$WORK/draws" > "$WORK/draws.txt" <<'PY' || { fail "draws"; return 1; }
import json, random, sys
rng = random.Random(20261129)
cap = 131072                      # one 64 MiB ramdisk, in sectors
with open(sys.argv[1], "w") as f:
    for i in range(6):
        heads = rng.randint(2, 6)
        if i == 5:              # one head (drawn as the others, so they stay as they were)
            heads = 1
        nz = rng.randint(1, 3)
        spts = sorted(rng.sample(range(60, 300), nz), reverse=True)
        # cylinders: as many as fit, split between the zones
        per = [rng.uniform(0.2, 1.0) for _ in spts]
        budget = cap / heads
        scale = budget / sum(p * s for p, s in zip(per, spts))
        cyls = [max(30, int(p * scale * 0.97)) for p in per]
        d = {"heads": heads, "zones": list(zip(cyls, spts)),
             "rpm": rng.randint(5400, 15000), "seek_a_us": rng.randint(500, 3000),
             "seek_b_us": rng.randint(40, 250), "overhead_us": rng.randint(0, 600),
             "seed": rng.randint(1, 10**9)}
        d["sectors"] = heads * sum(c * s for c, s in d["zones"])
        d["cylinders"] = sum(c for c, _ in d["zones"])
        z = d["zones"]
        geo = (f"sectors_per_track {z[0][1]}" if len(z) == 1 else
               "zones " + " ".join([str(len(z))] + [f"{c} {s}" for c, s in z]))
        d["args"] = (f"mode mechanical cylinders {d['cylinders']} heads {heads} {geo} "
                     f"rpm {d['rpm']} seek_a {d['seek_a_us']}us seek_b {d['seek_b_us']}us "
                     f"overhead {d['overhead_us']}us phase random seed {d['seed']}")
        f.write(json.dumps(d) + "\n")
        print(d["sectors"], d["args"])
PY
	# one interpreter for every draw and the checks: in an emulated guest
	# numpy's import (read from the host) costs minutes of the guest's
	# clock each time
	OPENBLAS_NUM_THREADS=1 PYTHONPATH="$TOP/tools/pylib" "$TOP/.venv/bin/python3" - "$WORK" <<'PY' ||
import json, subprocess, sys
from ssa import identify
work = sys.argv[1]
for i, line in enumerate(open(f"{work}/draws.txt")):
    n, args = line.split(" ", 1)
    args = args.split()
    subprocess.run(["dmsetup", "create", "ssat-id", "--table",
                    f"0 {n} ssadisk /dev/ram0 0 {len(args)} {' '.join(args)}"], check=True)
    try:
        log = []
        out = identify.run("/dev/mapper/ssat-id", quick=True, budget_s=900, echo=log.append)
        print(f"# draw {i}: {log[-1]}")
        json.dump(out, open(f"{work}/identify-{i}.json", "w"), default=float)
    except identify.IdentifyError as e:
        print(f"FAIL: draw {i}: identify failed: {e} (after: {log[-1] if log else '-'})")
        sys.exit(2)
    finally:
        subprocess.run(["dmsetup", "remove", "ssat-id"], check=True)
draws = [json.loads(l) for l in open(f"{work}/draws")]
bad = 0
for i, d in enumerate(draws):
    r = json.load(open(f"{work}/identify-{i}.json"))
    res = r["result"]
    rot = 60 / d["rpm"]
    mean_true = identify.mean_seek(d["seek_a_us"] * 1e-6, d["seek_b_us"] * 1e-6, d["cylinders"])
    errs = {"rotation": res["rotation_s"] / rot - 1,
            "mean seek": res["mean_seek_s"] / mean_true - 1}
    ok = abs(errs["rotation"]) <= 0.01 and abs(errs["mean seek"]) <= 0.05
    ok &= res["heads"] == d["heads"]
    first = 0
    bounds = []
    for c, s in d["zones"]:
        bounds.append((first + c * d["heads"] * s, s))
        first += c * d["heads"] * s
    rate_err = 0.0
    for pt in r["zones"]["points"]:
        s_true = next(s for end, s in bounds if pt["sector"] < end)
        ok &= pt["spt"] == s_true
        rate_err = max(rate_err, abs(pt["spt"] / res["rotation_s"] / (s_true / rot) - 1))
    ok &= rate_err <= 0.03
    # the overhead, from reads queued behind others: within two sector
    # times of the fastest zone and 100 us (two completions' lateness)
    ts_min = rot / max(s for _, s in d["zones"])
    errs["overhead"] = res["overhead_s"] - d["overhead_us"] * 1e-6
    ok &= abs(errs["overhead"]) <= 2 * ts_min + 100e-6
    print(f"# draw {i}: {d['rpm']} rpm, {d['heads']} heads, zones {d['zones']}, seek "
          f"{d['seek_a_us']}+{d['seek_b_us']}sqrt(d) us, overhead {d['overhead_us']} us -> "
          f"rotation {errs['rotation']:+.2%}, mean seek {errs['mean seek']:+.2%}, heads "
          f"{res['heads']}, rates {rate_err:.2%}, overhead {res['overhead_s'] * 1e6:.0f} us "
          f"({errs['overhead'] * 1e6:+.0f}), "
          f"{r['reads']} reads: {'ok' if ok else 'WRONG'}")
    if not ok:      # the evidence: zone points, the heads' probes, the queued pairs
        oh, one = r["overhead"], r["heads"].get("one_head")
        print(f"#   S at {[(p['sector'], p['spt']) for p in r['zones']['points']]}; "
              f"heads at {r['heads']['at']}, one head: "
              f"{ {k: v for k, v in (one or {}).items() if k != 'scan'} }; seek from "
              f"{r['seek']['at']}; queued pairs (k: us), jump at {oh['k_jump']}: "
              f"{ {k: round(v * 1e6) for k, v in oh['queued_t'].items() if v == v} }")
    bad += not ok
with open(f"{work}/roundtrip.args", "w") as f:
    r = json.load(open(f"{work}/identify-0.json"))
    f.write(f"{draws[0]['sectors']} {' '.join(r['table_args'])}\n")
sys.exit(1 if bad else 0)
PY
		{ fail "identify failed or a hidden setting was not recovered"; return 1; }
	identify_round_trip || rc=1
	return $rc
}

# the first draw's disk and the disk identify made of it, the same reads
identify_round_trip() {
	local n args orig depth a b rc=0
	read -r n args < "$WORK/roundtrip.args"
	orig=$(sed -n 1p "$WORK/draws.txt" | cut -d' ' -f2-)
	dmsetup create ssat-id --table "0 $n ssadisk /dev/ram0 0 $(wc -w <<< "$orig") $orig" &&
		dmsetup create ssat-id2 --table "0 $n ssadisk /dev/ram1 0 $(wc -w <<< "$args") $args" ||
		{ fail "round trip: table refused: $args"; return 1; }
	for depth in 1 8; do
		for d in ssat-id ssat-id2; do
			dmsetup message $d 0 reset_stats
			(cd "$WORK" && DEV=/dev/mapper/$d NIOS=3000 DEPTH=$depth SEED=7 \
				fio --section=same --output="$WORK/rt-$d-$depth.log" \
				"$TOP/tests/fio/ssadisk.fio") || { fail "fio on $d"; rc=1; }
		done
		a=$(dmsetup status ssat-id | awk '{print $12}')
		b=$(dmsetup status ssat-id2 | awk '{print $12}')
		info "QD $depth: mean service $a us (drawn) against $b us (identified)"
		awk -v a="$a" -v b="$b" 'BEGIN { d = b / a - 1; exit !(d <= 0.02 && d >= -0.02) }' ||
			{ fail "QD $depth: the identified disk's mean service is not within 2 %"; rc=1; }
	done
	dmsetup remove ssat-id
	dmsetup remove ssat-id2
	return $rc
}

register_clocked identify_hidden_disks identify_hidden_disks
