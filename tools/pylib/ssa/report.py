"""An experiment's results and report: every point directory analysed
(with its extra runs, ssa.replicate), set beside the models, the
``[derive]`` tables, the findings' verdicts and the figures, written as
``results.json`` and ``report.md`` (``summarise``).
"""

from __future__ import annotations

import json
import os
from typing import Any

import numpy as np

from . import figures, replicate
from .plan import expand
from .analysis import analyse_point
from .pointmodel import check_point, point_result


def _with_runs(outdir: str, pid: str, meas: dict, batches: int) -> dict:
    """A point's measurement, combined with its extra runs (ssa.replicate)
    when the lab ran any: the mean over the runs with a Student-t
    interval over them."""
    runs = [meas]
    for _, rdir in replicate.run_dirs(outdir, pid):
        if os.path.exists(os.path.join(rdir, "point.json")):
            try:
                runs.append(analyse_point(rdir, batches))
            except (OSError, ValueError, KeyError) as e:
                meas.setdefault("notes", []).append(f"run {rdir}: analysis: {e}")
    if len(runs) > 1:
        out = replicate.combine(runs)
        out["notes"].append(f"{len(runs)} independent runs: the means and intervals are "
                            "over the runs' means (ssa.replicate)")
        return out
    bad = replicate.flagged(meas)
    if bad:
        meas.setdefault("notes", []).append(
            "batch means correlated (lag-1 " + ", ".join(
                f"{m} {meas[m + '_rho1']:.2f}" for m in bad) + "): the interval is too "
            "narrow; the point needs independent runs (ssa.replicate)")
    return meas


# -- report -------------------------------------------------------------------------

def _ms(x: Any) -> str:
    return "-" if x is None or x != x else f"{x * 1e3:.2f}"


def _boots(results: dict) -> str:
    """How the run was spread: one boot, or N guests at once (-j N)."""
    n = results.get("jobs", 1)
    return "one boot" if n == 1 else f"{n} guests at once, -j {n}"


def report_md(results: dict) -> str:
    """report.md: what ran, on which clock, and the measured-vs-model table."""
    lines = [f"# {results['title']}", "",
             f"Experiment `{results['experiment']}` (seed {results['seed']}, "
             f"{results['figure']}){' -- quick variant' if results['quick'] else ''}.",
             "", f"Clock: **{results['clock']}**. Wall time {results.get('wall_s', 0):.0f} s"
             + (f" (the whole run of {results['run_experiments']} experiments, {_boots(results)}"
                + (f"; this one's share {results['own_wall_s']:.0f} s"
                   if results.get("own_wall_s") is not None else "") + ")"
                if results.get("run_experiments", 1) > 1
                else f" ({_boots(results)})" if results.get("jobs", 1) > 1 else "")
             + (f", guest time {results['guest_s']:.0f} s" if results.get("guest_s") else "")
             + f". Status: **{results['status']}**.", ""]
    if results.get("about"):
        lines += [results["about"].strip(), ""]
    x = results.get("x", "rate")
    lines += ["Times in ms; measured = mean fork-to-join response from the ssatrace "
              "records with its 95 % batch-means half-width; model = the spec's model "
              "(first variant); err = (measured - model) / model.", "",
              f"| series | {x} | other parameters | requests | util | read measured | "
              "read model | err | write measured | write model | err | status |",
              "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for p in results["points"]:
        def cell(k):
            m, h = p.get(f"{k}_s"), p.get(f"{k}_ci_s")
            if m is None or m != m:
                return "-"
            return f"{m * 1e3:.2f} ± {h * 1e3:.2f}" if h == h and h is not None else \
                f"{m * 1e3:.2f}"
        def err(k):
            e = p.get(f"error_{k}")
            return "-" if e is None or e != e else f"{e:+.1%}"
        u = p.get("utilization_max")
        other = ", ".join(f"{k} {v}" for k, v in p.get("params", {}).items() if k != x) or "-"
        lines.append(f"| {p.get('label') or '-'} | {p.get(x, '-')} | {other} | "
                     f"{p.get('requests', '-')} | "
                     f"{'-' if u is None or u != u else f'{u:.3f}'} | {cell('read')} | "
                     f"{_ms(p.get('model_read_s'))} | {err('read')} | {cell('write')} | "
                     f"{_ms(p.get('model_write_s'))} | {err('write')} | {p.get('status')} |")
    notes = [(p["id"], n) for p in results["points"] for n in p.get("notes", [])]
    if notes or results.get("failures"):
        lines += ["", "## Notes", ""]
        lines += [f"- {pid}: {n}" for pid, n in notes]
        lines += [f"- check: {f}" for f in results.get("failures", [])]
    if "findings" in results:
        from . import findings
        lines += ["", "## The seed's findings", "",
                  "Each finding quotes the seed; its verdict is computed from this run's "
                  "results by the spec's check (Documentation/experiments.rst, Findings).", "",
                  findings.verdict_table_md(results["findings"])]
    for d in results.get("derived", {}).get("sections", []):
        lines += ["", f"## {d['title']}", "", d["markdown"].rstrip()]
    if results.get("figures"):
        lines += ["", "## Figures", ""]
        lines += [f"![{os.path.basename(f)}]({os.path.basename(f)})" for f in results["figures"]]
    return "\n".join(lines) + "\n"


def nan_to_none(o):
    """JSON has no NaN: NaN (a point not measured, an unstable rate) -> null."""
    if isinstance(o, float) and o != o:
        return None
    if isinstance(o, dict):
        return {k: nan_to_none(v) for k, v in o.items()}
    if isinstance(o, (list, tuple)):
        return [nan_to_none(v) for v in o]
    if isinstance(o, np.generic):
        return nan_to_none(o.item())
    return o


def summarise(spec: dict, outdir: str, quick: bool, clock: str, wall_s: float = 0.0,
              run_size: int = 1,
              batches: int = 20, own_wall_s: float | None = None, jobs: int = 1) -> dict:
    """Analyse every point directory under ``outdir`` (what ran of the
    plan; points that did not run are reported as such), run the models,
    write results.json, report.md and the PNGs.  Returns the results."""
    pts = expand(spec, quick)
    res_pts, failures = [], []
    guest = _read_json(os.path.join(outdir, "guest.json"))
    for p in pts:
        pdir = os.path.join(outdir, p["id"])
        if not os.path.exists(os.path.join(pdir, "point.json")):
            meas = {"status": "not run", "notes": ["the point did not run (see run.log)"]}
        else:
            try:
                meas = analyse_point(pdir, batches)
                meas = _with_runs(outdir, p["id"], meas, batches)
            except (OSError, ValueError, KeyError) as e:
                meas = {"status": "failed", "notes": [f"analysis: {e}"]}
        r = point_result(p, meas)
        res_pts.append(r)
        if quick:
            failures += check_point(spec, r)
    ok = all(r.get("status") == "ok" for r in res_pts)
    results = {"experiment": spec["name"], "title": spec["title"], "seed": spec["seed"],
               "figure": spec["figure"], "about": spec.get("about", ""), "quick": quick,
               "clock": clock, "wall_s": wall_s, "run_experiments": run_size,
               "own_wall_s": own_wall_s, "jobs": jobs,
               "guest_s": guest.get("guest_s"),
               "status": "complete" if ok else "incomplete", "x": spec["plot"].get("x", "rate"),
               "points": res_pts, "failures": failures}
    if spec.get("derive"):
        try:
            from . import derive
            results["derived"] = derive.derive(spec, results, outdir)
        except Exception as e:                  # keep the measured numbers whatever
            results["failures"].append(f"derive: {e}")
    results["findings"] = verdicts(spec, results)
    try:
        results["figures"] = figures.plot(spec, results, outdir)
    except Exception as e:                      # a figure must not lose the numbers
        results["figures"] = []
        results["failures"].append(f"plot: {e}")
    with open(os.path.join(outdir, "results.json"), "w", encoding="utf-8") as f:
        json.dump(nan_to_none(results), f, indent=1, sort_keys=True)
    with open(os.path.join(outdir, "report.md"), "w", encoding="utf-8") as f:
        f.write(report_md(results))
    return results


def verdicts(spec: dict, results: dict) -> list[dict]:
    """The verdict on each of the spec's findings (ssa.findings), computed
    from the results: JSON-ready dicts."""
    from . import findings
    return [v.as_dict() for v in findings.evaluate(spec, nan_to_none_json(results))]


def nan_to_none_json(results: dict) -> dict:
    """results as results.json holds them (NaN as None), so that a verdict
    computed now equals one recomputed from the file."""
    return json.loads(json.dumps(nan_to_none(results)))


def _read_json(path: str) -> dict:
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return {}
