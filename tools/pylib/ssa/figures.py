"""The lab's figures: a spec's ``[plot]`` drawn from the results (measured
means with their intervals beside the model's lines), and how every
figure of the lab is laid out and written (``save_figure``, which
``ssa.derive`` uses too).
"""

from __future__ import annotations

import math
import os


def _mean_kind(points: list[dict]) -> str:
    """Which response a time metric of these points is."""
    if points and all(p.get("measured_at") for p in points):
        return "arrival to completion, at the generator"
    return "fork to join, from the trace"


def _dodge(xs: list, i: int, k: int, logx: bool, span: float) -> list:
    """Series i of k drawn a little apart at the same x, so that points of
    several series at one x do not hide each other."""
    if k < 2:
        return xs
    shift = i - (k - 1) / 2
    if logx:
        return [x * 2 ** (0.04 * shift) for x in xs]
    return [x + 0.01 * span * shift for x in xs]


def _groups(pts: list[dict], by: str | None) -> dict:
    groups: dict = {}
    for p in pts:
        key = p.get("label") or ""
        if by:
            key = f"{key} {by}={p.get(by)}".strip()
        groups.setdefault(key, []).append(p)
    return groups


def _draw(ax, groups: dict, x: str, y: str, logx: bool, span: float) -> int:
    """One axis: each group's measured points with their intervals and its
    model variants as lines; returns how many legend entries it drew."""
    ms = y.endswith("_s")
    scale = 1e3 if ms else 1.0
    drawn = 0
    for i, (lab, g) in enumerate(groups.items()):
        g = sorted(g, key=lambda p: p[x])
        col = f"C{i % 10}"
        xs = [p[x] for p in g]
        mv = [(p.get(y) if p.get(y) is not None else math.nan) * scale for p in g]
        cik = y[:-2] + "_ci_s" if ms else None     # max_rate, rate: none
        ci = [(p.get(cik) or 0) * scale if cik else 0 for p in g]
        ci = [0 if c != c else c for c in ci]
        name = f"{lab} " if lab else ""
        if any(v == v for v in mv):
            ax.errorbar(_dodge(xs, i, len(groups), logx, span), mv, yerr=ci, fmt="o",
                        color=col, capsize=3, ms=4, label=f"{name}measured (95 % CI)")
            drawn += 1
        variants = sorted({k for p in g for k in p.get("model", {})})
        for j, var in enumerate(variants):
            ys = [(p["model"].get(var, {}).get(y) or math.nan) * scale for p in g]
            if all(v != v for v in ys):
                continue
            ax.plot(xs, ys, ["-", "--", ":", "-."][j % 4], color=col,
                    label=f"{name}model {var}" if var != "model" else f"{name}model")
            drawn += 1
    return drawn


def _xaxis(ax, pl: dict, allx: list) -> None:
    import matplotlib.ticker
    if pl.get("logx"):
        ax.set_xscale("log", base=2)
        ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:g}"))
    if len(set(allx)) == 1 and allx[0]:         # one x: room on both sides of it
        x0 = allx[0]
        ax.set_xlim(*((x0 / 1.6, x0 * 1.6) if pl.get("logx") else
                      (x0 - 0.5 * abs(x0), x0 + 0.5 * abs(x0))))
    ax.grid(alpha=0.3)


def plot(spec: dict, results: dict, outdir: str) -> list[str]:
    """PNGs drawn like the seed's: the plot table's x against each y, one
    line per series for the model, measured points with their intervals;
    with ``panels = KEY`` one panel per value of KEY, side by side, as
    the seeds draw a figure per MPL.  Times are drawn in ms, the y label
    says which mean they are (fork to join from the trace, or arrival to
    completion at the generator) and the title which clock measured
    them."""
    import textwrap
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    pl = spec["plot"]
    x = pl.get("x", "rate")
    files = []
    pts = [p for p in results["points"] if p.get(x) is not None]
    if not pts:
        return files
    allx = [p[x] for p in pts if isinstance(p[x], (int, float))]
    span = (max(allx) - min(allx)) if allx else 0.0
    pk = pl.get("panels")
    panels = sorted({p.get(pk) for p in pts}, key=str) if pk else [None]
    for y in pl.get("y", ["read_s", "write_s"]):
        fig, axes = plt.subplots(1, len(panels), figsize=(max(6.4, 3.4 * len(panels)), 4.6),
                                 sharey=True, squeeze=False)
        drawn = 0
        for ax, val in zip(axes[0], panels):
            sub = [p for p in pts if pk is None or p.get(pk) == val]
            drawn += _draw(ax, _groups(sub, pl.get("by")), x, y, pl.get("logx"), span)
            _xaxis(ax, pl, allx)
            ax.set_xlabel(pl.get("xlabel", x))
            if pk:
                ax.set_title(f"{pk} {val}", fontsize=9)
        ylabel = pl.get("ylabel", y)
        if y.endswith("_s"):
            ylabel = f"{ylabel} (ms)\n{_mean_kind(pts)}"
        axes[0][0].set_ylabel(ylabel, fontsize=9)
        title = textwrap.fill(pl.get("title", spec["title"]), 64 if len(panels) < 3 else 110)
        what = f"{y}, {results['clock']} clock" + (", quick variant" if results.get("quick")
                                                     else "")
        if pk:
            fig.suptitle(f"{title}\n{what}", fontsize=9)
        else:
            axes[0][0].set_title(f"{title}\n{what}", fontsize=9)
        if drawn:
            n = len(_groups(pts, pl.get("by")))
            axes[0][0].legend(fontsize=6 if n > 3 else 7, ncol=2 if n > 6 else 1)
        files.append(save_figure(fig, os.path.join(
            outdir, f"{spec['name']}-{y.replace('_s', '')}.png")))
    return files


def save_figure(fig, path: str) -> str:
    """Lay out, write (PNG) and close a figure of the lab; returns path."""
    import matplotlib.pyplot as plt
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
