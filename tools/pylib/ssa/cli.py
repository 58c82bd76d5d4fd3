"""Command line of the ssa package (tools/ssa).

Units at this edge: milliseconds, MB/s with MB = 10**6 bytes (disk data
sheets), and KB = 1024 bytes for request sizes and results.
"""

from __future__ import annotations

import argparse
import json
import sys

from . import bsu, disk

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


def _disk(args: argparse.Namespace) -> dict:
    d = disk.Disk(cylinders=args.cylinders, seek_a=args.seek_a / 1e3,
                  seek_b=args.seek_b / 1e3, rmax=args.rmax / 1e3,
                  alpha=args.block_ms / 1e3, p_seq=args.p_seq)
    ms = lambda m, k: m * 1e3 ** k                       # noqa: E731  s^k -> ms^k
    read, write = d.read_moments(args.blocks), d.write_moments(args.blocks)
    return {
        "smax_ms": ms(d.smax, 1),
        "seek_ms": [ms(d.seek_moment(k), k) for k in (1, 2)],
        "x_ms": [ms(d.x_moment(k), k) for k in (1, 2, 3)],
        "read_ms": [ms(read[k - 1], k) for k in (1, 2, 3)],
        "write_ms": [ms(write[k - 1], k) for k in (1, 2, 3)],
        "inputs": vars(args) | {"func": None},
    }


def _print_disk(r: dict) -> None:
    print(f"max seek S_max        {r['smax_ms']:10.4f} ms")
    print(f"seek S                mean {r['seek_ms'][0]:9.4f} ms   E[S^2] {r['seek_ms'][1]:11.4f} ms^2")
    for key, name in (("x_ms", "seek+rotation X"), ("read_ms", "read Y_r (eq. 5)"),
                      ("write_ms", "write Y_w (eq. 6)")):
        m = r[key]
        print(f"{name:<21} mean {m[0]:9.4f} ms   E[.^2] {m[1]:11.4f} ms^2   "
              f"E[.^3] {m[2]:13.4f} ms^3")


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

    pd = sub.add_parser("disk", help="service-time moments of the seed-002 disk model",
                        epilog="Defaults are the disk of seed 002 (section 4.1). "
                               "Times in milliseconds.")
    pd.add_argument("--cylinders", type=int, default=1200, help="C (default 1200)")
    pd.add_argument("--seek-a", type=float, default=3.0, help="a, ms (default 3)")
    pd.add_argument("--seek-b", type=float, default=0.5,
                    help="b, ms per sqrt(cylinder) (default 0.5)")
    pd.add_argument("--rmax", type=float, default=16.7, help="R_max, ms (default 16.7)")
    pd.add_argument("--block-ms", type=float, default=1.3,
                    help="alpha, transfer time of one block, ms (default 1.3)")
    pd.add_argument("--p-seq", type=float, default=0.0,
                    help="p_s, probability of a zero-distance seek (default 0)")
    pd.add_argument("--blocks", type=int, default=1, help="blocks per request (default 1)")
    pd.add_argument("--json", action="store_true", help="machine-readable output")
    pd.set_defaults(func=_disk)
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        result = args.func(args)
    except ValueError as e:
        print(f"ssa: {e}", file=sys.stderr)
        return 2
    if args.json:
        result.get("inputs", {}).pop("func", None)
        print(json.dumps(result, sort_keys=True))
    elif args.command == "disk":
        _print_disk(result)
    else:
        print(f"{result['formula']} BSU: {result['bsu_kb']:.2f} KB "
              f"({result['bsu_bytes']:.0f} bytes)")
    return 0
