"""What an experiment spec may hold (Documentation/experiments.rst, the
spec format): units, the names of layouts, models, generators, modes and
clocks, each table's keys, the presets the models know, SpecError, and
the volume geometry read from a spec's ``[volume]`` (member sizes,
table options, the SR-Array's replicas and tracks).

The bottom of the lab's modules: it imports none of them.
"""

from __future__ import annotations



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
             "sweep", "series", "quick", "model", "plot", "check", "derive", "finding",
             "variants"}
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
