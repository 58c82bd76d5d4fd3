"""The lab's host side (ssa.runner): units and shards, -j N guests at once,
--shard K/N, --resume after a guest died, the progress line -- with a fake
guest (fake_labrun.py: labrun's own loop, made-up point directories) in
place of tools/vm."""

import json
import os
import sys

import pytest

from ssa import experiment as ex
from ssa import figures
from ssa import spec as lab_spec
from ssa import replicate
from ssa import runner

HERE = os.path.dirname(__file__)
FAKE = os.path.join(HERE, "fake_labrun.py")

# A: a rate sweep in two series with different options (two units of
# three points); B: a sweep of the member count (three units of one).
SPEC_A = """
title = "a"
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

[workload]
mode = "open"
p_read = 0.25
requests = 200

[sweep]
rate = [10, 20, 30]

[[series]]
label = "BS"

[[series]]
label = "AS"
"volume.options" = ["sync after_service", "queue_depth 1"]

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
SPEC_B = SPEC_A.replace('title = "a"', 'title = "b"').replace(
    "[sweep]\nrate = [10, 20, 30]", '[sweep]\n"volume.members" = [3, 4, 5]\nrate = [10]'
).replace('[[series]]\nlabel = "BS"\n\n[[series]]\nlabel = "AS"\n'
          '"volume.options" = ["sync after_service", "queue_depth 1"]\n', "")
WALL = {"wall_s", "own_wall_s", "guest_s", "jobs", "figures"}


@pytest.fixture
def lab(tmp_path, monkeypatch):
    """The catalogue of A and B, the fake guest, no figures (time)."""
    specs = {}
    for name, text in (("a", SPEC_A), ("b", SPEC_B)):
        (tmp_path / f"{name}.toml").write_text(text)
        specs[name] = ex.load_spec(str(tmp_path / f"{name}.toml"))
    monkeypatch.setattr(ex, "catalogue", lambda: specs)          # the command line's
    monkeypatch.setattr(lab_spec, "catalogue", lambda: specs)    # ssa.runner's
    monkeypatch.setattr(figures, "plot", lambda spec, results, outdir: [])
    calls = []

    def vm(clock, outdir, plan=None, vmdir=None):
        calls.append((plan, vmdir))
        return [sys.executable, FAKE, outdir, plan or ""]
    monkeypatch.setattr(runner, "vm_command", vm)
    monkeypatch.setattr(runner, "available_memory", lambda: 64 * runner.GIB)
    monkeypatch.delenv("FAKE_LAB_DIE", raising=False)
    monkeypatch.delenv("FAKE_LAB_CORRELATED", raising=False)
    # the fake's responses are independent, but one point in 20 has batch
    # means correlated by chance: no extra runs unless a test asks
    monkeypatch.setattr(replicate, "RHO1_LIMIT", 2.0)
    return specs, calls


def plans_of(specs, out):
    return [runner.mark_units(ex.plan(specs[n], False, "icount", os.path.join(out, n)))
            for n in ("a", "b")]


def comparable(out):
    """Each experiment's results.json without the run's own times."""
    got = {}
    for n in ("a", "b"):
        r = json.loads((out / n / "results.json").read_text())
        got[n] = {k: v for k, v in r.items() if k not in WALL}
    return got


def test_units_keep_device_sharing_points_together(lab, tmp_path):
    specs, _ = lab
    plans = plans_of(specs, str(tmp_path))
    us = runner.units(plans)
    assert [(u.plan, u.points) for u in us] == [(0, (0, 1, 2)), (0, (3, 4, 5)),
                                               (1, (0,)), (1, (1,)), (1, (2,))]
    assert [p["unit"] for p in plans[0]["points"]] == [0, 0, 0, 1, 1, 1]
    for n in (1, 2, 3, 4, 7):
        shards = runner.split(plans, n)
        assert len(shards) == min(n, len(us))
        seen = [(pl["experiment"], p["id"]) for s in shards for pl in s for p in pl["points"]]
        # every point exactly once
        assert sorted(seen) == sorted((pl["experiment"], p["id"]) for pl in plans
                                      for p in pl["points"])
        for s in shards:
            for pl in s:
                ids = [p["id"] for p in pl["points"]]
                assert ids == sorted(ids)               # the catalogue's order
                units = [p["unit"] for p in pl["points"]]
                full = [p["unit"] for p in plans[0 if pl["experiment"] == "a" else 1]["points"]]
                for u in set(units):                    # whole units only
                    assert units.count(u) == full.count(u)


def test_lpt_balances_by_cost():
    assert runner.lpt([5, 3, 3, 2, 1], 2) == [[0, 3], [1, 2, 4]]
    assert runner.lpt([1, 1, 1], 1) == [[0, 1, 2]]
    assert runner.lpt([4, 4], 3) == [[0], [1], []]
    heavy = {"workload": {"requests": 20000, "warmup": 1000}}
    assert runner.point_cost(heavy) > 5 * runner.point_cost({"workload": {"requests": 100}})


def test_j1_and_j3_give_the_same_results(lab, tmp_path, capsys):
    specs, calls = lab
    one = runner.run(["a", "b"], False, "icount", str(tmp_path / "j1"), jobs=1)
    assert calls == [(None, None)]                      # as before: plan.json, run.log
    assert (tmp_path / "j1" / "run.log").exists() and not (tmp_path / "j1" / "vm-1").exists()
    calls.clear()
    three = runner.run(["a", "b"], False, "icount", str(tmp_path / "j3"), jobs=3)
    j3 = tmp_path / "j3"
    assert sorted(c[1] for c in calls) == [str(j3 / f"vm-{k}") for k in (1, 2, 3)]
    assert all(os.path.exists(j3 / f"run-{k}.log") and os.path.exists(j3 / f"plan-{k}.json")
               for k in (1, 2, 3))
    assert [r["status"] for r in one + three] == ["complete"] * 4
    assert comparable(tmp_path / "j1") == comparable(j3)
    assert [r["jobs"] for r in one + three] == [1, 1, 3, 3]
    assert "3 guests at once, -j 3" in (j3 / "a" / "report.md").read_text()
    # guest time: the shards' parts added up
    g = json.loads((j3 / "a" / "guest.json").read_text())
    assert g["guest_s"] > 0 and g["shards"] >= 1
    # a progress line per finished point, in each run: the last at 9/9
    said = [ln for ln in capsys.readouterr().out.splitlines() if "] " in ln]
    assert len(said) == 18 and said[-1].startswith("ssa experiment: [9/9] ")
    assert said[-1].endswith("about 0s left") and "(guest " in said[-1]


def test_a_split_unit_would_show(lab, tmp_path):
    """The fake guest's points depend on what ran before on the same
    devices (as a volume's state would): the check above has teeth."""
    specs, _ = lab
    runner.run(["a"], False, "icount", str(tmp_path / "whole"))
    plans = [runner.mark_units(ex.plan(specs["a"], False, "icount", str(tmp_path / "cut")))]
    for p in plans[0]["points"]:
        p["unit"] = int(p["id"][1:])                    # every point its own unit
    (tmp_path / "cut").mkdir()
    (tmp_path / "cut" / "plan.json").write_text(json.dumps(plans))
    os.system(f"{sys.executable} {FAKE} {tmp_path / 'cut'} > /dev/null")
    ex.summarise(specs["a"], str(tmp_path / "cut"), False, "icount")
    a = json.loads((tmp_path / "whole" / "results.json").read_text())["points"]
    b = json.loads((tmp_path / "cut" / "results.json").read_text())["points"]
    assert a[0]["read_s"] == b[0]["read_s"] and a[1]["read_s"] != b[1]["read_s"]


def test_a_dead_guest_leaves_partial_results_and_resume_ends_the_run(lab, tmp_path,
                                                                     monkeypatch):
    specs, _ = lab
    out = tmp_path / "run"
    monkeypatch.setenv("FAKE_LAB_DIE", "1:4")             # guest 1 dies at its 4th point
    res = runner.run(["a", "b"], False, "icount", str(out), jobs=2)
    by = {r["experiment"]: {p["id"]: p["status"] for p in r["points"]} for r in res}
    mine = [(pl["experiment"], p["id"]) for pl in json.loads((out / "plan-1.json").read_text())
            for p in pl["points"]]
    assert [by[e][i] for e, i in mine] == ["ok"] * 3 + ["not run"] * (len(mine) - 3)
    dead = [f for r in res for f in r["failures"] if "guest 1 of 2" in f]
    assert dead and str(out / "run-1.log") in dead[0] and "shard 1/2" in dead[0]
    # guest 2's points all ran
    assert all(by[pl["experiment"]][p["id"]] == "ok"
               for pl in json.loads((out / "plan-2.json").read_text()) for p in pl["points"])
    missing = sum(p["status"] != "ok" for r in res for p in r["points"])
    # --resume (one guest now) runs only what is missing, and ends where -j 1 ends
    monkeypatch.delenv("FAKE_LAB_DIE")
    res = runner.run(["a", "b"], False, "icount", str(out), resume=True, jobs=1)
    assert all(r["status"] == "complete" and not r["failures"] for r in res)
    ran = json.loads((out / "plan.json").read_text())
    assert sum(len(pl["points"]) for pl in ran) == missing
    runner.run(["a", "b"], False, "icount", str(tmp_path / "j1"))
    assert comparable(out) == comparable(tmp_path / "j1")


def test_more_jobs_than_units_and_bad_jobs(lab, tmp_path, monkeypatch):
    specs, calls = lab
    said = []
    res = runner.run(["b"], False, "icount", str(tmp_path / "b"), jobs=5, echo=said.append)
    assert res[0]["status"] == "complete" and len(calls) == 3
    assert [s for s in said if "-j 5" in s] == [
        "ssa experiment: -j 5, but only 3 unit(s) of points to run: 3 guest(s)"]
    for bad in (0, -2):
        with pytest.raises(ValueError, match="at least 1"):
            runner.run(["b"], False, "icount", str(tmp_path / "x"), jobs=bad)
    with pytest.raises(ValueError, match="native"):
        runner.run(["b"], False, "native", str(tmp_path / "x"), jobs=2)
    monkeypatch.setattr(runner, "available_memory", lambda: 8 * runner.GIB)
    with pytest.raises(ValueError, match=r"-j 3: .* at most -j 2"):
        runner.run(["b"], False, "icount", str(tmp_path / "x"), jobs=3)


def test_cli_refuses_j0_with_status_2(lab, capsys):
    from ssa import cli
    assert cli.main(["experiment", "run", "b", "--out", "/tmp/never", "-j", "0"]) == 2
    assert "-j 0" in capsys.readouterr().err
    assert cli.main(["experiment", "run", "b", "--out", "/tmp/never", "--shard", "3/2"]) == 2


def test_shards_k_of_n_then_report_equal_the_whole(lab, tmp_path, capsys):
    from ssa import cli
    specs, _ = lab
    out = tmp_path / "cluster"
    for k in (1, 2, 3):                                 # the array's tasks
        assert cli.main(["experiment", "run", "a", "b", "--out", str(out),
                         "--shard", f"{k}/3"]) == 0
    assert "points of shard 3/3 ok" in capsys.readouterr().out
    assert not (out / "a" / "results.json").exists()
    assert cli.main(["experiment", "report", str(out)]) == 0
    runner.run(["a", "b"], False, "icount", str(tmp_path / "whole"))
    assert comparable(out) == comparable(tmp_path / "whole")
    assert json.loads((out / "a" / "results.json").read_text())["jobs"] == 3
    # the same parts whatever ran: shard 2 of 3 of a fresh plan is shard 2 here
    fresh = runner.split(plans_of(specs, str(out)), 3, keep_empty=True)[1]
    ran = json.loads((out / "plan-2.json").read_text())
    assert [(pl["experiment"], [p["id"] for p in pl["points"]]) for pl in fresh] == \
        [(pl["experiment"], [p["id"] for p in pl["points"]]) for pl in ran]


def test_timeout_stops_every_guest(lab, tmp_path, monkeypatch):
    specs, _ = lab
    monkeypatch.setattr(runner, "vm_command", lambda *a, **k: ["sleep", "60"])
    res = runner.run(["a", "b"], False, "icount", str(tmp_path / "t"), jobs=2, timeout=0.5)
    assert all(p["status"] == "not run" for r in res for p in r["points"])
    fails = [f for r in res for f in r["failures"]]
    assert any("guest 1 of 2" in f and "timeout" in f for f in fails)
    assert any("guest 2 of 2" in f for f in fails)
    assert "stopped after" in (tmp_path / "t" / "run-2.log").read_text()


def test_progress_line_and_time_left():
    assert runner.hms(5) == "5s" and runner.hms(185) == "3m05s" and runner.hms(3720) == "1h02m"
    assert runner.progress_line(3, 41, "seed002-fig4 p01 ok (guest 2)", 125.0, 600.0) == \
        "ssa experiment: [3/41] seed002-fig4 p01 ok (guest 2); 2m05s elapsed, about 10m00s left"
    assert runner.progress_line(1, 2, "x p00 ok", 1.0, None).endswith("about ? left")
    # two guests that did 100 each in 100 s of points: 1 a guest-second; the
    # slower has 300 left
    assert runner.time_left(200.0, 200.0, [50.0, 300.0]) == pytest.approx(300.0)
    assert runner.time_left(0.0, 0.0, [1.0]) is None


def test_log_watch_reads_a_log_that_qemu_truncated(tmp_path):
    """QEMU opens the guest's log afresh (truncating what tools/vm wrote):
    the guest's lines, written from the top again, are all seen."""
    log = tmp_path / "run-1.log"
    log.write_text("tools/vm: guest 6.1.0-56-amd64 (tcg, instruction clock, 1 cpus, 2G)\n")
    w = runner._LogWatch(str(log), 0.0)
    assert w.poll() == []
    log.write_text("labrun: a p03 (1/2) x {}\nlabrun: p03 ok in 1.0 s of guest time\n"
                   "labrun: a p04 (2/2) x {}\nlabrun: p04 failed: dmsetup\n")
    assert w.poll() == [("a", "p03", "ok"), ("a", "p04", "failed")]
    with open(log, "a") as f:
        f.write("labrun: b p00 (1/1) y {}\nlabrun: p00 outrun in 2.0 s of guest time\n")
    assert w.poll() == [("b", "p00", "outrun")] and set(w.first) == {"a", "b"}
    log.write_text("")                                  # truncated, not yet rewritten
    assert w.poll() == []
    log.write_text("labrun: c p00 (1/1) z {}\nlabrun: p00 ok in 1.0 s of guest time\n")
    assert w.poll() == [("c", "p00", "ok")]
    with open(log, "a") as f:                           # the extra round's runs
        f.write("labrun: c p11-r2 (1/1) z {}\nlabrun: p11-r2 ok in 1.0 s of guest time\n")
    assert w.poll() == [("c", "p11-r2", "ok")]


def test_memory_limit():
    gib = runner.GIB
    assert runner.memory_jobs(22 * gib) == 6            # (22 - 2) // 3
    assert runner.memory_jobs(1 * gib) == 1
    runner.check_jobs(6, "icount", None, 22 * gib)
    with pytest.raises(ValueError, match="at most -j 6"):
        runner.check_jobs(7, "icount", None, 22 * gib)
    with pytest.raises(ValueError, match="--shard"):
        runner.check_jobs(2, "icount", (1, 2), None)
    assert runner.parse_shard("2/5") == (2, 5)
    for bad in ("0/3", "4/3", "x", "1/2/3"):
        with pytest.raises(ValueError):
            runner.parse_shard(bad)


def test_correlated_points_run_again_in_a_second_round(lab, tmp_path, monkeypatch, capsys):
    specs, calls = lab
    monkeypatch.setattr(replicate, "RHO1_LIMIT", 0.45)
    monkeypatch.setenv("FAKE_LAB_CORRELATED", "p01")      # a slowly relaxing queue there
    res = runner.run(["a"], False, "icount", str(tmp_path / "r"), jobs=2)
    out = tmp_path / "r"
    assert {c[1] for c in calls} >= {str(out / "vm-101")}
    for k in (2, 3):
        assert (out / f"p01-r{k}" / "point.json").exists()
    p01 = next(p for p in res[0]["points"] if p["id"] == "p01")
    assert p01["replicates"] == 3 and len(p01["read_runs_s"]) == 3
    printed = capsys.readouterr().out
    assert "correlated batch means (a: p01" in printed
    assert "a p01-r2 ok" in printed and "a p01-r3 ok" in printed   # progress of the round
    saved = json.loads((out / "results.json").read_text())
    assert next(p for p in saved["points"] if p["id"] == "p01")["replicates"] == 3
    # again with --resume: nothing left to run, the same combined point
    calls.clear()
    again = runner.run(["a"], False, "icount", str(out), resume=True)
    assert next(p for p in again[0]["points"] if p["id"] == "p01")["replicates"] == 3
    assert not any(c[1] and c[1].endswith("vm-101") for c in calls)
    # --no-replicate: a flagged point stays one run, with a note
    other = runner.run(["a"], False, "icount", str(tmp_path / "n"), replicate_runs=False)
    p01 = next(p for p in other[0]["points"] if p["id"] == "p01")
    assert "replicates" not in p01 and any("correlated" in n for n in p01["notes"])


def test_programs_run_from_guest_memory(tmp_path, monkeypatch):
    """labrun copies a program, its libraries and the loader (named as
    the program: the tasks' comm) into a tmpfs and runs it through that
    loader: no code page of a measured run is read from the host."""
    from ssa import labrun
    root = tmp_path / "root"
    root.mkdir()
    for f in ("ssaload", "libc.so.6", "libm.so.6", "ld-linux-x86-64.so.2"):
        (root / f).write_text(f)
    ldd = (f"\tlinux-vdso.so.1 (0x00007ffd)\n\tlibm.so.6 => {root}/libm.so.6 (0x00007f1a)\n"
           f"\tlibc.so.6 => {root}/libc.so.6 (0x00007f1b)\n"
           f"\t{root}/ld-linux-x86-64.so.2 (0x00007f1c)\n")
    assert labrun.ldd_objects(ldd) == [("libm.so.6", f"{root}/libm.so.6"),
                                       ("libc.so.6", f"{root}/libc.so.6"),
                                       ("ld-linux-x86-64.so.2", f"{root}/ld-linux-x86-64.so.2")]

    class R:
        returncode, stdout = 0, ldd
    monkeypatch.setattr(labrun, "sh", lambda cmd, check=True, **kw: R)
    mem = tmp_path / "shm"
    mem.mkdir()
    cmd = labrun.in_memory(str(root / "ssaload"), str(mem))
    assert cmd == [str(mem / "ssaload"), "--library-path", str(mem), str(mem / "ssaload.bin")]
    assert (mem / "ssaload").read_text() == "ld-linux-x86-64.so.2"
    assert (mem / "ssaload.bin").read_text() == "ssaload"
    assert (mem / "libc.so.6").read_text() == "libc.so.6"
    # a second program sharing libc leaves the first one's copy alone
    (root / "ssatrace").write_text("ssatrace")
    (mem / "libc.so.6").write_text("in use")
    labrun.in_memory(str(root / "ssatrace"), str(mem))
    assert (mem / "libc.so.6").read_text() == "in use"
    assert (mem / "ssatrace.bin").read_text() == "ssatrace"
    R.returncode = 1                                    # no ldd: as it is
    assert labrun.in_memory(str(root / "ssaload"), str(mem)) == [str(root / "ssaload")]


def test_guest_settings_only_in_a_guest(tmp_path, monkeypatch):
    """labrun turns transparent huge pages and address randomisation off
    in its guest (their page clears and layouts would move a point's
    instruction count from boot to boot), never on a host it runs on."""
    from ssa import labrun
    thp, aslr = tmp_path / "enabled", tmp_path / "randomize_va_space"
    thp.write_text("[always] madvise never")
    aslr.write_text("2")
    settings = ((str(thp), "never"), (str(aslr), "0"), (str(tmp_path / "no" / "x"), "1"))
    monkeypatch.setenv("SSA_VM_NATIVE", "1")
    assert labrun.settle_guest(settings) == [] and aslr.read_text() == "2"
    monkeypatch.delenv("SSA_VM_NATIVE")
    assert labrun.settle_guest(settings) == [str(tmp_path / "no" / "x")]
    assert (thp.read_text(), aslr.read_text()) == ("never", "0")
    assert [p for p, _ in labrun.GUEST_SETTINGS][-1] == "/proc/sys/kernel/randomize_va_space"


def test_points_reach_their_directories_when_the_unit_ends(tmp_path, monkeypatch):
    """labrun keeps a unit's finished points in guest memory and moves
    them at the unit's end (no host I/O while its disks turn), each
    point's point.json last: a point directory with point.json is whole."""
    from ssa import labrun
    moved = []
    real = labrun.shutil.move
    monkeypatch.setattr(labrun.shutil, "move", lambda a, b: (moved.append(b), real(a, b)))
    for pid in ("p00", "p01"):
        s = tmp_path / f"mem-{pid}"
        s.mkdir()
        for fn in ("point.json", "records.csv", "trace.csv", "workload.log"):
            (s / fn).write_text(fn)
        labrun._pending.append((str(s), str(tmp_path / "exp" / pid)))
    labrun.flush()
    assert labrun._pending == [] and not (tmp_path / "mem-p00").exists()
    assert [os.path.basename(m) for m in moved] == [
        "records.csv", "trace.csv", "workload.log", "point.json"] * 2
    assert (tmp_path / "exp" / "p01" / "trace.csv").read_text() == "trace.csv"
