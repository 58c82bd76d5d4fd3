"""An array's hidden policies by seed 001's method (section 6): fit each
version of the array model to the same measurements and keep the one
that explains them.

The seed treated the FC-60 as a black box: it ran chosen workloads,
computed four versions of its fork-join model (access coalescing on or
off, times transfer-time or queue-length reducing mirror balance), and
deduced the controller's policies "by the process of elimination"
(section 6.2): the version whose curves match the measurements is the
policy the array runs.  Section 6.4 did the same for the write-back
limit (write-back model against direct-write model, by request size).

This module is that elimination as pure functions:

- ``variant_point`` -- a lab point's model inputs with one version's
  settings in place of whatever the point's series said;
- ``fit`` -- each version's mean and largest relative error over the
  measured points, best first;
- ``decide`` -- the best version, and whether it is clearly better than
  the next (its mean error at most ``margin`` of the runner-up's).

The lab's findings (``ssa.findings``: ``fit_error``, ``deduced``) call
them with the spec's ``[variants]`` table, so a seed 001 verdict on a
policy comes from the fits, never from the volume's own options, which
the analysis is not given.
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass
from typing import Any, Callable

# Seed 001's four model versions of section 6.2 (the [model] keys of a
# lab spec whose model kind is "array").
SEED001_READ_VARIANTS: dict[str, dict] = {
    "coalescing, transfer-time": {"coalescing": "on", "balance": "transfer"},
    "coalescing, queue-length": {"coalescing": "on", "balance": "queue"},
    "no coalescing, transfer-time": {"coalescing": "off", "balance": "transfer"},
    "no coalescing, queue-length": {"coalescing": "off", "balance": "queue"},
}

# Section 6.4's two write models.
SEED001_WRITE_VARIANTS: dict[str, dict] = {
    "write-back": {"write_policy": "back"},
    "direct": {"write_policy": "direct"},
}


@dataclass(frozen=True)
class Fit:
    """One model version against the measurements."""
    variant: str
    mean_error: float       # mean of |measured / model - 1|
    max_error: float
    points: int

    def as_dict(self) -> dict:
        return {"variant": self.variant, "mean_error": self.mean_error,
                "max_error": self.max_error, "points": self.points}


def variant_point(point: dict, overrides: dict, base: dict | None = None) -> dict:
    """A copy of an expanded lab point whose model table is ``base`` (the
    spec's [model], without what the point's series set) with
    ``overrides`` in place; without ``base`` the point's own model table
    with ``overrides``."""
    p = copy.deepcopy(point)
    if base is not None:
        p["model"] = copy.deepcopy(base)
    p["model"].update(overrides)
    return p


def model_value(point: dict, metric: str, overrides: dict, base: dict | None = None) -> float:
    """The model's ``metric`` (``read``, ``write``, ``rate``) for the
    point under one version."""
    from .pointmodel import main_model, model_point
    m = main_model(model_point(variant_point(point, overrides, base)))
    key = metric if metric == "rate" else f"{metric}_s"
    v = m.get(key)
    return math.nan if v is None else float(v)


def fit(pairs: list[tuple[Any, float]], metric: str, variants: dict[str, dict],
        base: dict | None = None,
        model: Callable[[Any, dict], float] | None = None) -> list[Fit]:
    """Each version's errors over ``pairs`` (a point and the value
    measured there), best (lowest mean error) first.  A point is an
    expanded lab point (``base`` as for ``variant_point``) unless
    ``model(point, overrides)`` says what the model gives there.  A
    version that gives no value at some point is ranked last."""
    if model is None:
        def model(point, over):
            return model_value(point, metric, over, base)
    out = []
    for name, over in variants.items():
        errs = []
        for point, measured in pairs:
            value = model(point, over)
            if not (value == value and value > 0 and measured == measured):
                errs = []
                break
            errs.append(abs(measured / value - 1.0))
        if errs:
            out.append(Fit(name, sum(errs) / len(errs), max(errs), len(errs)))
        else:
            out.append(Fit(name, math.inf, math.inf, 0))
    return sorted(out, key=lambda f: (f.mean_error, f.variant))


def decide(fits: list[Fit], margin: float = 0.8) -> tuple[str, bool]:
    """The best version and whether it is clear: its mean error at most
    ``margin`` times the runner-up's (one version alone is clear)."""
    if not fits or not math.isfinite(fits[0].mean_error):
        raise ValueError("no model version could be fitted to the measurements")
    if len(fits) == 1:
        return fits[0].variant, True
    return fits[0].variant, _apart(fits[0].mean_error, fits[1].mean_error, margin)


def _apart(best: float, rival: float, margin: float) -> bool:
    """best at most margin x rival, two versions that fit alike (both
    exactly, say) never apart."""
    return rival > 0 and best <= margin * rival


def decide_factors(fits: list[Fit], variants: dict[str, dict],
                   margin: float = 0.8) -> dict[str, dict]:
    """Each setting of the best version on its own: against the version
    that differs from the best in that setting alone, is the best's mean
    error at most ``margin`` of it?  (Two versions may give the same times
    -- coalescing under queue-length balance, where a disk's units lie
    back to back -- and then that setting cannot be told.)"""
    if not fits or not math.isfinite(fits[0].mean_error):
        raise ValueError("no model version could be fitted to the measurements")
    by = {f.variant: f for f in fits}
    best = variants[fits[0].variant]
    out = {}
    for key, val in best.items():
        rivals = [by[n] for n, v in variants.items()
                  if n in by and v.get(key) != val
                  and all(v.get(k) == x for k, x in best.items() if k != key)]
        if not rivals:
            rivals = [by[n] for n, v in variants.items() if n in by and v.get(key) != val]
        if not rivals:
            out[key] = {"value": val, "clear": True, "against": None}
            continue
        r = min(rivals, key=lambda f: f.mean_error)
        out[key] = {"value": val, "against": r.variant, "against_error": r.mean_error,
                    "clear": _apart(fits[0].mean_error, r.mean_error, margin)}
    return out


def table_md(fits: list[Fit]) -> str:
    """The fits side by side, as report.md shows them."""
    lines = ["| model version | mean error | largest error | points |", "|---|---:|---:|---:|"]
    for f in fits:
        lines.append(f"| {f.variant} | {100 * f.mean_error:.1f} % | "
                     f"{100 * f.max_error:.1f} % | {f.points} |")
    return "\n".join(lines)


# -- on a device: ssa identify --policies --------------------------------------------
#
# The same elimination on a block device's own measurements: closed-loop
# random reads of whole stripe units (ssaload), beside the array model
# (ssa.array) built from what identify measured of one member disk and
# what identify --array measured of the volume's geometry.  Reads only.

class PolicyError(ValueError):
    """The device or the inputs cannot be fitted (a clear message)."""


def array_config(disk: dict, geometry: dict):
    """The array model's inputs (``ssa.array.ArrayConfig``) for a volume
    of identified disks: ``disk`` is identify's result for one member
    (rotation, seek curve, cylinders, zones, overhead), ``geometry``
    identify --array's (copies, chunk, width).  The model's options are
    those of a volume of emulated disks (Documentation/models.rst): the
    positioning law fitted on a LOOK disk of the member's geometry, the
    rotations' parallel overhead, no array cache, a mirrored pair as a
    two-server station, a disk's units of a request read in one pass."""
    from . import array
    need = ("rotation_s", "cylinders", "seek_a_s", "seek_b_s", "transfer_mbps")
    missing = [k for k in need if k not in disk]
    if missing:
        raise PolicyError(f"the disk's results lack {', '.join(missing)}: give the "
                          "results.json of `identify MEMBER --out DIR`")
    missing = [k for k in ("members", "width", "copies") if k not in geometry]
    if missing:
        raise PolicyError(f"the geometry lacks {', '.join(missing)}: give the "
                          "results.json of `identify --array DEVICE --out DIR`")
    layout = geometry.get("layout")
    if layout in ("rotating", "raid5", "single"):
        raise PolicyError(f"a {layout} volume: the model describes striping and "
                          "mirrored pairs (raid 0 and raid 1/0)")
    copies = int(geometry.get("copies", 1))
    if copies > 2:
        raise PolicyError(f"{copies} copies: the model describes mirrored pairs")
    chunk = geometry.get("chunk_bytes")
    if not chunk:
        raise PolicyError("no chunk in the geometry: nothing is striped")
    rot = float(disk["rotation_s"])
    cyl = int(disk["cylinders"])
    a, b = array.fit_positioning(cyl, max(0.0, float(disk["seek_a_s"])),
                                 max(0.0, float(disk["seek_b_s"])), rot)
    rate = float(disk["transfer_mbps"][0]) * 1e6
    return array.ArrayConfig(disks=int(geometry["members"]), stripe_unit=int(chunk),
                             mirrored=copies == 2, pos_a=a, pos_b=b, rotation=rot,
                             disk_rate=rate, cache_rate=math.inf, overhead="rotation",
                             min_disk_queue=1, pair_queue="shortest", uncoalesced="track",
                             member_latency=max(0.0, float(disk.get("overhead_s", 0.0))))


def device_variants(cfg) -> dict[str, dict]:
    """The versions that can differ on this volume: all four on mirrored
    pairs, coalescing on or off on plain striping."""
    if cfg.mirrored:
        return dict(SEED001_READ_VARIANTS)
    return {k: v for k, v in SEED001_READ_VARIANTS.items() if v["balance"] == "transfer"}


def model_read(cfg, units: int, mpl: int, over: dict) -> float:
    """The model's mean read response of ``units`` stripe units at ``mpl``
    closed-loop clients with no think time, under one version."""
    from dataclasses import replace

    from . import array
    c = replace(cfg, coalescing=over.get("coalescing", "on") == "on",
                balance=over.get("balance", "transfer"))
    return array.reads(c, units * cfg.stripe_unit, mpl)[-1].response


def default_units(geometry: dict) -> list[int]:
    """Request sizes in stripe units: two, four and eight a set, so that
    a disk of a mirrored set gets one, two and four units under
    transfer-time balance (where coalescing shows from two)."""
    w = int(geometry["width"])
    return [2 * w, 4 * w, 8 * w]


def ssaload_path() -> str:
    import os
    env = os.environ.get("SSALOAD")
    if env:
        return env
    here = os.path.dirname(os.path.abspath(__file__))
    return os.path.normpath(os.path.join(here, "..", "..", "..", "build", "ssaload", "ssaload"))


def closed_reads(dev: str, units: int, chunk: int, mpl: int, requests: int, warmup: int,
                 seed: int = 1, ssaload: str | None = None) -> float:
    """Mean response (s) of random reads of ``units`` chunks, aligned to
    a chunk, from ``mpl`` closed-loop clients (ssaload; read-only)."""
    return _closed(dev, units, chunk, mpl, requests, warmup, seed, ssaload, write=False)


def _closed(dev: str, units: int, chunk: int, mpl: int, requests: int, warmup: int,
            seed: int, ssaload: str | None, write: bool, where: str | None = None) -> float:
    import json
    import os
    import subprocess
    import tempfile
    exe = ssaload or ssaload_path()
    if not os.access(exe, os.X_OK):
        raise PolicyError(f"{exe}: no ssaload (make ssaload, or set SSALOAD)")
    op = "write" if write else "read"
    with tempfile.TemporaryDirectory() as tmp:
        summ = os.path.join(tmp, "s.json")
        cmd = [exe, dev, "--closed", str(mpl), "--think", "0", "--requests", str(requests),
               "--warmup", str(warmup), "--read-frac", "0" if write else "1",
               "--block", str(chunk), "--sizes", f"fixed:{units}", "--align", str(chunk),
               "--seed", str(seed), "--records", os.path.join(tmp, "r.csv"),
               "--summary", summ] + (["--range", where] if where else [])
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode != 0:
            raise PolicyError(f"ssaload on {dev} failed ({p.returncode}): "
                              f"{(p.stderr or p.stdout).strip()[-300:]}")
        with open(summ, encoding="utf-8") as f:
            s = json.load(f)
    if s.get("errors"):
        raise PolicyError(f"{dev}: {s['errors']} {op}s failed: the device returns errors")
    return float(s["response"][op]["mean_s"])


def identify_policies(dev: str, disk: dict, geometry: dict, units: list[int] | None = None,
                      mpls: list[int] | None = None, requests: int = 200, warmup: int = 8,
                      margin: float = 0.8, measure=None, echo=print) -> dict:
    """Measure the device and fit the model versions; ``measure(units,
    mpl)`` replaces the device's measurement (tests)."""
    cfg = array_config(disk, geometry)
    units = units or default_units(geometry)
    mpls = mpls or [1, 2, 4, 8]
    if any(u < 1 for u in units) or any(m < 1 for m in mpls):
        raise PolicyError("request sizes and MPLs must be at least 1")
    chunk = int(geometry["chunk_bytes"])
    if measure is None:
        def measure(u, m):
            return closed_reads(dev, u, chunk, m, requests, warmup)
    points = []
    for u in units:
        for m in mpls:
            echo(f"identify: reads of {u} chunks ({u * chunk // 1024} KiB) at MPL {m}")
            points.append({"units": u, "mpl": m, "read_s": measure(u, m)})
    variants = device_variants(cfg)
    fits = fit([((p["units"], p["mpl"]), p["read_s"]) for p in points], "read", variants,
               model=lambda key, over: model_read(cfg, key[0], key[1], over))
    best, clear = decide(fits, margin)
    factors = decide_factors(fits, variants, margin)
    for p in points:
        p["model"] = {n: model_read(cfg, p["units"], p["mpl"], v) for n, v in variants.items()}
    co = factors["coalescing"]
    ba = factors["balance"]
    return {"device": dev, "points": points, "fits": [f.as_dict() for f in fits],
            "deduced": best, "clear": clear, "margin": margin, "factors": factors,
            "coalescing": (co["value"] == "on") if co["clear"] else None,
            "balance": (ba["value"] if ba["clear"] else None) if cfg.mirrored else None,
            "summary": policy_summary(fits, factors, cfg.mirrored)}


def policy_summary(fits: list[Fit], factors: dict, mirrored: bool) -> str:
    def say(key: str, names: dict) -> str:
        f = factors[key]
        if f["clear"]:
            return names[f["value"]]
        return (f"{key}: cannot tell ({fits[0].variant} {100 * fits[0].mean_error:.1f} % "
                f"against {f['against']} {100 * f['against_error']:.1f} %)")
    parts = [say("coalescing", {"on": "coalescing", "off": "no coalescing"})]
    if mirrored:
        parts.append(say("balance", {"transfer": "transfer-time reducing balance",
                                     "queue": "queue-length reducing balance"}))
    nxt = f", next {fits[1].variant} {100 * fits[1].mean_error:.1f} %" if len(fits) > 1 else ""
    return (f"policies: {'; '.join(parts)} (best {fits[0].variant}, mean error "
            f"{100 * fits[0].mean_error:.1f} %{nxt})")


def policy_report_md(out: dict) -> str:
    lines = [f"# Policies of {out['device']}", "", out["summary"], "",
             "Seed 001's elimination: each version of the array model beside the "
             "measured mean read response (closed loop, no think time).", "",
             table_md([Fit(**f) for f in out["fits"]]), "",
             "| chunks | MPL | measured (ms) | " +
             " | ".join(f["variant"] for f in out["fits"]) + " |",
             "|---:|---:|---:|" + "---:|" * len(out["fits"])]
    for p in out["points"]:
        lines.append(f"| {p['units']} | {p['mpl']} | {1e3 * p['read_s']:.2f} | " +
                     " | ".join(f"{1e3 * p['model'][f['variant']]:.2f}" for f in out["fits"]) +
                     " |")
    w = out.get("writes")
    if w:
        lines += ["", "Writes beside the direct-write model (seed 001, section 6.4):", "",
                  "| KiB | MPL | measured (ms) | direct-write model (ms) | ratio | verdict |",
                  "|---:|---:|---:|---:|---:|---|"]
        for p in w["points"]:
            lines.append(f"| {p['bytes'] // 1024} | {p['mpl']} | {1e3 * p['write_s']:.2f} | "
                         f"{1e3 * p['direct_s']:.2f} | {p['ratio']:.2f} | {p['verdict']} |")
    else:
        lines += ["", "Writes: not measured (reads only; --destructive measures the "
                  "write-back limit)."]
    return "\n".join(lines) + "\n"


# -- the write-back limit (--destructive): seed 001, section 6.4 -------------------
#
# Writes of growing size, closed loop, beside the direct-write model (every
# unit written on its disk and its mirror, ssa.array.direct_write) built
# from the same member and geometry.  A write the cache takes is answered
# far sooner than the disks could write it; one it passes through matches
# the direct-write model ("a direct-write model matches the system
# closely").  The limit is the largest size taken, every smaller one taken
# too.  Needs the cache's absorbing to show: no cache model (its
# thresholds are what a black box hides) -- only the direct one.

WRITE_TOLERANCE = 0.15      # a write through: within this of the direct-write model
ABSORBED = 0.75             # a write taken: at most this share of the model's time


WRITE_EXTRA = 0.25          # ... or up to this above it (a write's settle reads cannot see)
HIT = 0.25                  # a re-read answered in this share of a disk read: a cache hit


def model_direct_write(cfg, units: int, mpl: int, cache: dict | None = None) -> float:
    """The direct-write model's mean response; ``cache`` (``rate``,
    ``overhead``: the array cache's transfer, measured) adds the cache's
    service, as section 5.4 has it for every request."""
    from dataclasses import replace

    from . import array
    c = replace(cfg, write_seek=cfg.read_seek)      # identify measures no write penalty
    if cache and cache.get("present"):
        c = replace(c, cache_rate=cache["rate"], cache_overhead=cache["overhead_s"])
    return array.direct_write(c, units * cfg.stripe_unit, mpl, 0.0).response


def hits_to_cache(t1: float, t2: float, s1: int, s2: int, disk_read: float) -> dict:
    """The array cache from the mean times of re-reading one place at two
    sizes: present when the first re-read takes at most ``HIT`` of a disk
    read; its transfer rate from the difference (seed 001 measured "the
    mean bus transfer rate" directly), its fixed time from the rest."""
    if not (t1 > 0 and t2 > 0) or t1 > HIT * disk_read:
        return {"present": False, "t1_s": t1, "t2_s": t2}
    rate = (s2 - s1) / (t2 - t1) if t2 > t1 else math.inf
    over = max(0.0, t1 - s1 / rate)
    return {"present": True, "rate": rate, "overhead_s": over, "t1_s": t1, "t2_s": t2}


def measure_cache(dev: str, cfg, requests: int = 40, measure=None) -> dict:
    """Re-read one chunk, then two, at the device's start (MPL 1): a
    cache answers the repeats from memory."""
    chunk = cfg.stripe_unit
    if measure is None:
        def measure(units):
            return _closed(dev, units, chunk, 1, requests, 4, 1, None, write=False,
                           where=f"0:{units * chunk}")
    t1, t2 = measure(1), measure(2)
    return hits_to_cache(t1, t2, chunk, 2 * chunk, model_read(cfg, 1, 1, {}))


def classify_write(measured: float, direct: float, tol: float = WRITE_TOLERANCE,
                   absorbed: float = ABSORBED) -> str:
    """'direct' (the direct-write model explains it), 'absorbed' (far
    sooner: a cache took it) or 'unexplained'."""
    r = measured / direct
    if 1 - tol <= r <= 1 + WRITE_EXTRA:
        return "direct"
    if r <= absorbed:
        return "absorbed"
    return "unexplained"


def write_limit(points: list[dict]) -> dict:
    """The write-back limit from classified sizes (``units``, ``bytes``,
    ``verdict``): the largest size taken with every smaller one taken too
    and every larger one written through; ``None`` when no size is taken
    (no write-back cache), ``clear`` False when the sizes do not fall
    into taken-then-through."""
    sizes = sorted(points, key=lambda p: p["units"])
    taken = [p for p in sizes if p["verdict"] == "absorbed"]
    k = 0
    while k < len(sizes) and sizes[k]["verdict"] == "absorbed":
        k += 1
    clear = all(p["verdict"] == "direct" for p in sizes[k:])
    if not taken:
        return {"cache": False, "limit_bytes": None, "clear": clear}
    return {"cache": True, "limit_bytes": sizes[k - 1]["bytes"] if k else None,
            "above_bytes": sizes[k]["bytes"] if k < len(sizes) else None,
            "clear": clear and k > 0}


def closed_writes(dev: str, units: int, chunk: int, mpl: int, requests: int, warmup: int,
                  seed: int = 1, ssaload: str | None = None) -> float:
    """Mean response (s) of random writes of ``units`` chunks (ssaload
    --read-frac 0: DESTROYS the data where it writes)."""
    return _closed(dev, units, chunk, mpl, requests, warmup, seed, ssaload, write=True)


def identify_write_limit(dev: str, disk: dict, geometry: dict, units: list[int] | None = None,
                         mpl: int = 1, requests: int = 100, warmup: int = 8, measure=None,
                         cache: dict | None = None, echo=print) -> dict:
    """Writes of each size beside the direct-write model; ``measure(units,
    mpl)`` and ``cache`` (``measure_cache``'s) replace the device's
    measurements (tests)."""
    cfg = array_config(disk, geometry)
    if cache is None:
        echo("identify: the array cache (re-reads of one place)")
        cache = measure_cache(dev, cfg)
    chunk = int(geometry["chunk_bytes"])
    w = int(geometry["width"])
    units = units or [1, w, 2 * w, 3 * w]
    if measure is None:
        def measure(u, m):
            return closed_writes(dev, u, chunk, m, requests, warmup)
    points = []
    for u in sorted(set(units)):
        echo(f"identify: writes of {u} chunks ({u * chunk // 1024} KiB) at MPL {mpl}")
        meas = measure(u, mpl)
        direct = model_direct_write(cfg, u, mpl, cache)
        points.append({"units": u, "bytes": u * chunk, "mpl": mpl, "write_s": meas,
                       "direct_s": direct, "ratio": meas / direct,
                       "verdict": classify_write(meas, direct)})
    lim = write_limit(points)
    return {"points": points, **lim, "array_cache": cache,
            "summary": write_summary(points, lim, cache)}


def write_summary(points: list[dict], lim: dict, cache: dict | None = None) -> str:
    ratios = ", ".join(f"{p['bytes'] // 1024} KiB {p['ratio']:.2f}" for p in points)
    if cache and cache.get("present"):
        ratios += (f"; array cache {cache['rate'] / 1e6:.0f} MB/s + "
                   f"{cache['overhead_s'] * 1e3:.2f} ms a request")
    if not lim["cache"]:
        what = "no write-back cache (every size as the direct-write model)"
        if not lim["clear"]:
            what = "no size taken by a cache, but not every one as the direct-write model"
    elif lim["clear"]:
        above = (f", {lim['above_bytes'] // 1024} KiB and more written through"
                 if lim.get("above_bytes") else ", every size tried")
        what = f"write-back up to {lim['limit_bytes'] // 1024} KiB{above}"
    else:
        what = "write-back for some sizes, but not as a limit would give"
    return f"writes: {what} (measured / direct-write model: {ratios})"


def _load_result(path: str) -> dict:
    import json
    with open(path, encoding="utf-8") as f:
        d = json.load(f)
    if not isinstance(d, dict):
        return {}
    if "geometry" in d and "result" not in d:     # an earlier --policies run's results
        return d["geometry"]
    return d.get("result", d)


def run(device: str, disk_path: str, geometry_path: str | None = None,
        units: list[int] | None = None, mpls: list[int] | None = None, requests: int = 200,
        out_dir: str | None = None, budget_s: float = 600.0, quick: bool = False,
        destructive: bool = False, write_units: list[int] | None = None,
        echo=print) -> dict:
    """identify --policies: the member disk's results from ``disk_path``,
    the geometry from ``geometry_path`` or measured now, the fits; with
    ``out_dir`` results.json and report.md written there; ``quick``
    measures the geometry with --array's --quick; ``destructive`` adds
    the write-back limit, by writes that destroy the device's data (said
    first, before anything is read or written)."""
    import json
    import os
    if requests < 20:
        raise PolicyError("--requests: at least 20 reads a point")
    if write_units and not destructive:
        raise PolicyError("--write-units writes: it needs --destructive")
    if destructive:
        echo(f"identify: {device}: --destructive: random writes over the whole device "
             "after the reads; the data on it is lost")
    disk = _load_result(disk_path)
    if geometry_path:
        geometry = _load_result(geometry_path)
    else:
        from .identify_array import measure_array
        geometry = measure_array(device, quick=quick, budget_s=budget_s, echo=echo)["result"]
    out = identify_policies(device, disk, geometry, units, mpls, requests, echo=echo)
    out.update(geometry=geometry, kind="policies")
    if destructive:
        out["writes"] = identify_write_limit(device, disk, geometry, write_units,
                                             requests=requests, echo=echo)
        out["summary"] += "\n" + out["writes"]["summary"]
    else:
        out["writes"] = None
    if out_dir:
        os.makedirs(out_dir, exist_ok=True)
        with open(os.path.join(out_dir, "results.json"), "w", encoding="utf-8") as f:
            json.dump(out, f, indent=1, sort_keys=True, default=float)
        with open(os.path.join(out_dir, "report.md"), "w", encoding="utf-8") as f:
            f.write(policy_report_md(out))
    return out


def int_list(text: str, what: str) -> list[int]:
    try:
        return [int(x) for x in text.split(",")]
    except ValueError:
        raise PolicyError(f"{what}: a comma-separated list of whole numbers, not "
                          f"{text!r}") from None


def add_policy_arguments(ap, disk_required: bool = False) -> None:
    """The options of identify --policies, for this module's command line
    and tools/ssa identify's alike."""
    ap.add_argument("--disk", required=disk_required, metavar="FILE",
                    help="--policies: results.json of `identify MEMBER --out DIR` "
                         "for one member disk")
    ap.add_argument("--geometry", metavar="FILE",
                    help="--policies: results.json of `identify --array DEVICE --out DIR` "
                         "(default: measured first)")
    ap.add_argument("--units", metavar="LIST",
                    help="--policies: request sizes in chunks (default 2, 4, 8 a set)")
    ap.add_argument("--mpl", default="1,2,4,8", metavar="LIST",
                    help="--policies: closed-loop clients (default 1,2,4,8)")
    ap.add_argument("--requests", type=int, default=200, metavar="N",
                    help="--policies: measured reads a point (default 200)")
    ap.add_argument("--destructive", action="store_true",
                    help="--policies: also the write-back limit, by random writes that "
                         "DESTROY the device's data; --write-method: allow its writes")
    ap.add_argument("--write-units", metavar="LIST",
                    help="--destructive: write sizes in chunks (default 1 and 1, 2, 3 "
                         "stripes)")


def main(argv: list[str] | None = None, prog: str = "python3 -m ssa.identify_policy") -> int:
    import argparse
    import json
    import sys
    ap = argparse.ArgumentParser(
        prog=prog, description="An array's coalescing and mirror balancing by seed 001's "
        "method: closed-loop reads of the device beside each version of the array model. "
        "Reads only.")
    ap.add_argument("device")
    add_policy_arguments(ap, disk_required=True)
    ap.add_argument("--out", metavar="DIR", help="write results.json and report.md there")
    ap.add_argument("--quick", action="store_true", help="the geometry by --array --quick")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    echo = lambda m: print(m, file=sys.stderr)             # noqa: E731
    try:
        out = run(a.device, a.disk, a.geometry,
                  int_list(a.units, "--units") if a.units else None,
                  int_list(a.mpl, "--mpl"), a.requests, a.out, quick=a.quick,
                  destructive=a.destructive,
                  write_units=int_list(a.write_units, "--write-units") if a.write_units
                  else None, echo=echo)
    except (OSError, ValueError) as e:
        print(f"{prog.split()[-1]}: {e}", file=sys.stderr)
        return 2
    print(json.dumps(out, sort_keys=True, default=float) if a.json else out["summary"])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
