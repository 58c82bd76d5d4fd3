"""The derivers of ssa.derive on synthetic results: seed 000's optimal stripe
unit beside the formulas, seed 004's bandwidth peaks and jitter, seed 003's
throughput, and the catalogue specs that use them."""

import json
import math
import os

import numpy as np
import pytest

from ssa import bsu, derive
from ssa import experiment as ex

KB = 1024

BSU_SPEC = """
title = "bsu"
seed = "000"
figure = "Figure 5"

[volume]
layout = "stripe"
members = 4
chunk_kb = 256
member_mb = 16

[workload]
generator = "ssaload"
mode = "closed"
think_ms = 0
p_read = 1.0
requests = 100

[sweep]
mpl = [1, 2]
"model.request_kb" = [0]

{series}
[model]
kind = "none"

[plot]
x = "request_kb"
by = "mpl"
y = ["read_s"]

[derive]
kind = "optimal_bsu"
formulas = ["lee-katz", "chen-patterson"]
"""


def bsu_spec(tmp_path, sizes=(256, 1024), extra=""):
    ser = ""
    for q in sizes:
        for n in (1, 2, 4):
            ser += (f'[[series]]\nlabel = "n={n}"\n"volume.chunk_kb" = {q / n:g}\n'
                    f'block = {q * KB // n}\nsizes = "fixed:{n}"\n'
                    f'"model.request_kb" = [{q}]\n{extra}\n')
    p = tmp_path / "bsu.toml"
    p.write_text(BSU_SPEC.format(series=ser))
    return ex.load_spec(str(p))


TOY_MPL1 = {256: {1: 0.030, 2: 0.032, 4: 0.036}, 1024: {1: 0.140, 2: 0.090, 4: 0.070}}


def toy_response(q_kb, n, mpl):
    """Alone (MPL 1) a small request loses by striping, a large one gains;
    a second client waits in proportion to the disks a request holds."""
    return TOY_MPL1[q_kb][n] * (1 + (mpl - 1) * n / 4)


def fake_results(spec, resp=toy_response, ci=0.0005, quick=False):
    pts = []
    for p in ex.expand(spec, quick):
        q = p["params"]["request_kb"]
        n = int(p["workload"]["sizes"].split(":")[1])
        m = p["workload"]["mpl"]
        pts.append({"id": p["id"], "label": p["label"], "status": "ok", "mpl": m,
                    "request_kb": q, "read_s": resp(q, n, m), "read_ci_s": ci})
    return {"quick": quick, "points": pts}


def test_choose_optimal_smallest_mean_and_the_tie_rule():
    c = [{"bsu": 1024, "disks": 1, "mean_s": 0.10, "ci_s": 0.001},
         {"bsu": 512, "disks": 2, "mean_s": 0.08, "ci_s": 0.001},
         {"bsu": 256, "disks": 4, "mean_s": 0.09, "ci_s": 0.001}]
    assert derive.choose_optimal(c)["bsu"] == 512
    # 256 and 512 statistically the same: the larger BSU, as seed 000 chose
    c[2]["mean_s"], c[2]["ci_s"] = 0.0795, 0.002
    o = derive.choose_optimal(c)
    assert o["bsu"] == 512 and o["fastest_bsu"] == 256 and o["tied_bsu"] == [256, 512]
    # NaN means are ignored; nothing measured gives nothing
    assert derive.choose_optimal([{"bsu": 1, "disks": 1, "mean_s": math.nan,
                                   "ci_s": math.nan}]) == {}


def test_optimal_bsu_table_and_formulas(tmp_path):
    spec = bsu_spec(tmp_path)
    res = fake_results(spec)
    out = derive.derive(spec, res, str(tmp_path))
    opt = {(o["mpl"], o["request"] // KB): o for o in out["data"]["optimal"]}
    # the toy: 256 KB never pays to stripe; 1 MB alone stripes over 4
    # disks, with a second client over 2
    assert opt[(1, 256)]["bsu"] == 256 * KB and opt[(2, 256)]["bsu"] == 256 * KB
    assert opt[(1, 1024)]["bsu"] == 256 * KB and opt[(1, 1024)]["disks"] == 4
    assert opt[(2, 1024)]["bsu"] == 512 * KB
    # the formulas as ssa.bsu gives them for seed 000's disk
    assert opt[(2, 1024)]["lee-katz"] == pytest.approx(bsu.seed000_lee_katz(2, 1024 * KB))
    assert opt[(2, 1024)]["lee-katz"] / KB == pytest.approx(163.89, abs=0.01)
    assert opt[(1, 1024)]["lee-katz"] == 0 and opt[(1, 1024)]["lee-katz_nearest"] == 256 * KB
    assert opt[(2, 1024)]["lee-katz_nearest"] == 256 * KB      # 164 KB -> 256 of 256/512/1024
    cp = bsu.chen_patterson_bsu(bsu.SEED000_POSITIONING_S, bsu.SEED000_TRANSFER_BPS, 2)
    assert opt[(2, 256)]["chen-patterson"] == pytest.approx(cp)
    titles = [s["title"] for s in out["sections"]]
    assert any("Figure" not in t and "Optimal stripe unit" in t for t in titles)
    assert any("Table 3" in t for t in titles)
    t3 = next(s["markdown"] for s in out["sections"] if "Table 3" in s["title"])
    assert "| 2 | 1024 | 512 |" in t3 and "| 1 |" not in t3     # MPL 1 left out
    fig5 = next(s["markdown"] for s in out["sections"] if s["title"].startswith("Optimal"))
    assert "**256** (n=4)" in fig5
    assert all(os.path.exists(f) for f in out["figures"]) and len(out["figures"]) == 2
    assert out["sections"][-1]["title"] == "Derived figures"
    assert "bsu-optimal-bsu.png" in out["sections"][-1]["markdown"]
    json.dumps(ex.nan_to_none(out["data"]))                    # results.json can hold it


def test_optimal_bsu_prefers_the_generators_whole_request_times(tmp_path):
    """A request above 1 MiB is several requests in the trace; the
    generator's records time the whole request, as the seed did."""
    spec = bsu_spec(tmp_path, sizes=(1024,))
    res = fake_results(spec)
    pid = res["points"][0]["id"]                                # 1 MB, n=1, MPL 1
    d = tmp_path / pid
    d.mkdir()
    rows = ["id,client,op,offset,len,arrival_ns,submit_ns,complete_ns,status"]
    rng = np.random.default_rng(3)
    resp = 0.2 + 0.01 * rng.standard_normal(60)
    t = 10**9
    for i, r in enumerate(resp):
        rows.append(f"{i},0,read,0,1048576,{t},{t + 1000},{t + int(r * 1e9)},0")
        t += int(r * 1e9) + 1000
    rows.append(f"60,0,read,0,1048576,{t},{t},{t + 10**9},-5")     # failed: not counted
    (d / "records.csv").write_text("\n".join(rows) + "\n")
    out = derive.derive(spec, res, str(tmp_path))
    r = next(x for x in out["data"]["responses"] if x["id"] == pid)
    assert r["source"] == "generator" and r["mean_s"] == pytest.approx(resp.mean())
    assert 0 < r["ci_s"] < 0.01
    others = [x for x in out["data"]["responses"] if x["id"] != pid]
    assert {x["source"] for x in others} == {"trace"}


def test_optimal_bsu_groups_by_think_time(tmp_path):
    spec = bsu_spec(tmp_path, sizes=(1024,), extra="think_ms = 345\n")
    res = fake_results(spec)
    out = derive.derive(spec, res, str(tmp_path))
    assert {o["think_ms"] for o in out["data"]["optimal"]} == {345.0}
    assert "think time 345 ms" in out["sections"][0]["title"]


def test_optimal_bsu_refuses_sizes_it_cannot_read(tmp_path):
    spec = bsu_spec(tmp_path, sizes=(256,))
    for s in spec["series"]:
        s["sizes"] = "uniform:4"
    with pytest.raises(ValueError, match="fixed:N"):
        derive.derive(spec, fake_results_any(spec), str(tmp_path))


def fake_results_any(spec):
    return {"quick": False, "points": [{"id": p["id"], "label": p["label"], "status": "ok",
                                        "read_s": 0.1, "read_ci_s": 0.0}
                                       for p in ex.expand(spec)]}


# -- seed 004 ---------------------------------------------------------------------

def test_member_shares_and_imbalance():
    c, n = 16 * KB, 8
    assert derive.member_shares(0, 8 * c, c, n) == [c] * 8
    assert derive.member_shares(c // 2, c, c, n) == [c // 2, c // 2] + [0] * 6
    # a request of 9 chunks: member 0 holds its first and last
    assert derive.member_shares(0, 9 * c, c, n)[0] == 2 * c
    # multiples of the stripe width load every member alike, aligned or not
    assert derive.imbalance(8 * c, c, n) == pytest.approx(1.0)
    assert derive.imbalance(16 * c, c, n, shift=512) == pytest.approx(1.0)
    assert derive.imbalance(9 * c, c, n) > 1.5
    assert derive.imbalance(c, c, n) == pytest.approx(8.0)            # one member a request


BW_SPEC = """
title = "bw"
seed = "004"
figure = "Graph 6"

[volume]
layout = "stripe"
members = 8
chunk_kb = 16
member_mb = 16

[disk]
preset = "cheetah73"

[workload]
generator = "fio"
job = "experiments/fio/seqread-qd1.fio"
requests = 48
offset_shift = 0

[sweep]
"volume.chunk_kb" = [16]
block = [16384]

[[series]]
label = "16 KB"
"volume.chunk_kb" = [16]
block = [{sizes}]

[model]
kind = "none"

[plot]
x = "block"
y = ["read_s"]

[derive]
kind = "bandwidth_peaks"
"""


def write_trace(d, responses, comm="fio"):
    d.mkdir(exist_ok=True)
    hdr = ("fork_ns,join_ns,dev,id,op,sector,len,comm,status,nr_children,resp_ns,"
           "max_wait_ns,max_service_ns,skew_ns,children,truncated")
    rows, t = [hdr], 10**9
    for i, r in enumerate(responses):
        ns = int(r * 1e9)
        rows.append(f"{t},{t + ns},254:8,{i},read,0,8,{comm},0,1,{ns},0,{ns},0,"
                    f"0:low:{t}:{t}:{t + ns}:0:8,0")
        t += ns + 1000
    rows.append(f"{t},{t + 10**9},254:8,999,read,0,8,systemd-udevd,0,1,0,0,0,0,"
                f"0:low:{t}:{t}:{t + 10**9}:0:8,0")
    (d / "trace.csv").write_text("\n".join(rows) + "\n")
    (d / "point.json").write_text(json.dumps({"status": "ok", "comm": comm}))


def test_bandwidth_peaks_on_stripe_width_multiples_and_jitter(tmp_path):
    c, w = 16 * KB, 128 * KB
    sizes = [k * c for k in range(1, 25)]
    p = tmp_path / "bw.toml"
    p.write_text(BW_SPEC.format(sizes=", ".join(map(str, sizes))))
    spec = ex.load_spec(str(p))
    pts = ex.expand(spec)
    res = {"quick": False, "points": []}
    for q in pts:
        size = q["params"]["block"]
        # a request takes 1 ms plus its largest member share at 31 MB/s
        t = 0.001 + max(derive.member_shares(0, size, c, 8)) / 31e6
        res["points"].append({"id": q["id"], "label": q["label"], "status": "ok",
                              "block": size, "chunk_kb": 16, "bandwidth_Bps": size / t,
                              "read_s": t, "comm": "fio"})
    # jitter of one point: a spread of responses, two of them past 1/30 s
    write_trace(tmp_path / pts[7]["id"], [0.01] * 38 + [0.05, 0.06])
    (tmp_path / pts[7]["id"] / "fio.json").write_text(json.dumps({"jobs": [{"read": {
        "total_ios": 40, "lat_ns": {"mean": 1.3e7, "stddev": 1e7, "max": 6e7,
                                    "percentile": {"50.000000": 1e7, "99.000000": 6e7}}},
        "write": {"total_ios": 0}}]}))
    out = derive.derive(spec, res, str(tmp_path))
    s = out["data"]["series"][0]
    assert s["width"] == w
    assert s["peaks"] == [w, 2 * w] and s["peaks_on_width"] == 2  # 3 w is the last point
    assert s["min_bw_above_width"] < s["max_bw_above_width"]
    row = next(x for x in out["data"]["points"] if x["id"] == pts[7]["id"])
    assert row["size"] == w and row["imbalance"] == pytest.approx(1.0)
    j = row["jitter"]
    assert j["n"] == 40                                           # udev's read dropped
    assert j["over_deadline"] == pytest.approx(2 / 40)
    assert j["p50_s"] == pytest.approx(0.01) and j["max_s"] == pytest.approx(0.06)
    assert row["fio"]["p99_s"] == pytest.approx(0.06) and row["fio"]["ios"] == 40
    md = out["sections"][0]["markdown"]
    assert "| 16 KB | 16 | 128 | 128, 256 | 2 of 2 |" in md
    assert os.path.exists(out["figures"][0])


def test_bandwidth_from_response_when_fio_gave_none(tmp_path):
    p = tmp_path / "bw.toml"
    p.write_text(BW_SPEC.format(sizes="131072, 147456, 262144"))
    spec = ex.load_spec(str(p))
    res = {"quick": False, "points": [
        {"id": q["id"], "label": q["label"], "status": "ok", "block": q["params"]["block"],
         "read_s": 0.01} for q in ex.expand(spec)]}
    out = derive.derive(spec, res, str(tmp_path))
    assert [x["bw"] for x in out["data"]["points"]] == pytest.approx(
        [131072 / 0.01, 147456 / 0.01, 262144 / 0.01])
    assert out["data"]["points"][0]["jitter"] == {}                # no trace: no jitter


# -- seed 003 ---------------------------------------------------------------------

def test_throughput_littles_law_by_members_and_mpl(tmp_path):
    text = """
title = "thr"
seed = "003"
figure = "Figure 12"
[volume]
layout = "stripe"
members = 2
chunk_kb = 64
member_mb = 16
[workload]
mode = "closed"
think_ms = 0
requests = 100
[sweep]
mpl = [8, 32]
"volume.members" = [1, 2]
[model]
kind = "none"
[plot]
x = "members"
by = "mpl"
y = ["overall_s"]
[derive]
kind = "throughput"
"""
    p = tmp_path / "thr.toml"
    p.write_text(text)
    spec = ex.load_spec(str(p))
    res = {"quick": False, "points": []}
    for q in ex.expand(spec):
        m, d = q["params"]["mpl"], q["params"]["members"]
        resp = m * 0.008 / d                        # 125 requests/s a disk, any queue
        res["points"].append({"id": q["id"], "label": "", "status": "ok", "mpl": m,
                              "members": d, "overall_s": resp, "overall_ci_s": resp * 0.02,
                              "rate": 125.0 * d})
    res["points"].append({"id": "p99", "status": "failed"})
    out = derive.derive(spec, res, str(tmp_path))
    rows = out["data"]["points"]
    assert len(rows) == 4
    for x in rows:
        assert x["throughput"] == pytest.approx(125.0 * x["members"])
        assert x["per_member"] == pytest.approx(125.0)
        assert x["ci"] == pytest.approx(x["throughput"] * 0.02)
    assert {x["group"] for x in rows} == {8, 32}
    assert "| - | 8 | 2 | 250.0 ± 5.0 | 250.0 | 125.0 |" in out["sections"][0]["markdown"]
    assert os.path.exists(out["figures"][0])


def test_unknown_deriver_is_refused(tmp_path):
    with pytest.raises(ValueError, match="unknown"):
        derive.derive({"derive": {"kind": "nope"}}, {}, str(tmp_path))


# -- the catalogue -------------------------------------------------------------------

@pytest.mark.parametrize("name,kind", [("seed000-fig3", "optimal_bsu"),
                                       ("seed000-fig8", "optimal_bsu"),
                                       ("seed003-fig12", "throughput"),
                                       ("seed004-graph6", "bandwidth_peaks"),
                                       ("seed004-graph7", "bandwidth_peaks"),
                                       ("seed004-graph8", "bandwidth_peaks"),
                                       ("seed004-graph9", "bandwidth_peaks")])
def test_catalogue_specs_derive_from_synthetic_points(tmp_path, name, kind):
    """Every spec that derives a table gets one from plausible numbers for
    its quick points (what make check will run)."""
    spec = ex.catalogue()[name]
    assert spec["derive"]["kind"] == kind
    pts = ex.expand(spec, quick=True)
    res = {"quick": True, "points": []}
    for p in pts:
        r = {"id": p["id"], "label": p["label"], "status": "ok", **p["params"],
             "read_s": 0.02, "read_ci_s": 0.001, "overall_s": 0.05, "overall_ci_s": 0.002,
             "rate": 100.0, "bandwidth_Bps": 5e7}
        res["points"].append(r)
    out = derive.derive(spec, res, str(tmp_path))
    assert out["sections"] and out["data"]


def test_seed000_series_give_chunk_block_and_size_consistently():
    """chunk = block = q / n and q carried for the plot, in every point."""
    for name in ("seed000-fig3", "seed000-fig8"):
        for p in ex.expand(ex.catalogue()[name]):
            n = int(p["workload"]["sizes"].split(":")[1])
            assert p["workload"]["block"] == p["volume"]["chunk_kb"] * KB
            q = p["workload"]["block"] * n
            if name == "seed000-fig3":
                assert p["params"]["request_kb"] * KB == q
            else:
                assert q == 2048 * KB
