"""A spec's points and what the executor runs for them: ``expand`` (each
series crossed with the sweep, every parameter resolved: requests per
client, a load given as a fraction of the model's maximum rate), the
device tables of a point (``volume_tables``, ``cache_table``), the
generator's command line (``ssaload_args``) and the plan the guest
executor (``ssa.labrun``) reads (``plan``).
"""

from __future__ import annotations

import copy
import itertools
import os
from typing import Any

import numpy as np

from .specdef import KB, SECTOR, member_sectors, sr_geometry
from .pointmodel import model_point


def _set(point: dict, key: str, value: Any) -> None:
    sect, _, k = key.rpartition(".")
    point[sect or "workload"][k] = value


def expand(spec: dict, quick: bool = False, path: str = "<spec>") -> list[dict]:
    """The points of a spec: each series (or the spec alone) crossed with
    the sweep.  With ``quick`` the [quick] table overrides sweep lists and
    workload scalars.  Every point holds fully resolved volume, disk,
    workload and model tables, its label and its sweep parameters."""
    sweep = dict(spec["sweep"])
    scalars: dict = {}
    if quick:
        for k, v in spec.get("quick", {}).items():
            if k in sweep:
                sweep[k] = v if isinstance(v, list) else [v]
            else:
                scalars[k] = v
    series = spec.get("series") or [{"label": ""}]
    keys = list(sweep)
    points = []
    for s in series:
        if quick and s.get("quick") is False:
            continue                            # left out of the quick variant
        # a series may give its own list for a swept key (its own rates);
        # under --quick the [quick] list, when there is one, wins
        lists = {k: (s[k] if isinstance(s.get(k), list) and not (quick and k in
                                                                  spec.get("quick", {}))
                     else sweep[k]) for k in keys}
        for k in keys:
            if quick and f"quick.{k}" in s:
                lists[k] = s[f"quick.{k}"]
        for values in itertools.product(*(lists[k] for k in keys)):
            p = {"volume": copy.deepcopy(spec["volume"]),
                 "disk": copy.deepcopy(spec.get("disk", {})),
                 "cache": copy.deepcopy(spec.get("cache", {})),
                 "workload": copy.deepcopy(spec["workload"]),
                 "model": copy.deepcopy(spec["model"])}
            for k, v in s.items():
                if k not in ("label", "quick") and not k.startswith("quick.") \
                        and k not in lists:
                    _set(p, k, v)
            params = dict(zip(keys, values))
            for k, v in params.items():
                _set(p, k, v)
            for k, v in scalars.items():
                _set(p, k, v)
            p["label"] = s["label"]
            p["params"] = {k.rpartition(".")[2]: v for k, v in params.items()}
            _resolve_load(p)
            _resolve_requests(p)
            p["id"] = f"p{len(points):02d}"
            points.append(p)
    return points


def _resolve_requests(p: dict) -> None:
    """``requests_per_client = R`` in a closed workload: R requests for
    each of the MPL clients (seed 000 measures 100 cycles a process)."""
    w = p["workload"]
    rpc = w.get("requests_per_client")
    if isinstance(rpc, int) and isinstance(w.get("mpl"), int):
        w["requests"] = rpc * w["mpl"]


def _resolve_load(p: dict) -> None:
    """``load = F`` instead of a rate: offer F times the model's maximum
    throughput (seed 002, section 5.3), so that every point of a sweep over
    sizes or skew runs at the same utilization."""
    w = p["workload"]
    if "load" not in w or "rate" in p["params"]:
        return
    m = dict(p, model={"kind": "maxrate"})
    try:
        w["rate"] = round(float(w["load"]) * model_point(m)["model"]["max_rate"], 2)
    except (KeyError, ValueError, TypeError):
        return                                  # validation names the problem


def volume_length(vol: dict) -> int:
    """The volume's length in sectors: all that the members hold, rounded
    to what the layout's table accepts (Documentation/ssastripe.rst,
    mirror.rst, parity.rst, srarray.rst: whole tracks, each holding
    track_sectors / replicas sectors of data)."""
    n, chunk = vol["members"], int(vol["chunk_kb"] * KB // SECTOR)
    per = member_sectors(vol)
    lay = vol["layout"]
    if lay == "stripe":
        return per // chunk * chunk * n
    if lay == "srarray":
        dr, track = sr_geometry(vol)
        return per // track * (track // dr) * n
    if lay == "mirror":
        k = vol.get("copies", 2)
        return per // chunk * chunk * (n // k)
    rows = per // chunk
    if lay == "pstripe":
        rows -= rows % n
    return rows * chunk * (n - 1)


def _disk_args(d: dict) -> list[str]:
    args = []
    if "preset" in d:
        args += ["preset", str(d["preset"])]
    for k, v in d.items():
        if k == "preset" or v is False:
            continue
        args += [k] if v is True else [k, str(v)]       # spread = true: a bare flag
    return args


def volume_tables(point: dict, backing: list[str], prefix: str = "lab") -> list[tuple[str, str]]:
    """(name, table) of every device a point creates, in creation order:
    an ssadisk over each backing device when the point has a [disk], then
    the volume ``PREFIX-vol`` -- or, when the point has a [cache], the
    volume ``PREFIX-arr`` and over it the cache ``PREFIX-vol``."""
    vol, d = point["volume"], point["disk"]
    n = vol["members"]
    if len(backing) < n:
        raise ValueError(f"{n} members need {n} backing devices, have {len(backing)}")
    per = member_sectors(vol)
    out, members = [], []
    for i in range(n):
        if d:
            a = _disk_args(d)
            out.append((f"{prefix}-d{i}", f"0 {per} ssadisk {backing[i]} 0 {len(a)} {' '.join(a)}"))
            members.append(f"/dev/mapper/{prefix}-d{i}")
        else:
            members.append(backing[i])
    chunk = int(vol["chunk_kb"] * KB // SECTOR)
    opts: list[str] = []
    if vol["layout"] == "mirror" and "copies" in vol:
        opts += ["copies", str(vol["copies"])]
    for o in vol.get("options", []):
        opts += o.split()
    table = (f"0 {volume_length(vol)} ssastripe {vol['layout']} {chunk} {n} "
             + " ".join(f"{m} 0" for m in members))
    if opts:
        table += f" {len(opts)} " + " ".join(opts)
    if point.get("cache"):
        out.append((f"{prefix}-arr", table))
        out.append((f"{prefix}-vol", cache_table(point, f"/dev/mapper/{prefix}-arr")))
    else:
        out.append((f"{prefix}-vol", table))
    return out


def cache_table(point: dict, origin: str) -> str:
    """The ssacache table of a point's [cache] over ``origin``."""
    c = point["cache"]
    block = int(float(c.get("block_kb", 16)) * KB // SECTOR)
    opts: list[str] = []
    for k in ("low_water", "high_water", "max_dirty", "destage_depth", "destage_run",
              "prefetch", "transfer_mbps"):
        if k in c:
            opts += [k, str(int(c[k]))]
    if "cache_max_kb" in c:
        opts += ["cache_max", str(int(float(c["cache_max_kb"]) * KB // SECTOR))]
    t = f"0 {volume_length(point['volume'])} ssacache {origin} {block} {int(c['blocks'])}"
    return t + (f" {len(opts)} " + " ".join(opts) if opts else "")


def zone_weights(point: dict) -> list[float] | None:
    """Skewed access (seed 002, eq. 26): the i-th member's data area gets
    i^s / sum j^s of the requests.  Only parity striping keeps a member's
    data in one area, so only there does skew mean anything."""
    s = point["workload"].get("skew", 0)
    if not s:
        return None
    n = point["volume"]["members"]
    w = np.arange(1, n + 1, dtype=float) ** s
    return [float(x) for x in w / w.sum()]


def ssaload_args(point: dict, device: str, records: str, summary: str,
                 seed: int = 1) -> list[str]:
    """The ssaload command line of a point (Documentation/ssaload.rst)."""
    w = point["workload"]
    a = [device]
    if w["mode"] == "open":
        a += ["--open", repr(float(w["rate"]))]
        if "arrivals" in w:
            a += ["--arrivals", w["arrivals"]]
        a += ["--max-outstanding", str(w.get("max_outstanding", 1024))]
    else:
        a += ["--closed", str(w["mpl"]), "--think", repr(float(w.get("think_ms", 0)))]
        if "think_dist" in w:
            a += ["--think-dist", w["think_dist"]]
    a += ["--requests", str(w["requests"]), "--warmup", str(w.get("warmup", 0)),
          "--read-frac", repr(float(w.get("p_read", 1.0))),
          "--block", str(w.get("block", 4096)), "--sizes", str(w.get("sizes", "fixed:1")),
          "--pattern", w.get("pattern", "random"), "--seed", str(w.get("seed", seed)),
          "--records", records, "--summary", summary]
    if "align" in w:
        a += ["--align", str(w["align"])]
    if "offset_shift" in w:
        a += ["--offset-shift", str(w["offset_shift"])]
    zw = zone_weights(point)
    if zw:
        a += ["--zones", ",".join(f"{x:.6g}" for x in zw)]
    return a


def plan(spec: dict, quick: bool, clock: str, outdir: str, prefix: str = "lab") -> dict:
    """What the executor needs, worked out here so that the guest runs
    nothing but the standard library: per point, the device tables in
    creation order and the workload's command (paths under ``outdir``,
    the experiment's directory, which the guest sees at the same path)."""
    pts = expand(spec, quick)
    nmax = max(p["volume"]["members"] for p in pts)
    mb = max(p["volume"].get("member_mb", 16) for p in pts)
    backing = [f"/dev/ram{i}" for i in range(nmax)]
    for i, p in enumerate(pts):
        pdir = os.path.join(outdir, p["id"])
        p["devices"] = volume_tables(p, backing, prefix)
        if p["workload"].get("generator", "ssaload") == "ssaload":
            p["command"] = ssaload_args(p, f"/dev/mapper/{prefix}-vol",
                                        os.path.join(pdir, "records.csv"),
                                        os.path.join(pdir, "summary.json"), seed=1 + i)
    return {"experiment": spec["name"], "dir": os.path.abspath(outdir), "quick": quick,
            "clock": clock, "ramdisks": nmax, "ramdisk_mb": mb, "points": pts}
