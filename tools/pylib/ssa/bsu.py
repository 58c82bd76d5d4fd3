"""Optimal stripe unit (BSU) formulas, as quoted in seed 000, section 3.4.

Seed 000 (Childers and Varki, "The Performance of Non-Redundant Striping in
a SSA Disk Array") compares its measured optimal BSU with two published
formulas.  Both are implemented here exactly as the seed states them.

Units: positioning time in seconds (mean seek plus mean rotational
latency), transfer rate in bytes per second, sizes in bytes.

Which megabyte a rate in "MB/s" means is the caller's choice, and it
matters: seed 000's disk (Table 1) transfers "7.9 MB per second", and its
own geometry says that MB is 2**20 bytes -- 135 sectors of 512 bytes per
turn of 2 x 4.17 ms is 8.29e6 B/s = 7.90 x 2**20 B/s.  Read as 10**6 bytes
the rate is 4.86 % lower and every Lee-Katz value sqrt(1.048576) = 1.024
times (2.4 %) lower than the seed's; Chen-Patterson's (linear in the rate)
4.86 % lower, less the sector.  ``MB_DECIMAL`` and ``MB_BINARY`` name the
two (Documentation/models.rst, "Stripe-unit formulas").
"""

from __future__ import annotations

import math

SECTOR_BYTES = 512
MB_DECIMAL = 10**6          # data sheets' megabyte; the command line's default
MB_BINARY = 2**20           # seed 000's megabyte (Table 1's 7.9 MB/s)

# Seed 000, Table 1: 8.8 ms average seek + 4.17 ms average rotational
# latency; 7.9 MB/s with the seed's MB = 2**20 bytes; four disks.
SEED000_POSITIONING_S = (8.8 + 4.17) / 1e3
SEED000_TRANSFER_BPS = 7.9 * MB_BINARY
SEED000_DISKS = 4


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


def seed000_lee_katz(mpl: float, request_bytes: float, disks: int = SEED000_DISKS) -> float:
    """Lee and Katz's stripe unit (bytes) for seed 000's SSA disk as the seed
    computes it: Table 1's positioning time and 7.9 MB/s with MB = 2**20."""
    return lee_katz_bsu(SEED000_POSITIONING_S, SEED000_TRANSFER_BPS, mpl, request_bytes,
                        disks)


def _check_positive(**values: float) -> None:
    for name, v in values.items():
        if not v > 0:
            raise ValueError(f"{name} must be positive, got {v!r}")
