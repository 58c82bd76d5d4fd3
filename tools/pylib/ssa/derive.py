"""Tables derived from a whole experiment's points (``[derive]`` in a spec).

``derive(spec, results, outdir)`` returns ``{"sections": [{"title": ...,
"markdown": ...}], "data": {...}, "figures": [...]}``: report.md prints
each section after the points' table, results.json keeps ``data``.
A deriver gets the spec and the results (points already analysed and
modelled) and must not change them.

The derivers:

``optimal_bsu`` (seed 000, Figures 3-5 and 8, Table 3)
    The mean response time of every (request size, disks striped across,
    MPL, think time) point, the stripe unit (BSU = request size / disks)
    with the smallest one for each request size and MPL -- the larger
    BSU when the confidence intervals overlap, the seed's tie rule -- and
    beside it the Lee-Katz and Chen-Patterson formulas
    (``ssa.bsu``, seed 000's disk).  The response of a point is the
    generator's own (``records.csv``: arrival to completion of the whole
    request, what the seed timed), since a request larger than what the
    target accepts in one piece appears as several requests in the trace;
    the trace's mean when there are no records.
``bandwidth_peaks`` (seed 004, Graphs 6-9)
    Per series, bandwidth against request size: the local maxima and
    whether they fall on multiples of the stripe width (chunk x members),
    the spread of bandwidth above one stripe width (the seed's "18 to 44
    MB/s"), the request's largest member share against an even share
    (what makes the peaks), and the jitter of every point: the spread of
    the per-request response times.
``throughput`` (seed 003, Figure 12)
    Measured throughput (requests/s) per series against the plot's x (and
    ``by``), with a Little's-law interval from the response time's, and
    the throughput per member.

``[derive]`` keys: ``kind``; ``metric`` (optimal_bsu: the response mean,
``read_s`` by default; bandwidth_peaks: ``bandwidth_Bps``, fio's, by default,
or ``trace_bandwidth``, the traced bytes over the first fork to the last
join); ``formulas`` (optimal_bsu: ``lee-katz``, ``chen-patterson``); ``over`` (the x key:
``block`` for bandwidth_peaks, the plot's x for throughput); ``group``
(throughput: the key of separate curves, the plot's ``by`` by default).
"""

from __future__ import annotations

import csv
import json
import math
import os
import textwrap

import numpy as np

from . import replicate
from .figures import save_figure

DERIVERS: dict = {}

KB = 1024
MB = 1024 * 1024
JITTER_DEADLINE_S = 1 / 30      # seed 004 section 5's example: a video frame


def deriver(name):
    def reg(fn):
        DERIVERS[name] = fn
        return fn
    return reg


def derive(spec: dict, results: dict, outdir: str) -> dict:
    kind = spec["derive"].get("kind")
    if kind not in DERIVERS:
        raise ValueError(f"[derive] kind {kind!r} unknown; known: {', '.join(DERIVERS)}")
    out = DERIVERS[kind](spec, results, outdir)
    if out.get("figures"):                  # report.md links the plot's PNGs only
        out["sections"].append({"title": "Derived figures", "markdown": "\n".join(
            f"![{os.path.basename(f)}]({os.path.basename(f)})" for f in out["figures"])})
    return out


# -- helpers ----------------------------------------------------------------------

def _finite(x) -> bool:
    return isinstance(x, (int, float)) and x == x and not math.isinf(x)


def _expanded(spec: dict, results: dict) -> dict:
    """The spec's points (volume, disk, workload resolved) by id."""
    from .plan import expand
    return {p["id"]: p for p in expand(spec, bool(results.get("quick")))}


def _ok(results: dict) -> list[dict]:
    return [p for p in results.get("points", []) if p.get("status") == "ok"]


def _mean_ci(z: np.ndarray, batches: int = 20) -> tuple[float, float]:
    from . import compare
    if len(z) >= 2 * batches:
        return compare.batch_means(z, batches)
    if len(z):
        return float(np.mean(z)), math.nan
    return math.nan, math.nan


def _runs_mean_ci(runs: list) -> tuple[float, float]:
    """The mean of independent runs' means, with a Student-t interval over
    them (ssa.replicate)."""
    from scipy.stats import t as student
    m = np.array([float(np.mean(z)) for z in runs])
    return float(m.mean()), float(student.ppf(0.975, len(m) - 1) * m.std(ddof=1)
                                  / math.sqrt(len(m)))


def generator_responses(pdir: str, op: str | None = "read") -> np.ndarray | None:
    """Response times (s, arrival to completion) of ssaload's measured
    requests in ``pdir/records.csv``, in id order; None without records."""
    path = os.path.join(pdir, "records.csv")
    if not os.path.exists(path):
        return None
    rows = []
    with open(path, encoding="utf-8") as f:
        for row in csv.DictReader(f):
            if int(row["status"]) != 0 or (op and row["op"] != op):
                continue
            rows.append((int(row["id"]), (int(row["complete_ns"]) - int(row["arrival_ns"])) * 1e-9))
    rows.sort()
    return np.array([r for _, r in rows], dtype=float)


def trace_bandwidth(pdir: str, comm: str | None = None) -> float:
    """Bytes of the traced requests of ``comm`` over the time from the first
    fork to the last join (B/s): the volume's bandwidth, without the
    generator's start and stop."""
    from . import compare
    path = os.path.join(pdir, "trace.csv")
    if not os.path.exists(path):
        return math.nan
    recs = [r for r in compare.load(path) if comm is None or r.comm == comm]
    if len(recs) < 2:
        return math.nan
    span = (max(r.join for r in recs) - min(r.fork for r in recs)) * 1e-9
    return sum(r.sectors for r in recs) * 512 / span if span > 0 else math.nan


def trace_responses(pdir: str, comm: str | None = None) -> np.ndarray | None:
    """Fork-to-join response times (s) of the traced requests of ``comm``
    (the point's workload; all when None), in fork order."""
    from . import compare
    path = os.path.join(pdir, "trace.csv")
    if not os.path.exists(path):
        return None
    recs = sorted(compare.load(path), key=lambda r: r.fork)
    return np.array([r.response for r in recs if comm is None or r.comm == comm], dtype=float)


def _point_comm(pdir: str) -> str | None:
    try:
        with open(os.path.join(pdir, "point.json"), encoding="utf-8") as f:
            return json.load(f).get("comm")
    except (OSError, ValueError):
        return None


def _md_table(header: list[str], rows: list[list]) -> str:
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(out)


def _ms(x, ci=None) -> str:
    if not _finite(x):
        return "-"
    return f"{x * 1e3:.1f} ± {ci * 1e3:.1f}" if _finite(ci) else f"{x * 1e3:.1f}"


def _kb(b) -> str:
    if not _finite(b):
        return "-"
    v = b / KB
    return f"{v:.0f}" if abs(v - round(v)) < 0.05 or v >= 100 else f"{v:.1f}"


def _title(spec: dict, what: str) -> str:
    return textwrap.fill(spec["title"], 80) + "\n" + what


def _plt():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


# -- seed 000: the optimal stripe unit ------------------------------------------------

def _bsu_formulas(names: list[str], mpl: int, q: float) -> dict:
    from . import bsu
    out = {}
    for f in names:
        if f == "lee-katz":
            out[f] = bsu.seed000_lee_katz(mpl, q)
        elif f == "chen-patterson":
            out[f] = bsu.chen_patterson_bsu(bsu.SEED000_POSITIONING_S,
                                            bsu.SEED000_TRANSFER_BPS, mpl, 0.25)
        else:
            raise ValueError(f"[derive] formulas: {f!r} unknown (lee-katz, chen-patterson)")
    return out


def _nearest(value: float, candidates: list[float]) -> float:
    """The candidate nearest to ``value`` on a log scale (a BSU of 0, Lee-Katz
    at MPL 1, means the smallest)."""
    if not value > 0:
        return min(candidates)
    return min(candidates, key=lambda c: abs(math.log(c / value)))


def choose_optimal(cands: list[dict]) -> dict:
    """The optimal BSU among points of one request size, MPL and think time:
    the smallest mean response, or -- among those whose 95 % intervals
    overlap the best one's (statistically the same) -- the largest BSU,
    seed 000's rule for "almost identical" response times."""
    good = [c for c in cands if _finite(c["mean_s"])]
    if not good:
        return {}
    best = min(good, key=lambda c: c["mean_s"])
    bci = best["ci_s"] if _finite(best["ci_s"]) else 0.0
    tied = [c for c in good
            if c["mean_s"] - (c["ci_s"] if _finite(c["ci_s"]) else 0.0) <= best["mean_s"] + bci]
    pick = max(tied, key=lambda c: c["bsu"])
    return {"bsu": pick["bsu"], "disks": pick["disks"], "mean_s": pick["mean_s"],
            "fastest_bsu": best["bsu"], "tied_bsu": sorted(c["bsu"] for c in tied)}


@deriver("optimal_bsu")
def optimal_bsu(spec: dict, results: dict, outdir: str) -> dict:
    d = spec.get("derive", {})
    metric = d.get("metric", "read_s")
    formulas = d.get("formulas", ["lee-katz", "chen-patterson"])
    op = metric[:-2] if metric in ("read_s", "write_s") else None
    pts = _expanded(spec, results)
    rows = []
    for r in _ok(results):
        p = pts.get(r["id"])
        if p is None:
            continue
        w = p["workload"]
        kind, _, k = str(w.get("sizes", "fixed:1")).partition(":")
        if kind != "fixed":
            raise ValueError(f"optimal_bsu: point {r['id']} has sizes {w.get('sizes')}; "
                             "it needs fixed:N (N disks, one block a disk)")
        n = int(k)
        block = int(w.get("block", 4096))
        chunk = int(p["volume"]["chunk_kb"] * KB)
        pr = float(w.get("p_read", 1.0))
        row_op = op or ("read" if pr >= 1 else "write" if pr <= 0 else None)
        z = generator_responses(os.path.join(outdir, r["id"]), row_op)
        if z is not None and len(z):
            mean, ci = _mean_ci(z)
            source = "generator"
            runs = [generator_responses(d, row_op) for _, d in
                    replicate.run_dirs(outdir, r["id"])]
            runs = [x for x in runs if x is not None and len(x)]
            if runs:                            # the point's extra runs (ssa.replicate)
                mean, ci = _runs_mean_ci([z] + runs)
        else:
            key = f"{row_op or 'overall'}_s" if metric == "auto" else metric
            mean, ci = r.get(key, math.nan), r.get(key.replace("_s", "_ci_s"), math.nan)
            source = "trace"
        rows.append({"id": r["id"], "request": n * block, "request_kb": n * block / KB,
                     "disks": n, "bsu": chunk, "bsu_kb": chunk / KB, "block": block, "mpl": int(w.get("mpl", 1)),
                     "think_ms": float(w.get("think_ms", 0)), "mean_s": mean, "ci_s": ci,
                     "source": source, "label": r.get("label", ""),
                     "op": row_op or "all", "pattern": w.get("pattern", "random")})
    if not rows:
        return {"sections": [{"title": "Optimal stripe unit",
                              "markdown": "No point ran: nothing to derive."}],
                "data": {}, "figures": []}
    variants = sorted({(x["think_ms"], x["op"], x["pattern"]) for x in rows})
    thinks = sorted({v[0] for v in variants})
    mpls = sorted({x["mpl"] for x in rows})
    sizes = sorted({x["request"] for x in rows})
    disks = sorted({x["disks"] for x in rows})
    optimal = []
    for t, vop, pat in variants:
        for m in mpls:
            for q in sizes:
                c = [x for x in rows if (x["think_ms"], x["op"], x["pattern"]) == (t, vop, pat)
                     and x["mpl"] == m and x["request"] == q]
                if not c:
                    continue
                o = choose_optimal(c)
                if not o:
                    continue
                cand_bsu = sorted({x["bsu"] for x in c})
                o.update(think_ms=t, op=vop, pattern=pat, mpl=m, request=q, request_kb=q / KB,
                         bsu_kb=o["bsu"] / KB, candidates=cand_bsu)
                for f, v in _bsu_formulas(formulas, m, q).items():
                    o[f] = v
                    o[f"{f}_nearest"] = _nearest(v, cand_bsu)
                optimal.append(o)
    sections, figures = [], []
    for t, vop, pat in variants:
        tag = (f", mean think time {t:g} ms" if len(thinks) > 1 or t else "") + \
            (f", {vop}s" if len({v[1] for v in variants}) > 1 else "") + \
            (f", {pat} starts" if len({v[2] for v in variants}) > 1 else "")
        all_rows, all_optimal = rows, optimal
        rows = [x for x in all_rows if (x["think_ms"], x["op"], x["pattern"]) == (t, vop, pat)]
        optimal = [o for o in all_optimal if (o["think_ms"], o["op"], o["pattern"]) ==
                   (t, vop, pat)]
        # responses: rows request size, columns MPL x disks
        hdr = ["request KB"] + [f"MPL {m}, n={n}" for m in mpls for n in disks]
        body = []
        for q in sizes:
            line = [_kb(q)]
            for m in mpls:
                for n in disks:
                    x = [y for y in rows if y["think_ms"] == t and y["mpl"] == m
                         and y["request"] == q and y["disks"] == n]
                    line.append(_ms(x[0]["mean_s"], x[0]["ci_s"]) if x else "-")
            body.append(line)
        src = {x["source"] for x in rows}
        sections.append({
            "title": f"Mean response time (ms) by request size, disks and MPL{tag}",
            "markdown": ("Response of the whole request (" +
                         ("the generator's arrival to completion, 95 % batch-means interval"
                          if src == {"generator"} else "see each point's source in results.json")
                         + "); n = disks the request is striped across, BSU = request / n "
                         "(seed 000, Figures 3 and 4).\n\n" + _md_table(hdr, body))})
        # the optimum per request size and MPL (Figure 5)
        hdr = ["request KB"] + [f"MPL {m}" for m in mpls]
        body = []
        for q in sizes:
            line = [_kb(q)]
            for m in mpls:
                o = [y for y in optimal if y["think_ms"] == t and y["mpl"] == m
                     and y["request"] == q]
                if not o:
                    line.append("-")
                    continue
                o = o[0]
                tie = " (tie: " + "/".join(_kb(b) for b in o["tied_bsu"]) + ")" \
                    if len(o["tied_bsu"]) > 1 else ""
                line.append(f"**{_kb(o['bsu'])}** (n={o['disks']}){tie}")
            body.append(line)
        sections.append({
            "title": f"Optimal stripe unit (KB) by request size and MPL{tag}",
            "markdown": ("The BSU with the smallest mean response; where the 95 % intervals "
                         "of several overlap, the largest of them (seed 000: \"the optimal BSU "
                         "size was chosen as the larger of the two\").  Seed 000, Figure 5.\n\n"
                         + _md_table(hdr, body))})
        # beside the formulas (Table 3)
        if formulas:
            hdr = ["MPL", "request KB", "measured BSU KB"]
            for f in formulas:
                hdr += [f"{f} KB", f"{f} -> nearest KB"]
            body = []
            for o in optimal:
                if o["think_ms"] != t or o["mpl"] < 2:
                    continue
                line = [o["mpl"], _kb(o["request"]), _kb(o["bsu"])]
                for f in formulas:
                    line += [f"{o[f] / KB:.1f}", _kb(o[f"{f}_nearest"])]
                body.append(line)
            agree = {f: sum(1 for o in optimal if o["think_ms"] == t and o["mpl"] >= 2
                            and o[f"{f}_nearest"] == o["bsu"]) for f in formulas}
            total = sum(1 for o in optimal if o["think_ms"] == t and o["mpl"] >= 2)
            note = "; ".join(f"{f}'s value, rounded to the nearest BSU measured, is the "
                             f"measured optimum in {agree[f]} of {total}" for f in formulas)
            sections.append({
                "title": f"Measured optimal BSU beside the formulas (seed 000, Table 3){tag}",
                "markdown": ("Lee-Katz: sqrt(P X (MPL - 1) Q / N); Chen-Patterson: "
                             "S P X (MPL - 1) + 512 B with S = 1/4 (fitted on a 16-disk "
                             "array; seed 000 calls it not applicable to 4 disks); P = 12.97 "
                             "ms, X = 7.9 x 2^20 B/s, N = 4 (seed 000, Table 1, "
                             "`ssa.bsu`).  \"nearest\": the formula's value rounded, on a log "
                             "scale, to the BSUs this sweep measured.  MPL 1 is left out "
                             "(both formulas give the smallest unit there).\n\n"
                             + (_md_table(hdr, body) if body else "No point with MPL >= 2.")
                             + (f"\n\n{note}." if total else ""))})
        suffix = (f"-think{t:g}" if len(thinks) > 1 else "") + \
            (f"-{vop}" if len({v[1] for v in variants}) > 1 else "") + \
            (f"-{pat}" if len({v[2] for v in variants}) > 1 else "")
        try:
            figures += _bsu_figures(spec, rows, optimal, t, mpls, disks, formulas, outdir,
                                    suffix=suffix)
        except Exception as e:                  # a figure must not lose the tables
            sections.append({"title": "Figures", "markdown": f"not drawn: {e}"})
        rows, optimal = all_rows, all_optimal
    return {"sections": sections, "figures": figures,
            "data": {"responses": rows, "optimal": optimal}}


def _plain_ticks(ax) -> None:
    """Log axes labelled 4, 16, 256 rather than 2^2, 2^4, 2^8."""
    import matplotlib.ticker
    fmt = matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:g}")
    ax.xaxis.set_major_formatter(fmt)
    ax.yaxis.set_major_formatter(fmt)


def _bsu_figures(spec, rows, optimal, think, mpls, disks, formulas, outdir, suffix=""):
    plt = _plt()
    files = []
    sizes = sorted({x["request"] for x in rows if x["think_ms"] == think})
    if len(sizes) > 1:
        fig, axes = plt.subplots(1, len(mpls), figsize=(3.2 * len(mpls), 3.4), sharey=True,
                                 squeeze=False)
        for ax, m in zip(axes[0], mpls):
            for i, n in enumerate(disks):
                g = sorted((x for x in rows if x["think_ms"] == think and x["mpl"] == m
                            and x["disks"] == n), key=lambda x: x["request"])
                if not g:
                    continue
                ax.errorbar([x["request"] / KB for x in g], [x["mean_s"] * 1e3 for x in g],
                            yerr=[(x["ci_s"] * 1e3 if _finite(x["ci_s"]) else 0) for x in g],
                            fmt="o-", color=f"C{i}", capsize=2, ms=3, label=f"n = {n}")
            ax.set_xscale("log", base=2)
            ax.set_yscale("log")
            _plain_ticks(ax)
            ax.set_title(f"MPL {m}", fontsize=9)
            ax.set_xlabel("request size (KB)")
            ax.grid(alpha=0.3)
        src = {x["source"] for x in rows}
        axes[0][0].set_ylabel("mean response time (ms)\n" + (
            "arrival to completion, at the generator" if src == {"generator"}
            else "fork to join, from the trace"), fontsize=9)
        axes[0][0].legend(fontsize=7)
        fig.suptitle(_title(spec, "response time by disks striped across (Figure 3)"),
                     fontsize=9)
        fn = save_figure(fig, os.path.join(outdir, f"{spec['name']}-response{suffix}.png"))
        files.append(fn)
    opt = [o for o in optimal if o["think_ms"] == think]
    if opt:
        fig, ax = plt.subplots(figsize=(6.4, 4.4))
        for i, m in enumerate(mpls):
            g = sorted((o for o in opt if o["mpl"] == m), key=lambda o: o["request"])
            if not g:
                continue
            xs = [o["request"] / KB for o in g]
            # MPLs that share an optimum would hide each other: a little apart
            lift = 2 ** (0.05 * (i - (len(mpls) - 1) / 2))
            ax.plot(xs, [o["bsu"] / KB * lift for o in g], "os^Dv"[i % 5] + "-",
                    color=f"C{i}", ms=5, label=f"MPL {m} measured")
            if "lee-katz" in formulas and m > 1:
                ax.plot(xs, [o["lee-katz"] / KB for o in g], "--", color=f"C{i}",
                        label=f"MPL {m} Lee-Katz")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log", base=2)
        _plain_ticks(ax)
        ax.set_xlabel("request size (KB)")
        ax.set_ylabel("optimal BSU (KB)")
        ax.set_title(_title(spec, "optimal stripe unit (Figure 5)"), fontsize=9)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
        fn = save_figure(fig, os.path.join(outdir, f"{spec['name']}-optimal-bsu{suffix}.png"))
        files.append(fn)
    return files


# -- seed 004: bandwidth against request size ---------------------------------------

def member_shares(offset: int, size: int, chunk: int, members: int) -> list[int]:
    """Bytes of the volume range [offset, offset + size) on each member of a
    ``stripe`` volume (chunk k on member k mod members)."""
    out = [0] * members
    pos, end = offset, offset + size
    while pos < end:
        k = pos // chunk
        nxt = min(end, (k + 1) * chunk)
        out[k % members] += nxt - pos
        pos = nxt
    return out


def imbalance(size: int, chunk: int, members: int, shift: int = 0, requests: int = 64) -> float:
    """Mean over a sequential run (request i at shift + i x size) of the
    largest member share over the even share size / members: 1.0 when every
    request loads every member alike (size a multiple of the stripe width),
    up to ``members`` when one member carries it all."""
    even = size / members
    vals = [max(member_shares(shift + i * size, size, chunk, members)) / even
            for i in range(requests)]
    return float(np.mean(vals))


def _jitter(z: np.ndarray | None) -> dict:
    if z is None or not len(z):
        return {}
    p50, p99 = np.percentile(z, [50, 99])
    return {"n": int(len(z)), "mean_s": float(z.mean()), "std_s": float(z.std(ddof=1))
            if len(z) > 1 else math.nan, "cv": float(z.std(ddof=1) / z.mean())
            if len(z) > 1 and z.mean() > 0 else math.nan, "p50_s": float(p50),
            "p99_s": float(p99), "min_s": float(z.min()), "max_s": float(z.max()),
            "over_deadline": float(np.mean(z > JITTER_DEADLINE_S))}


def fio_latency(pdir: str) -> dict:
    """Per-request latency (issue to completion) from fio's JSON: mean,
    stddev and the 50th/99th percentiles (s), summed over jobs' I/Os."""
    try:
        with open(os.path.join(pdir, "fio.json"), encoding="utf-8") as f:
            jobs = json.load(f)["jobs"]
    except (OSError, ValueError, KeyError):
        return {}
    j = jobs[0]["read"] if jobs[0]["read"].get("total_ios") else jobs[0]["write"]
    lat = j.get("lat_ns") or j.get("clat_ns") or {}
    pct = lat.get("percentile", {})

    def pick(p):
        for k, v in pct.items():
            if abs(float(k) - p) < 1e-6:
                return v * 1e-9
        return math.nan
    return {"ios": int(j.get("total_ios", 0)), "mean_s": lat.get("mean", math.nan) * 1e-9,
            "std_s": lat.get("stddev", math.nan) * 1e-9, "p50_s": pick(50.0),
            "p99_s": pick(99.0), "max_s": lat.get("max", math.nan) * 1e-9}


@deriver("bandwidth_peaks")
def bandwidth_peaks(spec: dict, results: dict, outdir: str) -> dict:
    d = spec.get("derive", {})
    metric = d.get("metric", "bandwidth_Bps")
    over = d.get("over", "block")
    pts = _expanded(spec, results)
    rows = []
    for r in _ok(results):
        p = pts.get(r["id"])
        if p is None:
            continue
        v, w = p["volume"], p["workload"]
        size = int(r.get(over, w.get(over, 0)))
        chunk, n = int(v["chunk_kb"] * KB), int(v["members"])
        shift = int(w.get("offset_shift", 0))
        bw = r.get(metric, math.nan)
        if not _finite(bw) and _finite(r.get("read_s")):
            bw = size / r["read_s"]             # one request at a time
        pdir = os.path.join(outdir, r["id"])
        comm = r.get("comm") or _point_comm(pdir)
        trace = trace_responses(pdir, comm)
        tbw = trace_bandwidth(pdir, comm)
        if metric == "trace_bandwidth":
            bw = tbw
        rows.append({"id": r["id"], "label": r.get("label", ""), "size": size, "chunk": chunk,
                     "members": n, "width": chunk * n, "shift": shift, "bw": bw,
                     "trace_bw": tbw,
                     "imbalance": imbalance(size, chunk, n, shift) if v["layout"] == "stripe"
                     else math.nan,
                     "jitter": _jitter(trace), "fio": fio_latency(pdir)})
    series: dict = {}
    for x in rows:
        series.setdefault(x["label"], []).append(x)
    summary, sections = [], []
    body = []
    for lab, g in series.items():
        g.sort(key=lambda x: x["size"])
        bws = [x["bw"] for x in g]
        peaks = []
        for i in range(1, len(g) - 1):
            if _finite(bws[i]) and bws[i] > bws[i - 1] and bws[i] >= bws[i + 1]:
                peaks.append(g[i])
        width = g[0]["width"]
        on_width = [x for x in peaks if x["size"] % width == 0]
        above = [x["bw"] for x in g if x["size"] >= width and _finite(x["bw"])]
        s = {"label": lab, "chunk": g[0]["chunk"], "width": width,
             "peaks": [x["size"] for x in peaks], "peaks_on_width": len(on_width),
             "min_bw_above_width": min(above) if above else math.nan,
             "max_bw_above_width": max(above) if above else math.nan,
             "width_multiples_measured": [x["size"] for x in g if x["size"] % width == 0]}
        summary.append(s)
        body.append([lab or "-", _kb(s["chunk"]), _kb(width),
                     ", ".join(_kb(x) for x in s["peaks"]) or "none",
                     f"{len(on_width)} of {len(peaks)}",
                     "-" if not above else f"{s['min_bw_above_width'] / MB:.1f} to "
                                           f"{s['max_bw_above_width'] / MB:.1f}"])
    sections.append({
        "title": "Bandwidth peaks against the stripe width",
        "markdown": ("Local maxima of the bandwidth over request size (a point above both "
                     "neighbours) per series; the stripe width is chunk x members.  The "
                     "bandwidth range above one stripe width is seed 004's measure of "
                     "variability (\"from 18MB/sec up to 44MB/sec simply by choosing a "
                     "different request size\").  MB = 2^20 bytes.\n\n"
                     + _md_table(["series", "chunk KB", "stripe width KB", "peaks at (KB)",
                                  "peaks on a width multiple", "MB/s above one width"],
                                 body))})
    hdr = ["series", "request KB", "MB/s", "trace MB/s", "imbalance", "resp mean ms",
           "std ms", "cv", "p50 ms", "p99 ms", "max ms", f"> {JITTER_DEADLINE_S * 1e3:.1f} ms",
           "fio lat mean ms", "fio lat p99 ms"]
    body = []
    for lab, g in series.items():
        for x in g:
            j, fl = x["jitter"], x["fio"]
            body.append([lab or "-", _kb(x["size"]),
                         f"{x['bw'] / MB:.1f}" if _finite(x["bw"]) else "-",
                         f"{x['trace_bw'] / MB:.1f}" if _finite(x["trace_bw"]) else "-",
                         f"{x['imbalance']:.2f}" if _finite(x["imbalance"]) else "-",
                         _ms(j.get("mean_s")), _ms(j.get("std_s")),
                         f"{j['cv']:.2f}" if _finite(j.get("cv")) else "-",
                         _ms(j.get("p50_s")), _ms(j.get("p99_s")), _ms(j.get("max_s")),
                         f"{j['over_deadline']:.1%}" if j else "-", _ms(fl.get("mean_s")),
                         _ms(fl.get("p99_s"))])
    sections.append({
        "title": "Bandwidth, member imbalance and jitter per point",
        "markdown": (f"MB/s: the spec's metric ({metric}); trace MB/s: the traced bytes over "
                     "the first fork to the last join.  imbalance: the request's largest "
                     "member share over an even share (request / members), averaged over "
                     "the sequential run -- 1.00 at multiples of the stripe width, where "
                     "every member moves the same bytes.  Jitter (seed 004, section 5): the "
                     "spread of the per-request response times, fork to join from the trace "
                     "(a request above what the target takes in one piece counts as its "
                     "parts there; fio's own per-request latency, mean and p99, beside "
                     f"it); \"> {JITTER_DEADLINE_S * 1e3:.1f} "
                     "ms\": the fraction of requests that missed the seed's example "
                     "deadline of a video frame, 1/30 s.\n\n" + _md_table(hdr, body))})
    figures = []
    try:
        figures = _bandwidth_figure(spec, series, outdir)
    except Exception as e:
        sections.append({"title": "Figures", "markdown": f"not drawn: {e}"})
    return {"sections": sections, "figures": figures,
            "data": {"series": summary, "points": rows}}


def _bandwidth_figure(spec, series, outdir):
    if not series:
        return []
    plt = _plt()
    fig, ax = plt.subplots(figsize=(7.0, 4.4))
    for i, (lab, g) in enumerate(series.items()):
        xs = [x["size"] / KB for x in g]
        ax.plot(xs, [x["bw"] / MB for x in g], "o-", ms=3, color=f"C{i}", label=lab or None)
        width = g[0]["width"]
        k = 1
        while k * width <= g[-1]["size"]:
            ax.axvline(k * width / KB, color=f"C{i}", alpha=0.25, lw=0.8)
            k += 1
    ax.set_xlabel("request size (KB)")
    ax.set_ylabel("bandwidth (MB/s, 2^20)")
    ax.set_title(_title(spec, "sequential read bandwidth; faint lines: stripe-width "
                        "multiples"), fontsize=9)
    ax.grid(alpha=0.3)
    if any(series):
        ax.legend(fontsize=7)
    fn = save_figure(fig, os.path.join(outdir, f"{spec['name']}-bandwidth.png"))
    return [fn]


# -- seed 003: throughput ---------------------------------------------------------------

@deriver("throughput")
def throughput(spec: dict, results: dict, outdir: str) -> dict:
    d = spec.get("derive", {})
    over = d.get("over", spec["plot"].get("x", "rate"))
    group = d.get("group", spec["plot"].get("by"))
    pts = _expanded(spec, results)
    rows = []
    for r in _ok(results):
        p = pts.get(r["id"])
        if p is None:
            continue
        w, v = p["workload"], p["volume"]
        x = r.get(over, v.get(over, w.get(over)))
        mpl, think = w.get("mpl"), float(w.get("think_ms", 0)) / 1e3
        resp, rci = r.get("overall_s", math.nan), r.get("overall_ci_s", math.nan)
        if w.get("mode") == "closed" and _finite(resp) and resp > 0:
            thr = mpl / (resp + think)           # Little's law over the clients
            ci = thr * rci / (resp + think) if _finite(rci) else math.nan
        else:
            thr, ci = r.get("rate_measured", r.get("rate", math.nan)), math.nan
        rows.append({"id": r["id"], "label": r.get("label", ""), "x": x,
                     "group": r.get(group) if group else None, "members": v["members"],
                     "throughput": thr, "ci": ci, "fork_rate": r.get("rate", math.nan),
                     "per_member": thr / v["members"] if _finite(thr) else math.nan})
    curves: dict = {}
    for x in rows:
        key = (x["label"], x["group"])
        curves.setdefault(key, []).append(x)
    body = []
    for (lab, gv), g in curves.items():
        g.sort(key=lambda x: x["x"])
        for x in g:
            body.append([lab or "-", "-" if gv is None else gv, x["x"],
                         f"{x['throughput']:.1f}" + (f" ± {x['ci']:.1f}" if _finite(x["ci"])
                                                     else ""),
                         f"{x['fork_rate']:.1f}" if _finite(x["fork_rate"]) else "-",
                         f"{x['per_member']:.1f}" if _finite(x["per_member"]) else "-"])
    hdr = ["series", group or "-", over, "throughput req/s", "fork rate req/s",
           "per member req/s"]
    sections = [{"title": "Throughput",
                 "markdown": ("Closed loop: throughput = clients / (mean response + think "
                              "time) (Little's law), its interval from the response time's; "
                              "the fork rate (traced requests over their span) beside it.\n\n"
                              + _md_table(hdr, body))}]
    figures = []
    try:
        if curves:
            plt = _plt()
            fig, ax = plt.subplots(figsize=(6.4, 4.4))
            for i, ((lab, gv), g) in enumerate(curves.items()):
                name = " ".join(s for s in (lab, f"{group}={gv}" if gv is not None else "")
                                if s)
                ax.errorbar([x["x"] for x in g], [x["throughput"] for x in g],
                            yerr=[x["ci"] if _finite(x["ci"]) else 0 for x in g], fmt="o-",
                            color=f"C{i}", capsize=3, label=name or None)
            ax.set_xlabel(spec["plot"].get("xlabel", over))
            ax.set_ylabel("throughput (requests/s)")
            ax.set_title(_title(spec, "measured throughput"), fontsize=9)
            ax.grid(alpha=0.3)
            ax.legend(fontsize=7)
            fn = save_figure(fig, os.path.join(outdir, f"{spec['name']}-throughput.png"))
            figures.append(fn)
    except Exception as e:
        sections.append({"title": "Figures", "markdown": f"not drawn: {e}"})
    return {"sections": sections, "figures": figures, "data": {"points": rows}}
