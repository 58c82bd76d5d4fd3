#!/usr/bin/env python3
"""Check a dm-ssastripe ftrace capture against the dispatcher's rules.

Reads the text of /sys/kernel/tracing/trace (best captured with the
"counter" trace clock, which orders events across CPUs exactly) and checks:

  lifecycle  every fork is joined once; each child is queued, dispatched and
             completed in that order, inside its request's fork..join; a
             request has the number of children its fork announced; a
             request event (if enabled) follows its join and counts the
             children that completed, and every request forked after the
             first request event has one
  depth      with --depth D, no member ever has more than D children
             dispatched and not completed
  priority   with --priority on: a low-priority child is never dispatched
             while a high-priority child waits on its member, and each class
             is served first in, first out; with --priority off: each member
             serves all its children first in, first out

A raid5/pstripe task is one unit of service of two children: its write
(child c + 1: same request, member, member sector and length as its read c)
goes out in the dispatch slot the read held, without queueing.  Such a
continuation keeps the member busy from the read's dispatch to the write's
completion (depth) and is not a scheduling decision (priority).

Prints TAP-style diagnostics and a JSON summary line of the counts (also
forks per submitting task, since fork events fire in the submitter's
context); exits 1 on any violation.  Usage:
  check_trace.py TRACE [--depth D] [--priority on|off] [--summary FILE]
"""
import argparse
import json
import re
import sys
from collections import defaultdict, deque

EVENT = re.compile(
    r"^\s*(?P<task>\S.*?)-(?P<pid>\d+)\s+\[(?P<cpu>\d+)\]\s+\S+\s+"
    r"(?P<ts>\d+(?:\.\d+)?):\s+"
    r"ssastripe_(?P<ev>\w+):\s+(?P<rest>.*)$")
OPS = {"read", "write", "flush", "discard", "write_zeroes", "other"}
CLASSES = {"high", "low"}


def parse_line(line):
    """One trace line -> dict (event, fields), or None for other lines."""
    m = EVENT.match(line)
    if not m:
        return None
    ev = {"ev": m.group("ev"), "ts": float(m.group("ts")),
          "task": m.group("task").strip()}
    for tok in m.group("rest").split():
        if "=" in tok:
            k, v = tok.split("=", 1)
            ev[k] = int(v) if v.lstrip("-").isdigit() else v
        elif tok in OPS:
            ev["op"] = tok
        elif tok in CLASSES:
            ev["class"] = tok
        elif ":" in tok:
            ev["dev"] = tok
    return ev


def parse(text):
    """All events in file order, plus the ring buffer's lost-event note."""
    events = [e for e in map(parse_line, text.splitlines()) if e]
    lost = None
    m = re.search(r"entries-in-buffer/entries-written:\s*(\d+)/(\d+)", text)
    if m and m.group(1) != m.group(2):
        lost = int(m.group(2)) - int(m.group(1))
    return events, lost


def child_key(ev):
    return (ev["dev"], ev["id"], ev["child"])


def check_lifecycle(events):
    """Forks, joins and children each in order; returns (errors, counts)."""
    errors = []
    forks, joins, records = {}, set(), set()
    stage = {}              # child -> last stage seen
    placed = {}             # srarray child -> bsector of its place event
    children = defaultdict(int)
    order = {"child_queue": 0, "child_dispatch": 1, "child_complete": 2}
    counts = defaultdict(int)
    first_record = None     # position of the first request event
    for pos, ev in enumerate(events):
        name = ev["ev"]
        counts[name] += 1
        if name == "fork":
            key = (ev["dev"], ev["id"])
            if key in forks:
                errors.append(f"request {key} forked twice")
            forks[key] = dict(ev, pos=pos)
        elif name == "join":
            key = (ev["dev"], ev["id"])
            if key not in forks:
                errors.append(f"join of unknown request {key}")
            elif key in joins:
                errors.append(f"request {key} joined twice")
            else:
                want = forks[key]["children"]
                if children[key] != want:
                    errors.append(f"request {key}: {children[key]} children "
                                  f"completed, fork announced {want}")
            joins.add(key)
        elif name == "request":
            key = (ev["dev"], ev["id"])
            if first_record is None:
                first_record = pos
            if key not in joins or key in records:
                errors.append(f"request event of {key} not once after its join")
            records.add(key)
            # fewer only when the record had no room for them all
            valid, issued = map(int, str(ev["children"]).split("/"))
            if valid > children[key] or \
                    (valid < children[key] and valid >= issued):
                errors.append(f"request event of {key}: {valid} children "
                              f"recorded, {children[key]} completed")
        elif name == "place":
            key = child_key(ev)
            if stage.get(key, -1) != 0 or key in placed:
                errors.append(f"child {key}: placed at stage "
                              f"{stage.get(key, -1)}, not once after queue")
            placed[key] = ev["bsector"]
        elif name in order:
            key = child_key(ev)
            if name == "child_dispatch" and key in placed and \
                    placed.pop(key) != ev["bsector"]:
                errors.append(f"child {key}: dispatched to sector "
                              f"{ev['bsector']}, not where it was placed")
            req = (ev["dev"], ev["id"])
            if ev["id"] != 0:           # 0: internal work, no request
                if req not in forks:
                    errors.append(f"child {key} before its fork")
                elif req in joins:
                    errors.append(f"child {key} after its join")
            want = order[name]
            have = stage.get(key, -1)
            if have != want - 1:
                errors.append(f"child {key}: {name} after stage {have}")
            stage[key] = want
            if name == "child_complete":
                children[req] += 1
                del stage[key]
    for key in forks:
        if key not in joins:
            errors.append(f"request {key} never joined")
    # The events are switched on one after another, so a request may fork
    # before its request event is on; after the first one, none may.
    if first_record is not None:
        for key in joins - records:
            if key in forks and forks[key]["pos"] > first_record:
                errors.append(f"request {key} joined without a request event")
    for key, st in stage.items():
        errors.append(f"child {key} stopped at stage {st}")
    return errors, dict(counts)


def continuations(events):
    """{first child: its continuation} of the two-child units of service."""
    done = {}
    cont = {}
    for ev in events:
        if ev["ev"] == "child_complete" and ev["id"]:
            done[child_key(ev)] = (ev["member"], ev["msector"], ev["len"],
                                   ev["op"])
        elif ev["ev"] == "child_queue" and ev["id"] and ev["child"]:
            prev = (ev["dev"], ev["id"], ev["child"] - 1)
            p = done.get(prev)
            if p and p[:3] == (ev["member"], ev["msector"], ev["len"]) and \
                    p[3] == "read" and ev["op"] == "write":
                cont[prev] = child_key(ev)
    return cont


def check_depth(events, depth, cont=None):
    """No member has more than `depth` children in service at once."""
    cont = cont or {}
    heirs = set(cont.values())
    errors = []
    busy = defaultdict(set)
    peak = defaultdict(int)
    for ev in events:
        m = (ev["dev"], ev.get("member"))
        key = child_key(ev) if "child" in ev else None
        if ev["ev"] == "child_dispatch":
            if key in heirs:        # takes over its read's slot
                busy[m].discard(("held", key))
            busy[m].add(key)
            peak[m] = max(peak[m], len(busy[m]))
            if len(busy[m]) > depth:
                errors.append(f"member {m}: {len(busy[m])} children in "
                              f"service at once (depth {depth})")
        elif ev["ev"] == "child_complete":
            busy[m].discard(key)
            if key in cont:         # the slot stays taken for the write
                busy[m].add(("held", cont[key]))
    return errors, dict(peak)


def check_priority(events, priority, cont=None):
    """Non-preemptive two-class FIFO (priority on) or one FIFO (off)."""
    heirs = set((cont or {}).values())
    errors = []
    waiting = defaultdict(lambda: {"high": deque(), "low": deque()})
    fifo = defaultdict(deque)
    overtaken = 0           # low dispatches while a high child waited
    jumped = 0              # high dispatches while a low child waited
    for ev in events:
        m = (ev["dev"], ev["member"]) if "member" in ev else None
        if "child" in ev and child_key(ev) in heirs:
            continue                # the rest of a unit already in service
        if ev["ev"] == "child_queue":
            waiting[m][ev["class"]].append(child_key(ev))
            fifo[m].append(child_key(ev))
        elif ev["ev"] == "child_dispatch":
            key, cls = child_key(ev), ev["class"]
            w = waiting[m]
            if cls == "high" and w["low"]:
                jumped += 1
            if priority:
                if cls == "low" and w["high"]:
                    errors.append(f"member {m}: low child {key} dispatched "
                                  f"while high {w['high'][0]} waited")
                if not w[cls] or w[cls][0] != key:
                    errors.append(f"member {m}: {cls} child {key} "
                                  f"dispatched out of FIFO order")
            else:
                if not fifo[m] or fifo[m][0] != key:
                    errors.append(f"member {m}: child {key} dispatched out "
                                  f"of FIFO order")
                if cls == "low" and w["high"]:
                    overtaken += 1
            if key in w[cls]:
                w[cls].remove(key)
            if key in fifo[m]:
                fifo[m].remove(key)
    return errors, overtaken, jumped


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("trace")
    ap.add_argument("--depth", type=int, default=0)
    ap.add_argument("--priority", choices=["on", "off"])
    ap.add_argument("--summary", help="write the JSON summary here too")
    args = ap.parse_args()

    events, lost = parse(open(args.trace, encoding="utf-8").read())
    errors = []
    if lost:
        errors.append(f"the trace lost {lost} events (buffer too small)")
    if not events:
        errors.append("no ssastripe events in the trace")
    errs, counts = check_lifecycle(events)
    errors += errs
    cont = continuations(events)
    summary = {"counts": counts}
    if args.depth:
        errs, peak = check_depth(events, args.depth, cont)
        errors += errs
        summary["peak_in_service"] = max(peak.values(), default=0)
    if args.priority:
        errs, overtaken, jumped = check_priority(events, args.priority == "on",
                                                cont)
        errors += errs
        summary["high_behind_low"] = overtaken
        summary["high_ahead_of_low"] = jumped
    by_task = defaultdict(int)
    for e in events:
        if e["ev"] == "fork":
            by_task[e["task"]] += 1
    summary["forks_by_task"] = dict(by_task)
    high = [e for e in events if e["ev"] == "child_dispatch"
            and e.get("class") == "high"]
    summary["high_dispatched"] = len(high)
    for e in errors[:20]:
        print(f"# {e}")
    if len(errors) > 20:
        print(f"# ... and {len(errors) - 20} more")
    line = json.dumps(summary, sort_keys=True)
    print(line)
    if args.summary:
        with open(args.summary, "w", encoding="utf-8") as f:
            f.write(line + "\n")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
