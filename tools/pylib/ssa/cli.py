"""Command line of the ssa package (tools/ssa).

Units at this edge: milliseconds, MB/s with MB = 10**6 bytes (disk data
sheets), and KB = 1024 bytes for request sizes and results.
"""

from __future__ import annotations

import argparse
import json
import sys

from . import bsu

MB = 10**6
KB = 1024

UNITS = ("Units: --positioning-ms is mean seek plus mean rotational latency in "
         "milliseconds; --transfer-mbps is in MB/s with MB = 10^6 bytes; "
         "--request-kb and the printed BSU are in KB = 1024 bytes.")


def _bsu_lee_katz(args: argparse.Namespace) -> dict:
    value = bsu.lee_katz_bsu(args.positioning_ms / 1e3, args.transfer_mbps * MB,
                             args.mpl, args.request_kb * KB, args.disks)
    return {"formula": "lee-katz", "bsu_bytes": value, "bsu_kb": value / KB,
            "inputs": {"positioning_ms": args.positioning_ms,
                       "transfer_mbps": args.transfer_mbps, "mpl": args.mpl,
                       "request_kb": args.request_kb, "disks": args.disks}}


def _bsu_chen_patterson(args: argparse.Namespace) -> dict:
    value = bsu.chen_patterson_bsu(args.positioning_ms / 1e3,
                                   args.transfer_mbps * MB, args.mpl, args.slope)
    return {"formula": "chen-patterson", "bsu_bytes": value, "bsu_kb": value / KB,
            "inputs": {"positioning_ms": args.positioning_ms,
                       "transfer_mbps": args.transfer_mbps, "mpl": args.mpl,
                       "slope": args.slope}}


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="ssa", description="Analytic disk-array models of the dm-ssastripe seeds.")
    sub = p.add_subparsers(dest="command", required=True)

    pb = sub.add_parser("bsu", help="optimal stripe unit formulas (seed 000, section 3.4)")
    fsub = pb.add_subparsers(dest="formula", required=True)

    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--positioning-ms", type=float, required=True,
                        help="mean positioning time (seek + rotational latency), ms")
    common.add_argument("--transfer-mbps", type=float, required=True,
                        help="disk transfer rate, MB/s (MB = 10^6 bytes)")
    common.add_argument("--mpl", type=float, required=True,
                        help="multiprogramming level (outstanding requests)")
    common.add_argument("--json", action="store_true", help="machine-readable output")

    lk = fsub.add_parser("lee-katz", parents=[common], epilog=UNITS,
                         help="sqrt(P * X * (MPL - 1) * Q / N)")
    lk.add_argument("--request-kb", type=float, required=True,
                    help="request size, KB (1024 bytes)")
    lk.add_argument("--disks", type=int, required=True, help="disks in the array")
    lk.set_defaults(func=_bsu_lee_katz)

    cp = fsub.add_parser("chen-patterson", parents=[common], epilog=UNITS,
                         help="S * P * X * (MPL - 1) + sector")
    cp.add_argument("--slope", type=float, required=True,
                    help="MPL-slope coefficient S (about 1/4 for a 16-disk array)")
    cp.set_defaults(func=_bsu_chen_patterson)
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        result = args.func(args)
    except ValueError as e:
        print(f"ssa: {e}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(result, sort_keys=True))
    else:
        print(f"{result['formula']} BSU: {result['bsu_kb']:.2f} KB "
              f"({result['bsu_bytes']:.0f} bytes)")
    return 0
