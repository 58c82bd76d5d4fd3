#!/usr/bin/env python3
"""Tabulate bench/run results: IOPS and MiB/s per target, and the ratio.

Reads DIR/<kind>.<target>.<point>.<repeat>.json (fio JSON output; the target
may contain dots, e.g. ssastripe+ssalat.bt) and prints
one Markdown table per member kind, with the mean over repeats and the
ratio of ssastripe to the reference target.

With --progs FILE (bpftool -j prog show, taken with kernel.bpf_stats_enabled)
it also prints what each of ssatrace's programs cost per run and per request.

Usage: bench/report.py DIR [--reference striped] [--subject S] [--variants [--baseline B]]
                       [--progs FILE]
"""
import argparse
import json
import pathlib
import statistics
from collections import defaultdict


def load_point(path):
    """Return (iops, bytes per second) of the one job in a fio JSON file,
    reads and writes together (one of them is zero unless the point mixes)."""
    job = json.loads(pathlib.Path(path).read_text())["jobs"][0]
    return (job["read"]["iops"] + job["write"]["iops"],
            job["read"]["bw_bytes"] + job["write"]["bw_bytes"])


def collect(directory):
    """{kind: {point: {target: [(iops, bw), ...]}}} from a result folder."""
    res = defaultdict(lambda: defaultdict(lambda: defaultdict(list)))
    for f in sorted(pathlib.Path(directory).glob("*.json")):
        kind, rest = f.name[:-5].split(".", 1)
        target, point, _rep = rest.rsplit(".", 2)
        res[kind][point][target].append(load_point(f))
    return res


def table(points, reference, subject="ssastripe"):
    """Markdown rows for one member kind."""
    rows = [f"| point | {subject} IOPS | {reference} IOPS | {subject} MiB/s "
            f"| {reference} MiB/s | ratio (spread) |",
            "|---|---:|---:|---:|---:|---:|"]
    for point, by_target in points.items():
        s = by_target.get(subject, [])
        r = by_target.get(reference, [])
        if not s or not r:
            continue
        si = statistics.mean(x[0] for x in s)
        ri = statistics.mean(x[0] for x in r)
        sb = statistics.mean(x[1] for x in s) / 2**20
        rb = statistics.mean(x[1] for x in r) / 2**20
        ratios = [a[0] / b[0] for a, b in zip(s, r)]
        spread = f"{min(ratios):.2f}-{max(ratios):.2f}" if len(ratios) > 1 else "-"
        rows.append(f"| {point} | {si:.0f} | {ri:.0f} | {sb:.1f} | {rb:.1f} "
                    f"| **{si / ri:.2f}** ({spread}) |")
    return rows


def variants_table(points, baseline="ssastripe", reference="striped"):
    """Markdown rows: every variant of each point against two references."""
    rows = [f"| point | variant | IOPS | vs {reference} | vs {baseline} | spread vs {baseline} |",
            "|---|---|---:|---:|---:|---:|"]
    for point, by_target in points.items():
        ref = by_target.get(reference, [])
        base = by_target.get(baseline, [])
        for target, runs in sorted(by_target.items(),
                                   key=lambda kv: (kv[0] != reference, kv[0] != baseline, kv[0])):
            iops = statistics.mean(x[0] for x in runs)
            vs_ref = f"{iops / statistics.mean(x[0] for x in ref):.2f}" if ref else "-"
            vs_base = f"{iops / statistics.mean(x[0] for x in base):.2f}" if base else "-"
            ratios = [a[0] / b[0] for a, b in zip(runs, base)]
            spread = f"{min(ratios):.2f}-{max(ratios):.2f}" if len(ratios) > 1 else "-"
            rows.append(f"| {point} | {target} | {iops:.0f} | {vs_ref} | {vs_base} | {spread} |")
    return rows


def prog_cost_table(progs, prefix="handle_", per="handle_request"):
    """Markdown rows: run count, ns per run and ns per request of each BPF
    program whose name starts with PREFIX, from bpftool's JSON with run-time
    statistics; requests are the runs of program PER (one per request)."""
    mine = [p for p in progs if p.get("name", "").startswith(prefix)
            and p.get("run_cnt")]
    requests = next((p["run_cnt"] for p in mine if p["name"] == per), 0)
    rows = ["| program | runs | ns per run | ns per request |",
            "|---|---:|---:|---:|"]
    total = 0
    for p in sorted(mine, key=lambda p: p["name"]):
        total += p["run_time_ns"]
        each = p["run_time_ns"] / requests if requests else 0
        rows.append(f"| {p['name']} | {p['run_cnt']} | "
                    f"{p['run_time_ns'] / p['run_cnt']:.0f} | {each:.0f} |")
    if requests:
        rows.append(f"| **all** | | | **{total / requests:.0f}** |")
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dir")
    ap.add_argument("--reference", default="striped")
    ap.add_argument("--variants", action="store_true",
                    help="one row per variant (bench/trace-overhead, bench/mirror)")
    ap.add_argument("--baseline", default="ssastripe",
                    help="with --variants: the second column of ratios")
    ap.add_argument("--subject", default="ssastripe",
                    help="the target set against the reference (bench/parity: ssa)")
    ap.add_argument("--progs", metavar="FILE", action="append", default=[],
                    help="bpftool -j prog show output with run-time statistics, "
                         "named after the ssatrace mode it was taken in "
                         "(progs-record.bpftool); repeatable")
    args = ap.parse_args()
    for kind, points in collect(args.dir).items():
        print(f"\n{kind}:\n")
        rows = (variants_table(points, args.baseline, args.reference)
                if args.variants else table(points, args.reference, args.subject))
        print("\n".join(rows))
    for path in map(pathlib.Path, args.progs):
        progs = json.loads(path.read_text())
        print(f"\nssatrace's programs, {path.stem} (kernel.bpf_stats_enabled):\n")
        print("\n".join(prog_cost_table(progs)))


if __name__ == "__main__":
    main()
