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


# -- the workload's requests: comm, window ------------------------------------------

def rec(fork, op="read", comm="fio", sectors=8, kids=None, resp=1_000_000):
    C = compare.Child
    kids = kids or (C(0, "low", fork, fork, fork + resp),)
    return compare.Record(fork, fork + resp, op, sectors, tuple(kids), comm)


def write_csv(path, recs):
    """An ssatrace CSV of these records."""
    with open(path, "w") as fh:
        fh.write(HEADER)
        for i, r in enumerate(recs):
            ch = "|".join(f"{c.member}:{c.cls}:{c.queued}:{c.dispatched}:{c.completed}:0:8"
                          for c in r.children)
            fh.write(f"{r.fork},{r.join},254:0,{i},{r.op},0,{r.sectors},{r.comm},0,"
                     f"{len(r.children)},{r.join - r.fork},0,0,0,{ch}\n")
    return str(path)


def test_record_keeps_comm_and_old_constructor():
    r = compare.Record(0, 1, "read", 8, ())
    assert r.comm == "" and r.dev == ""
    lines = [HEADER, "1,2,254:3,1,read,0,8,fio,0,1,1,0,0,0,0:low:1:1:2:0:8\n"]
    (got,) = compare.parse_records(lines)
    assert got.comm == "fio" and got.dev == "254:3"
    j = json.dumps({"fork_ns": 1, "join_ns": 2, "op": "read", "len": 8, "comm": "dd",
                    "dev": "254:3", "status": 0, "children": [
                        {"member": 0, "class": "low", "queued_ns": 1,
                         "dispatched_ns": 1, "completed_ns": 2}]})
    assert compare.parse_records([j])[0].comm == "dd"


def test_select_keeps_the_dominant_comm_and_says_what_it_dropped():
    recs = [rec(i * 10**7) for i in range(100)]
    recs += [rec(10**9 + i * 10**6, comm="systemd-udevd", sectors=64) for i in range(7)]
    recs += [rec(10**9 + 5 * 10**5, comm="blkid")]
    sel = compare.select(recs)
    assert sel.comm == "fio" and sel.dominant and len(sel.records) == 100
    assert sel.dropped_comm == {"systemd-udevd": 7, "blkid": 1} and sel.dropped == 8
    text = sel.describe()
    assert "kept 100 of 108" in text and "comm fio" in text
    assert "systemd-udevd 7, blkid 1" in text
    assert len(compare.select(recs, "all").records) == 108
    assert "dropped none" in compare.select(recs, "all").describe()
    assert [r.comm for r in compare.select(recs, "blkid").records] == ["blkid"]
    with pytest.raises(ValueError, match="no requests of comm 'dd'.*fio 100"):
        compare.select(recs, "dd")


def test_select_window_counts_from_the_first_fork():
    t0 = 5 * 10**9
    recs = [rec(t0 + i * 10**8) for i in range(100)]                # 0 .. 9.9 s
    sel = compare.select(recs, window=compare.parse_window("2:5"))
    forks = [(r.fork - t0) / 1e9 for r in sel.records]
    assert len(forks) == 30 and min(forks) == pytest.approx(2) and max(forks) < 5
    assert sel.dropped_window == 70 and "outside the window 70" in sel.describe()
    assert compare.parse_window("3:") == (3.0, math.inf)
    assert compare.parse_window(":4") == (0.0, 4.0)
    for bad in ("4", "5:2", "a:b", "-1:2"):
        with pytest.raises(ValueError):
            compare.parse_window(bad)


def test_udev_reads_after_the_run_leave_the_comparison(tmp_path, capsys):
    f = tmp_path / "u.csv"
    synth(f, 40.0, 100.0, 4_000, seed=3)
    recs = compare.load(str(f))
    end = max(r.join for r in recs)
    udev = [rec(end + 10**7 * (i + 1), comm="systemd-udevd", sectors=256) for i in range(20)]
    path = write_csv(tmp_path / "all.csv", recs + udev)
    assert cli.main(["compare", path, "--json"]) == 0
    row = json.loads(capsys.readouterr().out)["rows"][0]
    assert row["selection"]["dropped_comm"] == {"systemd-udevd": 20}
    assert row["selection"]["kept"] == 4_000
    assert cli.main(["compare", path, "--comm", "all", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["rows"][0]["selection"]["kept"] == 4_020
    assert cli.main(["compare", path]) == 0
    assert "dropped systemd-udevd 20" in capsys.readouterr().out


# -- request-level cv2 ------------------------------------------------------------------

def test_request_cv2_is_one_for_poisson_even_with_back_to_back_children():
    """Every write puts two I/Os back to back at its member (read the old
    data, then write): the members' child interarrivals are far from
    Poisson, the requests' are Poisson."""
    rng = np.random.default_rng(7)
    C = compare.Child
    t = np.cumsum(rng.exponential(1 / 50.0, 20_000)) * 1e9
    recs = []
    for a in t.astype(int):
        m = int(rng.integers(0, 4))
        if rng.random() < 0.5:
            kids = (C(m, "low", a, a, a + 2_000_000),)
        else:
            kids = (C(m, "low", a, a, a + 2_000_000),
                    C(m, "low", a + 2_000_000, a + 2_000_000, a + 4_000_000))
        recs.append(compare.Record(a, a + 4_000_000, "read" if len(kids) == 1 else "write",
                                   8, kids, "fio"))
    meas = compare.estimate(recs)
    assert compare.request_cv2(recs) == pytest.approx(1.0, abs=0.05)
    assert meas.request_cv2 == pytest.approx(1.0, abs=0.05)
    assert min(meas.arrival_cv2.values()) > 1.2          # the per-member child view
    assert "member_child_cv2" in meas.as_dict()


# -- read and write apart -----------------------------------------------------------------

def test_read_and_write_means_with_their_intervals(tmp_path, capsys):
    lam, mu = 50.0, 100.0
    path = str(synth(tmp_path / "rw.csv", lam, mu, 40_000, p_read=0.6, seed=5))
    recs = compare.load(path)
    meas = compare.estimate(recs)
    reads = [r.response for r in recs if r.op == "read"]
    writes = [r.response for r in recs if r.op == "write"]
    assert meas.read == pytest.approx(np.mean(reads)) and meas.reads == len(reads)
    assert meas.write == pytest.approx(np.mean(writes)) and meas.writes == len(writes)
    assert meas.read_ci > 0 and meas.write_ci > 0
    exact = 1 / (mu - lam)                      # reads and writes share one M/M/1 queue
    assert abs(meas.read - exact) < 3 * meas.read_ci
    assert abs(meas.write - exact) < 3 * meas.write_ci
    assert cli.main(["compare", path, "--json"]) == 0
    row = json.loads(capsys.readouterr().out)["rows"][0]
    for k in ("measured_read_s", "measured_write_s", "read_ci_s", "write_ci_s",
              "predicted_read_s", "predicted_write_s"):
        assert row[k] > 0, k
    assert row["measured_read_s"] == pytest.approx(meas.read)
    assert row["predicted_read_s"] == pytest.approx(exact, rel=0.05)
    assert row["predicted_write_s"] == pytest.approx(exact, rel=0.05)
    assert cli.main(["compare", path]) == 0
    out = capsys.readouterr().out
    assert "read" in out and "write" in out and "model forkjoin" in out


def test_half_width_is_nan_for_too_few_of_an_op(tmp_path):
    recs = compare.load(synth(tmp_path / "r.csv", 30.0, 100.0, 2_000, p_read=0.99, seed=2))
    meas = compare.estimate(recs)
    assert meas.writes < 40 and math.isnan(meas.write_ci) and meas.read_ci > 0


# -- the volume's tables and --model auto --------------------------------------------------

SSADISK = ("0 131072 ssadisk 1:{i} 0 36 mode stochastic cylinders 1200 heads 16 "
           "sectors_per_track 102 rotation 16666667ns seek_a 3ms seek_b 500us settle 0ns "
           "overhead 0ns block_time 1300us block_size 4096 p_seq 0.300000 sched fifo "
           "read_ahead 0 hit_time 0ns queue_limit 0 time_scale {ts} seed {i}")


def tables_text(layout="raid5", n=4, opts="6 sync before_service queue_depth 1 write_method rmw",
                ls=True, ts="1.000", old_ls=False, extra=""):
    lines = [f"d{i}: " + SSADISK.format(i=i, ts=ts) for i in range(n)]
    members = " ".join(f"254:{i} 0" for i in range(n))
    lines.append(f"vol: 0 {131072 * (n - 1)} ssastripe {layout} 8 {n} {members} {opts}")
    if ls:
        lines += [f"d{i}\t(254, {i})" if old_ls else f"d{i}\t(254:{i})" for i in range(n)]
        lines.append(f"vol\t(254:{n})")
    return "\n".join(lines) + "\n" + extra


def test_parse_tables_finds_the_volume_and_its_ssadisks():
    t = compare.parse_tables(tables_text())
    assert t.devnos["vol"] == "254:4" and t.devnos["d2"] == "254:2"
    v = compare.find_volume(t)
    assert (v.name, v.layout, v.chunk_sectors, len(v.members)) == ("vol", "raid5", 8, 4)
    assert v.parity and v.sync == "before_service" and v.queue_depth == 1
    assert v.priority == "on" and v.write_method == "rmw"           # priority: default
    v = compare.find_volume(compare.parse_tables(tables_text(opts="2 queue_depth 1")))
    assert v.write_method == "auto" and v.sync == "before_service"  # defaults
    assert v.member_names == ("d0", "d1", "d2", "d3")
    d = v.member_disks[0]
    assert (d.mode, d.cylinders, d.block_size) == ("stochastic", 1200, 4096)
    assert d.seek_a == pytest.approx(3e-3) and d.seek_b == pytest.approx(0.5e-3)
    assert d.rotation == pytest.approx(16.666667e-3) and d.block_time == pytest.approx(1.3e-3)
    assert d.p_seq == pytest.approx(0.3) and d.time_scale == 1.0
    # older dmsetup ls prints (major, minor)
    v = compare.find_volume(compare.parse_tables(tables_text(old_ls=True)))
    assert v.member_disks[3] is not None


def test_parse_tables_choices_and_errors():
    two = tables_text() + "vol2: 0 100 ssastripe stripe 8 2 254:0 0 254:1 0\n"
    t = compare.parse_tables(two)
    with pytest.raises(ValueError, match="--volume"):
        compare.find_volume(t)
    assert compare.find_volume(t, "vol2").layout == "stripe"
    assert compare.find_volume(t, devs=["254:4"]).name == "vol"      # the trace's dev
    with pytest.raises(ValueError, match="not an ssastripe"):
        compare.find_volume(t, "d0")
    with pytest.raises(ValueError, match="no device"):
        compare.find_volume(t, "nope")
    with pytest.raises(ValueError, match="line 2"):
        compare.parse_tables("vol: 0 8 ssastripe stripe 8 1 7:0 0\nwhat is this\n")
    # members as /dev/mapper paths need no dmsetup ls
    text = "\n".join(f"d{i}: " + SSADISK.format(i=i, ts="0.100") for i in range(3))
    text += "\nv: 0 16 ssastripe pstripe 16 3 /dev/mapper/d0 0 /dev/mapper/d1 0 " \
            "/dev/mapper/d2 0 2 sync after_service\nNo devices found\n"
    v = compare.find_volume(compare.parse_tables(text))
    assert v.layout == "pstripe" and v.sync == "after_service"
    assert v.member_disks[2].time_scale == pytest.approx(0.1)
    # a hand-written preset line: ct1992's values with the overrides
    d = compare.parse_ssadisk(["/dev/ram0", "0", "4", "preset", "ct1992", "p_seq", "0.3"])
    assert d.cylinders == 1200 and d.p_seq == 0.3 and d.block_time == pytest.approx(1.3e-3)
    assert compare.parse_time("16666667ns") == pytest.approx(0.016666667)
    assert compare.parse_time("0.5ms") == pytest.approx(5e-4)
    with pytest.raises(ValueError):
        compare.parse_time("3")


def _given(**kw):
    g = {k: None for k in compare.DEFAULTS}
    g.update(kw)
    return g


def test_choose_model_auto_from_the_tables():
    v = compare.find_volume(compare.parse_tables(tables_text(ts="0.100")))
    s = compare.choose_model("auto", _given(), v, tables_name="vol.tables")
    assert s.model == "raid5" and "vol in vol.tables is ssastripe raid5" in s.reason
    assert s.params["disks"] == 4 and s.params["chunk_kb"] == 4 and s.params["sync"] == "bs"
    assert s.params["p_seq"] == pytest.approx(0.3) and s.sources["p_seq"] == "tables"
    assert s.params["rmax"] == pytest.approx(16.666667)
    assert s.params["time_scale"] == pytest.approx(0.1)
    d = s.disk()
    assert d.rmax == pytest.approx(1.6666667e-3) and d.alpha == pytest.approx(1.3e-4)
    assert not s.warnings
    # options beat the tables
    s = compare.choose_model("auto", _given(p_seq=0.0, time_scale=1.0, sync="as"), v)
    assert s.params["p_seq"] == 0 and s.sources["p_seq"] == "option"
    assert s.params["sync"] == "as" and s.disk().rmax == pytest.approx(16.666667e-3)
    # a chunk given as an option rescales the ssadisk's block time to it
    s = compare.choose_model("auto", _given(chunk_kb=8), v)
    assert s.params["block_ms"] == pytest.approx(2.6)
    # sync after_service, pstripe; stripe and mirror -> forkjoin
    v = compare.find_volume(compare.parse_tables(tables_text(
        "pstripe", opts="4 sync after_service queue_depth 1")))
    s = compare.choose_model("auto", _given(), v)
    assert (s.model, s.params["sync"]) == ("pstripe", "as")
    for layout in ("stripe", "mirror"):
        v = compare.find_volume(compare.parse_tables(tables_text(layout, opts="2 queue_depth 1")))
        assert compare.choose_model("auto", _given(), v).model == "forkjoin"


def test_choose_model_warnings_and_defaults():
    s = compare.choose_model("auto", _given(), parity_seen=12)
    assert s.model == "forkjoin" and "12 requests have high-class" in s.warnings[0]
    assert not compare.choose_model("auto", _given()).warnings
    s = compare.choose_model("raid5", _given(chunk_kb=4))
    assert s.params["disks"] == 4 and s.params["p_seq"] == 0 and s.params["rmax"] == 16.7
    assert all(s.sources[k] == "default" for k in ("disks", "p_seq", "time_scale"))
    with pytest.raises(ValueError, match="chunk"):
        compare.choose_model("raid5", _given())
    # no dmsetup ls: members unmapped -> the defaults, said so
    v = compare.find_volume(compare.parse_tables(tables_text(ls=False)))
    s = compare.choose_model("auto", _given(), v)
    assert s.model == "raid5" and s.sources["p_seq"] == "default"
    assert "dmsetup ls" in s.warnings[0]
    # queue_depth other than 1, forkjoin forced on a raid5 volume
    v = compare.find_volume(compare.parse_tables(tables_text(opts="2 sync before_service")))
    s = compare.choose_model("forkjoin", _given(), v)
    assert any("queue_depth 0" in w for w in s.warnings)
    assert any("--model forkjoin on vol" in w for w in s.warnings)
    # write_method auto on 4 members: rcw within a chunk, said so
    v = compare.find_volume(compare.parse_tables(tables_text(opts="2 queue_depth 1")))
    s = compare.choose_model("raid5", _given(chunk_kb=4), v)
    assert [w for w in s.warnings if "write_method auto on 4 members" in w]


def raid5_like(path, lam, n, members=4, p_read=0.5, seed=11, comm="fio"):
    """A trace shaped like a raid5 volume's (single-block requests): a read
    is one low child; a write is a data task (two low children back to
    back at one member) and a parity task (two high children at another)."""
    rng = np.random.default_rng(seed)
    C = compare.Child
    free = [0] * members
    t = (np.cumsum(rng.exponential(1 / lam, n)) * 1e9).astype(int)
    recs = []
    for a in t:
        a = int(a)
        m = int(rng.integers(members))
        s = lambda: int(rng.exponential(2e6)) + 1        # noqa: E731
        if rng.random() < p_read:
            d = max(a, free[m])
            free[m] = d + s()
            kids = (C(m, "low", a, d, free[m]),)
        else:
            p = (m + 1 + int(rng.integers(members - 1))) % members
            d = max(a, free[m])
            c1 = d + s()
            free[m] = c1 + s()
            dp = max(d, free[p])
            cp1 = dp + s()
            free[p] = cp1 + s()
            kids = (C(m, "low", a, d, c1), C(m, "low", c1, c1, free[m]),
                    C(p, "high", d, dp, cp1), C(p, "high", cp1, cp1, free[p]))
        join = max(k.completed for k in kids)
        recs.append(compare.Record(a, join, "read" if len(kids) == 1 else "write", 8,
                                   kids, comm))
    return write_csv(path, recs)


def test_cli_auto_picks_raid5_from_the_tables(tmp_path, capsys):
    trace = raid5_like(tmp_path / "r5.csv", 20.0, 3_000)
    tables = tmp_path / "vol.tables"
    tables.write_text(tables_text())
    assert cli.main(["compare", trace, "--tables", str(tables), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["model"] == "raid5" and out["setup"]["sources"]["p_seq"] == "tables"
    row = out["rows"][0]
    assert row["replay_s"] is None and row["predicted_s"] > 0 and row["bound"] == "lb"
    assert row["predicted_write_s"] > row["predicted_read_s"]
    assert out["replay_note"]
    assert cli.main(["compare", trace, "--tables", str(tables)]) == 0
    cap = capsys.readouterr()
    assert cap.out.startswith(f"model raid5: --model auto: vol in {tables} is ssastripe raid5")
    assert "p_seq 0.3 (tables)" in cap.out and "replay '-'" in cap.out
    # without the tables: forkjoin, and a warning that the trace looks parity
    assert cli.main(["compare", trace]) == 0
    cap = capsys.readouterr()
    assert cap.out.startswith("model forkjoin: --model auto without --tables")
    assert "high-class (parity) children" in cap.err
    assert cli.main(["compare", trace, "--volume", "vol"]) == 2         # needs --tables
    assert cli.main(["compare", trace, "--tables", str(tmp_path / "none")]) == 2


def test_cli_time_scale_and_options_beat_the_tables(tmp_path, capsys):
    trace = raid5_like(tmp_path / "r5.csv", 20.0, 2_000, seed=12)
    tables = tmp_path / "vol.tables"
    tables.write_text(tables_text(ts="0.100"))
    base = ["compare", trace, "--tables", str(tables), "--json"]
    assert cli.main(base) == 0
    scaled = json.loads(capsys.readouterr().out)
    assert scaled["setup"]["params"]["time_scale"] == pytest.approx(0.1)
    assert cli.main(base + ["--time-scale", "1", "--p-seq", "0"]) == 0
    full = json.loads(capsys.readouterr().out)
    assert full["setup"]["sources"]["time_scale"] == "option"
    assert full["setup"]["sources"]["p_seq"] == "option"
    # ten times slower disks at the same rate: a slower response
    assert full["rows"][0]["predicted_s"] > 5 * scaled["rows"][0]["predicted_s"]
    assert cli.main(base + ["--model", "forkjoin"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["model"] == "forkjoin" and out["rows"][0]["replay_s"] is None
    assert any("--model forkjoin on vol" in w for w in out["warnings"])


def test_utilization_counts_only_the_span():
    """A member busy from the first fork on, whose last child ends after
    the last fork (a closed loop): busy the whole span, utilization 1, not
    more (it read 1.03 before the busy time was cut to the span)."""
    recs, t = [], 0
    for i in range(50):
        kid = compare.Child(0, "low", t, t, t + 10_000_000)
        recs.append(compare.Record(t, t + 10_000_000, "read", 8, (kid,)))
        t += 10_000_000                         # the next forks as this one ends
    est = compare.estimate(recs)
    assert est.utilization[0] == pytest.approx(1.0)
