#!/usr/bin/env python3
"""Check an ssatrace record file (CSV or JSON lines) and summarize it.

Checks that every child's timestamps are ordered queued <= dispatched <=
completed and lie inside its request's fork..join, that each request lists
the children it issued (fewer only in a record marked truncated), that the
derived times are what the children's times give, and that no request
(device and id) has two records.  Prints one JSON line of counts: records,
children, truncated records, records and mean response time per submitting
task, records and children per device, and how many read and write
records have one child and how many of those joined at that child's
completion time.
Exits 1 on a violation.  Usage: check_ssatrace.py FILE [--format csv|json]

With --format hist, FILE is the output of ssatrace hist, and the line of
JSON sums each histogram's counts over all its prints: "response" (every
response-time histogram), "m<member>.<class>.<queueing|service>", and
"high" (every high-class histogram).
"""
import argparse
import csv
import json
import re
import sys
from collections import defaultdict


def read_csv(path):
    """Records as dicts with a 'children' list, from ssatrace's CSV."""
    out = []
    with open(path, encoding="utf-8") as f:
        for row in csv.DictReader(f):
            kids = []
            for c in filter(None, row["children"].split("|")):
                m, cls, q, d, done, ms, ln = c.split(":")
                kids.append({"member": int(m), "class": cls, "queued_ns": int(q),
                             "dispatched_ns": int(d), "completed_ns": int(done),
                             "msector": int(ms), "len": int(ln)})
            rec = {k: row[k] for k in ("dev", "op", "comm")}
            for k in ("fork_ns", "join_ns", "id", "sector", "len", "status",
                      "nr_children", "resp_ns", "max_wait_ns",
                      "max_service_ns", "skew_ns"):
                rec[k] = int(row[k])
            rec["truncated"] = row["truncated"] == "1"
            rec["children"] = kids
            out.append(rec)
    return out


def read_json(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def check(records):
    """Violations, as strings."""
    errors = []
    seen = set()
    for r in records:
        tag = f"request {r['dev']}/{r['id']}"
        if (r["dev"], r["id"]) in seen:
            errors.append(f"{tag}: recorded twice")
        seen.add((r["dev"], r["id"]))
        if r["join_ns"] < r["fork_ns"]:
            errors.append(f"{tag}: join before fork")
        if r["resp_ns"] != r["join_ns"] - r["fork_ns"]:
            errors.append(f"{tag}: resp_ns is not join - fork")
        kids = r["children"]
        if r["truncated"] != (len(kids) < r["nr_children"]) or \
                len(kids) > r["nr_children"]:
            errors.append(f"{tag}: {len(kids)} children listed of "
                          f"{r['nr_children']} issued, truncated={r['truncated']}")
        for c in kids:
            ts = (r["fork_ns"], c["queued_ns"], c["dispatched_ns"],
                  c["completed_ns"], r["join_ns"])
            if not all(ts) or list(ts) != sorted(ts):
                errors.append(f"{tag}: child on member {c['member']} out of "
                              f"order: {ts}")
        if kids:
            done = [c["completed_ns"] for c in kids]
            want = (max(c["dispatched_ns"] - c["queued_ns"] for c in kids),
                    max(c["completed_ns"] - c["dispatched_ns"] for c in kids),
                    max(done) - min(done))
            got = (r["max_wait_ns"], r["max_service_ns"], r["skew_ns"])
            if got != want:
                errors.append(f"{tag}: max wait, max service, skew {got}, "
                              f"the children give {want}")
    return errors


def summarize(records):
    by = defaultdict(lambda: [0, 0])
    dev = defaultdict(lambda: [0, 0])
    for r in records:
        by[r["comm"]][0] += 1
        by[r["comm"]][1] += r["resp_ns"]
        dev[r["dev"]][0] += 1
        dev[r["dev"]][1] += len(r["children"])
    # reads and writes of one child: in the stripe layout, remapped requests
    one = [r for r in records if r["nr_children"] == 1 and r["children"]
           and r["op"] in ("read", "write")]
    return {
        "records": len(records),
        "children": sum(len(r["children"]) for r in records),
        "one_child": len(one),
        "joined_at_completion": sum(
            1 for r in one if r["join_ns"] == r["children"][0]["completed_ns"]),
        "truncated": sum(1 for r in records if r["truncated"]),
        "by_comm": {k: {"records": n, "mean_resp_ns": s / n}
                    for k, (n, s) in by.items()},
        "by_dev": {k: {"records": n, "children": c}
                   for k, (n, c) in dev.items()},
    }


HIST_TITLE = re.compile(r"(response) time|member (\d+) (high|low): (queueing|service) time")
HIST_ROW = re.compile(r"\s+\d+ -> \d+\s+: (\d+)")


def hist_sums(lines):
    """Counts per histogram, summed over every print of it."""
    sums, kind = defaultdict(int), None
    for line in lines:
        t = HIST_TITLE.search(line)
        if t:
            kind = "response" if t.group(1) else f"m{t.group(2)}.{t.group(3)}.{t.group(4)}"
            continue
        row = HIST_ROW.match(line)
        if row and kind:
            sums[kind] += int(row.group(1))
            if ".high." in kind:
                sums["high"] += int(row.group(1))
    return dict(sums)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("file")
    ap.add_argument("--format", choices=["csv", "json", "hist"], default="csv")
    args = ap.parse_args()
    if args.format == "hist":
        with open(args.file) as f:
            print(json.dumps(hist_sums(f), sort_keys=True))
        return 0
    records = (read_csv if args.format == "csv" else read_json)(args.file)
    errors = check(records)
    for e in errors[:20]:
        print(f"# {e}", file=sys.stderr)
    print(json.dumps(summarize(records), sort_keys=True))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
