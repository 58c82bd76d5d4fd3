"""ssa identify --write-method: a RAID 5's small-write method, from where a write waits.

A write smaller than a stripe must bring its stripe's parity up to date,
and a RAID 5 does that one of two ways: **read-modify-write** (rmw) reads
the old contents of the blocks it writes and the old parity, then writes
both; **reconstruct-write** (rcw) reads the stripe's *other* data chunks
and computes the parity afresh.  Linux md chooses per stripe whichever
needs fewer reads, rcw on a tie (``handle_stripe_dirtying()`` in
``raid5.c``): on four members a one-block write is a tie (two reads
either way), on five or more rmw reads fewer.  ssastripe's
``write_method`` sets it (``auto`` chooses as md does).

The two differ in which members a small write touches, and --array's
probe can see that: ``m`` reads queued on one member, then, in the same
batch, a 4 KiB write.  If the write needs that member (a read or a write
there) it completes behind all m reads; if not, it completes in two or
three turns, before the last of them.  Three roles, on stripes not used
before (a RAID's stripe cache may still hold a stripe it wrote):

* **other**: a data member of the write's stripe that the write does
  not write.  rcw reads it; rmw does not touch it.  This one decides.
* **target** and **parity**: the members the write writes.  Both
  methods wait there: the controls.  A write that completes before the
  reads on them does not reach the members before it completes (a
  write-back cache), or the parity is not where left-symmetric puts it:
  then the method is not told.

The device must be a raid5 left-symmetric array as ``--array`` names it
(md's default layout, and ssastripe's).  **Writes**: each probe first
reads the 4 KiB block it will write and writes the same bytes back, and
reads it again afterwards; the data is unchanged unless something else
writes the device meanwhile, which is why the command needs
``--destructive`` and says so first.  The analysis (``ls_*``,
``waited``, ``decide_method``) is pure; ``measure_write_method`` drives
a device (or a model of one: ``sectors``, ``unit``, ``batch``, ``slot``,
``read_block``, ``open_for_writes``).
"""

from __future__ import annotations

import os
import random
import sys
import time
from collections import Counter

from .identify import SECTOR, Budget, IdentifyError

WBYTES = 4096               # the probe's write: one 4 KiB block, aligned
ANCHORS = 6                 # reads queued ahead of it on one member

DESTRUCTIVE = ("identify: {device}: --destructive: 4 KiB writes to the device, each "
               "writing back what it just read; anything else writing the device "
               "meanwhile may lose data")


# -- raid5 left-symmetric over n members (md's raid5_compute_sector()) -----------------

def ls_parity(row: int, n: int) -> int:
    """The member holding stripe ``row``'s parity."""
    return n - 1 - row % n


def ls_member(k: int, n: int) -> int:
    """The member holding data chunk ``k`` (it sits at row k // (n - 1))."""
    return k % n


def ls_chunk(member: int, row: int, n: int) -> int | None:
    """The data chunk of stripe ``row`` on ``member`` (None: its parity)."""
    p = ls_parity(row, n)
    if member == p:
        return None
    return row * (n - 1) + (member - p - 1) % n


def waited(rank: int, m: int) -> bool:
    """Did the write (completed ``rank``-th, 1-based) wait behind all m reads?"""
    return rank > m


def decide_method(votes: dict[str, list[bool]]) -> tuple[str | None, str]:
    """(method, why) from each role's waits: rcw if the write waits on
    the stripe's other data member, rmw if not; None when a control
    (target, parity) does not wait in most probes."""
    def most(role):
        v = votes.get(role, [])
        return bool(v) and sum(v) * 2 > len(v)
    for role in ("target", "parity"):
        if not most(role):
            return None, (f"the write did not wait behind the reads on its {role} member: "
                          "it completes before it reaches the members (a write-back "
                          "cache?), or the parity is not where left-symmetric puts it")
    return ("rcw", "it waits behind the reads on the stripe's other data member: it "
            "reads that member") if most("other") else (
            "rmw", "it does not wait on the stripe's other data member: it reads "
            "only what it writes")


# -- the probe ----------------------------------------------------------------------------

def plan(rows: int, n: int, chunk: int, unit: int, rng: random.Random, used: set[int],
         role: str) -> dict:
    """One probe: the write's stripe (not in ``used``), its target block,
    and ``ANCHORS`` read sectors on the member that ``role`` names, in a
    chunk of another stripe."""
    def fresh(ok=lambda r: True) -> int:
        for _ in range(64 * len(used) + 64):
            r = rng.randrange(rows)
            if r not in used and ok(r):
                return r
        raise IdentifyError("write method: the device has too few stripes left to probe")
    row = fresh()
    used.add(row)
    p = ls_parity(row, n)
    data = [mb for mb in range(n) if mb != p]
    target = rng.choice(data)
    member = {"target": target, "parity": p,
              "other": rng.choice([mb for mb in data if mb != target])}[role]
    k = ls_chunk(target, row, n)
    blocks = chunk * SECTOR // WBYTES
    w = k * chunk + rng.randrange(blocks) * (WBYTES // SECTOR)
    # the reads: a chunk of another stripe on that member, descending
    row2 = fresh(lambda r: ls_parity(r, n) != member)
    k2 = ls_chunk(member, row2, n)
    lo = k2 * chunk
    top = rng.randrange(ANCHORS, chunk // unit) if chunk // unit > ANCHORS else ANCHORS
    reads = [lo + ((top - i) % (chunk // unit)) * unit for i in range(ANCHORS)]
    return {"role": role, "row": row, "target_member": target, "parity_member": p,
            "member": member, "write": w, "reads": reads}


def probe(dev, pl: dict) -> int:
    """Run one planned probe: the write's rank among the completions."""
    m = len(pl["reads"])
    buf = dev.slot(m)
    before = dev.read_block(pl["write"], buf)
    done = dev.batch(pl["reads"] + [pl["write"]], writes={m: WBYTES})
    after = dev.read_block(pl["write"], buf)
    if after != before:
        raise IdentifyError(f"the block at sector {pl['write']} changed while it was "
                            "probed: something else writes the device; stopped")
    return [i for i, _ in done].index(m) + 1


def measure_write_method(dev, geometry: dict, quick: bool = False, budget_s: float = 300.0,
                         echo=print, seed: int | None = None) -> dict:
    """The small-write method of ``dev`` (a path or a model), whose
    ``geometry`` is --array's result: raid5 left-symmetric, its chunk and
    members."""
    if geometry.get("layout") != "raid5" or geometry.get("parity") != "left-symmetric":
        raise IdentifyError("write method: needs a raid5 left-symmetric array (as --array "
                            f"names it); this one is {geometry.get('layout')}"
                            + (f" ({geometry['parity']})" if geometry.get("parity") else ""))
    n, chunk = geometry["members"], geometry["chunk_sectors"]
    if chunk * SECTOR < WBYTES:
        raise IdentifyError(f"write method: a chunk of {chunk} sectors is smaller than "
                            f"the {WBYTES}-byte probe write")
    own = isinstance(dev, str)
    if own:
        dev = _WriteDevice(dev)
    try:
        dev.open_for_writes()
        budget = Budget(budget_s)
        rng = random.Random(seed if seed is not None else time.time_ns())
        rows = dev.sectors // (chunk * (n - 1))
        reps = 3 if quick else 5
        used: set[int] = set()
        probes, votes = [], {"other": [], "target": [], "parity": []}
        echo(f"identify: write method ({reps} probes a role: {ANCHORS} reads queued on one "
             f"member, then a {WBYTES // 1024} KiB write)")
        for _ in range(reps):
            for role in ("other", "target", "parity"):
                budget.check("the write-method probes")
                pl = plan(rows, n, chunk, dev.unit, rng, used, role)
                pl["rank"] = probe(dev, pl)
                pl["waited"] = waited(pl["rank"], ANCHORS)
                votes[role].append(pl["waited"])
                probes.append(pl)
        method, why = decide_method(votes)
        agree = min(max(Counter(v).values()) / len(v) for v in votes.values())
        for role in ("other", "target", "parity"):
            ranks = [p["rank"] for p in probes if p["role"] == role]
            echo(f"identify:   {role:7s} member: the write's ranks {ranks} "
                 f"(after all {ANCHORS} reads: rank > {ANCHORS})")
        out = {"method": method, "why": why, "agreement": agree, "probes": probes,
               "anchors": ANCHORS, "write_bytes": WBYTES,
               "writes": len(probes), "reads": getattr(dev, "reads", None)}
        out["summary"] = (f"write method: {method or 'cannot tell'} -- {why} "
                          f"(agreement {agree:.2f}, {len(probes)} probes)")
        return out
    finally:
        if own:
            dev.close()


def _WriteDevice(path: str):
    """identify_array's BatchDevice with a block read into a slot."""
    from .identify_array import BatchDevice

    class WriteDevice(BatchDevice):
        def read_block(self, sector: int, buf: memoryview) -> bytes:
            try:
                got = os.preadv(self.dev.fd, [buf[:WBYTES]], sector * SECTOR)
            except OSError as e:
                raise IdentifyError(f"{self.path}: read of sector {sector} failed: "
                                    f"{e.strerror}") from e
            if got != WBYTES:
                raise IdentifyError(f"{self.path}: short read at sector {sector}")
            return bytes(buf[:WBYTES])
    return WriteDevice(path)


def main(argv: list[str] | None = None, prog: str = "python3 -m ssa.identify_write") -> int:
    import argparse
    import json
    ap = argparse.ArgumentParser(
        prog=prog, description="A raid5's small-write method (read-modify-write or "
        "reconstruct-write), from where a 4 KiB write waits. Writes: needs --destructive.")
    ap.add_argument("device")
    ap.add_argument("--destructive", action="store_true",
                    help="allow the probe's writes (each writes back what it just read)")
    ap.add_argument("--geometry", metavar="FILE",
                    help="results.json of `identify --array DEVICE --out DIR` (default: "
                         "measured first, with --array --quick)")
    ap.add_argument("--quick", action="store_true", help="3 probes a role instead of 5")
    ap.add_argument("--seed", type=int)
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    echo = lambda m: print(m, file=sys.stderr, flush=True)     # noqa: E731
    if not a.destructive:
        print(f"{prog.split()[-1]}: the write method is measured by writes: give "
              "--destructive (each probe writes back what it read)", file=sys.stderr)
        return 2
    echo(DESTRUCTIVE.format(device=a.device))
    try:
        if a.geometry:
            with open(a.geometry) as f:
                geo = json.load(f)
            geo = geo.get("result", geo)
        else:
            from .identify_array import measure_array
            geo = measure_array(a.device, quick=True, seed=a.seed, echo=echo)["result"]
        out = measure_write_method(a.device, geo, quick=a.quick, seed=a.seed, echo=echo)
    except (OSError, ValueError, KeyError, IdentifyError) as e:
        print(f"{prog.split()[-1]}: {e}", file=sys.stderr)
        return 2
    print(json.dumps(out, sort_keys=True, default=float) if a.json else out["summary"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
