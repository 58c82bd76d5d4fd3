#!/usr/bin/env python3
"""Tabulate bench/run results: IOPS and MiB/s per target, and the ratio.

Reads DIR/<kind>.<target>.<point>.<repeat>.json (fio JSON output) and prints
one Markdown table per member kind, with the mean over repeats and the
ratio of ssastripe to the reference target.

Usage: bench/report.py DIR [--reference striped]
"""
import argparse
import json
import pathlib
import statistics
from collections import defaultdict


def load_point(path):
    """Return (iops, bytes per second) of the one job in a fio JSON file."""
    job = json.loads(pathlib.Path(path).read_text())["jobs"][0]
    d = job["read"] if job["read"]["io_bytes"] else job["write"]
    return d["iops"], d["bw_bytes"]


def collect(directory):
    """{kind: {point: {target: [(iops, bw), ...]}}} from a result folder."""
    res = defaultdict(lambda: defaultdict(lambda: defaultdict(list)))
    for f in sorted(pathlib.Path(directory).glob("*.json")):
        kind, target, point, _rep = f.name[:-5].split(".")
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


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dir")
    ap.add_argument("--reference", default="striped")
    args = ap.parse_args()
    for kind, points in collect(args.dir).items():
        print(f"\n{kind} members:\n")
        print("\n".join(table(points, args.reference)))


if __name__ == "__main__":
    main()
