"""The experiment lab: the seeds' tables and figures from kernel measurements.

An experiment is a short declarative spec (TOML, ``experiments/NAME.toml``):
the volume (layout, members, chunk, options), the emulated disk under each
member (an ``ssadisk`` preset and overrides), the workload (``ssaload``
open or closed loop, or an fio job), the points to measure (a sweep, and
optionally named series), the model to set beside each point, the figure
to draw and what ``--quick`` asserts.  Documentation/experiments.rst
describes the format; this module is its pure part:

* ``load_spec`` / ``catalogue``: read and validate specs;
* ``expand``: the points of a spec (series x sweep), every parameter
  resolved;
* ``volume_tables`` / ``ssaload_args``: what the executor (``ssa.labrun``)
  creates and runs for a point;
* ``analyse_point``: the measured means with batch-means intervals from a
  point's ``ssatrace`` records, cut to the generator's measured window;
* ``model_point``: the model's values for a point;
* ``report`` / ``plot``: ``results.json``, ``report.md`` and the PNGs.

Units: seconds and bytes inside; the spec uses KB (1024 bytes) for chunks
and MB (2^20 bytes) for member sizes, as dmsetup users think of them.
"""

from __future__ import annotations

import copy
import csv
import itertools
import json
import math
import os
import tomllib
from dataclasses import dataclass
from typing import Any

import numpy as np

from . import array, compare, disk, raid5, replicate

KB = 1024
MB = 1024 * 1024
SECTOR = 512

LAYOUTS = ("stripe", "mirror", "raid5", "pstripe", "srarray")
MODELS = ("raid5", "pstripe", "maxrate", "array", "none")
GENERATORS = ("ssaload", "fio")
MODES = ("open", "closed")
CLOCKS = ("icount", "tcg", "native")

# The ssadisk presets' numbers (Documentation/ssadisk.rst), as the models
# take them: seconds.  Only what the seed-002 model needs for ct1992.
PRESET_DISKS = {
    "ct1992": {"cylinders": 1200, "seek_a": 3e-3, "seek_b": 0.5e-3,
               "rmax": 60.0 / 3600, "alpha": 1.3e-3, "p_seq": 0.0, "block": 4096},
}

_TOP_KEYS = {"title", "seed", "figure", "about", "volume", "disk", "cache", "workload",
             "sweep", "series", "quick", "model", "plot", "check", "derive", "finding"}
# The mechanical presets' geometry (Documentation/ssadisk.rst, Presets), as
# the array model's ``positioning = "emulated"`` takes it: seconds.
MECHANICAL_PRESETS = {
    "cheetah73": {"cylinders": 16454, "heads": 24, "sectors_per_track": 363,
                  "rotation": 60.0 / 10000, "seek_a": 1e-3, "seek_b": 74e-6},
}

_VOLUME_KEYS = {"layout", "members", "chunk_kb", "member_mb", "options", "copies", "prefill"}
_WORKLOAD_KEYS = {"generator", "mode", "rate", "mpl", "think_ms", "think_dist", "p_read",
                  "sizes", "block", "pattern", "requests", "warmup", "skew", "align",
                  "offset_shift", "arrivals", "job", "runtime_s", "max_outstanding", "load",
                  "seed", "requests_per_client"}
_MODEL_KEYS = {"kind", "sync", "bounds", "sizes", "skew", "balance", "coalescing",
               "request_kb", "cpu_delay_ms", "cache_mbps", "pos_a_ms", "pos_b_ms",
               "max_read_seek_ms", "beta_concentration", "positioning", "overhead",
               "pair_queue", "min_disk_queue", "uncoalesced", "member_latency_ms",
               "destage_threshold", "max_dirty_blocks", "cache_hit", "write_policy",
               "destage_queue", "cache_overhead_ms", "destage", "cache_copy_mbps"}
# [cache]: an ssacache stacked on the volume (Documentation/ssacache.rst);
# block_kb and blocks are its size, the rest its options (cache_max in KiB)
_CACHE_KEYS = {"block_kb", "blocks", "low_water", "high_water", "max_dirty",
               "destage_depth", "destage_run", "cache_max_kb", "prefetch", "transfer_mbps"}
_PLOT_KEYS = {"x", "y", "xlabel", "ylabel", "title", "logx", "by", "panels"}
_CHECK_KEYS = {"tolerance", "metrics", "max_utilization"}
_DERIVE_KEYS = {"kind", "group", "over", "metric", "formulas"}


class SpecError(ValueError):
    """A spec that cannot be run; the message names the file and key."""


# -- specs -----------------------------------------------------------------------

def _is_checkout(path: str) -> bool:
    return (os.path.isdir(os.path.join(path, "experiments"))
            and os.path.exists(os.path.join(path, "tools", "vm")))


def checkout() -> str:
    """The dm-ssastripe checkout the lab runs in: $SSA_CHECKOUT, else the
    one this package lives in (tools/pylib/ssa), else the working directory
    or one above it.  An installed package (pip install .) has the models
    but not the lab's specs, guest launcher and tools: those stay in a
    checkout."""
    env = os.environ.get("SSA_CHECKOUT")
    if env:
        if not _is_checkout(env):
            raise SpecError(f"SSA_CHECKOUT={env} is not a dm-ssastripe checkout "
                            "(no experiments/ and tools/vm there)")
        return os.path.abspath(env)
    here = os.path.dirname(os.path.abspath(__file__))
    candidates = [os.path.normpath(os.path.join(here, "..", "..", ".."))]
    d = os.getcwd()
    while True:
        candidates.append(d)
        if os.path.dirname(d) == d:
            break
        d = os.path.dirname(d)
    for c in candidates:
        if _is_checkout(c):
            return c
    raise SpecError("ssa experiment needs a dm-ssastripe checkout: run it inside one, "
                    "or set SSA_CHECKOUT to one")


def spec_dir() -> str:
    """experiments/ at the top of the checkout."""
    return os.path.join(checkout(), "experiments")


def load_spec(path: str) -> dict:
    """Read and validate one spec; its name is the file's stem."""
    name = os.path.splitext(os.path.basename(path))[0]
    try:
        with open(path, "rb") as f:
            spec = tomllib.load(f)
    except tomllib.TOMLDecodeError as e:
        raise SpecError(f"{path}: not valid TOML: {e}") from None
    spec["name"] = name
    validate(spec, path)
    return spec


def catalogue(directory: str | None = None) -> dict[str, dict]:
    """Every spec in ``directory`` (default experiments/), by name."""
    directory = directory or spec_dir()
    out = {}
    for fn in sorted(os.listdir(directory)):
        if fn.endswith(".toml"):
            s = load_spec(os.path.join(directory, fn))
            out[s["name"]] = s
    return out


def _unknown(where: str, got: dict, allowed: set, path: str) -> None:
    extra = sorted(set(got) - allowed)
    if extra:
        raise SpecError(f"{path}: [{where}] has unknown key(s) {', '.join(extra)}; "
                        f"known: {', '.join(sorted(allowed))}")


def _sweep_key_ok(key: str) -> bool:
    sect, _, k = key.rpartition(".")
    if sect == "":
        return key in _WORKLOAD_KEYS
    if sect == "volume":
        return k in _VOLUME_KEYS
    if sect == "disk":
        return True
    if sect == "model":
        return k in _MODEL_KEYS
    if sect == "cache":
        return k in _CACHE_KEYS
    return False


def validate(spec: dict, path: str = "<spec>") -> None:
    """Raise SpecError with the file and key when the spec cannot run."""
    _unknown("top level", spec, _TOP_KEYS | {"name"}, path)
    for key in ("title", "seed", "figure", "volume", "workload", "sweep", "model", "plot"):
        if key not in spec:
            raise SpecError(f"{path}: missing [{key}]" if key in
                            ("volume", "workload", "sweep", "model", "plot")
                            else f"{path}: missing {key} = ...")
    vol, wl = spec["volume"], spec["workload"]
    _unknown("volume", vol, _VOLUME_KEYS, path)
    _unknown("workload", wl, _WORKLOAD_KEYS, path)
    _unknown("model", spec["model"], _MODEL_KEYS, path)
    if "cache" in spec:
        _unknown("cache", spec["cache"], _CACHE_KEYS, path)
    _unknown("plot", spec["plot"], _PLOT_KEYS, path)
    _unknown("check", spec.get("check", {}), _CHECK_KEYS, path)
    if "derive" in spec:
        from . import derive
        _unknown("derive", spec["derive"], _DERIVE_KEYS, path)
        if spec["derive"].get("kind") not in derive.DERIVERS:
            raise SpecError(f"{path}: [derive] kind must be one of {', '.join(derive.DERIVERS)}")
    for sect in ("sweep", "quick"):
        for k in spec.get(sect, {}):
            if sect == "quick" and k in _WORKLOAD_KEYS:
                continue
            if not _sweep_key_ok(k):
                raise SpecError(f"{path}: [{sect}] key {k!r} is not a workload key nor "
                                "volume.KEY / disk.KEY / model.KEY")
    for k, v in spec["sweep"].items():
        if not isinstance(v, list) or not v:
            raise SpecError(f"{path}: [sweep] {k} must be a non-empty list")
    for i, s in enumerate(spec.get("series", [])):
        if "label" not in s:
            raise SpecError(f"{path}: [[series]] number {i + 1} has no label")
        for k in s:
            if k.startswith("quick."):
                if k[6:] not in spec["sweep"] or not isinstance(s[k], list):
                    raise SpecError(f"{path}: [[series]] {s['label']!r}: {k} must be a list "
                                    "for a swept key")
                continue
            if k == "quick":
                if not isinstance(s[k], bool):
                    raise SpecError(f"{path}: [[series]] {s['label']!r}: quick must be "
                                    "true or false")
                continue
            if k != "label" and not _sweep_key_ok(k):
                raise SpecError(f"{path}: [[series]] {s['label']!r}: key {k!r} is not a "
                                "workload key nor volume.KEY / disk.KEY / model.KEY")
    # every point must resolve: check them all (cheap)
    for quick in (False, True):
        for p in expand(spec, quick, path):
            _check_point(p, path)
    from . import findings
    if not isinstance(spec.get("finding", []), list):
        raise SpecError(f"{path}: finding must be an array of tables ([[finding]])")
    try:
        findings.validate(spec, path)
    except findings.FindingError as e:
        raise SpecError(str(e)) from None


def _check_point(p: dict, path: str) -> None:
    v, w, m = p["volume"], p["workload"], p["model"]
    where = f"{path}: point {p['id']} ({p['label']})"
    c = p.get("cache", {})
    if c:
        if not isinstance(c.get("blocks"), int) or c["blocks"] < 4:
            raise SpecError(f"{where}: cache.blocks must be a whole number >= 4")
        bk = float(c.get("block_kb", 16))
        if bk * KB % 4096 or bk * KB > 1 << 20 or (int(bk * 2) & (int(bk * 2) - 1)):
            raise SpecError(f"{where}: cache.block_kb must be a power of two, 4 to 1024")
    if v.get("layout") not in LAYOUTS:
        raise SpecError(f"{where}: volume.layout must be one of {', '.join(LAYOUTS)}")
    n = v.get("members")
    if not isinstance(n, int) or n < 1 or n > 64:
        raise SpecError(f"{where}: volume.members must be 1..64")
    if v["layout"] in ("raid5", "pstripe") and n < 3:
        raise SpecError(f"{where}: a parity layout needs 3 or more members")
    if v["layout"] == "mirror" and n % v.get("copies", 2):
        raise SpecError(f"{where}: mirror members must be a multiple of copies")
    if v["layout"] == "srarray":
        try:
            dr, track = sr_geometry(v)
        except (KeyError, ValueError):
            raise SpecError(f"{where}: srarray needs volume.options "
                            "\"track_sectors S\" (and \"replicas Dr\", default 2)") from None
        ck = v.get("chunk_kb", 0)
        if dr < 1 or track % dr or (track // dr * SECTOR) % max(int(ck * KB), 1):
            raise SpecError(f"{where}: srarray: the chunk must divide track_sectors / replicas")
    if not isinstance(v.get("prefill", False), bool):
        raise SpecError(f"{where}: volume.prefill must be true or false")
    ck = v.get("chunk_kb")
    if not isinstance(ck, (int, float)) or ck <= 0 or (ck * KB) % SECTOR:
        raise SpecError(f"{where}: volume.chunk_kb must be a positive multiple of 0.5")
    if w.get("generator", "ssaload") not in GENERATORS:
        raise SpecError(f"{where}: workload.generator must be ssaload or fio")
    if w.get("generator", "ssaload") == "ssaload":
        mode = w.get("mode")
        if mode not in MODES:
            raise SpecError(f"{where}: workload.mode must be open or closed")
        if mode == "open" and not (isinstance(w.get("rate"), (int, float)) and w["rate"] > 0):
            raise SpecError(f"{where}: an open workload needs rate > 0")
        if mode == "closed" and not (isinstance(w.get("mpl"), int) and w["mpl"] >= 1):
            raise SpecError(f"{where}: a closed workload needs mpl >= 1")
        if not 0 <= w.get("p_read", 1.0) <= 1:
            raise SpecError(f"{where}: workload.p_read must be in [0, 1]")
        if not (isinstance(w.get("seed", 1), int) and 1 <= w.get("seed", 1) < 2**32):
            raise SpecError(f"{where}: workload.seed must be an integer in 1..2^32-1")
        if "requests_per_client" in w and (mode != "closed" or not isinstance(
                w["requests_per_client"], int) or w["requests_per_client"] < 1):
            raise SpecError(f"{where}: workload.requests_per_client needs a closed "
                            "workload and a whole number >= 1")
        if not isinstance(w.get("requests"), int) or w["requests"] < 40:
            raise SpecError(f"{where}: workload.requests must be at least 40 "
                            "(20 batches of two)")
    elif "job" not in w:
        raise SpecError(f"{where}: an fio workload needs workload.job (a job file)")
    if m.get("kind", "none") not in MODELS:
        raise SpecError(f"{where}: model.kind must be one of {', '.join(MODELS)}")
    if m.get("kind") in ("raid5", "pstripe", "maxrate"):
        if v["layout"] not in ("raid5", "pstripe"):
            raise SpecError(f"{where}: model {m['kind']} needs a raid5 or pstripe volume")
        if p["disk"].get("preset") not in PRESET_DISKS:
            raise SpecError(f"{where}: model {m['kind']} needs members with an ssadisk "
                            f"preset it knows ({', '.join(PRESET_DISKS)})")


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


# -- what a point creates and runs --------------------------------------------------

def member_sectors(vol: dict) -> int:
    return int(vol.get("member_mb", 16) * MB // SECTOR)


def _option(vol: dict, name: str) -> str | None:
    """The value of table option NAME in volume.options, if given."""
    for o in vol.get("options", []):
        w = o.split()
        if len(w) == 2 and w[0] == name:
            return w[1]
    return None


def sr_geometry(vol: dict) -> tuple[int, int]:
    """(replicas, track_sectors) of an srarray volume (srarray.rst);
    ValueError when track_sectors is not given."""
    track = _option(vol, "track_sectors")
    if track is None:
        raise ValueError("srarray needs track_sectors")
    return int(_option(vol, "replicas") or 2), int(track)


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
        out[f"{key}_rho1"] = replicate.batch_rho1(z, batches)
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
        results["figures"] = plot(spec, results, outdir)
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


# -- running: host side ---------------------------------------------------------------
# Booting the guest, watching it and the runs' wall times live in
# ssa.runner; the names stay reachable here for existing callers.

_RUNNER = ("resolve", "vm_command", "_done_ok", "_stop_group", "_LogWatch",
           "experiment_walls", "run")


def __getattr__(name: str):
    if name in _RUNNER:
        from . import runner
        return getattr(runner, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
