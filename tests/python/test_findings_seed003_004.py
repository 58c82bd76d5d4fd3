"""The findings of seeds 003 and 004 (experiments/seed003-*.toml,
seed004-graph*.toml) on made-up derived tables: each check reads what
its note says -- a 16 KB pattern is found and a flat curve is not, the
cross-overs of Figure 13 fall where the table puts them, a seed model
that is not in its copy reads "not measured"."""

import pytest

from ssa import experiment as ex
from ssa import findings as fd

MB = 2 ** 20


def verdicts(name, derived):
    spec = ex.catalogue()[name]
    return {v.id: v for v in fd.evaluate(spec, {"points": [], "derived": {"data": derived}})}


def graph9_table(split_of, plain_of=lambda s: 92.0 + (s // 8192) % 5):
    sizes = range(917504, 1179648 + 1, 8192)
    return {"points": [{"label": "split at 16 KB, the rest after", "size": s,
                        "bw": split_of(s) * MB} for s in sizes]
            + [{"label": "128 KB stripe unit", "size": s, "bw": plain_of(s) * MB}
               for s in sizes]}


def test_graph9_peaks_every_16k_hold_only_with_the_pattern():
    v = verdicts("seed004-graph9", graph9_table(lambda s: 100.0 if s % 16384 == 0 else 50.0))
    split = v["split-peaks-on-16k-multiples"]
    assert split.verdict == "configured" and split.value is True
    assert split.lets["share"] == 1.0
    assert v["swing-80-mb"].verdict == "does not hold"      # 50 MB/s: 37.5 % short
    assert v["swing-80-mb"].lets["peak_step"] == pytest.approx(50.0)
    v = verdicts("seed004-graph9", graph9_table(lambda s: 80.0 if s % 16384 == 0 else 10.0))
    assert v["swing-80-mb"].verdict == "holds"
    # the lab's plain volume: a plateau with no 16 KB period
    assert v["peaks-on-16k-multiples"].verdict == "does not hold"
    assert v["swing-80-mb"].lets["plain_variation"] == pytest.approx(4.0)
    v = verdicts("seed004-graph9", graph9_table(
        lambda s: 50.0, plain_of=lambda s: 100.0 if s % 16384 == 0 else 90.0))
    assert v["peaks-on-16k-multiples"].verdict == "holds"
    assert v["split-peaks-on-16k-multiples"].value is False


def fig13_table(diff_satf, diff_look, base=800.0):
    """Throughput rows: striped at ``base``, the SR-Array at base + diff(p),
    RAID-10 below both."""
    rows = []
    for fam, diff in (("SATF", diff_satf), ("LOOK", diff_look)):
        sr = "3x2x1 SR RSATF" if fam == "SATF" else "3x2x1 SR RLOOK"
        for q in (8, 32):
            for p in (0.0, 0.2, 0.4, 0.6, 0.8, 1.0):
                rows += [{"label": f"6x1x1 striped {fam}", "x": p, "group": q,
                          "throughput": base * (0.9 + 0.1 * p)},
                         {"label": sr, "x": p, "group": q,
                          "throughput": base * (0.9 + 0.1 * p) + diff(p, q)},
                         {"label": f"3x1x2 RAID-10 {fam}", "x": p, "group": q,
                          "throughput": base * 0.5}]
    return {"points": rows}


def test_fig13_crossovers_where_the_table_puts_them():
    # LOOK: the SR-Array ahead above p = 0.7 (q 8) and 0.9 (q 32): write
    # ratios 0.3 and 0.1; SATF: ahead above 0.9 at q 8, behind everywhere at 32
    look = lambda p, q: (p - (0.7 if q == 8 else 0.5)) * 100        # noqa: E731
    satf = lambda p, q: (p - 0.9) * 100 if q == 8 else -50.0         # noqa: E731
    v = verdicts("seed003-fig13", fig13_table(satf, look))
    cross = v["look-crossover-below-half"].lets["cross"]
    assert cross[0] == pytest.approx([0.1, 0.0])
    assert cross[1] == pytest.approx([0.3, 0.5])
    assert v["look-crossover-below-half"].verdict == "does not hold"   # 0.5 is not below
    assert v["satf-crossover-left-of-look"].verdict == "holds"
    assert v["crossover-distance-grows-at-32"].verdict == "holds"       # 0.5 > 0.2
    assert v["raid10-worst-at-high-write-ratios"].verdict == "holds"
    assert v["sr-better-at-low-write-ratios"].verdict == "does not hold"  # q 32 SATF
    assert v["rlook-model-tracks"].verdict == "not measured"
    look = lambda p, q: (p - 0.8) * 100                              # noqa: E731
    v = verdicts("seed003-fig13", fig13_table(satf, look))
    assert v["look-crossover-below-half"].verdict == "holds"
    assert v["crossover-distance-grows-at-32"].verdict == "holds"     # 0.2 - 0 > 0.2 - 0.1


def fig12_table(thr):
    rows = []
    for label, ds in (("striped SATF", [1, 2, 3, 4, 5, 6]), ("RAID-10 SATF", [2, 4, 6]),
                      ("RAID-10 SATF, nearest copy", [2, 4, 6]),
                      ("SR RSATF (Dr 2)", [2, 4, 6]), ("SR RSATF (Dr 3)", [3, 6]),
                      ("SR RSATF (Dr 4)", [4]), ("SR RSATF (Dr 6)", [6]),
                      ("SR RLOOK (Dr 2)", [2, 4, 6]), ("SR RLOOK (Dr 3)", [3, 6])):
        for d in ds:
            for q in (8, 32):
                rows.append({"label": label, "x": d, "group": q, "throughput": thr(label, d, q)})
    return {"points": rows}


def test_fig12_scaling_and_the_narrowing_gap():
    def thr(label, d, q):
        per = {8: 100.0, 32: 200.0}[q] * d
        if label.startswith("SR"):           # the SR-Array's lead: 20 % at 8, 5 % at 32,
            lead = (0.20 if q == 8 else 0.05) * d / 6       # growing with the disks
            per *= 1 + lead
            if "RLOOK" in label:
                per *= 0.95
        if label.startswith("RAID"):
            per *= 0.97
        return per
    v = verdicts("seed003-fig12", fig12_table(thr))
    for fid in ("rsatf-scales", "rlook-close-to-rsatf", "satf-scales-worse",
                "gap-narrows-with-queue"):
        assert v[fid].verdict == "holds", (fid, v[fid].lets)
    assert v["rlook-model"].verdict == "not measured"

    def behind(label, d, q):                  # striping ahead at 32, as in the old runs
        x = thr(label, d, q)
        return x * 0.85 if q == 32 and label.startswith("SR") else x
    v = verdicts("seed003-fig12", fig12_table(behind))
    assert v["gap-narrows-with-queue"].verdict == "does not hold"
