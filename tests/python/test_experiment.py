"""The experiment lab's pure part (ssa.experiment): specs, points, device
tables, the generator's command line, the analysis of a point directory,
the models beside it and the partial results of a run that died."""

import json
import math
import os

import numpy as np
import pytest

from ssa import experiment as ex

BASE = """
title = "t"
seed = "002"
figure = "Table 1"

[volume]
layout = "raid5"
members = 4
chunk_kb = 4
member_mb = 1
options = ["sync before_service", "queue_depth 1"]

[disk]
preset = "ct1992"
p_seq = 0.3

[workload]
mode = "open"
p_read = 0.25
requests = 1000

[sweep]
rate = [10, 20]

[quick]
rate = [5]
requests = 100

[model]
kind = "raid5"

[plot]
x = "rate"
y = ["read_s"]

[check]
tolerance = 0.1
"""


def write_spec(tmp_path, text, name="exp1"):
    p = tmp_path / f"{name}.toml"
    p.write_text(text)
    return str(p)


def test_catalogue_loads_every_spec():
    cat = ex.catalogue()
    assert "seed002-table1" in cat and "seed002-table2" in cat
    for name, spec in cat.items():
        assert ex.expand(spec, quick=True), name
        assert spec["name"] == name


def test_expand_sweep_and_quick(tmp_path):
    s = ex.load_spec(write_spec(tmp_path, BASE))
    full = ex.expand(s)
    assert [p["workload"]["rate"] for p in full] == [10, 20]
    assert [p["id"] for p in full] == ["p00", "p01"]
    q = ex.expand(s, quick=True)
    assert len(q) == 1 and q[0]["workload"]["rate"] == 5 and q[0]["workload"]["requests"] == 100


def test_series_override_lists_and_quick_false(tmp_path):
    text = BASE + """
[[series]]
label = "A"
"volume.layout" = "pstripe"
skew = 1
rate = [1, 2, 3]
"quick.rate" = [7]

[[series]]
label = "B"
quick = false
"""
    s = ex.load_spec(write_spec(tmp_path, text))
    pts = ex.expand(s)
    assert [(p["label"], p["workload"]["rate"]) for p in pts] == \
        [("A", 1), ("A", 2), ("A", 3), ("B", 10), ("B", 20)]
    assert pts[0]["volume"]["layout"] == "pstripe" and pts[0]["workload"]["skew"] == 1
    assert pts[3]["volume"]["layout"] == "raid5"
    q = ex.expand(s, quick=True)
    assert [(p["label"], p["workload"]["rate"]) for p in q] == [("A", 7)]   # its own quick list


@pytest.mark.parametrize("edit,msg", [
    (("[volume]", "[volume]\nfrobnicate = 1"), "unknown key"),
    (('layout = "raid5"', 'layout = "raid6"'), "volume.layout"),
    (("members = 4", "members = 2"), "3 or more"),
    (('mode = "open"', 'mode = "ajar"'), "open or closed"),
    (("requests = 1000", "requests = 10"), "at least 40"),
    (('kind = "raid5"', 'kind = "magic"'), "model.kind"),
    (('preset = "ct1992"', 'preset = "ssa1999"'), "preset"),
    (("rate = [10, 20]", "rate = []"), "non-empty"),
    (("rate = [10, 20]", "rate = [10, 0]"), "rate > 0"),
    (('title = "t"\n', ""), "missing title"),
    (("p_read = 0.25", "p_read = 1.5"), "p_read"),
    (("[volume]", "[volume]\nprefill = 1"), "volume.prefill must be true or false"),
])
def test_bad_specs_name_the_problem(tmp_path, edit, msg):
    text = BASE.replace(*edit, 1)
    with pytest.raises(ex.SpecError, match=msg):
        ex.load_spec(write_spec(tmp_path, text))


def test_bad_toml(tmp_path):
    with pytest.raises(ex.SpecError, match="not valid TOML"):
        ex.load_spec(write_spec(tmp_path, "title = "))


def test_unknown_experiment_is_refused():
    with pytest.raises(ex.SpecError, match="unknown experiment.*ssa experiment list"):
        ex.resolve(["no-such-thing"], ex.catalogue())
    assert ex.resolve(["all"], {"a": {}, "b": {}}) == ["a", "b"]


def test_volume_tables_raid5_over_ssadisks(tmp_path):
    s = ex.load_spec(write_spec(tmp_path, BASE))
    p = ex.expand(s)[0]
    devs = ex.volume_tables(p, [f"/dev/ram{i}" for i in range(4)])
    assert [d[0] for d in devs] == ["lab-d0", "lab-d1", "lab-d2", "lab-d3", "lab-vol"]
    assert devs[0][1] == "0 2048 ssadisk /dev/ram0 0 4 preset ct1992 p_seq 0.3"
    vol = devs[-1][1].split()
    assert vol[2:6] == ["ssastripe", "raid5", "8", "4"]
    assert vol[-5:] == ["4", "sync", "before_service", "queue_depth", "1"]
    # 2048 sectors a member = 256 rows of 8 sectors, 3 data chunks a row
    assert int(vol[1]) == 256 * 8 * 3
    with pytest.raises(ValueError, match="backing"):
        ex.volume_tables(p, ["/dev/ram0"])


@pytest.mark.parametrize("layout,n,extra,want", [
    ("stripe", 4, {}, 256 * 8 * 4),
    ("mirror", 4, {"copies": 2}, 256 * 8 * 2),
    ("pstripe", 4, {}, 256 * 8 * 3),            # 256 rows: a multiple of 4
    ("pstripe", 3, {}, 255 * 8 * 2),            # 256 rows cut to 255 = 3 x 85
    # 2048 sectors = 21 tracks of 96 (2016), each 96 / 3 = 32 of data
    ("srarray", 2, {"options": ["replicas 3", "track_sectors 96"]}, 21 * 32 * 2),
    ("srarray", 1, {"options": ["track_sectors 64"]}, 32 * 32),   # replicas 2
])
def test_volume_length_fits_each_layout(layout, n, extra, want):
    vol = {"layout": layout, "members": n, "chunk_kb": 4, "member_mb": 1, **extra}
    assert ex.volume_length(vol) == want


@pytest.mark.parametrize("opts,msg", [
    (["replicas 2"], "track_sectors"),
    (["replicas 3", "track_sectors 64"], "chunk must divide"),
    (["replicas 3", "track_sectors 60"], "chunk must divide"),    # arc 20, chunk 8
    (["replicas 3", "track_sectors 96"], None),                   # arc 32
])
def test_srarray_spec_checks(tmp_path, opts, msg):
    text = BASE.replace('layout = "raid5"', 'layout = "srarray"').replace(
        'kind = "raid5"', 'kind = "none"').replace(
        'options = ["sync before_service", "queue_depth 1"]',
        "options = [" + ", ".join(f'"{o}"' for o in opts) + "]")
    if msg is None:
        ex.load_spec(write_spec(tmp_path, text))
        return
    with pytest.raises(ex.SpecError, match=msg):
        ex.load_spec(write_spec(tmp_path, text))


def test_ssaload_args_open_closed_and_skew(tmp_path):
    s = ex.load_spec(write_spec(tmp_path, BASE))
    p = ex.expand(s)[0]
    a = ex.ssaload_args(p, "/dev/x", "r.csv", "s.json", seed=3)
    assert a[:3] == ["/dev/x", "--open", "10.0"]
    assert "--think" not in a and a[a.index("--read-frac") + 1] == "0.25"
    assert a[a.index("--seed") + 1] == "3"
    p["workload"].update(mode="closed", mpl=4, think_ms=30, skew=1)
    del p["workload"]["rate"]
    a = ex.ssaload_args(p, "/dev/x", "r.csv", "s.json")
    assert a[1:5] == ["--closed", "4", "--think", "30.0"] and "--max-outstanding" not in a
    z = [float(x) for x in a[a.index("--zones") + 1].split(",")]
    assert np.allclose(z, np.arange(1, 5) / 10)


def test_seed_is_a_sweepable_workload_key(tmp_path):
    """Replicates of one point: the generator's seed swept like a rate."""
    text = BASE.replace("rate = [10, 20]", "seed = [1, 7]").replace(
        "requests = 1000", "requests = 1000\nrate = 10").replace(
        "[quick]\nrate = [5]", "[quick]\nseed = [3]")
    s = ex.load_spec(write_spec(tmp_path, text))
    seeds = [ex.ssaload_args(p, "/dev/x", "r.csv", "s.json")
             for p in ex.expand(s)]
    assert [a[a.index("--seed") + 1] for a in seeds] == ["1", "7"]
    with pytest.raises(ex.SpecError, match="seed"):
        ex.load_spec(write_spec(tmp_path, text.replace("seed = [1, 7]", "seed = [0]")))


def test_load_resolves_to_model_maxrate(tmp_path):
    text = BASE.replace("rate = [10, 20]", "p_read = [0.75]").replace(
        "[quick]\nrate = [5]", "[quick]\np_read = [0.75]").replace(
        "requests = 1000", "requests = 1000\nload = 0.5").replace('kind = "raid5"', 'kind = "maxrate"')
    s = ex.load_spec(write_spec(tmp_path, text))
    p = ex.expand(s)[0]
    m = ex.model_point(p)["model"]["max_rate"]
    assert p["workload"]["rate"] == pytest.approx(0.5 * m, abs=0.01)


# -- analysis of a point directory ----------------------------------------------

def make_point_dir(d, n=400, warm=20, udev=3, rate=20.0, seed=0):
    """A point as labrun leaves it: ssatrace CSV (warm-up first, udev's
    reads after), ssaload records and summary, point.json."""
    rng = np.random.default_rng(seed)
    os.makedirs(d, exist_ok=True)
    t = 1_000_000_000
    rows, recs = [], []
    hdr = ("fork_ns,join_ns,dev,id,op,sector,len,comm,status,nr_children,resp_ns,"
           "max_wait_ns,max_service_ns,skew_ns,children,truncated")
    for i in range(warm + n):
        t += int(rng.exponential(1 / rate) * 1e9)
        op = "read" if i % 4 == 0 else "write"
        resp = int((0.02 if op == "read" else 0.05) * 1e9)
        kid = f"0:low:{t}:{t}:{t + resp}:0:8"
        rows.append(f"{t},{t + resp},254:16,{i},{op},0,8,ssaload,0,1,{resp},0,{resp},0,{kid},0")
        if i >= warm:
            recs.append(f"{i - warm},0,{op},0,4096,{t - 1000},{t - 500},{t + resp},0")
    for j in range(udev):
        t += 10**9
        rows.append(f"{t},{t + 5 * 10**9},254:16,{9000 + j},read,0,256,systemd-udevd,0,1,"
                    f"0,0,0,0,0:low:{t}:{t}:{t + 5 * 10**9}:0:256,0")
    (d / "trace.csv").write_text(hdr + "\n" + "\n".join(rows) + "\n")
    (d / "records.csv").write_text("id,client,op,offset,len,arrival_ns,submit_ns,complete_ns,"
                                   "status\n" + "\n".join(recs) + "\n")
    (d / "summary.json").write_text(json.dumps({"rate": rate, "arrival_cv2": 1.0,
                                                "outrun": False, "response": {}}))
    (d / "point.json").write_text(json.dumps({"status": "ok", "comm": "ssaload",
                                              "generator": "ssaload", "notes": []}))


def test_analyse_point_cuts_warmup_and_other_tasks(tmp_path):
    make_point_dir(tmp_path / "p00")
    m = ex.analyse_point(str(tmp_path / "p00"))
    assert m["requests"] == 400 and m["issued"] == 400
    assert m["read_s"] == pytest.approx(0.02) and m["write_s"] == pytest.approx(0.05)
    assert m["read_ci_s"] == pytest.approx(0, abs=1e-9)
    assert m["dropped"] == {"systemd-udevd": 3, "(outside the measured window)": 20}
    assert 0.7 < m["arrival_cv2"] < 1.3
    assert m["notes"] == []


def test_point_result_and_check(tmp_path):
    s = ex.load_spec(write_spec(tmp_path, BASE))
    p = ex.expand(s)[0]
    model = ex.model_point(p)["lb"]
    meas = {"status": "ok", "notes": [], "read_s": model["read_s"] * 1.05, "read_n": 100,
            "write_s": model["write_s"] * 1.2, "write_n": 300, "rate": 9.8}
    r = ex.point_result(p, meas)
    assert r["rate"] == 10 and r["rate_measured"] == 9.8
    assert r["error_read"] == pytest.approx(0.05)
    bad = ex.check_point(s, r)
    assert len(bad) == 1 and "write" in bad[0] and "+20.0%" in bad[0]
    assert "cache" not in bad[0] and "longest" not in bad[0]
    r["write_max_s"] = 0.0125
    assert "longest 12.50 ms" in ex.check_point(s, r)[0]
    # behind an array cache a failure says what the cache did meanwhile
    r["cache"] = ex.cache_counters("0 1024 ssacache 3 4 5 0 1 2 3 4 9 0 0 7 0 0 A")
    bad = ex.check_point(s, r)
    assert "cache throttled 7, write_through 4, destaged 9" in bad[0]


def test_summarise_partial_run_stays_readable(tmp_path):
    s = ex.load_spec(write_spec(tmp_path, BASE))
    make_point_dir(tmp_path / "p00", rate=10)            # p01 never ran
    res = ex.summarise(s, str(tmp_path), quick=False, clock="icount")
    assert res["status"] == "incomplete"
    assert [p["status"] for p in res["points"]] == ["ok", "not run"]
    saved = json.loads((tmp_path / "results.json").read_text())
    assert saved["points"][0]["read_s"] == pytest.approx(0.02)
    assert saved["points"][0]["model"]["lb"]["read_s"] > 0
    assert "not run" in (tmp_path / "report.md").read_text()
    assert os.path.exists(tmp_path / "exp1-read.png")


def test_outrun_point_is_reported(tmp_path):
    s = ex.load_spec(write_spec(tmp_path, BASE))
    make_point_dir(tmp_path / "p00")
    j = json.loads((tmp_path / "p00" / "point.json").read_text())
    j.update(status="outrun", notes=["the arrivals outran the volume"])
    (tmp_path / "p00" / "point.json").write_text(json.dumps(j))
    res = ex.summarise(s, str(tmp_path), quick=True, clock="icount")
    assert res["points"][0]["status"] == "outrun"
    assert any("outran" in f for f in res["failures"])


def test_report_again_keeps_the_runs_wall_time(tmp_path, monkeypatch):
    from ssa import cli
    s = ex.load_spec(write_spec(tmp_path, BASE))
    out = tmp_path / "run"
    make_point_dir(out / "p00", rate=10)
    make_point_dir(out / "p01", rate=20)
    ex.summarise(s, str(out), quick=False, clock="icount", wall_s=123.0, run_size=2)
    (out / "plan.json").write_text(json.dumps(
        [{"experiment": "exp1", "dir": str(out), "quick": False, "clock": "icount"}]))
    monkeypatch.setattr(ex, "catalogue", lambda: {"exp1": s})
    assert cli.main(["experiment", "report", str(out)]) == 0
    saved = json.loads((out / "results.json").read_text())
    assert (saved["wall_s"], saved["run_experiments"]) == (123.0, 2)
    assert "Wall time 123 s" in (out / "report.md").read_text()


def test_cli_list_and_unknown(capsys):
    from ssa import cli
    assert cli.main(["experiment", "list"]) == 0
    assert "seed002-table1" in capsys.readouterr().out
    assert cli.main(["experiment", "run", "nope", "--out", "/tmp/x"]) == 2
    assert "unknown experiment" in capsys.readouterr().err


def test_stop_group_ends_the_whole_group():
    """--timeout stops the child's whole process group (the emulator or the
    executor and what they started), not only the child."""
    import subprocess
    import time
    p = subprocess.Popen(["bash", "-c", "sleep 100 & sleep 100; wait"], start_new_session=True)
    time.sleep(0.3)
    ex._stop_group(p)
    assert p.poll() is not None
    for _ in range(50):                         # let init reap what was killed
        left = subprocess.run(["pgrep", "-g", str(p.pid)], capture_output=True, text=True)
        if not left.stdout.strip():
            break
        time.sleep(0.1)
    assert left.stdout.strip() == ""


def test_checkout_found_from_env_package_or_cwd(tmp_path, monkeypatch):
    top = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", ".."))
    monkeypatch.setenv("SSA_CHECKOUT", top)
    assert ex.checkout() == top
    assert ex.spec_dir() == os.path.join(top, "experiments")
    # a directory that is no checkout is refused by name
    monkeypatch.setenv("SSA_CHECKOUT", str(tmp_path))
    with pytest.raises(ex.SpecError, match="SSA_CHECKOUT=.* is not a dm-ssastripe checkout"):
        ex.checkout()
    # without the variable, the working directory or one above it will do
    monkeypatch.delenv("SSA_CHECKOUT")
    monkeypatch.chdir(os.path.join(top, "tests", "python"))
    assert os.path.samefile(ex.checkout(), top)


def test_experiment_walls_from_first_points(tmp_path):
    """In one boot each experiment's wall time is the host's time from its
    first point to the next experiment's (the last to the end)."""
    log = tmp_path / "run.log"
    log.write_text("labrun: a p00 (1/2)  {}\nlabrun: p00 ok in 3.0 s of guest time\n")
    w = ex._LogWatch(str(log), 0.0)
    w._now = lambda: 5.0
    w.poll()
    with open(log, "a") as f:
        f.write("labrun: a p01 (2/2)  {}\nlabrun: b p00 (1/1)  {}\nlabrun: done: 3 points\n"
                "labrun: c p00 (1/1) partial line without newl")
    w._now = lambda: 12.0
    w.poll()
    assert w.first == {"a": 5.0, "b": 12.0}
    assert ex.experiment_walls(w.first, ["a", "b", "z"], 20.0) == {"a": 7.0, "b": 8.0}


CACHED = BASE.replace('layout = "raid5"\nmembers = 4', 'layout = "mirror"\nmembers = 4') \
    .replace('options = ["sync before_service", "queue_depth 1"]', 'options = ["coalesce 1"]') \
    + """
[cache]
block_kb = 16
blocks = 64
low_water = 8
high_water = 16
max_dirty = 32
cache_max_kb = 96
transfer_mbps = 62
"""


def test_cache_section_stacks_an_ssacache(tmp_path):
    s = ex.load_spec(write_spec(tmp_path, CACHED.replace('kind = "raid5"', 'kind = "none"')))
    p = ex.expand(s)[0]
    devs = ex.volume_tables(p, [f"/dev/ram{i}" for i in range(4)])
    assert [d[0] for d in devs][-2:] == ["lab-arr", "lab-vol"]
    assert devs[-2][1].split()[2:4] == ["ssastripe", "mirror"]
    c = devs[-1][1].split()
    assert c[2:6] == ["ssacache", "/dev/mapper/lab-arr", "32", "64"]
    assert c[1] == devs[-2][1].split()[1]          # the same length as the array
    assert c[6:] == ["10", "low_water", "8", "high_water", "16", "max_dirty", "32",
                     "transfer_mbps", "62", "cache_max", "192"]


@pytest.mark.parametrize("edit,msg", [
    (("blocks = 64", "blocks = 2"), "cache.blocks must be"),
    (("block_kb = 16", "block_kb = 12"), "cache.block_kb must be"),
    (("transfer_mbps = 62", "size_mb = 4"), r"\[cache\] has unknown key"),
])
def test_cache_section_checks(tmp_path, edit, msg):
    text = CACHED.replace('kind = "raid5"', 'kind = "none"').replace(*edit)
    with pytest.raises(ex.SpecError, match=msg):
        ex.load_spec(write_spec(tmp_path, text))


def test_cache_counters_and_generator_records(tmp_path):
    line = "0 393216 ssacache 96 160 0 0 5 7 350 2 250 0 0 218 0 0 A"
    c = ex.cache_counters(line)
    assert c["dirty"] == 96 and c["read_hits"] == 5 and c["read_misses"] == 7
    assert c["write_hits"] == 350 and c["throttled"] == 218 and c["mode"] == "A"
    d = tmp_path / "p00"
    d.mkdir()
    rows = ["id,client,op,offset,len,arrival_ns,submit_ns,complete_ns,status"]
    for i in range(100):
        op = "write" if i % 2 else "read"
        rows.append(f"{i},0,{op},{i * 16384},16384,{i * 10**7},{i * 10**7},"
                    f"{i * 10**7 + (3 if op == 'write' else 5) * 10**6},0")
    rows.append("100,0,read,0,16384,0,0,1,5")             # failed: left out
    (d / "records.csv").write_text("\n".join(rows) + "\n")
    (d / "cache.status").write_text(line + "\n")
    (d / "point.json").write_text(json.dumps({"status": "ok", "comm": "ssaload",
                                              "generator": "ssaload", "notes": [],
                                              "measure": "generator"}))
    m = ex.analyse_point(str(d))
    assert m["requests"] == 100 and m["issued"] == 100
    assert m["read_s"] == pytest.approx(0.005) and m["write_s"] == pytest.approx(0.003)
    assert m["cache"]["destaged"] == 250
    assert "generator" in m["measured_at"]


def test_array_model_write_policy(tmp_path):
    text = CACHED.replace('kind = "raid5"', 'kind = "array"\ncache_mbps = 62\n'
                          'destage_threshold = 8\nmax_dirty_blocks = 32')
    text = text.replace('mode = "open"', 'mode = "closed"\nmpl = 4\nsizes = "fixed:1"') \
        .replace("p_read = 0.25", "p_read = 0.0").replace("[sweep]\nrate = [10, 20]",
                                                          "[sweep]\nmpl = [4]") \
        .replace("[quick]\nrate = [5]", "[quick]\nmpl = [4]")
    s = ex.load_spec(write_spec(tmp_path, text))
    p = ex.expand(s)[0]
    auto = ex.model_point(p)["model"]["write_s"]
    p["model"]["write_policy"] = "back"
    assert ex.model_point(p)["model"]["write_s"] == pytest.approx(auto)   # 16 KB: cached
    p["model"]["write_policy"] = "direct"
    assert ex.model_point(p)["model"]["write_s"] != pytest.approx(auto)
    p["model"]["write_policy"] = "sideways"
    with pytest.raises(ValueError, match="write_policy"):
        ex.model_point(p)


def test_prefill_writes_the_members_ramdisks(monkeypatch):
    """volume.prefill: labrun writes each member's ramdisk end to end
    after loading brd (its pages then hold memory before the first
    point); without it, none."""
    from ssa import labrun

    calls = []
    monkeypatch.setattr(labrun, "sh", lambda cmd, check=True, **kw: calls.append(cmd))
    monkeypatch.setattr(labrun.os.path, "exists", lambda p: True)
    assert labrun.fresh_ramdisks(4, 64, prefill=3) == [f"/dev/ram{i}" for i in range(4)]
    dd = [c for c in calls if c[0] == "dd"]
    assert [c[2] for c in dd] == ["of=/dev/ram0", "of=/dev/ram1", "of=/dev/ram2"]
    assert all("bs=1M" in c and "count=64" in c and "oflag=direct" in c for c in dd)
    assert calls.index(["rmmod", "brd"]) < calls.index(dd[0])
    calls.clear()
    labrun.fresh_ramdisks(4, 64)
    assert not [c for c in calls if c[0] == "dd"]


def test_requests_per_client(tmp_path):
    closed = BASE.replace('mode = "open"', 'mode = "closed"\nmpl = 1\nrequests_per_client = 50') \
        .replace("rate = [10, 20]", "mpl = [1, 3]").replace("rate = [5]", "mpl = [2]")
    s = ex.load_spec(write_spec(tmp_path, closed.replace('kind = "raid5"', 'kind = "none"')))
    assert [p["workload"]["requests"] for p in ex.expand(s)] == [50, 150]
    with pytest.raises(ex.SpecError, match="requests_per_client needs a closed"):
        ex.load_spec(write_spec(tmp_path, BASE.replace("requests = 1000",
                                                       "requests = 1000\nrequests_per_client = 5")))
