"""What a point measured: its records (``ssatrace``'s, cut to the
generator's measured window, or the generator's own), the mean responses
with batch-means intervals, the arrival statistics, the members'
utilizations and the measured maximum rate, the cache's counters
(``analyse_point``, ``measured``).
"""

from __future__ import annotations

import csv
import json
import math
import os
from dataclasses import dataclass

import numpy as np

from . import compare
from .specdef import SECTOR


# -- analysis -----------------------------------------------------------------------

@dataclass(frozen=True)
class Window:
    start: int          # ns, first measured submission
    end: int            # ns, last measured completion
    issued: int
    reads: int
    writes: int


def generator_window(records_csv: str) -> Window:
    """The measured part of a run from ssaload's own records."""
    sub, comp, reads, writes = [], [], 0, 0
    with open(records_csv, encoding="utf-8") as f:
        for row in csv.DictReader(f):
            sub.append(int(row["submit_ns"]))
            comp.append(int(row["complete_ns"]))
            if row["op"] == "read":
                reads += 1
            elif row["op"] == "write":
                writes += 1
    if not sub:
        raise ValueError(f"{records_csv}: no measured requests")
    return Window(min(sub), max(comp), len(sub), reads, writes)


def measured(recs: list, batches: int = 20) -> dict:
    """Mean response (fork -> join) per op and overall, each with a 95 %
    batch-means half-width, and the arrival statistics of the forks."""
    recs = sorted(recs, key=lambda r: r.fork)
    out: dict = {"requests": len(recs)}
    for key, sel in (("read", "read"), ("write", "write"), ("overall", None)):
        z = np.array([r.response for r in recs if sel is None or r.op == sel])
        out[f"{key}_n"] = int(len(z))
        if len(z) >= 2 * batches:
            m, h = compare.batch_means(z, batches)
        elif len(z):
            m, h = float(z.mean()), math.nan
        else:
            m, h = math.nan, math.nan
        out[f"{key}_s"], out[f"{key}_ci_s"] = m, h
        out[f"{key}_max_s"] = float(z.max()) if len(z) else math.nan
        out[f"{key}_rho1"] = compare.batch_rho1(z, batches)
    forks = np.array([r.fork for r in recs], dtype=float)
    span = (forks[-1] - forks[0]) * 1e-9 if len(forks) > 1 else math.nan
    out["rate"] = (len(recs) - 1) / span if span and span > 0 else math.nan
    ia = np.diff(forks)
    out["arrival_cv2"] = float(ia.var() / ia.mean() ** 2) if len(ia) > 1 and ia.mean() > 0 \
        else math.nan
    est = compare.estimate(recs, batches) if len(recs) >= 2 * batches else None
    out["utilization_max"] = max(est.utilization.values()) if est and est.utilization \
        else math.nan
    out["p_read_measured"] = out["read_n"] / len(recs) if recs else math.nan
    if est and est.utilization:
        out["utilization_members"] = [est.utilization.get(m, 0.0)
                                      for m in range(max(est.utilization) + 1)]
    return out


def mean_utilization(point: dict, meas: dict) -> float:
    """The members' mean utilization: what a model of identical disks
    under an even load calls the device utilization (seed 002, 4.2.1).
    ``utilization_max``, the busiest of n noisy estimates, lies above it."""
    u = meas.get("utilization_members") or []
    n = max(point["volume"]["members"], len(u))
    return float(np.mean(u + [0.0] * (n - len(u)))) if u else math.nan


def max_rate(point: dict, meas: dict) -> float:
    """The measured maximum throughput (seed 002, section 5.3): the rate at
    which the busiest member would be busy all the time, utilization
    growing in proportion to the rate.  The busiest member is the model's:
    with no skew every member carries the same load, and the mean of their
    utilizations is the estimate (the largest of 16 noisy ones would be
    biased high); with skew, parity striping's last member, whose data area
    draws the most requests."""
    u = meas.get("utilization_members")
    rate = meas.get("rate", math.nan)
    if not u or rate != rate:
        return math.nan
    n = point["volume"]["members"]
    if point["workload"].get("skew", 0) and point["volume"]["layout"] == "pstripe":
        busy = u[n - 1] if len(u) >= n else math.nan
    else:
        busy = float(np.mean(u + [0.0] * (n - len(u))))
    return rate / busy if busy == busy and busy > 0 else math.nan


def _load_filtered(trace: str, comm: str | None, win: Window | None) -> tuple[list, dict]:
    recs = compare.load(trace)
    dropped: dict = {}
    keep = []
    comms = _comms(trace)
    for r, c in zip(recs, comms):
        if comm and c != comm:
            dropped[c] = dropped.get(c, 0) + 1
        elif win and not (win.start <= r.fork <= win.end):
            dropped["(outside the measured window)"] = \
                dropped.get("(outside the measured window)", 0) + 1
        else:
            keep.append(r)
    return keep, dropped


def _comms(trace: str) -> list[str]:
    """The comm column of the successful requests, in compare.load's order."""
    out = []
    with open(trace, encoding="utf-8") as f:
        lines = [ln for ln in f if ln.strip() and not ln.startswith("#")]
    if lines and lines[0].lstrip().startswith("{"):
        for ln in lines:
            j = json.loads(ln)
            if j.get("status", 0) == 0 and j["children"]:
                out.append(j.get("comm", ""))
        return out
    for row in csv.DictReader(lines):
        if int(row["status"]) == 0 and row["children"]:
            out.append(row["comm"])
    return out


def generator_records(records_csv: str) -> list:
    """ssaload's own records as compare.Records (submit -> complete): what a
    point behind an array cache measures, since the volume's forks are then
    the cache's fills and destages, not the workload's requests."""
    out = []
    with open(records_csv, encoding="utf-8") as f:
        for row in csv.DictReader(f):
            if int(row.get("status", 0) or 0) == 0:
                out.append(compare.Record(int(row["submit_ns"]), int(row["complete_ns"]),
                                          row["op"], int(row["len"]) // SECTOR, ()))
    return out


def _analyse_generator(pdir: str, out: dict, batches: int) -> dict:
    gen = os.path.join(pdir, "records.csv")
    if not os.path.exists(gen) or os.path.getsize(gen) == 0:
        out["notes"].append("no generator records")
        out["status"] = "failed"
        return out
    recs = generator_records(gen)
    if len(recs) < 2:
        out["notes"].append("fewer than two measured requests")
        out["status"] = "failed"
        return out
    out.update(measured(recs, batches))
    out["issued"] = len(recs)
    out["measured_at"] = "generator (submit to complete, behind the array cache)"
    cst = os.path.join(pdir, "cache.status")
    if os.path.exists(cst):
        with open(cst, encoding="utf-8") as f:
            out["cache"] = cache_counters(f.read())
    return out


CACHE_FIELDS = ("dirty", "clean", "free", "destage_runs", "read_hits", "read_misses",
                "write_hits", "write_through", "destaged", "prefetched", "prefetch_hits",
                "throttled", "lost", "errors")


def cache_counters(status_line: str) -> dict:
    """ssacache's status line (Documentation/ssacache.rst) as a dict."""
    f = status_line.split()
    if len(f) >= 3 and f[2] == "ssacache":
        f = f[3:]
    d = {k: int(v) for k, v in zip(CACHE_FIELDS, f)}
    if len(f) > len(CACHE_FIELDS):
        d["mode"] = f[len(CACHE_FIELDS)]
    return d


def analyse_point(pdir: str, batches: int = 20) -> dict:
    """Measured values of one executed point directory (see ssa.labrun)."""
    with open(os.path.join(pdir, "point.json"), encoding="utf-8") as f:
        done = json.load(f)
    out: dict = {"status": done.get("status", "failed"), "notes": list(done.get("notes", []))}
    if done.get("generator") == "fio":
        out.update(done.get("fio", {}))
    if done.get("measure") == "generator":
        return _analyse_generator(pdir, out, batches)
    trace = os.path.join(pdir, "trace.csv")
    if not os.path.exists(trace):
        out["notes"].append("no ssatrace records")
        return out
    win = None
    gen = os.path.join(pdir, "records.csv")
    if os.path.exists(gen) and os.path.getsize(gen) > 0:
        try:
            win = generator_window(gen)
        except ValueError as e:
            out["notes"].append(str(e))
    comm = done.get("comm")
    recs, dropped = _load_filtered(trace, comm, win)
    if dropped:
        out["dropped"] = dropped
    if len(recs) < 2:
        out["notes"].append("fewer than two traced requests in the measured window")
        out["status"] = "failed"
        return out
    out.update(measured(recs, batches))
    if win:
        out["issued"] = win.issued
        if win.issued != len(recs):
            out["notes"].append(f"trace holds {len(recs)} requests in the window, "
                                f"the generator issued {win.issued}")
    summ = os.path.join(pdir, "summary.json")
    if os.path.exists(summ):
        with open(summ, encoding="utf-8") as f:
            s = json.load(f)
        out["generator"] = {k: s.get(k) for k in
                            ("rate", "offered_rate", "arrival_cv2", "lateness_mean_s",
                             "lateness_max_s", "outrun") if k in s}
        # what the submitter saw: arrival to completion, lateness included
        for op in ("read", "write", "all"):
            r = s.get("response", {}).get(op, {})
            if r.get("n"):
                out["generator"][f"{op}_s"] = r.get("mean_s")
    return out
