"""Independent replications where batch means are correlated
(ssa.replicate), and their place in a point's results."""

import json
import math
import os

import numpy as np
import pytest

from ssa import experiment as ex
from ssa import replicate as rp

from test_experiment import BASE, write_spec


def test_rho1_tells_correlated_batches():
    rng = np.random.default_rng(1)
    iid = rng.exponential(1.0, 20000)
    assert abs(rp.batch_rho1(iid)) < 0.45
    ar = np.zeros(20000)                        # a queue that relaxes slowly
    for i in range(1, len(ar)):
        ar[i] = 0.9995 * ar[i - 1] + rng.normal()
    assert rp.batch_rho1(ar) > rp.RHO1_LIMIT
    assert math.isnan(rp.batch_rho1([1.0] * 10))
    assert rp.flagged({"read_rho1": 0.6, "write_rho1": 0.1, "overall_rho1": None}) == ["read"]


def test_replicate_point_moves_the_streams_on(tmp_path):
    s = ex.load_spec(write_spec(tmp_path, BASE))
    p = ex.expand(s)[1]
    r2, r3 = rp.replicate_point(p, 2), rp.replicate_point(p, 3)
    assert (r2["id"], r3["id"]) == ("p01-r2", "p01-r3")
    seeds = {p["workload"].get("seed", 1), r2["workload"]["seed"], r3["workload"]["seed"]}
    assert len(seeds) == 3 and all(1 <= x < 2**32 for x in seeds)
    assert r2["replicate_of"] == "p01" and "replicate_of" not in p


def test_combine_uses_the_runs_means():
    runs = [{"status": "ok", "read_s": v, "read_ci_s": 0.0001, "read_n": 100, "rate": 10.0,
             "utilization_members": [0.5, 0.6], "requests": 100, "notes": []}
            for v in (0.020, 0.030, 0.025)]
    c = rp.combine(runs)
    assert c["replicates"] == 3 and c["ci_method"] == "replicates"
    assert c["read_s"] == pytest.approx(0.025)
    # t(0.975, 2) = 4.303, sd 0.005
    assert c["read_ci_s"] == pytest.approx(4.3027 * 0.005 / math.sqrt(3), rel=1e-3)
    assert c["read_runs_s"] == [0.020, 0.030, 0.025] and c["requests"] == 300


def point_dir(d, read_s, n=400, seed=0):
    """A point as labrun leaves it, reads taking read_s, writes 50 ms."""
    rng = np.random.default_rng(seed)
    os.makedirs(d, exist_ok=True)
    t = 10**9
    rows, recs = [], []
    hdr = ("fork_ns,join_ns,dev,id,op,sector,len,comm,status,nr_children,resp_ns,"
           "max_wait_ns,max_service_ns,skew_ns,children,truncated")
    for i in range(n):
        t += int(rng.exponential(0.05) * 1e9)
        op = "read" if i % 4 == 0 else "write"
        resp = int((read_s if op == "read" else 0.05) * 1e9)
        rows.append(f"{t},{t + resp},254:16,{i},{op},0,8,ssaload,0,1,{resp},0,{resp},0,"
                    f"0:low:{t}:{t}:{t + resp}:0:8,0")
        recs.append(f"{i},0,{op},0,4096,{t - 1000},{t - 500},{t + resp},0")
    (d / "trace.csv").write_text(hdr + "\n" + "\n".join(rows) + "\n")
    (d / "records.csv").write_text("id,client,op,offset,len,arrival_ns,submit_ns,complete_ns,"
                                   "status\n" + "\n".join(recs) + "\n")
    (d / "point.json").write_text(json.dumps({"status": "ok", "comm": "ssaload",
                                              "generator": "ssaload", "notes": []}))


def test_summarise_combines_a_points_runs(tmp_path):
    s = ex.load_spec(write_spec(tmp_path, BASE))
    point_dir(tmp_path / "p00", 0.020)
    point_dir(tmp_path / "p01", 0.020)
    point_dir(tmp_path / "p01-r2", 0.030, seed=1)
    point_dir(tmp_path / "p01-r3", 0.025, seed=2)
    res = ex.summarise(s, str(tmp_path), quick=False, clock="icount")
    p0, p1 = res["points"]
    assert "replicates" not in p0 and p0["read_s"] == pytest.approx(0.02)
    assert p1["replicates"] == 3 and p1["read_s"] == pytest.approx(0.025)
    assert p1["read_ci_s"] == pytest.approx(4.3027 * 0.005 / math.sqrt(3), rel=1e-3)
    assert any("3 independent runs" in n for n in p1["notes"])
    assert p1["error_read"] == pytest.approx(0.025 / p1["model_read_s"] - 1)


def test_wanted_and_extra_plan(tmp_path):
    s = ex.load_spec(write_spec(tmp_path, BASE))
    res = {"points": [{"id": "p00", "status": "ok", "read_rho1": 0.1},
                      {"id": "p01", "status": "ok", "read_rho1": 0.7},
                      {"id": "p02", "status": "failed", "read_rho1": 0.9}]}
    point_dir(tmp_path / "p01-r2", 0.02)
    need = rp.wanted(res, str(tmp_path))
    assert need == {"p01": [3]}
    pl = rp.extra_plan(s, False, "icount", str(tmp_path), need)
    (q,) = pl["points"]
    assert q["id"] == "p01-r3" and q["replicate_of"] == "p01"
    cmd = q["command"]
    assert cmd[cmd.index("--seed") + 1] == str(2 + 2 * rp.SEED_STEP)
    assert cmd[cmd.index("--records") + 1] == str(tmp_path / "p01-r3" / "records.csv")
    assert q["devices"] == ex.plan(s, False, "icount", str(tmp_path))["points"][1]["devices"]
    assert rp.extra_plan(s, False, "icount", str(tmp_path), {}) is None


def test_combine_averages_what_the_generator_saw():
    runs = [{"status": "ok", "read_s": v, "notes": [],
             "generator": {"read_s": v + 0.001, "rate": 5.0, "outrun": False}}
            for v in (0.020, 0.030)]
    g = rp.combine(runs)["generator"]
    assert g["read_s"] == pytest.approx(0.026) and g["rate"] == 5.0
    assert g["outrun"] is False and g["runs"] == 2
