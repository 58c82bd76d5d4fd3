"""The lab's published results, and the Results section made from them.

``experiments/results/NAME.json`` holds the latest full run of experiment
NAME: its results.json less what only a report needs (the point
directories stay in the run's ``--out``).  ``publish`` copies a run
there; ``results_rst`` makes the Results section of
Documentation/experiments.rst (between ``.. results-begin`` and
``.. results-end``) from every published file, the verdicts recomputed
from the stored points with the specs as they are now -- so a finding
edited in a spec changes the documentation without a rerun, and no
sentence of that section is written by hand.
"""

from __future__ import annotations

import json
import math
import os
import re

from . import findings as fd
from . import report
from . import spec as lab_spec
from .plan import expand
from .specdef import SpecError

BEGIN, END = ".. results-begin", ".. results-end"
# point fields a published result keeps (the rest is the report's)
_POINT_DROP = {"dropped", "utilization_members"}


def results_dir() -> str:
    return os.path.join(lab_spec.spec_dir(), "results")


def rst_path() -> str:
    return os.path.join(os.path.dirname(lab_spec.spec_dir()), "Documentation", "experiments.rst")


def compact(results: dict) -> dict:
    """What a published result keeps of a results.json."""
    out = {k: v for k, v in results.items()
           if k not in ("points", "derived", "figures", "dir", "failures")}
    out["points"] = [{k: v for k, v in p.items() if k not in _POINT_DROP}
                     for p in results.get("points", [])]
    der = results.get("derived") or {}
    if der.get("data"):
        out["derived"] = {"data": der["data"],
                          "sections": [s for s in der.get("sections", [])
                                       if s.get("title") != "Derived figures"]}
    out["failures"] = [f for f in results.get("failures", []) if not f.startswith("plot:")]
    return report.nan_to_none(out)


def stale(spec: dict, res: dict) -> str | None:
    """Why a result no longer describes the spec's points (a point added,
    removed or with other parameters since it ran), or None."""
    want = {p["id"]: (p["label"], p["params"]) for p in expand(spec, False)}
    got = {p["id"]: (p.get("label", ""), p.get("params", {})) for p in res.get("points", [])}
    if want == got:
        return None
    diff = sorted(set(want) ^ set(got)) + sorted(k for k in set(want) & set(got)
                                                  if want[k] != got[k])
    return (f"the spec's points are not the run's ({', '.join(diff[:5])}"
            f"{' ...' if len(diff) > 5 else ''}): run it again")


def run_date(edir: str) -> str | None:
    """The day (UTC) the newest point of a run directory finished."""
    import datetime
    newest = None
    for name in os.listdir(edir):
        pj = os.path.join(edir, name, "point.json")
        if os.path.exists(pj):
            t = os.path.getmtime(pj)
            newest = t if newest is None or t > newest else newest
    if newest is None:
        return None
    return datetime.datetime.fromtimestamp(newest, datetime.timezone.utc).strftime("%Y-%m-%d")


def publish(edir: str, cat: dict | None = None, dest: str | None = None) -> str:
    """Publish one experiment's run directory (a full run: a quick one is
    refused); returns the file written."""
    with open(os.path.join(edir, "results.json"), encoding="utf-8") as f:
        res = json.load(f)
    name = res["experiment"]
    if res.get("quick"):
        raise SpecError(f"{edir}: a --quick run is not published (its points are a "
                           "sample of the sweep); run the experiment in full")
    cat = cat or lab_spec.catalogue()
    if name not in cat:
        raise SpecError(f"{edir}: experiment {name} is not in the catalogue")
    why = stale(cat[name], res)
    if why:
        raise SpecError(f"{edir}: {why}")
    res.setdefault("run_date", run_date(edir))
    out = compact(res)
    out["findings"] = report.verdicts(cat[name], out)
    dest = dest or results_dir()
    os.makedirs(dest, exist_ok=True)
    path = os.path.join(dest, f"{name}.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write("\n")
    return path


def published(cat: dict, src: str | None = None) -> dict[str, dict]:
    """Every published result of the catalogue's experiments, by name,
    with its verdicts recomputed by the spec as it is now."""
    src = src or results_dir()
    out = {}
    for name, spec in cat.items():
        path = os.path.join(src, f"{name}.json")
        if not os.path.exists(path):
            continue
        with open(path, encoding="utf-8") as f:
            res = json.load(f)
        res["stale"] = stale(spec, res)
        res["findings"] = [] if res["stale"] else report.verdicts(spec, res)
        out[name] = res
    return out


# -- reStructuredText ----------------------------------------------------------------

def _esc(s) -> str:
    """Text for an rst table cell: one line, inline markup characters that
    would start a role or a reference made literal."""
    s = " ".join(str(s).split())
    s = s.replace("\\", "\\\\").replace("`", "\\`").replace("|", "\\|").replace("_ ", "\\_ ")
    s = re.sub(r"\*(?=\S)", r"\\*", s)
    return s or " "


def list_table(header: list[str], rows: list[list], widths: list[int] | None = None) -> str:
    lines = [".. list-table::", "   :header-rows: 1"]
    if widths:
        lines.append("   :widths: " + " ".join(str(w) for w in widths))
    lines.append("")
    for row in [header] + rows:
        for i, cell in enumerate(row):
            lines.append(f"   {'* -' if i == 0 else '  -'} {_esc(cell)}")
    return "\n".join(lines)


def _md_tables(markdown: str) -> list[tuple[list[str], list[list[str]]]]:
    """The pipe tables of a markdown text (what ssa.derive writes)."""
    out, cur = [], []
    for ln in markdown.splitlines() + [""]:
        if ln.startswith("|"):
            cells = [c.strip().replace("\\|", "|") for c in
                     re.split(r"(?<!\\)\|", ln.strip())[1:-1]]
            if not all(set(c) <= set("-: ") for c in cells):
                cur.append([c.replace("**", "") for c in cells])
        elif cur:
            out.append((cur[0], cur[1:]))
            cur = []
    return out


def _heading(text: str, ch: str) -> str:
    return f"{text}\n{ch * len(text)}"


def _meta(res: dict) -> str:
    n = len(res.get("points", []))
    ok = sum(1 for p in res.get("points", []) if p.get("status") == "ok")
    req = sorted({p.get("requests") for p in res.get("points", []) if p.get("requests")})
    reqs = (f"{req[0]:,}" if len(req) == 1 else f"{req[0]:,}-{req[-1]:,}") if req else "-"
    parts = [f"{res.get('clock', '?')} clock",
             f"run {res['run_date']}" if res.get("run_date") else None,
             f"commit {res['commit']}" if res.get("commit") else None,
             f"{ok} of {n} points ok", f"{reqs} requests a point traced"]
    if res.get("guest_s"):
        parts.append(f"{res['guest_s']:,.0f} s of guest time")
    wall = res.get("own_wall_s") if res.get("own_wall_s") is not None else res.get("wall_s")
    if wall:
        parts.append(f"{wall:,.0f} s of wall time"
                     + (f" ({res['jobs']} guests)" if res.get("jobs", 1) > 1 else ""))
    return "Run: " + ", ".join(p for p in parts if p) + "."


def agreement(res: dict) -> list[list]:
    """Per metric the model gives: points, mean and largest |error|."""
    rows = []
    for metric in ("read", "write", "overall", "rate", "max_rate"):
        errs = [(abs(p[f"error_{metric}"]), p) for p in res.get("points", [])
                if p.get("status") == "ok" and isinstance(p.get(f"error_{metric}"), (int, float))
                and p[f"error_{metric}"] == p[f"error_{metric}"]]
        if not errs:
            continue
        worst, wp = max(errs, key=lambda t: t[0])
        where = ", ".join(f"{k} {v}" for k, v in wp.get("params", {}).items())
        label = f"{wp['label']}, " if wp.get("label") else ""
        rows.append([metric, len(errs), f"{sum(e for e, _ in errs) / len(errs):.1%}",
                     f"{worst:.1%} ({label}{where})"])
    return rows


def experiment_rst(name: str, spec: dict, res: dict) -> str:
    out = [_heading(f"{name}: {spec['title']}", "-"), "", _meta(res), ""]
    if res.get("stale"):
        return "\n".join(out + [f"Not current: {_esc(res['stale'])}.", ""])
    ag = agreement(res)
    if ag:
        out += ["Measured against the model (\\|measured − model\\| / model over the points; "
                "the model is the spec's first variant):", "",
                list_table(["metric", "points", "mean \\|error\\|", "largest (where)"], ag,
                           [10, 8, 12, 40]), ""]
    vs = res.get("findings", [])
    if vs:
        c = fd.counts(vs)
        out += [f"The seed's findings: {c['holds']} hold, {c['does not hold']} do not hold, "
                f"{c['not measured']} not measured, {c['configured']} configured (set by the "
                "lab, not reproduced).", ""]
        rows = []
        for v in vs:
            extra = []
            if v["verdict"] == "configured":
                extra.append(f"Configured: {v['configured']}")
            if v["verdict"] == "does not hold" and v.get("cause"):
                extra.append(f"Cause: {v['cause']}")
            if v.get("note"):
                extra.append(f"Note: {v['note']}")
            rows.append([f"{v['id']} ({v['section']})", f"\"{v['quote']}\"", v["verdict"],
                         " ".join([fd.numbers(v)] + extra)])
        out += [list_table(["finding (section)", "the seed says", "verdict",
                            "the numbers that decided it"], rows, [14, 36, 10, 40]), ""]
    for sec in (res.get("derived") or {}).get("sections", [])[:1]:
        tabs = _md_tables(sec.get("markdown", ""))
        if tabs:
            hdr, body = tabs[0]
            out += [f"{sec['title']}:", "", list_table(hdr, body), ""]
    return "\n".join(out)


def results_rst(cat: dict, pub: dict) -> str:
    """The whole generated section."""
    lines = ["The latest full run of each experiment (``experiments/results/NAME.json``; "
             "``make experiments`` runs and publishes, ``tools/ssa experiment publish`` "
             "publishes a run and remakes this section).  Every sentence and number "
             "below is generated: the verdicts are the specs' checks on those results "
             "(Writing an experiment, Findings).", ""]
    total = {k: 0 for k in fd.VERDICTS}
    rows, guest = [], 0.0
    for name in cat:
        res = pub.get(name)
        if res is None or res.get("stale"):
            rows.append([name, "-", "not published" if res is None else "stale",
                         "", "", "", "", ""])
            continue
        c = fd.counts(res.get("findings", []))
        for k in total:
            total[k] += c[k]
        g = res.get("guest_s") or 0.0
        guest += g
        rows.append([name, res.get("run_date") or "-", len(res.get("points", [])),
                     f"{g:,.0f}" if g else "-",
                     c["holds"], c["does not hold"], c["not measured"], c["configured"]])
    lines += [f"In all: {total['holds']} findings hold, {total['does not hold']} do not "
              f"hold, {total['not measured']} are not measured and {total['configured']} are "
              f"configured by the lab; the runs took {guest:,.0f} s of guest time (the "
              "instruction clock's: disk service and CPU work, idle time skipped).", "",
              list_table(["experiment", "run", "points", "guest s", "hold", "do not hold",
                          "not measured", "configured"], rows), ""]
    for name, spec in cat.items():
        if name in pub:
            lines += [experiment_rst(name, spec, pub[name]), ""]
    return "\n".join(lines).rstrip() + "\n"


def splice(doc: str, section: str) -> str:
    """doc with the text between the results markers replaced."""
    i, j = doc.find(BEGIN), doc.find(END)
    if i < 0 or j < i:
        raise ValueError(f"no {BEGIN} ... {END} in the document")
    return doc[:i + len(BEGIN)] + "\n\n" + section + "\n" + doc[j:]


def write_rst(cat: dict | None = None, path: str | None = None,
              src: str | None = None, check: bool = False) -> bool:
    """Remake the Results section; with ``check``, only say whether it is
    current.  Returns True when the file is (or now is) current."""
    cat = cat or lab_spec.catalogue()
    path = path or rst_path()
    with open(path, encoding="utf-8") as f:
        doc = f.read()
    new = splice(doc, results_rst(cat, published(cat, src)))
    if new == doc:
        return True
    if check:
        return False
    with open(path, "w", encoding="utf-8") as f:
        f.write(new)
    return True
