"""Command line of the ssa package (tools/ssa).

Units at this edge: milliseconds, MB/s with MB = 10**6 bytes (disk data
sheets), and KB = 1024 bytes for request sizes and results.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from collections import Counter
from typing import TYPE_CHECKING

import numpy as np

from . import bsu, compare, disk

# The seed 001 and seed 002 models (ssa.array, ssa.raid5) pull in
# scipy.integrate and scipy.signal, seconds of imports on a small machine
# and minutes in an emulated guest: they are imported where they are used.
if TYPE_CHECKING:
    from . import array, raid5

MB = 10**6
KB = 1024

UNITS = ("Units: --positioning-ms is mean seek plus mean rotational latency in "
         "milliseconds; --transfer-mbps is in MB/s with MB = 10^6 bytes (--mb "
         "1048576: MB = 2^20 bytes, seed 000's convention, which its Lee-Katz "
         "values follow: 2.4 % above the 10^6 ones); "
         "--request-kb and the printed BSU are in KB = 1024 bytes.")


def _bsu_lee_katz(args: argparse.Namespace) -> dict:
    value = bsu.lee_katz_bsu(args.positioning_ms / 1e3, args.transfer_mbps * args.mb,
                             args.mpl, args.request_kb * KB, args.disks)
    return {"formula": "lee-katz", "bsu_bytes": value, "bsu_kb": value / KB,
            "inputs": {"positioning_ms": args.positioning_ms,
                       "transfer_mbps": args.transfer_mbps, "mb_bytes": args.mb,
                       "mpl": args.mpl, "request_kb": args.request_kb,
                       "disks": args.disks}}


def _bsu_chen_patterson(args: argparse.Namespace) -> dict:
    value = bsu.chen_patterson_bsu(args.positioning_ms / 1e3,
                                   args.transfer_mbps * args.mb, args.mpl, args.slope)
    return {"formula": "chen-patterson", "bsu_bytes": value, "bsu_kb": value / KB,
            "inputs": {"positioning_ms": args.positioning_ms,
                       "transfer_mbps": args.transfer_mbps, "mb_bytes": args.mb,
                       "mpl": args.mpl, "slope": args.slope}}


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
        "inputs": _inputs(args),
    }


def _print_disk(r: dict) -> None:
    print(f"max seek S_max        {r['smax_ms']:10.4f} ms")
    print(f"seek S                mean {r['seek_ms'][0]:9.4f} ms   E[S^2] {r['seek_ms'][1]:11.4f} ms^2")
    for key, name in (("x_ms", "seek+rotation X"), ("read_ms", "read Y_r (eq. 5)"),
                      ("write_ms", "write Y_w (eq. 6)")):
        m = r[key]
        print(f"{name:<21} mean {m[0]:9.4f} ms   E[.^2] {m[1]:11.4f} ms^2   "
              f"E[.^3] {m[2]:13.4f} ms^3")


# -- seed 002: RAID 5 and parity striping --------------------------------------

def _disk_from(args: argparse.Namespace) -> disk.Disk:
    return disk.Disk(cylinders=args.cylinders, seek_a=args.seek_a / 1e3,
                     seek_b=args.seek_b / 1e3, rmax=args.rmax / 1e3,
                     alpha=args.block_ms / 1e3, p_seq=args.p_seq)


def _array_from(args: argparse.Namespace, sizes=None) -> raid5.Array:
    from . import raid5
    ws = args.disks - 1
    if sizes is None:
        sizes = raid5.parse_sizes(args.sizes, ws) if ws >= 1 else None
    return raid5.Array(_disk_from(args), args.disks, args.p_read, sizes=sizes,
                       skew=getattr(args, "skew", 0.0),
                       blocks_per_track=getattr(args, "blocks_per_track", None))


def _bound(args: argparse.Namespace, arr: raid5.Array) -> str:
    if args.bound is not None:
        return args.bound
    if args.sync == "as":
        return "lb"
    return "lb" if arr.single else "simple"


def _rates(text: str) -> list[float]:
    try:
        rates = [float(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise ValueError(f"--rate wants numbers separated by commas: {text!r}") from None
    if not rates or min(rates) <= 0:
        raise ValueError("--rate wants positive rates")
    return rates


def _model_parity(args: argparse.Namespace) -> dict:
    from . import raid5
    arr = _array_from(args)
    bound = _bound(args, arr)
    rows = raid5.table(args.layout, arr, _rates(args.rate), args.sync, bound)
    return {"model": args.layout, "sync": args.sync, "bound": bound,
            "rows": [r.as_dict() for r in rows], "inputs": _inputs(args)}


def _model_maxrate(args: argparse.Namespace) -> dict:
    from . import raid5
    arr = _array_from(args)
    fn = raid5.maxrate_raid5 if args.layout == "raid5" else raid5.maxrate_pstripe
    return {"model": "maxrate", "layout": args.layout, "max_rate": fn(arr),
            "inputs": _inputs(args)}


def _inputs(args: argparse.Namespace) -> dict:
    return {k: v for k, v in vars(args).items() if k not in ("func", "json", "command")}


def _fmt(v: float, scale: float = 1.0, width: int = 10, prec: int = 4) -> str:
    return f"{'-':>{width}}" if v != v else f"{v * scale:{width}.{prec}f}"


def _print_parity(r: dict) -> None:
    print(f"{r['model']} ({r['sync'].upper()}, {r['bound']}): mean response times in seconds")
    print(f"{'rate':>10} {'util':>7} {'read':>10} {'write':>10} {'overall':>10}")
    for row in r["rows"]:
        note = "   unstable" if row["overall_s"] != row["overall_s"] else ""
        print(f"{row['rate']:10.2f} {row['utilization']:7.3f} {_fmt(row['read_s'])} "
              f"{_fmt(row['write_s'])} {_fmt(row['overall_s'])}{note}")


# -- seed 001: the disk array model ---------------------------------------------

def _array_cfg(args: argparse.Namespace) -> array.ArrayConfig:
    from . import array
    return array.ArrayConfig(
        disks=args.disks, stripe_unit=int(args.stripe_kb * KB), mirrored=args.layout == "raid10",
        pos_a=args.pos_a_ms / 1e3, pos_b=args.pos_b_ms / 1e3, seq_c=args.seq_c_ms / 1e3,
        seq_d=args.seq_d_ms / 1e3, rotation=60 / args.rpm,
        max_read_seek=args.max_seek_ms / 1e3, read_seek=args.read_seek_ms / 1e3,
        write_seek=args.write_seek_ms / 1e3, disk_rate=args.disk_mbps * MB,
        cache_rate=args.cache_mbps * MB, coalescing=args.coalescing == "on",
        balance=args.balance, beta_concentration=args.beta_concentration,
        cache_hit=args.cache_hit, destage_threshold=args.destage_threshold,
        max_dirty_blocks=args.max_dirty_blocks, member_latency=args.member_latency_ms / 1e3,
        destage_queue=args.destage_queue, cache_overhead=args.cache_overhead_ms / 1e3,
        destage=args.destage)


def _model_array(args: argparse.Namespace) -> dict:
    from . import array
    cfg = _array_cfg(args)
    size = args.request_kb * KB
    seq = args.pattern == "sequential"
    fn = array.reads if args.op == "read" else array.writes
    pts = fn(cfg, size, args.mpl, args.cpu_delay_ms / 1e3, seq)
    sp = array.split(cfg, size)
    return {"model": "array", "op": args.op,
            "split": {"disks": sp.disks_used, "ios_per_disk": sp.ios_per_disk,
                      "io_bytes": sp.io_bytes},
            "rows": [p.as_dict() for p in pts], "inputs": _inputs(args)}


def _print_array(r: dict) -> None:
    sp = r["split"]
    print(f"array model, {r['op']}s: {sp['disks']:g} disks x {sp['ios_per_disk']:g} I/O of "
          f"{sp['io_bytes'] / KB:g} KB per request")
    print(f"{'MPL':>4} {'response ms':>12} {'req/s':>10} {'array queue':>12} {'disk queue':>11}")
    for p in r["rows"]:
        print(f"{p['mpl']:4d} {p['response_s'] * 1e3:12.3f} {p['throughput']:10.2f} "
              f"{p['queue']:12.3f} {p['disk_queue']:11.3f}")


# -- compare -----------------------------------------------------------------------

# The compare options that choose_model resolves: None when not given.
_COMPARE_GIVEN = ("disks", "chunk_kb", "sync", "cylinders", "seek_a", "seek_b", "rmax",
                  "block_ms", "p_seq", "time_scale")

TABLES_HELP = ("the volume's tables, saved next to the trace with "
               "'{ dmsetup table; dmsetup ls; } > FILE': the ssastripe volume gives the "
               "model (raid5, pstripe or forkjoin), the members, chunk and sync, its "
               "ssadisk members the disk and time scale")


def _compare_setup(args: argparse.Namespace, recs_by_file: list) -> compare.ModelSetup:
    volume, tables_name = None, "the tables"
    if args.tables:
        with open(args.tables, encoding="utf-8") as f:
            tables = compare.parse_tables(f.read())
        devs = Counter(r.dev for recs in recs_by_file for r in recs if r.dev)
        volume = compare.find_volume(tables, args.volume, [d for d, _ in devs.most_common()])
        tables_name = args.tables
    elif args.volume:
        raise ValueError("--volume picks a volume of --tables: give --tables too")
    seen = sum(compare.parity_requests(recs) for recs in recs_by_file)
    given = {k: getattr(args, k) for k in _COMPARE_GIVEN}
    return compare.choose_model(args.model, given, volume, seen, tables_name)


def _compare(args: argparse.Namespace) -> dict:
    window = compare.parse_window(args.window) if args.window else None
    loaded, selections = [], []
    for path in args.records:
        recs = compare.load(path)
        if not recs:
            raise ValueError(f"{path}: no successful requests")
        sel = compare.select(recs, args.comm, window)
        if len(sel.records) < 2:
            raise ValueError(f"{path}: {sel.describe()}: too few left")
        loaded.append(sel.records)
        selections.append(sel)
    setup = _compare_setup(args, loaded)
    parity_trace = setup.parity or (setup.volume is not None and setup.volume.parity) or \
        any(compare.parity_requests(recs) for recs in loaded)
    rows, details, bounds = [], [], []
    for path, recs, sel in zip(args.records, loaded, selections):
        meas = compare.estimate(recs, args.batches)
        if setup.model == "forkjoin":
            p = compare.forkjoin_prediction(recs, meas)
            pred = {"all": p["all"], "read": p["read"], "write": p["write"]}
        else:
            prm = setup.params
            chunk = int(round(prm["chunk_kb"] * 2))
            sizes = compare.block_sizes(recs, chunk, prm["disks"] - 1)
            from . import raid5
            arr = raid5.Array(setup.disk(), prm["disks"], meas.p_read, sizes=sizes,
                              skew=args.skew, blocks_per_track=args.blocks_per_track)
            bound = args.bound or ("lb" if arr.single or prm["sync"] == "as" else "simple")
            bounds.append(bound)
            fn = raid5.raid5 if setup.model == "raid5" else raid5.pstripe
            res = fn(arr, meas.rate, prm["sync"], bound)
            pred = {"all": res.overall, "read": res.read, "write": res.write}
        util = max(meas.utilization.values()) if meas.utilization else math.nan
        replay = math.nan if parity_trace else compare.replay_prediction(recs)
        rows.append(compare.Row(path, meas.rate, util, meas.response, meas.response_ci,
                                pred["all"], replay, meas.request_cv2,
                                meas.read, meas.read_ci, pred["read"],
                                meas.write, meas.write_ci, pred["write"]))
        details.append(meas.as_dict())
    if args.plot:
        compare.plot(rows, args.plot, f"{setup.model} model vs measured")
    out_rows = []
    for row, sel, b in zip(rows, selections, bounds or [None] * len(rows)):
        d = row.as_dict()
        d["selection"] = sel.as_dict()
        d["selection_text"] = sel.describe()
        if b:
            d["bound"] = b
        out_rows.append(d)
    return {"model": setup.model, "setup": setup.as_dict(), "header": setup.describe(),
            "warnings": list(setup.warnings),
            "replay_note": ("replay '-': a parity write's I/Os are sequenced (old data "
                            "read, then written; the parity task queued when the data task "
                            "starts, BS, or has read, AS), and the replay's independent "
                            "servers would not keep that order") if parity_trace else None,
            "rows": out_rows, "measured": details, "plot": args.plot}


def _pm(v: float, ci: float) -> str:
    """'mean ± half-width' in ms, '-' where there is nothing."""
    if v != v:
        return f"{'-':>16}"
    return f"{v * 1e3:8.3f} ±{_fmt(ci, 1e3, 6, 3)}"


def _err(pred: float, meas: float) -> str:
    return f"{'-':>7}" if pred != pred or meas != meas else f"{(pred - meas) / meas:+7.1%}"


def _print_compare(r: dict) -> None:
    for w in r["warnings"]:
        print(f"ssa compare: warning: {w}", file=sys.stderr)
    for line in r["header"]:
        print(line)
    print("mean response times in ms: measured (95 % batch-means CI), the model's, error")
    print("cv2: squared coefficient of variation of the requests' interarrival times "
          "(1 if Poisson)")
    print("replay: the trace's own arrivals and services through ideal single servers")
    if r["replay_note"]:
        print(r["replay_note"])
    print(f"{'rate':>8} {'util':>6} {'cv2':>5}  {'all':>16} {'model':>8} {'error':>7}  "
          f"{'read':>16} {'model':>8} {'error':>7}  {'write':>16} {'model':>8} {'error':>7}"
          f"  {'replay':>8}  file")
    for row in r["rows"]:
        print(f"{row['rate']:8.1f} {row['utilization']:6.3f} {row['arrival_cv2']:5.2f}  "
              f"{_pm(row['measured_s'], row['ci_s'])} {_fmt(row['predicted_s'], 1e3, 8, 3)} "
              f"{_err(row['predicted_s'], row['measured_s'])}  "
              f"{_pm(row['measured_read_s'], row['read_ci_s'])} "
              f"{_fmt(row['predicted_read_s'], 1e3, 8, 3)} "
              f"{_err(row['predicted_read_s'], row['measured_read_s'])}  "
              f"{_pm(row['measured_write_s'], row['write_ci_s'])} "
              f"{_fmt(row['predicted_write_s'], 1e3, 8, 3)} "
              f"{_err(row['predicted_write_s'], row['measured_write_s'])}  "
              f"{_fmt(row['replay_s'], 1e3, 8, 3)}  {row['label']}")
    for row in r["rows"]:
        print(f"{row['label']}: {row['selection_text']}")
    if r["plot"]:
        print(f"plot: {r['plot']}")


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
                        help="disk transfer rate, MB/s (MB = 10^6 bytes; see --mb)")
    common.add_argument("--mb", type=int, choices=(bsu.MB_DECIMAL, bsu.MB_BINARY),
                        default=bsu.MB_DECIMAL, metavar="BYTES",
                        help="bytes in the MB of --transfer-mbps: 1000000 (default, "
                             "data sheets) or 1048576 (seed 000's 7.9 MB/s, and its "
                             "Lee-Katz column)")
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

    diskp = argparse.ArgumentParser(add_help=False)
    g = diskp.add_argument_group("the disk (seed 002, section 4.1; defaults: the seed's disk)")
    g.add_argument("--cylinders", type=int, default=1200, help="C (default 1200)")
    g.add_argument("--seek-a", type=float, default=3.0, help="a, ms (default 3)")
    g.add_argument("--seek-b", type=float, default=0.5,
                   help="b, ms per sqrt(cylinder) (default 0.5)")
    g.add_argument("--rmax", type=float, default=16.7, help="R_max, ms (default 16.7)")
    g.add_argument("--block-ms", type=float, default=1.3,
                   help="alpha, transfer time of one block, ms (default 1.3)")
    g.add_argument("--p-seq", type=float, default=0.0,
                   help="p_s, probability of a zero-distance seek (default 0)")
    jsonp = argparse.ArgumentParser(add_help=False)
    jsonp.add_argument("--json", action="store_true", help="machine-readable output")

    pd = sub.add_parser("disk", parents=[diskp, jsonp],
                        help="service-time moments of the seed-002 disk model",
                        epilog="Times in milliseconds.")
    pd.add_argument("--blocks", type=int, default=1, help="blocks per request (default 1)")
    pd.set_defaults(func=_disk)

    pm = sub.add_parser("model", help="the analytic models of seeds 001 and 002")
    msub = pm.add_subparsers(dest="model", required=True)

    wl = argparse.ArgumentParser(add_help=False)
    g = wl.add_argument_group("the array and its workload")
    g.add_argument("--disks", type=int, required=True, help="N, disks in the array")
    g.add_argument("--p-read", type=float, required=True, help="p_r, fraction of reads")
    g.add_argument("--sizes", default="single",
                   help="blocks per request: single (default), uniform (1..N-1) or "
                        "qgeo:SIGMA:P (section 6.2)")
    pskew = argparse.ArgumentParser(add_help=False)
    pskew.add_argument("--skew", type=float, default=0.0,
                       help="s-degree skew of parity striping, eq. (26) (default 0)")
    pskew.add_argument("--blocks-per-track", type=int, default=None,
                       help="N_b for multi-block parity striping "
                            "(default: whole blocks per rotation, R_max / alpha)")
    pol = argparse.ArgumentParser(add_help=False)
    pol.add_argument("--sync", choices=("bs", "as"), default="bs",
                     help="write synchronization policy (default bs)")
    pol.add_argument("--bound", choices=("lb", "ub", "simple"), default=None,
                     help="BS approximation: lb (default for single blocks), ub, or "
                          "simple (eq. 25; the only one for multiple blocks)")
    rate = argparse.ArgumentParser(add_help=False)
    rate.add_argument("--rate", required=True, help="arrival rates, requests/s: R[,R...]")
    units = ("Prints mean read, write and overall response times in seconds per "
             "rate, with the busiest disk's utilization; '-' marks a rate the "
             "array cannot sustain.  Disk times in milliseconds.")

    for name, extra, text in (("raid5", [], "RAID 5 (seed 002, sections 4.2 and 5.1)"),
                              ("pstripe", [pskew], "parity striping (sections 4.3, 5.2)")):
        mp = msub.add_parser(name, parents=[wl, rate, pol, diskp, jsonp] + extra,
                             help=text, epilog=units)
        mp.set_defaults(func=_model_parity, layout=name)

    mx = msub.add_parser("maxrate", parents=[wl, pskew, diskp, jsonp],
                         help="maximum throughput (seed 002, section 5.3)",
                         epilog="Prints requests per second.  Uses the mean service "
                                "times of eqs. (9), (12) for RAID 5 and (36)-(37) "
                                "for parity striping.")
    mx.add_argument("layout", choices=("raid5", "pstripe"))
    mx.set_defaults(func=_model_maxrate)

    ma = msub.add_parser(
        "array", parents=[jsonp], help="the disk-array model of seed 001 (MVA over MPL 1..M)",
        epilog="Defaults: the FC-60 LUN of Cheetah 73 disks (seed 001, Table 1 and "
               "section 5.1).  MB = 10^6 bytes, KB = 1024 bytes, times in ms.  Writes of "
               "at most two stripes go through the write-back cache (M/M/1/K), larger "
               "ones straight to the disks.")
    ma.add_argument("--mpl", type=int, required=True, help="largest multiprogramming level M")
    ma.add_argument("--request-kb", type=float, required=True, help="request size, KB")
    ma.add_argument("--op", choices=("read", "write"), default="read")
    ma.add_argument("--pattern", choices=("random", "sequential"), default="random",
                    help="positioning model (1) or (2)")
    ma.add_argument("--cpu-delay-ms", type=float, default=0.0, help="think time (default 0)")
    ma.add_argument("--disks", type=int, default=6, help="stripe_width (default 6)")
    ma.add_argument("--stripe-kb", type=float, default=16, help="stripe unit (default 16)")
    ma.add_argument("--layout", choices=("raid10", "raid0"), default="raid10")
    ma.add_argument("--coalescing", choices=("on", "off"), default="on",
                    help="access coalescing (default on, as the FC-60)")
    ma.add_argument("--balance", choices=("transfer", "queue"), default="transfer",
                    help="mirror load balancing: disk-transfer-time or disk-queue-length "
                         "reducing (default transfer, as the FC-60)")
    ma.add_argument("--cache-hit", type=float, default=0.0, help="read hit probability")
    ma.add_argument("--pos-a-ms", type=float, default=3.53, help="a of (1) (3.53)")
    ma.add_argument("--pos-b-ms", type=float, default=8.81, help="b of (1) (8.81)")
    ma.add_argument("--seq-c-ms", type=float, default=-2.73, help="c of (2) (-2.73)")
    ma.add_argument("--seq-d-ms", type=float, default=3.68, help="d of (2) (3.68)")
    ma.add_argument("--rpm", type=float, default=10000)
    ma.add_argument("--max-seek-ms", type=float, default=14.2, help="max read seek (14.2)")
    ma.add_argument("--read-seek-ms", type=float, default=6.05)
    ma.add_argument("--write-seek-ms", type=float, default=6.55)
    ma.add_argument("--disk-mbps", type=float, default=31, help="disk transfer rate (31)")
    ma.add_argument("--cache-mbps", type=float, default=62, help="array cache rate (62)")
    ma.add_argument("--beta-concentration", type=float, default=4.0,
                    help="alpha + beta of the beta positioning law (5.2; default 4)")
    ma.add_argument("--destage-threshold", type=int, default=768,
                    help="dirty stripe units held without destaging (default 768)")
    ma.add_argument("--max-dirty-blocks", type=int, default=1024,
                    help="dirty stripe units the cache holds (default 1024)")
    ma.add_argument("--member-latency-ms", type=float, default=0.0,
                    help="fixed time added to every disk I/O: members over a network "
                         "(default 0)")
    ma.add_argument("--destage-queue", type=float, default=0.0,
                    help="disk queue the destage service time is taken at (default 0: "
                         "the one the clients' stream gives, as the seed)")
    ma.add_argument("--cache-overhead-ms", type=float, default=0.0,
                    help="time added to every request's cache service (default 0)")
    ma.add_argument("--destage", choices=("unit", "request"), default="unit",
                    help="destage a stripe unit at a time (the seed's 5.5) or a request's "
                         "units together")
    ma.set_defaults(func=_model_array)

    pc = sub.add_parser(
        "compare", parents=[pskew, jsonp],
        help="ssatrace records against a model (table and PNG)",
        epilog="Each FILE is one ssatrace record file (CSV or JSON lines) taken at one "
               "load.  forkjoin uses the measured per-member service moments; raid5 "
               "and pstripe use the disk (from --tables or given here) and the trace's "
               "workload.  An option given here beats the tables, which beat the "
               "defaults.  Times in ms.")
    pc.add_argument("records", nargs="+", metavar="FILE")
    pc.add_argument("--model", choices=("auto", "forkjoin", "raid5", "pstripe"),
                    default="auto",
                    help="auto (default): the layout of the --tables volume (raid5, "
                         "pstripe; forkjoin for stripe and mirror), forkjoin without "
                         "--tables")
    pc.add_argument("--tables", metavar="FILE", help=TABLES_HELP)
    pc.add_argument("--volume", metavar="NAME",
                    help="the ssastripe volume of --tables, when it holds several")
    pc.add_argument("--comm", metavar="NAME",
                    help="keep the requests of this comm (the submitting task); 'all' "
                         "keeps every one; default: the comm with the most requests")
    pc.add_argument("--window", metavar="START:END",
                    help="keep requests forked START..END seconds after the first "
                         "(either may be empty)")
    pc.add_argument("--plot", metavar="PNG", help="write measured vs model to this PNG")
    pc.add_argument("--batches", type=int, default=20,
                    help="batches for the confidence intervals (default 20)")
    g = pc.add_argument_group("raid5/pstripe: the array (default: from --tables)")
    g.add_argument("--disks", type=int, help="members, N (default 4)")
    g.add_argument("--chunk-kb", type=float, help="the chunk (a block), KB")
    g.add_argument("--sync", choices=("bs", "as"),
                   help="write synchronization policy (default bs)")
    g.add_argument("--bound", choices=("lb", "ub", "simple"), default=None,
                   help="BS approximation: lb (default for single blocks), ub, or "
                        "simple (the only one for multiple blocks)")
    g = pc.add_argument_group(
        "raid5/pstripe: the disk (seed 002, 4.1; default: the ssadisk members of "
        "--tables, else the seed's disk)")
    g.add_argument("--cylinders", type=int, help="C (1200)")
    g.add_argument("--seek-a", type=float, help="a, ms (3)")
    g.add_argument("--seek-b", type=float, help="b, ms per sqrt(cylinder) (0.5)")
    g.add_argument("--rmax", type=float, help="R_max, ms (16.7)")
    g.add_argument("--block-ms", type=float,
                   help="alpha, transfer time of one chunk, ms (1.3)")
    g.add_argument("--p-seq", type=float, help="p_s, probability of a zero-distance seek (0)")
    g.add_argument("--time-scale", type=float, metavar="F",
                   help="multiply the disk's times by F, as ssadisk's time_scale (1)")
    pc.set_defaults(func=_compare)

    _experiment_parser(sub, jsonp)
    _identify_parser(sub, jsonp)
    return p


# -- experiment ---------------------------------------------------------------------

def _experiment_list(args: argparse.Namespace) -> dict:
    from . import experiment
    cat = experiment.catalogue()
    return {"experiments": [{"name": n, "seed": s["seed"], "figure": s["figure"],
                             "title": s["title"], "points": len(experiment.expand(s)),
                             "quick_points": len(experiment.expand(s, True))}
                            for n, s in cat.items()]}


def _print_experiment_list(r: dict) -> None:
    for e in r["experiments"]:
        print(f"{e['name']:<24} seed {e['seed']} {e['figure']:<14} {e['points']:3d} points "
              f"({e['quick_points']} quick)  {e['title']}")


def _experiment_run(args: argparse.Namespace) -> dict:
    from . import runner
    res = runner.run(args.names, args.quick, args.clock, args.out, args.timeout,
                     echo=(lambda m: print(m, file=sys.stderr, flush=True)),
                     resume=args.resume, jobs=args.jobs,
                     shard=runner.parse_shard(args.shard) if args.shard else None,
                     replicate_runs=not args.no_replicate)
    return {"experiments": res}


def _experiment_publish(args: argparse.Namespace) -> dict:
    """Publish full runs (experiments/results/NAME.json) and remake the
    Results section of Documentation/experiments.rst from every published
    result; with --check, only tell whether that section is current."""
    from . import experiment, publish
    cat = experiment.catalogue()
    written = []
    for d in args.dirs:
        d = os.path.abspath(d)
        if os.path.exists(os.path.join(d, "results.json")):
            written.append(publish.publish(d, cat))
            continue
        subs = sorted(os.path.join(d, n) for n in os.listdir(d)
                      if os.path.exists(os.path.join(d, n, "results.json")))
        if not subs:
            raise experiment.SpecError(f"{d}: no results.json there nor in its "
                                       "experiments' directories")
        for sub in subs:
            try:
                written.append(publish.publish(sub, cat))
            except experiment.SpecError as e:
                print(f"ssa experiment publish: {e}", file=sys.stderr)
    if args.check:
        current = publish.write_rst(cat, check=True)
        return {"published": written, "current": current}
    publish.write_rst(cat)
    return {"published": written, "current": True, "rst": publish.rst_path()}


def _print_experiment_publish(r: dict) -> None:
    for p in r["published"]:
        print(f"published {p}")
    if not r["current"]:
        print("Documentation/experiments.rst: the Results section is not the one the "
              "published results make; run: tools/ssa experiment publish")
    elif r.get("rst"):
        print(f"{r['rst']}: Results section made from experiments/results/")


def _print_experiment_run(r: dict) -> None:
    for e in r["experiments"]:
        ok = sum(p.get("status") == "ok" for p in e["points"])
        if "shard" in e:
            print(f"{e['experiment']}: {ok}/{len(e['points'])} points of shard {e['shard']} "
                  f"ok; when every shard has run: tools/ssa experiment report {e['run_dir']}")
        else:
            print(f"{e['experiment']}: {ok}/{len(e['points'])} points ok, {e['status']}; "
                  f"{e['dir']}/report.md")
        for f in e["failures"]:
            print(f"  FAIL {f}")


def _experiment_report(args: argparse.Namespace) -> dict:
    from . import experiment, runner
    # one experiment's directory of a run of several: its plan is a level up
    path = os.path.join(args.dir, "plan.json")
    if not os.path.exists(path):
        path = os.path.join(os.path.dirname(os.path.abspath(args.dir)), "plan.json")
    with open(path, encoding="utf-8") as f:
        plans = json.load(f)
    cat = experiment.catalogue()
    want = os.path.abspath(args.dir)
    if not any(pl["dir"] == want for pl in plans):
        want = None                             # the whole run's directory
    calls, dirs = [], []
    for pl in plans:
        if want and pl["dir"] != want:
            continue
        # the run's wall time is not in the points: keep what the run wrote
        prev = {}
        try:
            with open(os.path.join(pl["dir"], "results.json"), encoding="utf-8") as f:
                prev = json.load(f)
        except (OSError, ValueError):
            pass
        runner.merge_guest_times(pl["dir"])     # a run's shards (-j N, --shard K/N)
        calls.append(((cat[pl["experiment"]], pl["dir"], pl["quick"], pl["clock"],
                       prev.get("wall_s") or 0.0, prev.get("run_experiments") or len(plans)),
                      {"jobs": prev.get("jobs") or pl.get("jobs") or 1}))
        dirs.append(pl["dir"])
    res = runner.summarise_all(calls, os.cpu_count() or 1)   # one process per core
    for r, d in zip(res, dirs):
        r["dir"] = d
    return {"experiments": res}


def _identify_policies(args: argparse.Namespace, echo) -> dict:
    from . import identify_policy as ip
    if not args.disk:
        raise ValueError("--policies needs --disk FILE: the results.json of "
                         "`tools/ssa identify MEMBER --out DIR` for one member disk")
    return ip.run(args.device, args.disk, args.geometry,
                  ip.int_list(args.units, "--units") if args.units else None,
                  ip.int_list(args.mpl, "--mpl"), args.requests, args.out,
                  budget_s=args.budget, quick=args.quick, destructive=args.destructive,
                  write_units=ip.int_list(args.write_units, "--write-units")
                  if args.write_units else None, echo=echo)


def _identify_write_method(args: argparse.Namespace, echo) -> dict:
    from . import identify_write as iw
    if not args.destructive:
        raise ValueError("--write-method writes (each probe writes back what it just "
                         "read): give --destructive")
    echo(iw.DESTRUCTIVE.format(device=args.device))
    if args.geometry:
        with open(args.geometry, encoding="utf-8") as f:
            geo = json.load(f)
        geo = geo.get("result", geo)
    else:
        from .identify_array import measure_array
        geo = measure_array(args.device, quick=True, budget_s=args.budget, echo=echo)["result"]
    out = iw.measure_write_method(args.device, geo, quick=args.quick, budget_s=args.budget,
                                  echo=echo)
    out.update(device=args.device, kind="write-method", geometry=geo)
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        with open(os.path.join(args.out, "results.json"), "w", encoding="utf-8") as f:
            json.dump(out, f, indent=1, sort_keys=True, default=float)
    return out


def _identify(args: argparse.Namespace) -> dict:
    from .identify import READ_ONLY
    echo = lambda m: print(m, file=sys.stderr)             # noqa: E731
    if args.write_method:
        return _identify_write_method(args, echo)
    if not getattr(args, "destructive", False):     # --destructive says so itself, first
        echo(READ_ONLY.format(device=args.device))
    if args.policies:
        return _identify_policies(args, echo)
    if args.array:
        from . import identify_array
        out = identify_array.measure_array(args.device, quick=args.quick,
                                           budget_s=args.budget, echo=echo)
        out.update(device=args.device, kind="array")
        if args.out:
            os.makedirs(args.out, exist_ok=True)
            with open(os.path.join(args.out, "results.json"), "w", encoding="utf-8") as f:
                json.dump(out, f, indent=1, sort_keys=True, default=float)
        return out
    from . import identify
    return identify.run(args.device, quick=args.quick, budget_s=args.budget, out_dir=args.out,
                        echo=echo)


def _print_identify(r: dict) -> None:
    from . import identify
    if r.get("kind") in ("array", "policies", "write-method"):
        print(r["summary"])
        return
    print(r["summary"])
    n = r["sectors"]
    print(f"ssadisk table: 0 {n} ssadisk <backing device> 0 {len(r['table_args'])} "
          + " ".join(r["table_args"]))
    print(identify.disk_block(r["result"]))


def _identify_parser(sub, jsonp) -> None:
    pi = sub.add_parser(
        "identify", parents=[jsonp],
        help="what a disk is, from the times of its reads (Documentation/identify.rst)",
        epilog="Reads only (O_DIRECT, one request at a time); never writes.  Prints the "
               "disk's parameters, an ssadisk table line and a lab [disk] block.")
    pi.add_argument("device", help="a block device (root, or read access to it)")
    pi.add_argument("--quick", action="store_true", help="fewer zone points and distances")
    pi.add_argument("--array", action="store_true",
                    help="the geometry of an array instead: mirrored or not, the copies, "
                         "the stripe unit and the width (from the order in which reads "
                         "complete)")
    pi.add_argument("--policies", action="store_true",
                    help="an array's coalescing and mirror balancing by seed 001's "
                         "method: closed-loop reads beside each version of the array "
                         "model (needs --disk; reads only)")
    pi.add_argument("--write-method", action="store_true",
                    help="a raid5's small-write method (read-modify-write or "
                         "reconstruct-write), from where 4 KiB writes wait; each writes "
                         "back what it just read (needs --destructive; --geometry: "
                         "--array's results.json, else measured first)")
    from .identify_policy import add_policy_arguments
    add_policy_arguments(pi)
    pi.add_argument("--budget", type=float, default=600.0, metavar="S",
                    help="stop with an error after S seconds (default 600)")
    pi.add_argument("--out", metavar="DIR", default=None,
                    help="write results.json and report.md into DIR")
    pi.set_defaults(func=_identify)


def _experiment_parser(sub, jsonp) -> None:
    pe = sub.add_parser("experiment", help="the experiment lab: the seeds' tables and figures "
                        "measured on the kernel (Documentation/experiments.rst)")
    esub = pe.add_subparsers(dest="action", required=True)
    el = esub.add_parser("list", parents=[jsonp], help="the catalogue")
    el.set_defaults(func=_experiment_list)
    er = esub.add_parser("run", parents=[jsonp], help="run experiments in a guest (or N)",
                         epilog="Writes OUT/results.json, OUT/report.md and PNG figures "
                                "(OUT/NAME/... for several).  Exit status 1 when a point "
                                "failed or a --quick check did not hold.")
    er.add_argument("names", nargs="+", metavar="NAME", help="experiment names, or all")
    er.add_argument("--quick", action="store_true", help="the short variant (make check)")
    er.add_argument("--clock", choices=("icount", "tcg", "native"), default="icount",
                    help="icount (default): a guest on QEMU's instruction clock; tcg: a "
                         "plain emulated guest; native: this machine's kernel")
    er.add_argument("--out", required=True, metavar="DIR", help="where the results go")
    er.add_argument("--timeout", type=float, default=None, metavar="S",
                    help="stop the guest after S seconds (partial results are kept)")
    er.add_argument("--resume", action="store_true",
                    help="keep the points of OUT that ran ok and run the others")
    er.add_argument("-j", "--jobs", type=int, default=1, metavar="N",
                    help="run the points in N guests at once (default 1; the means agree with "
                         "one guest's as two one-guest runs agree with each other; each "
                         "guest takes about 3 GiB of host memory)")
    er.add_argument("--shard", metavar="K/N", default=None,
                    help="run only the K-th of N parts of the points, the same parts every "
                         "time (a cluster's array tasks; then: ssa experiment report OUT)")
    er.add_argument("--no-replicate", action="store_true",
                    help="do not run again the points whose batch means are correlated "
                         "(a full run does, in a second round: ssa.replicate)")
    er.set_defaults(func=_experiment_run)
    eb = esub.add_parser("publish", parents=[jsonp],
                         help="publish full runs and remake the documentation's Results",
                         epilog="Copies each run's results (less the report-only fields) to "
                                "experiments/results/NAME.json and makes the Results section "
                                "of Documentation/experiments.rst from every published "
                                "result, the verdicts recomputed with the specs as they are.")
    eb.add_argument("dirs", nargs="*", metavar="DIR",
                    help="a run's --out (one experiment, or several in DIR/NAME); none: "
                         "only remake the section")
    eb.add_argument("--check", action="store_true",
                    help="exit 1 when the section is not the one the published results make")
    eb.set_defaults(func=_experiment_publish)
    ep = esub.add_parser("report", parents=[jsonp],
                         help="analyse a run's directory again (results, report, figures)")
    ep.add_argument("dir", metavar="DIR", help="the --out of a run")
    ep.set_defaults(func=_experiment_report)


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        result = args.func(args)
    except (ValueError, OSError) as e:
        print(f"ssa: {e}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(_nan_to_null(result), sort_keys=True, default=_json_default,
                         allow_nan=False))
        return 0
    printer = {"disk": _print_disk, "compare": _print_compare,
               "identify": _print_identify}.get(args.command)
    if args.command == "experiment":
        printer = {"list": _print_experiment_list,
                   "publish": _print_experiment_publish}.get(args.action, _print_experiment_run)
        if args.action == "publish":
            printer(result)
            return 0 if result["current"] else 1
    if args.command == "model":
        printer = {"array": _print_array, "maxrate": _print_maxrate}.get(args.model,
                                                                          _print_parity)
    if printer:
        printer(result)
        if args.command == "experiment" and args.action != "list":
            return 0 if all(e["status"] == "complete" and not e["failures"]
                            for e in result["experiments"]) else 1
    else:
        print(f"{result['formula']} BSU: {result['bsu_kb']:.2f} KB "
              f"({result['bsu_bytes']:.0f} bytes)")
    return 0


def _nan_to_null(o):
    """JSON has no NaN: an unstable rate's times become null."""
    from .experiment import nan_to_none
    return nan_to_none(o)


def _json_default(o):
    if hasattr(o, "tolist"):
        return o.tolist()
    raise TypeError(f"not JSON: {o!r}")


def _print_maxrate(r: dict) -> None:
    print(f"{r['layout']} maximum throughput: {r['max_rate']:.2f} requests/s")
