"""The models beside a point: the seed's disk for the point's members,
positioning fitted to an emulated disk, the request-size distributions,
the model's values for a point (``model_point``: seed 002's RAID 5 and
parity striping, their maximum rates, seed 001's array model), and a
point's result, the measurement set beside the model with the relative
errors (``point_result``), with what ``--quick`` asserts of it
(``check_point``).
"""

from __future__ import annotations

import math

import numpy as np

from . import array, compare, disk, raid5
from .specdef import KB, MECHANICAL_PRESETS, PRESET_DISKS, member_sectors
from .analysis import max_rate, mean_utilization


# -- models -------------------------------------------------------------------------

def seed_disk(point: dict) -> disk.Disk:
    """The seed-002 disk the point's ssadisks emulate (preset + overrides)."""
    d = point["disk"]
    base = dict(PRESET_DISKS[d["preset"]])
    scale = float(d.get("time_scale", 1))
    p_seq = float(d.get("p_seq", base["p_seq"]))
    return disk.Disk(cylinders=int(d.get("cylinders", base["cylinders"])),
                     seek_a=base["seek_a"] * scale, seek_b=base["seek_b"] * scale,
                     rmax=base["rmax"] * scale, alpha=base["alpha"] * scale, p_seq=p_seq)


def emulated_positioning(point: dict, sequential: bool = False) -> tuple:
    """(a, b, rotation) of the array model's positioning law (1) for the
    point's ssadisk members: ``array.fit_positioning`` on the cylinders a
    member occupies (its outer ones, or all with ``spread``), with the
    preset's seek and rotation and the spec's overrides.  With
    ``sequential``, (c, d) of the sequential law (2) instead
    (``array.fit_sequential_positioning``)."""
    d = point["disk"]
    if d.get("preset") not in MECHANICAL_PRESETS:
        raise ValueError(f"positioning = emulated needs an ssadisk preset it knows "
                         f"({', '.join(MECHANICAL_PRESETS)})")
    g = dict(MECHANICAL_PRESETS[d["preset"]])
    for k in ("cylinders", "heads", "sectors_per_track"):
        if k in d:
            g[k] = int(d[k])
    for k in ("seek_a", "seek_b", "rotation"):
        if k in d:
            g[k] = compare.parse_time(str(d[k]))
    if "rpm" in d:
        g["rotation"] = 60.0 / float(d["rpm"])
    scale = float(d.get("time_scale", 1))
    cyl = g["cylinders"]
    if not d.get("spread"):
        per_cyl = g["heads"] * g["sectors_per_track"]
        cyl = min(cyl, max(2, -(-member_sectors(point["volume"]) // per_cyl)))
    if sequential:
        return array.fit_sequential_positioning(int(cyl), g["seek_a"] * scale,
                                                g["seek_b"] * scale, g["rotation"] * scale)
    a, b = array.fit_positioning(int(cyl), g["seek_a"] * scale, g["seek_b"] * scale,
                                 g["rotation"] * scale)
    return a, b, g["rotation"] * scale


def _sizes_pmf(spec: str, ws: int) -> np.ndarray:
    """ssaload's --sizes in the model's terms, P{B = k} for k = 1..ws."""
    kind, *a = spec.split(":")
    if kind == "fixed":
        k = int(a[0])
        if not 1 <= k <= ws:
            raise ValueError(f"sizes {spec}: the model takes 1..{ws} blocks")
        pmf = np.zeros(ws)
        pmf[k - 1] = 1.0
        return pmf
    if kind == "uniform":
        if int(a[0]) != ws:
            raise ValueError(f"sizes {spec}: the model's uniform law is over 1..{ws}")
        return raid5.sizes_uniform(ws)
    if kind == "qgeo":
        if int(a[2]) != ws:
            raise ValueError(f"sizes {spec}: the model's law is truncated at {ws}")
        return raid5.sizes_qgeo(ws, float(a[0]), float(a[1]))
    raise ValueError(f"sizes {spec}: unknown law")


def _sizes_max(spec: str) -> int:
    kind, *a = spec.split(":")
    return int(a[-1]) if kind in ("fixed", "uniform", "qgeo") else 1


def model_point(point: dict) -> dict:
    """The model's values for a point, keyed by variant (``lb``, ``ub``,
    ``simple``, ``as``, or ``model`` for a single one)."""
    m, w, v = point["model"], point["workload"], point["volume"]
    kind = m.get("kind", "none")
    if kind == "none":
        return {}
    if kind in ("raid5", "pstripe"):
        d = seed_disk(point)
        ws = v["members"] - 1
        pmf = _sizes_pmf(w.get("sizes", "fixed:1"), ws)
        arr = raid5.Array(d, v["members"], float(w.get("p_read", 1.0)), sizes=pmf,
                          skew=float(w.get("skew", 0)))
        fn = raid5.raid5 if kind == "raid5" else raid5.pstripe
        sync = m.get("sync", "bs")
        bounds = m.get("bounds", ["lb"] if arr.single else ["simple"])
        if sync == "as":
            bounds = ["lb"]
        out = {}
        for b in bounds:
            r = fn(arr, float(w["rate"]), sync, b)
            out["as" if sync == "as" else b] = {"read_s": r.read, "write_s": r.write,
                                                 "overall_s": r.overall,
                                                 "utilization": r.utilization}
        return out
    if kind == "maxrate":
        d = seed_disk(point)
        ws = v["members"] - 1
        arr = raid5.Array(d, v["members"], float(w.get("p_read", 1.0)),
                          sizes=_sizes_pmf(w.get("sizes", "fixed:1"), ws),
                          skew=float(w.get("skew", 0)))
        fn = raid5.maxrate_raid5 if v["layout"] == "raid5" else raid5.maxrate_pstripe
        return {"model": {"max_rate": fn(arr)}}
    if kind == "array":
        extra = {f: float(m[k]) / 1e3 for k, f in (("pos_a_ms", "pos_a"), ("pos_b_ms", "pos_b"),
                                                    ("max_read_seek_ms", "max_read_seek"))
                 if k in m}
        if "cache_mbps" in m:                   # 0: no array cache server (an ssastripe volume)
            extra["cache_rate"] = float(m["cache_mbps"]) * 1e6 or math.inf
        if "beta_concentration" in m:
            extra["beta_concentration"] = float(m["beta_concentration"])
        if m.get("positioning", "seed") == "emulated":
            extra["pos_a"], extra["pos_b"], extra["rotation"] = emulated_positioning(point)
            if w.get("pattern", "random") == "seq":
                extra["seq_c"], extra["seq_d"] = emulated_positioning(point, sequential=True)
        elif m.get("positioning", "seed") != "seed":
            raise ValueError("model.positioning must be seed or emulated")
        for k in ("overhead", "pair_queue", "uncoalesced", "destage"):
            if k in m:
                extra[k] = str(m[k])
        if "min_disk_queue" in m:
            extra["min_disk_queue"] = float(m["min_disk_queue"])
        if "member_latency_ms" in m:
            extra["member_latency"] = float(m["member_latency_ms"]) / 1e3
        for k in ("destage_threshold", "max_dirty_blocks"):
            if k in m:
                extra[k] = int(m[k])
        if "cache_hit" in m:
            extra["cache_hit"] = float(m["cache_hit"])
        if "destage_queue" in m:
            extra["destage_queue"] = float(m["destage_queue"])
        if "cache_overhead_ms" in m:
            extra["cache_overhead"] = float(m["cache_overhead_ms"]) / 1e3
        if "cache_copy_mbps" in m:
            extra["cache_copy_rate"] = float(m["cache_copy_mbps"]) * 1e6
        cfg = array.ArrayConfig(
            disks=v["members"], stripe_unit=int(v["chunk_kb"] * KB),
            mirrored=v["layout"] == "mirror",
            coalescing=m.get("coalescing", "on") == "on",
            balance=m.get("balance", "transfer"), **extra)
        size = float(m.get("request_kb", 0) or 0) * KB or \
            int(w.get("sizes", "fixed:1").split(":")[1]) * w.get("block", 4096)
        mpl = int(w["mpl"])
        op = "read" if w.get("p_read", 1.0) >= 1 else "write"
        think, seq = float(w.get("think_ms", 0)) / 1e3, w.get("pattern", "random") == "seq"
        policy = m.get("write_policy", "auto")
        if op == "write" and policy in ("back", "direct"):
            # one of seed 001's two write models whatever the size (Figure 9)
            fn1 = array.write_back if policy == "back" else array.direct_write
            last = fn1(cfg, size, mpl, think, seq)
        elif policy not in ("auto", "back", "direct"):
            raise ValueError("model.write_policy must be auto, back or direct")
        else:
            fn = array.reads if op == "read" else array.writes
            last = fn(cfg, size, mpl, think, seq)[-1]
        return {"model": {f"{op}_s": last.response, "rate": last.throughput}}
    raise ValueError(f"model {kind}: unknown")


def main_model(models: dict) -> dict:
    """The variant a point's error is reported against: lb, as, simple or
    the single one."""
    for k in ("lb", "as", "simple", "model"):
        if k in models:
            return models[k]
    return next(iter(models.values()), {})


def rel_error(meas: float, model: float) -> float:
    if not (meas == meas and model == model) or model == 0:
        return math.nan
    return (meas - model) / model


def _metric_key(metric: str) -> str:
    """A checked metric's measured key: read -> read_s, max_rate -> max_rate."""
    return metric if metric in ("rate", "max_rate") else f"{metric}_s"


def point_result(point: dict, meas: dict) -> dict:
    """One entry of results.json's ``points``: the point's parameters, what
    was measured, every model variant under ``model``, and for the main
    variant ``model_KEY`` and ``error_METRIC`` = (measured - model) / model
    for each key the model gives (read_s, write_s, overall_s, rate,
    max_rate)."""
    r = {"id": point["id"], "label": point["label"], **point["params"],
         "params": dict(point["params"]), "layout": point["volume"]["layout"]}
    w = point["workload"]
    for k in ("rate", "mpl", "p_read", "think_ms", "sizes", "skew"):
        if k in w and k not in r:
            r[k] = w[k]
    r.update(meas)
    for k in ("read", "write", "all"):         # what the generator saw, for plots
        v = (meas.get("generator") or {}).get(f"{k}_s")
        if v is not None:
            r[f"generator_{k}_s"] = v
    if meas.get("utilization_members"):
        r["max_rate"] = max_rate(point, meas)
        r["utilization_mean"] = mean_utilization(point, meas)
    try:
        pmf = _sizes_pmf(w.get("sizes", "fixed:1"), _sizes_max(w.get("sizes", "fixed:1")))
        r["mean_blocks"] = float(np.dot(np.arange(1, len(pmf) + 1), pmf))
    except (ValueError, IndexError):
        pass
    if w.get("mode") == "open" and "rate" in w:
        r["rate"] = w["rate"]                   # the offered rate is the x axis
        r["rate_measured"] = meas.get("rate", math.nan)
    try:
        models = model_point(point)
    except ValueError as e:
        models = {}
        r.setdefault("notes", []).append(f"model: {e}")
    r["model"] = models
    mm = main_model(models)
    for k, v in mm.items():
        if k == "utilization":
            continue
        metric = k[:-2] if k.endswith("_s") else k
        mk = "rate_measured" if k == "rate" and "rate_measured" in r else k
        r[f"model_{k}"] = v
        r[f"error_{metric}"] = rel_error(r.get(mk, math.nan), v)
    return r


def check_point(spec: dict, res: dict) -> list[str]:
    """What --quick asserts for a point: measured within the tolerance of
    the model for each checked metric.  Returns failures (empty: pass)."""
    chk = spec.get("check", {})
    tol = chk.get("tolerance")
    if res.get("status") != "ok":
        return [f"{res['id']}: status {res.get('status')}: {'; '.join(res.get('notes', []))}"]
    if tol is None:
        return []
    bad = []
    for metric in chk.get("metrics", ["read", "write"]):
        e = res.get(f"error_{metric}")
        if e is None or e != e:
            if res.get(f"{metric}_n", 1):
                bad.append(f"{res['id']}: no measured or model value for {metric}")
            continue
        if abs(e) > tol:
            k = _metric_key(metric)
            mk = "rate_measured" if k == "rate" and "rate_measured" in res else k
            scale, unit = (1e3, " ms") if k.endswith("_s") else (1, "")
            worst = res.get(f"{metric}_max_s")
            longest = f"; longest {worst * 1e3:.2f} ms" if k.endswith("_s") and \
                worst is not None and worst == worst else ""
            bad.append(f"{res['id']}: {metric} measured {res[mk] * scale:.2f}{unit}, "
                       f"model {res[f'model_{k}'] * scale:.2f}{unit} ({e:+.1%}, "
                       f"allowed ±{tol:.0%}){longest}" + _cache_note(res))
    return bad


def _cache_note(res: dict) -> str:
    """For a failure behind an array cache: what the cache did meanwhile
    (writes held at max_dirty, through to the volume, destaged)."""
    c = res.get("cache")
    if not c:
        return ""
    keys = ("throttled", "write_through", "destaged", "read_hits", "errors")
    return "; cache " + ", ".join(f"{k} {c[k]}" for k in keys if k in c)
