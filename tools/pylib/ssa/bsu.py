"""Optimal stripe unit (BSU) formulas, as quoted in seed 000, section 3.4.

Seed 000 (Childers and Varki, "The Performance of Non-Redundant Striping in
a SSA Disk Array") compares its measured optimal BSU with two published
formulas.  Both are implemented here exactly as the seed states them.

Units: positioning time in seconds (mean seek plus mean rotational
latency), transfer rate in bytes per second, sizes in bytes.
"""

from __future__ import annotations

import math

SECTOR_BYTES = 512


def chen_patterson_bsu(positioning_s: float, transfer_bps: float, mpl: float,
                       slope: float = 0.25, sector_bytes: int = SECTOR_BYTES) -> float:
    """Chen and Patterson's stripe unit, in bytes (seed 000, section 3.4).

        BSU = S * (mean positioning time) * (transfer rate) * (MPL - 1)
              + sector size

    ``slope`` is S, the MPL-slope coefficient; the seed reports S ~ 1/4 for
    the 16-disk array it was fitted on and notes that it does not carry over
    to other arrays.  The request size does not enter the formula.
    """
    _check_positive(positioning_s=positioning_s, transfer_bps=transfer_bps)
    if mpl < 1:
        raise ValueError("mpl must be at least 1")
    if slope < 0:
        raise ValueError("slope must not be negative")
    return slope * positioning_s * transfer_bps * (mpl - 1) + sector_bytes


def lee_katz_bsu(positioning_s: float, transfer_bps: float, mpl: float,
                 request_bytes: float, disks: int) -> float:
    """Lee and Katz's stripe unit, in bytes (seed 000, section 3.4).

        BSU = sqrt( positioning time * transfer rate * (MPL - 1)
                    * request size / number of disks )

    Zero at MPL 1: with one outstanding request the formula stripes it over
    every disk.
    """
    _check_positive(positioning_s=positioning_s, transfer_bps=transfer_bps,
                    request_bytes=request_bytes)
    if mpl < 1:
        raise ValueError("mpl must be at least 1")
    if disks < 1 or int(disks) != disks:
        raise ValueError("disks must be a positive whole number")
    return math.sqrt(positioning_s * transfer_bps * (mpl - 1) * request_bytes / disks)


def _check_positive(**values: float) -> None:
    for name, v in values.items():
        if not v > 0:
            raise ValueError(f"{name} must be positive, got {v!r}")
