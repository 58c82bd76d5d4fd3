"""ssa compare: ssatrace records against the models."""
import json
import math

import numpy as np
import pytest

from ssa import cli, compare

HEADER = ("fork_ns,join_ns,dev,id,op,sector,len,comm,status,nr_children,"
          "resp_ns,max_wait_ns,max_service_ns,skew_ns,children\n")


def synth(path, lam, mu, n, members=1, seed=1, p_read=1.0, fmt="csv"):
    """An ssatrace record file of FIFO single-server members (queue_depth 1)
    with Poisson arrivals and exponential service; every request forks one
    child on each member."""
    rng = np.random.default_rng(seed)
    t = np.cumsum(rng.exponential(1 / lam, n))
    free = [0.0] * members
    lines = []
    for i, a in enumerate(t):
        kids, join = [], a
        for m in range(members):
            d = max(a, free[m])
            c = d + rng.exponential(1 / mu)
            free[m] = c
            join = max(join, c)
            kids.append((m, int(a * 1e9), int(d * 1e9), int(c * 1e9)))
        op = "read" if rng.random() < p_read else "write"
        f, j = int(a * 1e9), int(join * 1e9)
        if fmt == "csv":
            ch = "|".join(f"{m}:low:{q}:{d}:{c}:0:8" for m, q, d, c in kids)
            lines.append(f"{f},{j},254:0,{i},{op},0,{8 * members},fio,0,{members},"
                         f"{j - f},0,0,0,{ch}\n")
        else:
            lines.append(json.dumps({
                "fork_ns": f, "join_ns": j, "op": op, "len": 8 * members, "status": 0,
                "children": [{"member": m, "class": "low", "queued_ns": q,
                              "dispatched_ns": d, "completed_ns": c}
                             for m, q, d, c in kids]}) + "\n")
    with open(path, "w") as fh:
        if fmt == "csv":
            fh.write(HEADER)
        fh.writelines(lines)
    return path


def test_batch_means_and_busy_time():
    x = np.arange(100, dtype=float)
    m, h = compare.batch_means(x, 10)
    assert m == pytest.approx(49.5) and h > 0
    with pytest.raises(ValueError):
        compare.batch_means(np.ones(5), 10)
    assert compare.busy_time([(0, 10), (5, 15), (20, 30)]) == 25
    assert compare.busy_time([]) == 0


@pytest.mark.parametrize("fmt", ["csv", "json"])
def test_mm1_trace_estimates_and_prediction(tmp_path, fmt):
    lam, mu = 50.0, 100.0
    recs = compare.load(synth(tmp_path / f"t.{fmt}", lam, mu, 60_000, fmt=fmt))
    meas = compare.estimate(recs)
    assert meas.rate == pytest.approx(lam, rel=0.02)
    st = meas.members[0]["low"]
    assert st.service[0] == pytest.approx(1 / mu, rel=0.02)
    assert st.service[1] == pytest.approx(2 / mu ** 2, rel=0.05)
    assert meas.utilization[0] == pytest.approx(lam / mu, rel=0.03)
    exact = 1 / (mu - lam)                                   # M/M/1 response
    assert abs(meas.response - exact) < 3 * meas.response_ci
    pred = compare.forkjoin_prediction(recs, meas)
    assert pred["all"] == pytest.approx(exact, rel=0.05)
    assert pred["all"] == pytest.approx(meas.response, rel=0.06)


def test_forkjoin_two_members_is_near_nelson_tantawi(tmp_path):
    lam, mu = 40.0, 100.0
    recs = compare.load(synth(tmp_path / "t.csv", lam, mu, 60_000, members=2, seed=4))
    meas = compare.estimate(recs)
    pred = compare.forkjoin_prediction(recs, meas)["all"]
    rho = lam / mu
    exact = (12 - rho) / 8 / (mu - lam)       # two-server fork-join, Nelson & Tantawi
    indep = 1.5 / (mu - lam)                  # max of two independent responses
    assert pred == pytest.approx(indep, rel=0.05)
    assert meas.response == pytest.approx(exact, rel=0.05)


def test_failed_and_childless_requests_are_skipped():
    lines = [HEADER,
             "1,2,254:0,1,read,0,8,fio,0,1,1,0,0,0,0:low:1:1:2:0:8\n",
             "3,4,254:0,2,read,0,8,fio,-5,1,1,0,0,0,0:low:3:3:4:0:8\n",
             "5,6,254:0,3,flush,0,0,fio,0,0,1,0,0,0,\n"]
    recs = compare.parse_records(lines)
    assert [r.fork for r in recs] == [1]


def test_block_sizes():
    recs = [compare.Record(0, 1, "write", s, ()) for s in (8, 8, 16, 100)]
    b = compare.block_sizes(recs, 8, 3)
    assert list(b) == [0.5, 0.25, 0.25]


def test_cli_compare_table_json_and_plot(tmp_path, capsys):
    files = [str(synth(tmp_path / f"r{lam}.csv", lam, 100.0, 20_000, seed=int(lam)))
             for lam in (20.0, 50.0, 70.0)]
    png = tmp_path / "cmp.png"
    assert cli.main(["compare", *files, "--plot", str(png), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [round(r["rate"], -1) for r in out["rows"]] == [20, 50, 70]
    for r in out["rows"]:
        assert abs(r["rel_error"]) < 0.1
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert cli.main(["compare", files[0]]) == 0
    assert "measured" in capsys.readouterr().out


def test_cli_compare_raid5_model(tmp_path, capsys):
    f = str(synth(tmp_path / "r.csv", 30.0, 100.0, 5_000, members=2, p_read=0.5))
    assert cli.main(["compare", f, "--model", "raid5", "--disks", "4", "--chunk-kb", "4",
                     "--json"]) == 0
    row = json.loads(capsys.readouterr().out)["rows"][0]
    assert row["predicted_s"] > 0 and math.isfinite(row["predicted_s"])
    assert cli.main(["compare", f, "--model", "raid5"]) == 2       # needs --chunk-kb
    assert "chunk" in capsys.readouterr().err
    assert cli.main(["compare", str(tmp_path / "missing.csv")]) == 2


def test_replay_reproduces_an_ideal_fifo_server_exactly(tmp_path):
    recs = compare.load(synth(tmp_path / "t.csv", 80.0, 100.0, 5_000, members=2, seed=9))
    meas = compare.estimate(recs)
    assert compare.replay_prediction(recs) == pytest.approx(meas.response, rel=1e-6)
    assert meas.arrival_cv2[0] == pytest.approx(1.0, abs=0.1)      # Poisson


def test_replay_serves_the_high_class_first():
    C = compare.Child
    kids = [C(0, "low", 0, 0, 10), C(0, "low", 1, 10, 20), C(0, "high", 2, 20, 25)]
    w = compare.replay_waits(kids)
    # the high child arrives while the first low one is served, and goes next
    assert w[kids[2]] == 8 and w[kids[1]] == 14 and w[kids[0]] == 0
