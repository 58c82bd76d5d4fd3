"""Experiment specs: where the checkout and its ``experiments/`` are,
reading one spec (TOML) and validating it -- every key, every point of
the full and quick variants, the ``[derive]`` kind and the findings --
and the catalogue of every spec.
"""

from __future__ import annotations

import os
import tomllib

from .specdef import GENERATORS, KB, LAYOUTS, MODELS, MODES, PRESET_DISKS, SECTOR, SpecError, _CACHE_KEYS, _CHECK_KEYS, _DERIVE_KEYS, _MODEL_KEYS, _PLOT_KEYS, _TOP_KEYS, _VOLUME_KEYS, _WORKLOAD_KEYS, sr_geometry
from .plan import expand


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


def _check_variants(spec: dict, path: str) -> None:
    """[variants]: model versions the findings fit to the measurements
    (ssa.identify_policy), each a table of [model] keys."""
    var = spec.get("variants", {})
    if not isinstance(var, dict):
        raise SpecError(f"{path}: [variants] must be a table of name = {{model keys}}")
    for name, over in var.items():
        if not isinstance(over, dict) or not over:
            raise SpecError(f"{path}: [variants] {name!r} must be a non-empty table of "
                            "[model] keys")
        bad = sorted(set(over) - _MODEL_KEYS - {"kind"})
        if bad or "kind" in over:
            raise SpecError(f"{path}: [variants] {name!r}: {', '.join(bad) or 'kind'} "
                            "cannot be set by a variant (a variant sets [model] keys "
                            "other than kind)")


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
    _check_variants(spec, path)
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
