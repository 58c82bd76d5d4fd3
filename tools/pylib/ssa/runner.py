"""The experiment lab's host side: boots the guests that run the executor
(``ssa.labrun``) over a run's plan, watches their logs, stops them on
``--timeout`` and summarises each experiment (``ssa.experiment``) when
they end.  ``ssa.experiment`` re-exports the older names for its callers.

Under ``-j N`` the points are spread over N guests at once.  They are
independent, and on the instruction clock each is a count of emulated
instructions, so a point measures the same whichever guest runs it, up
to the drift the host's I/O puts between any two runs (about 1e-4 of a
mean; Documentation/experiments.rst) -- provided it finds the same
devices.  A guest keeps a point's devices when
they are the point before's (a rate sweep keeps its parity volume), so
the runs of consecutive points of an experiment that share their devices
(*units*) are never split: each guest gets whole units, in the
catalogue's order, chosen longest first for the guest with the least work
so far (LPT) by an estimate of each point's cost (``point_cost``).
``--shard K/N`` runs only the K-th of those N parts, the same parts
whatever ran before, for the batch array of a cluster.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import time
from dataclasses import dataclass

from . import plan as lab_plan
from . import report as lab_report
from . import spec as lab_spec
from .specdef import CLOCKS, SpecError

GIB = 1024 ** 3
# tools/vm's -m (its default): the memory of each guest
GUEST_MEM = 2 * GIB
# What an instruction-clock guest of GUEST_MEM takes of the host at its
# peak: the guest's memory as it is touched, QEMU's translation cache and
# its own (ENVIRONMENT.md: a 4 GiB TCG guest up to ~6 GiB).
HOST_PER_GUEST = 3 * GIB
# kept free for the host itself: the summary (numpy, matplotlib), the shell
HOST_RESERVE = 2 * GIB
# A point's cost, in requests of 16 KiB: a fixed part for what every point
# spends apart from its requests (devices, the tracer's attach, the
# generator's start), then each request measured or warmed up, one and
# its size over 16 KiB.  Fitted to the quick catalogue's 41 points (one
# guest, instruction clock, 2026-11-29): 5.3 s + 1.26 ms a request
# (correlation 0.55: the host was shared).
POINT_FIXED = 4000
REQUEST_UNIT = 16 * 1024
POLL_S = 0.2


# -- the catalogue's names -------------------------------------------------------

def resolve(names: list[str], cat: dict) -> list[str]:
    """Experiment names as given (``all`` for the catalogue), checked."""
    if names == ["all"]:
        return list(cat)
    unknown = [n for n in names if n not in cat]
    if unknown:
        raise SpecError(f"unknown experiment(s) {', '.join(unknown)}; "
                           f"`ssa experiment list` shows the {len(cat)} there are")
    return names


# -- units and shards (pure) -------------------------------------------------------

@dataclass(frozen=True)
class Unit:
    """Consecutive points of one experiment on the same devices: ``plan``
    indexes the run's plans, ``points`` that plan's points."""
    plan: int
    points: tuple[int, ...]
    cost: float


def mean_blocks(sizes: str) -> float:
    """The mean of ssaload's --sizes law, roughly (qgeo: its head)."""
    kind, *a = sizes.split(":")
    if kind == "fixed":
        return float(a[0])
    if kind == "uniform":
        return (int(a[0]) + 1) / 2
    return 2.0


def point_cost(point: dict) -> float:
    """What a point costs a guest, in requests of 16 KiB: on the
    instruction clock idle time is skipped, so the wall time goes with the
    work done -- the requests, their sizes and a fixed part -- not with
    the rate or the think time."""
    w = point.get("workload", {})
    n = float(w.get("requests", 0)) + float(w.get("warmup", 0))
    size = float(w.get("block", 4096)) * mean_blocks(str(w.get("sizes", "fixed:1")))
    return POINT_FIXED + n * (1 + size / REQUEST_UNIT)


def mark_units(plan: dict) -> dict:
    """Number the plan's units in each point (``unit``): a new one where a
    point's devices differ from the point before's.  The executor keeps a
    point's devices only within its unit."""
    unit, prev = -1, None
    for p in plan["points"]:
        if p["devices"] != prev:
            unit += 1
        p["unit"], prev = unit, p["devices"]
    return plan


def units(plans: list[dict]) -> list[Unit]:
    """The units of the plans, in order (points of one ``unit`` number
    that follow each other; a plan without numbers: by their devices)."""
    out: list[tuple[int, list[int]]] = []
    for i, pl in enumerate(plans):
        prev = object()
        for j, p in enumerate(pl["points"]):
            key = p.get("unit", json.dumps(p.get("devices")))
            if j == 0 or key != prev:
                out.append((i, []))
            out[-1][1].append(j)
            prev = key
    return [Unit(i, tuple(js), sum(point_cost(plans[i]["points"][j]) for j in js))
            for i, js in out]


def lpt(costs: list[float], n: int) -> list[list[int]]:
    """Longest processing time first: each item, dearest first (ties: the
    earlier), to the bin with the least so far (ties: the lower); each
    bin's items in their order."""
    loads, bins = [0.0] * n, [[] for _ in range(n)]
    for i in sorted(range(len(costs)), key=lambda i: (-costs[i], i)):
        k = min(range(n), key=lambda k: (loads[k], k))
        bins[k].append(i)
        loads[k] += costs[i]
    return [sorted(b) for b in bins]


def subset(plans: list[dict], us: list[Unit]) -> list[dict]:
    """The plans cut down to the points of ``us``, in the plans' order;
    plans left without points are dropped."""
    out = []
    for i, pl in enumerate(plans):
        idx = sorted(j for u in us if u.plan == i for j in u.points)
        if idx:
            out.append(dict(pl, points=[pl["points"][j] for j in idx]))
    return out


def split(plans: list[dict], n: int, keep_empty: bool = False) -> list[list[dict]]:
    """The plans in ``n`` shards of whole units, balanced by cost.  Shards
    left empty (fewer units than ``n``) are dropped unless ``keep_empty``
    (``--shard K/N`` must mean the same K whatever N)."""
    us = units(plans)
    shards = [subset(plans, [us[i] for i in b]) for b in lpt([u.cost for u in us], n)]
    return shards if keep_empty else [s for s in shards if s]


def remaining(plans: list[dict], done) -> list[dict]:
    """The plans without the points ``done(plan, point)`` says ran ok
    (``--resume``); plans left without points are dropped."""
    out = []
    for pl in plans:
        pts = [p for p in pl["points"] if not done(pl, p)]
        if pts:
            out.append(dict(pl, points=pts))
    return out


def parse_shard(text: str) -> tuple[int, int]:
    """``K/N`` (1 <= K <= N) as (K, N)."""
    try:
        k, n = (int(x) for x in text.split("/"))
    except ValueError:
        raise ValueError(f"--shard wants K/N (two whole numbers), not {text!r}") from None
    if not 1 <= k <= n:
        raise ValueError(f"--shard {text}: K must be 1 to N")
    return k, n


# -- how many guests ---------------------------------------------------------------

def memory_jobs(available: int, per_guest: int = HOST_PER_GUEST,
                reserve: int = HOST_RESERVE) -> int:
    """How many guests the host's available memory holds (at least one)."""
    return max(1, (available - reserve) // per_guest)


def available_memory(path: str = "/proc/meminfo") -> int | None:
    """MemAvailable in bytes (what other guests already hold is not), or
    None where the kernel does not say."""
    try:
        with open(path, encoding="ascii") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def check_jobs(jobs: int, clock: str, shard, available: int | None) -> None:
    """Refuse a number of guests that cannot work, with the reason."""
    if jobs < 1:
        raise ValueError(f"-j {jobs}: the number of guests must be at least 1")
    if jobs == 1:
        return
    if shard is not None:
        raise ValueError("--shard K/N runs one guest: give it without -j "
                         "(run the N shards at once instead)")
    if clock == "native":
        raise ValueError(f"-j {jobs} with --clock native: one kernel has one set of ramdisks "
                         "and device names, so its points run one at a time")
    if available is not None and jobs > memory_jobs(available):
        raise ValueError(
            f"-j {jobs}: {jobs} guests of {GUEST_MEM // GIB} GiB need about "
            f"{jobs * HOST_PER_GUEST / GIB:.0f} GiB of host memory "
            f"({HOST_PER_GUEST / GIB:.0f} GiB each, and {HOST_RESERVE / GIB:.0f} GiB kept "
            f"for the host); {available / GIB:.1f} GiB are available: at most "
            f"-j {memory_jobs(available)} (more and the OOM killer ends a guest)")


# -- progress (pure) -----------------------------------------------------------------

def hms(s: float | None) -> str:
    """12s, 3m05s, 1h02m."""
    if s is None:
        return "?"
    s = int(round(s))
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m{s % 60:02d}s"
    return f"{s // 3600}h{s % 3600 // 60:02d}m"


def time_left(busy: float, cost_done: float, cost_left: list[float]) -> float | None:
    """The wall time left: each guest's cost left at the pace the guests
    have kept so far (the cost done over ``busy``, the guest-seconds
    since each guest's first point: a boot is no point's work), the
    slowest guest's."""
    if not cost_left or max(cost_left) <= 0:
        return 0.0
    if cost_done <= 0 or busy <= 0:
        return None
    return max(cost_left) / (cost_done / busy)


def progress_line(done: int, total: int, what: str, elapsed: float,
                  left: float | None) -> str:
    """One finished point: ``[done/total] what; elapsed, left``."""
    return (f"ssa experiment: [{done}/{total}] {what}; {hms(elapsed)} elapsed, "
            f"about {hms(left)} left")


class Progress:
    """Counts finished points against the guests' shards and makes a
    progress line of each."""

    def __init__(self, shards: dict[int, list[dict]]):
        self.cost = {(k, pl["experiment"], p["id"]): point_cost(p)
                     for k, plans in shards.items() for pl in plans for p in pl["points"]}
        self.left = {k: sum(c for (g, _, _), c in self.cost.items() if g == k) for k in shards}
        self.total, self.done, self.cost_done = len(self.cost), 0, 0.0
        self.guests = len(shards)

    def finished(self, k: int, exp: str, pid: str, status: str, elapsed: float,
                 busy: float) -> str:
        c = self.cost.get((k, exp, pid), 0.0)
        self.done += 1
        self.cost_done += c
        self.left[k] = max(0.0, self.left[k] - c)
        who = f" (guest {k})" if self.guests > 1 else ""
        return progress_line(self.done, self.total, f"{exp} {pid} {status}{who}", elapsed,
                             time_left(busy, self.cost_done, list(self.left.values())))


# -- the guests ------------------------------------------------------------------------

def vm_command(clock: str, outdir: str, plan: str | None = None,
               vmdir: str | None = None) -> list[str]:
    """tools/vm's command line that runs the executor on ``clock``: over
    ``plan`` (default OUTDIR/plan.json), the guest's own files (its
    kernel log) in ``vmdir`` (default OUTDIR), OUTDIR writable."""
    top = os.path.dirname(lab_spec.spec_dir())
    where = {"icount": ["-i"], "tcg": ["--guest"], "native": ["--native"]}[clock]
    inner = f"PYTHONPATH=tools/pylib python3 -m ssa.labrun {outdir}" + (f" {plan}" if plan else "")
    dirs = ["-o", vmdir, "-w", outdir] if vmdir else ["-o", outdir]
    return [os.path.join(top, "tools", "vm"), *where, *dirs, "--", inner]


def _done_ok(pdir: str) -> bool:
    return lab_report._read_json(os.path.join(pdir, "point.json")).get("status") == "ok"


def _stop_groups(ps: list) -> None:
    """SIGTERM to each child's process group, SIGKILL to what is left
    after 30 s, then to what outlived each leader."""
    for sig, wait in ((signal.SIGTERM, 30), (signal.SIGKILL, 10)):
        for p in ps:
            try:
                os.killpg(p.pid, sig)
            except ProcessLookupError:
                pass
        deadline = time.monotonic() + wait
        for p in ps:
            try:
                p.wait(timeout=max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                pass
        if all(p.poll() is not None for p in ps):
            break
    for p in ps:
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def _stop_group(p) -> None:
    """SIGTERM to a child's process group, SIGKILL after 30 s."""
    _stop_groups([p])


_POINT_ID = re.compile(r"p\d+(-r\d+)?$")     # a point, or an extra run of one


class _LogWatch:
    """A guest's log read as the guest writes it: the host's time at which
    each experiment's first point appears ("labrun: NAME pNN ..."), in
    ``first`` -- in one boot only the host can tell how long each
    experiment took (the guest's clock is the instruction count's) -- and
    the points that finish ("labrun: pNN STATUS ..."), returned by
    ``poll`` as (experiment, point, status).

    QEMU opens the log afresh, truncating it, when it starts: what
    tools/vm wrote before is gone and the guest's lines start again at
    the top.  A file shorter than what was read, or whose first bytes
    changed, is read again from its start."""

    HEAD = 64

    def __init__(self, path: str, t0: float):
        self.path, self.t0, self.pos, self.first = path, t0, 0, {}
        self._exp, self._head = None, b""
        self._now = time.monotonic

    def _read(self) -> str:
        with open(self.path, "rb") as f:
            size = os.fstat(f.fileno()).st_size
            head = f.read(self.HEAD)
            if size < self.pos or not head.startswith(self._head):
                self.pos, self._exp = 0, None           # truncated and rewritten
            self._head = head
            f.seek(self.pos)
            data = f.read()
        end = data.rfind(b"\n") + 1                    # whole lines only
        self.pos += end
        return data[:end].decode("utf-8", errors="replace")

    def poll(self) -> list[tuple[str, str, str]]:
        try:
            text = self._read()
        except OSError:
            return []
        t = self._now() - self.t0
        done = []
        for line in text.splitlines():
            w = line.split()
            if len(w) < 3 or w[0] != "labrun:":
                continue
            if w[2].startswith("p") and "(" in line:
                self.first.setdefault(w[1], t)
                self._exp = w[1]
            elif _POINT_ID.match(w[1]) and self._exp:
                done.append((self._exp, w[1], w[2].rstrip(":")))
        return done


def experiment_walls(first: dict, names: list[str], end: float) -> dict:
    """Each experiment's own wall time in a run of several: from when its
    first point was seen to when the next experiment's was (the last one
    to ``end``).  Experiments never seen (nothing ran) are left out."""
    started = sorted((t, n) for n, t in first.items() if n in names)
    out = {}
    for i, (t, n) in enumerate(started):
        out[n] = (started[i + 1][0] if i + 1 < len(started) else end) - t
    return out


def sum_walls(walls: list[dict]) -> dict:
    """An experiment's wall time over several guests: the sum of its
    shares (guest-seconds)."""
    out: dict = {}
    for w in walls:
        for n, s in w.items():
            out[n] = out.get(n, 0.0) + s
    return out


@dataclass
class Guest:
    """One guest of a run: its number, its plans and its files."""
    k: int
    plans: list
    plan: str           # the plan file the executor reads
    log: str
    vmdir: str | None   # tools/vm -o (None: the run's directory)


def guests_for(out: str, shards: list[list[dict]], numbers: list[int] | None = None,
               own_files: bool = True) -> list[Guest]:
    """The guests of a run: with ``own_files``, guest K reads plan-K.json,
    logs to run-K.log and keeps its kernel log in vm-K/; otherwise (one
    guest) plan.json, run.log and the run's directory as before."""
    numbers = numbers or list(range(1, len(shards) + 1))
    if not own_files:
        return [Guest(numbers[0], shards[0], os.path.join(out, "plan.json"),
                      os.path.join(out, "run.log"), None)]
    return [Guest(k, s, os.path.join(out, f"plan-{k}.json"), os.path.join(out, f"run-{k}.log"),
                  os.path.join(out, f"vm-{k}")) for k, s in zip(numbers, shards)]


def _write_json(path: str, obj) -> None:
    """Whole or not at all (shards on shared storage write the same plan)."""
    tmp = f"{path}.{os.getpid()}.tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(obj, f, indent=1)
    os.replace(tmp, path)


def run_guests(guests: list[Guest], clock: str, out: str, timeout: float | None,
               echo, append: bool) -> tuple[dict, dict, dict]:
    """Boot every guest at once, echo a progress line per finished point,
    stop them all after ``timeout`` s.  Returns each guest's exit status
    ("timeout" when stopped), its end (s from the start) and its log's
    watch."""
    t0 = time.monotonic()
    prog = Progress({g.k: g.plans for g in guests})
    procs, files, watch = {}, {}, {}
    for g in guests:
        cmd = vm_command(clock, out, g.plan if g.vmdir else None, g.vmdir) if g.plans else ["true"]
        files[g.k] = open(g.log, "a" if append else "w", encoding="utf-8")
        procs[g.k] = subprocess.Popen(cmd, stdout=files[g.k], stderr=subprocess.STDOUT,
                                      start_new_session=True)
        watch[g.k] = _LogWatch(g.log, t0)
    rcs, ends = {}, {}

    def report() -> None:
        for k, w in watch.items():
            for exp, pid, status in w.poll():
                now = time.monotonic() - t0
                busy = sum(max(0.0, ends.get(j, now) - min(v.first.values()))
                           for j, v in watch.items() if v.first)
                echo(prog.finished(k, exp, pid, status, now, busy))

    while len(rcs) < len(procs):
        time.sleep(POLL_S)
        for k, p in procs.items():
            if k not in rcs and p.poll() is not None:
                rcs[k], ends[k] = p.returncode, time.monotonic() - t0
        report()
        if timeout is not None and time.monotonic() - t0 > timeout and len(rcs) < len(procs):
            # every guest's whole group: the emulator (or, natively, the
            # executor, which restores udev's queue on SIGTERM), then what
            # is left
            left = [k for k in procs if k not in rcs]
            for k in left:
                files[k].write(f"\nssa experiment: stopped after {timeout:.0f} s\n")
                files[k].flush()
            _stop_groups([procs[k] for k in left])
            for k in left:
                rcs[k], ends[k] = "timeout", time.monotonic() - t0
    report()
    for f in files.values():
        f.close()
    return rcs, ends, watch


def merge_guest_times(edir: str) -> None:
    """An experiment's guest time over the shards that ran it: the sum of
    their ``guest-K.json`` in ``guest.json``."""
    parts = sorted(f for f in os.listdir(edir) if f.startswith("guest-") and f.endswith(".json"))
    if parts:
        total = sum(lab_report._read_json(os.path.join(edir, f)).get("guest_s") or 0.0 for f in parts)
        _write_json(os.path.join(edir, "guest.json"), {"guest_s": total, "shards": len(parts)})


# -- a run -----------------------------------------------------------------------------

def _fresh_plans(cat: dict, names: list[str], dirs: dict, quick: bool, clock: str,
                 jobs: int) -> list[dict]:
    """Every experiment's whole plan, units numbered; old results.json and
    report.md removed (they would describe another run)."""
    plans = []
    for n in names:
        os.makedirs(dirs[n], exist_ok=True)
        for old in ("results.json", "report.md"):
            try:
                os.remove(os.path.join(dirs[n], old))
            except FileNotFoundError:
                pass
        plans.append(dict(mark_units(lab_plan.plan(cat[n], quick, clock, dirs[n])), jobs=jobs))
    return plans


def _done(pl: dict, p: dict) -> bool:
    return _done_ok(os.path.join(pl["dir"], p["id"]))


def _failure(g: Guest, rc, n: int, clock: str) -> str:
    if n == 1 and g.vmdir is None:
        return (f"the {'guest' if clock != 'native' else 'run'} ended with status {rc} "
                f"(see {g.log})")
    return (f"guest {g.k} of {n} (shard {g.k}/{n}) ended with status {rc}: its points that "
            f"did not finish are not run (see {g.log})")


def _shard_result(pl: dict, k: int, n: int, fails: list[str], out: str) -> dict:
    """What a ``--shard`` task says of an experiment: its points' status
    (the analysis waits for ``ssa experiment report`` over the union)."""
    pts = [{"id": p["id"], "status": lab_report._read_json(
        os.path.join(pl["dir"], p["id"], "point.json")).get("status", "not run")}
        for p in pl["points"]]
    ok = all(p["status"] == "ok" for p in pts)
    return {"experiment": pl["experiment"], "dir": pl["dir"], "shard": f"{k}/{n}",
            "run_dir": out, "points": pts, "status": "complete" if ok else "incomplete",
            "failures": fails}


def run(names: list[str], quick: bool, clock: str, out: str, timeout: float | None = None,
        echo=print, resume: bool = False, jobs: int = 1,
        shard: tuple[int, int] | None = None, replicate_runs: bool = True) -> list[dict]:
    """Run experiments on ``clock`` in ``jobs`` guests at once (or only
    shard K of N) and summarise each.  One experiment writes into
    ``out``; several into ``out/NAME``.  A full run then runs again, in
    a second round of guests, every point whose batch means are
    correlated (ssa.replicate), unless ``replicate_runs`` is false."""
    t0 = time.monotonic()
    if clock not in CLOCKS:
        raise SpecError(f"--clock must be one of {', '.join(CLOCKS)}")
    check_jobs(jobs, clock, shard, available_memory() if clock != "native" else None)
    cat = lab_spec.catalogue()
    names = resolve(names, cat)
    out = os.path.abspath(out)
    os.makedirs(out, exist_ok=True)
    dirs = {n: out if len(names) == 1 else os.path.join(out, n) for n in names}
    plans = _fresh_plans(cat, names, dirs, quick, clock, shard[1] if shard else jobs)
    if shard:
        k, n = shard
        shards = [split(plans, n, keep_empty=True)[k - 1]]
        numbers = [k]
    else:
        shards = split(remaining(plans, _done) if resume else plans, jobs)
        numbers = None
        nunits = len(units(remaining(plans, _done) if resume else plans))
        if 0 < len(shards) < jobs:
            echo(f"ssa experiment: -j {jobs}, but only {nunits} unit(s) of points to run: "
                 f"{len(shards)} guest(s)")
    if resume:
        shards = [remaining(s, _done) for s in shards]
    todo = sum(len(p["points"]) for s in shards for p in s)
    if not todo:
        echo(f"ssa experiment: shard {shard[0]}/{shard[1]} has no points to run" if shard and
             not resume else "ssa experiment: every point has run already (--resume)")
        shards = [s for s in shards if s][:1] or [[]]
    own_files = bool(shard) or len(shards) > 1
    guests = guests_for(out, shards, numbers, own_files)
    if own_files:
        _write_json(os.path.join(out, "plan.json"), plans)
    for g in guests:
        if g.plans:
            _write_json(g.plan, g.plans)
            if own_files and not shard:
                for pl in g.plans:          # the shards' guest times of an earlier run
                    _drop_guest_parts(pl["dir"])
    echo(f"ssa experiment: {', '.join(names)} ({todo} points, {'quick, ' if quick else ''}"
         f"{clock} clock, {len(guests)} guest{'s' if len(guests) > 1 else ''}"
         f"{f', shard {shard[0]}/{shard[1]}' if shard else ''}); "
         f"log: {', '.join(g.log for g in guests)}")
    rcs, ends, watch = run_guests(guests, clock, out, timeout, echo, append=resume)
    fails = {n: [] for n in names}
    for g in guests:
        if rcs[g.k] not in (0, None):
            for pl in g.plans:
                fails[pl["experiment"]].append(
                    _failure(g, rcs[g.k], shard[1] if shard else len(guests), clock))
    if shard:
        return [_shard_result(pl, shard[0], shard[1], fails[pl["experiment"]], out)
                for pl in guests[0].plans]
    wall = max(ends.values(), default=0.0)
    own = sum_walls([experiment_walls(watch[g.k].first, names, ends[g.k]) for g in guests])
    if own_files:
        for n in names:
            merge_guest_times(dirs[n])
    summaries = summarise_all(
        [((cat[n], dirs[n], quick, clock, wall, len(names)),
          {"own_wall_s": own.get(n), "jobs": len(guests)}) for n in names], jobs)
    results = []
    for n, r in zip(names, summaries):
        if fails[n]:
            r["failures"] += fails[n]
            with open(os.path.join(dirs[n], "results.json"), "w", encoding="utf-8") as f:
                json.dump(lab_report.nan_to_none(r), f, indent=1, sort_keys=True)
            with open(os.path.join(dirs[n], "report.md"), "w", encoding="utf-8") as f:
                f.write(lab_report.report_md(r))
        r["dir"] = dirs[n]
        results.append(r)
    if replicate_runs and not quick:
        left = None if timeout is None else timeout - (time.monotonic() - t0)
        results = _extra_runs(cat, names, dirs, results, clock, out, left, echo, jobs,
                              wall, own)
    return results


def _summarise(call: tuple) -> dict:
    args, kw = call
    return lab_report.summarise(*args, **kw)


def summarise_all(calls: list[tuple], jobs: int) -> list[dict]:
    """ssa.report.summarise(*args, **kw) for each (args, kw) of ``calls``, in up to
    ``jobs`` processes at once (the analysis of one experiment is one
    process's work: numpy, the models, matplotlib); results in order."""
    if jobs <= 1 or len(calls) <= 1:
        return [_summarise(c) for c in calls]
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    with ProcessPoolExecutor(min(jobs, len(calls)),
                             mp_context=multiprocessing.get_context("fork")) as pool:
        return list(pool.map(_summarise, calls))


EXTRA_GUESTS = 100          # the extra round's guests are numbered from 101


def _extra_runs(cat: dict, names: list[str], dirs: dict, results: list[dict], clock: str,
                out: str, timeout: float | None, echo, jobs: int, wall: float,
                own: dict) -> list[dict]:
    """The second round: every point whose batch means are correlated runs
    again (replicate.RUNS runs in all, each its own unit: fresh devices),
    in up to ``jobs`` guests, and the experiments that got runs are
    summarised again with them."""
    from . import replicate
    plans, need_by = [], {}
    for n, r in zip(names, results):
        need = replicate.wanted(r, dirs[n])
        pl = replicate.extra_plan(cat[n], False, clock, dirs[n], need) if need else None
        if pl:
            for i, p in enumerate(pl["points"]):
                p["unit"] = 1_000_000 + i
            plans.append(dict(pl, jobs=jobs))
            need_by[n] = need
    if not plans:
        return results
    if timeout is not None and timeout <= 0:
        echo("ssa experiment: no time left for the extra runs of correlated points")
        return results
    todo = sum(len(p["points"]) for p in plans)
    echo(f"ssa experiment: {sum(len(v) for v in need_by.values())} point(s) with correlated "
         f"batch means ({', '.join(f'{n}: ' + ' '.join(v) for n, v in need_by.items())}): "
         f"{todo} extra run(s)")
    shards = split(plans, jobs)
    guests = guests_for(out, shards, list(range(EXTRA_GUESTS + 1,
                                                EXTRA_GUESTS + 1 + len(shards))), True)
    for g in guests:
        _write_json(g.plan, g.plans)
    for n in need_by:                           # keep the first round's guest time
        main = os.path.join(dirs[n], "guest.json")
        if os.path.exists(main) and not any(f.startswith("guest-") for f in
                                            os.listdir(dirs[n])):
            os.replace(main, os.path.join(dirs[n], "guest-main.json"))
    rcs, ends, _ = run_guests(guests, clock, out, timeout, echo, append=False)
    extra_wall = max(ends.values(), default=0.0)
    again = [n for n in names if n in need_by]
    for n in again:
        merge_guest_times(dirs[n])
    redone = dict(zip(again, summarise_all(
        [((cat[n], dirs[n], False, clock, wall + extra_wall, len(names)),
          {"own_wall_s": (own.get(n) or 0.0) + extra_wall, "jobs": len(guests)})
         for n in again], jobs)))
    out_results = []
    for n, r in zip(names, results):
        if n not in need_by:
            out_results.append(r)
            continue
        r2 = redone[n]
        r2["failures"] += [f for f in r.get("failures", []) if "ended with status" in f]
        for g in guests:
            if rcs[g.k] not in (0, None) and any(pl["experiment"] == n for pl in g.plans):
                r2["failures"].append(f"extra-run guest {g.k} ended with status "
                                      f"{rcs[g.k]}: the runs it did not finish are "
                                      f"missing (see {g.log})")
        if r2["failures"] != r.get("failures"):
            with open(os.path.join(dirs[n], "results.json"), "w", encoding="utf-8") as f:
                json.dump(lab_report.nan_to_none(r2), f, indent=1, sort_keys=True)
            with open(os.path.join(dirs[n], "report.md"), "w", encoding="utf-8") as f:
                f.write(lab_report.report_md(r2))
        r2["dir"] = dirs[n]
        out_results.append(r2)
    return out_results


def _drop_guest_parts(edir: str) -> None:
    for f in os.listdir(edir) if os.path.isdir(edir) else []:
        if f.startswith("guest-") and f.endswith(".json"):
            os.remove(os.path.join(edir, f))
