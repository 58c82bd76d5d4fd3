"""Independent replications where batch means cannot be trusted.

A point's interval comes from 20 batch means of one run.  That is sound
while the batches are nearly independent; near saturation the queue
relaxes over many batches, consecutive batch means are correlated and
the interval is too narrow (seed 002 Table 1's highest rate came out 14
to 33 % above the model from run to run, each time with an interval that
excluded it).  The lab checks the lag-1 autocorrelation of each point's
batch means; where it is above ``RHO1_LIMIT`` it runs the point again
with other random streams (``pNN-r2``, ``pNN-r3`` ...: the same point,
``workload.seed`` moved on) and reports the mean of the runs' means with
a Student-t interval over them -- the method of independent
replications, which needs no assumption about the correlation inside a
run.
"""

from __future__ import annotations

import math
import os
import re

import numpy as np

from .compare import batch_rho1  # noqa: F401  (the statistic the flag is on; here for callers)

# lag-1 autocorrelation of 20 batch means above which the batch-means
# interval is not trusted.  With independent batches its estimate has a
# standard deviation of about 0.22 around -0.05, so 0.45 is passed by
# chance about once in a hundred points (0.3 flagged 21 of 324 seed 000
# points, most of them by chance: closed loops of 100-400 requests)
RHO1_LIMIT = 0.45
RUNS = 3                                # runs of a flagged point, the first included
SEED_STEP = 100_003                     # workload.seed of run k: seed + (k - 1) * step
METRICS = ("read", "write", "overall")
_REP = re.compile(r"^(p\d+)-r(\d+)$")


def flagged(res: dict, limit: float | None = None) -> list[str]:
    """The metrics of a point result whose batch-means interval is not to
    be trusted (lag-1 autocorrelation above ``limit``, RHO1_LIMIT by
    default)."""
    limit = RHO1_LIMIT if limit is None else limit
    out = []
    for m in METRICS:
        r = res.get(f"{m}_rho1")
        if isinstance(r, (int, float)) and r == r and r > limit:
            out.append(m)
    return out


def run_id(pid: str, k: int) -> str:
    """The directory of run k (2, 3, ...) of point pid."""
    return f"{pid}-r{k}"


def run_dirs(outdir: str, pid: str) -> list[tuple[int, str]]:
    """(k, path) of the extra runs of pid found under outdir, by k."""
    out = []
    try:
        names = os.listdir(outdir)
    except OSError:
        return out
    for n in names:
        m = _REP.match(n)
        if m and m.group(1) == pid:
            out.append((int(m.group(2)), os.path.join(outdir, n)))
    return sorted(out)


def replicate_point(point: dict, k: int) -> dict:
    """Run k of a point: the same point with its random streams moved on."""
    import copy
    p = copy.deepcopy(point)
    w = p["workload"]
    base = int(w.get("seed", 1))
    w["seed"] = (base - 1 + (k - 1) * SEED_STEP) % (2**32 - 1) + 1
    p["replicate_of"], p["run"] = point["id"], k
    p["id"] = run_id(point["id"], k)
    return p


def combine(runs: list[dict], level: float = 0.95) -> dict:
    """The measured values of k runs of one point as one: each metric's
    mean over the runs' means with a Student-t interval over them, the
    runs' own means kept under METRIC_runs_s; the other numbers (rate,
    utilization ...) the mean over the runs."""
    from scipy.stats import t as student
    k = len(runs)
    out = dict(runs[0])
    out["replicates"] = k
    out["ci_method"] = "replicates"
    for m in METRICS:
        vals = [r.get(f"{m}_s") for r in runs]
        vals = [v for v in vals if isinstance(v, (int, float)) and v == v]
        out[f"{m}_runs_s"] = vals
        if len(vals) >= 2:
            mean = float(np.mean(vals))
            h = float(student.ppf(0.5 + level / 2, len(vals) - 1)
                      * np.std(vals, ddof=1) / math.sqrt(len(vals)))
            out[f"{m}_s"], out[f"{m}_ci_s"] = mean, h
        out[f"{m}_n"] = sum(int(r.get(f"{m}_n") or 0) for r in runs)
        out[f"{m}_max_s"] = max((r.get(f"{m}_max_s") or 0.0) for r in runs) if runs else math.nan
    for key in ("rate", "utilization_max", "arrival_cv2", "p_read_measured"):
        vals = [r.get(key) for r in runs]
        vals = [v for v in vals if isinstance(v, (int, float)) and v == v]
        if vals:
            out[key] = float(np.mean(vals))
    gens = [r["generator"] for r in runs if isinstance(r.get("generator"), dict)]
    if gens:                                    # what the generator saw: the runs' mean
        g = dict(gens[0])
        for k, v in gens[0].items():
            vals = [x.get(k) for x in gens]
            vals = [x for x in vals if isinstance(x, (int, float)) and not isinstance(x, bool)
                    and x == x]
            if isinstance(v, (int, float)) and not isinstance(v, bool) and vals:
                g[k] = float(np.mean(vals))
        g["runs"] = len(gens)
        out["generator"] = g
    us = [r["utilization_members"] for r in runs if r.get("utilization_members")]
    if us:
        n = max(len(u) for u in us)
        out["utilization_members"] = [float(np.mean([u[i] if i < len(u) else 0.0 for u in us]))
                                      for i in range(n)]
    out["requests"] = sum(int(r.get("requests") or 0) for r in runs)
    if any("issued" in r for r in runs):
        out["issued"] = sum(int(r.get("issued") or 0) for r in runs)
    notes = [n for r in runs for n in r.get("notes", [])]
    out["notes"] = notes
    out["status"] = "ok" if all(r.get("status") == "ok" for r in runs) else "failed"
    return out


def wanted(results: dict, outdir: str, runs: int = RUNS) -> dict[str, list[int]]:
    """The extra runs a summarised experiment still needs: for each point
    whose batch means are correlated (and that ran), the run numbers
    2..runs it does not have yet."""
    out = {}
    for r in results.get("points", []):
        if r.get("status") != "ok" or r.get("replicates"):
            continue
        if not flagged(r):
            continue
        have = {k for k, d in run_dirs(outdir, r["id"])
                if os.path.exists(os.path.join(d, "point.json"))}
        need = [k for k in range(2, runs + 1) if k not in have]
        if need:
            out[r["id"]] = need
    return out


def extra_plan(spec: dict, quick: bool, clock: str, outdir: str,
               need: dict[str, list[int]], prefix: str = "lab") -> dict | None:
    """A plan (as ssa.plan.plan makes) of the extra runs ``need``
    names, each run in its own directory pNN-rK; None when there are none.
    A run's random streams start from the point's own (its workload.seed,
    else 1 + its index, as the plan gives them) moved on by the run."""
    from . import plan as lab_plan
    base = lab_plan.plan(spec, quick, clock, outdir, prefix)
    pts = []
    for i, p in enumerate(base["points"]):
        for k in need.get(p["id"], []):
            q = dict(p)
            q["workload"] = dict(p["workload"], seed=p["workload"].get("seed", 1 + i))
            q = replicate_point(q, k)
            pdir = os.path.join(base["dir"], q["id"])
            if q["workload"].get("generator", "ssaload") == "ssaload":
                q["command"] = lab_plan.ssaload_args(q, f"/dev/mapper/{prefix}-vol",
                                               os.path.join(pdir, "records.csv"),
                                               os.path.join(pdir, "summary.json"))
            pts.append(q)
    if not pts:
        return None
    return dict(base, points=pts)
