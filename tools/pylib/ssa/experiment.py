"""The experiment lab: the seeds' tables and figures from kernel measurements.

An experiment is a short declarative spec (TOML, ``experiments/NAME.toml``):
the volume (layout, members, chunk, options), the emulated disk under each
member (an ``ssadisk`` preset and overrides), the workload (``ssaload``
open or closed loop, or an fio job), the points to measure (a sweep, and
optionally named series), the model to set beside each point, the figure
to draw and what ``--quick`` asserts.  Documentation/experiments.rst
describes the format.

This module is the lab's front: it holds nothing of its own and gives the
names of the modules that do, for the callers and tests that use
``ssa.experiment``:

* ``ssa.specdef``: units, names, each table's keys, presets, ``SpecError``;
* ``ssa.spec``: ``load_spec`` / ``catalogue`` / ``validate``, the checkout;
* ``ssa.plan``: ``expand`` (the points of a spec), ``volume_tables`` /
  ``ssaload_args`` (what the executor, ``ssa.labrun``, creates and runs for
  a point) and ``plan``;
* ``ssa.analysis``: ``analyse_point``, the measured means with batch-means
  intervals from a point's records, cut to the generator's measured window;
* ``ssa.pointmodel``: ``model_point``, the model's values for a point, and
  ``point_result``, the two side by side;
* ``ssa.figures``: ``plot`` and ``save_figure``;
* ``ssa.report``: ``summarise`` (``results.json``, ``report.md``, the PNGs);
* ``ssa.runner``: booting the guests (its older names, below).

The modules import one another without a circle and none imports this one
(tests/python/test_imports.py).  New code imports the module it needs.

Units: seconds and bytes inside; the spec uses KB (1024 bytes) for chunks
and MB (2^20 bytes) for member sizes, as dmsetup users think of them.
"""

from __future__ import annotations

from .specdef import (  # noqa: F401
    KB, MB, SECTOR, LAYOUTS, MODELS, GENERATORS, MODES, CLOCKS, PRESET_DISKS, _TOP_KEYS,
    MECHANICAL_PRESETS, _VOLUME_KEYS, _WORKLOAD_KEYS, _MODEL_KEYS, _CACHE_KEYS,
    _PLOT_KEYS, _CHECK_KEYS, _DERIVE_KEYS, SpecError, member_sectors, _option,
    sr_geometry,
)
from .spec import (  # noqa: F401
    _is_checkout, checkout, spec_dir, load_spec, catalogue, _unknown, _sweep_key_ok,
    validate, _check_point,
)
from .plan import (  # noqa: F401
    _set, expand, _resolve_requests, _resolve_load, volume_length, _disk_args,
    volume_tables, cache_table, zone_weights, ssaload_args, plan,
)
from .analysis import (  # noqa: F401
    Window, generator_window, measured, mean_utilization, max_rate, _load_filtered,
    _comms, generator_records, _analyse_generator, CACHE_FIELDS, cache_counters,
    analyse_point,
)
from .pointmodel import (  # noqa: F401
    seed_disk, emulated_positioning, _sizes_pmf, _sizes_max, model_point, main_model,
    rel_error, _metric_key, point_result, check_point, _cache_note,
)
from .figures import (  # noqa: F401
    _mean_kind, _dodge, _groups, _draw, _xaxis, plot, save_figure,
)
from .report import (  # noqa: F401
    _with_runs, _ms, _boots, report_md, nan_to_none, summarise, verdicts,
    nan_to_none_json, _read_json,
)


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
