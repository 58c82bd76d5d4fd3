"""A stand-in for ``tools/vm ... python3 -m ssa.labrun OUTDIR [PLAN]`` in
the runner's tests (test_runner.py): the executor's own loop over the
plan (``labrun.run_plans``: its log lines, its guest time files, its
rule for keeping devices) with each point's work replaced by a point
directory made up from the point alone -- and from how many points have
run on the same devices before it, as a real volume's state would, so
that a unit split between guests would show in the results.

``FAKE_LAB_CORRELATED=pNN,...`` makes those points' responses drift
slowly (their batch means correlated).  ``FAKE_LAB_DIE=K:M`` kills guest K (the guest of plan-K.json) before its
M-th point, the way an emulator killed by the OOM killer ends.

Usage: python3 fake_labrun.py OUTDIR [PLAN]
"""

import json
import math
import os
import random
import signal
import sys
import zlib

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools", "pylib"))
from ssa import labrun  # noqa: E402

HDR = ("fork_ns,join_ns,dev,id,op,sector,len,comm,status,nr_children,resp_ns,"
       "max_wait_ns,max_service_ns,skew_ns,children,truncated")
_age = {"key": None, "n": 0}
_count = [0]


def _die_here(plan_path: str) -> bool:
    want = os.environ.get("FAKE_LAB_DIE", "")
    if not want:
        return False
    k, m = want.split(":")
    tag = labrun.guest_file(plan_path)[len("guest"):-len(".json")]
    return tag == f"-{k}" and _count[0] + 1 == int(m)


def fake_point(point: dict, plan: dict, outdir: str, plan_path: str) -> dict:
    if _die_here(plan_path):
        os.kill(os.getpid(), signal.SIGKILL)
    _count[0] += 1
    key = (point.get("unit"), point["devices"])
    if labrun._current != key:                  # fresh devices: a new unit
        labrun._current, _age["n"] = key, 0
    else:
        _age["n"] += 1
    rate = point["workload"].get("rate", 10)
    # FAKE_LAB_CORRELATED=pNN,...: those points' responses drift slowly
    # (batch means correlated, as near saturation); their extra runs not
    corr = set(os.environ.get("FAKE_LAB_CORRELATED", "").split(","))
    rng = random.Random(zlib.crc32(f"{plan['experiment']} {point['id']}".encode()))
    pdir = os.path.join(outdir, point["id"])
    os.makedirs(pdir, exist_ok=True)
    t, rows, recs = 10 ** 9, [], []
    for i in range(240):
        t += int(rng.expovariate(rate) * 1e9)
        op = "read" if i % 4 == 0 else "write"
        drift = 0.01 * math.sin(i / 40) if point["id"] in corr else 0.0
        resp = int(((0.02 if op == "read" else 0.05) + 0.001 * _age["n"]
                    + rng.random() * 0.004 + drift) * 1e9)
        kid = f"0:low:{t}:{t}:{t + resp}:0:8"
        rows.append(f"{t},{t + resp},254:16,{i},{op},0,8,ssaload,0,1,{resp},0,{resp},0,{kid},0")
        if i >= 40:
            recs.append(f"{i - 40},0,{op},0,4096,{t - 1000},{t - 500},{t + resp},0")
    with open(os.path.join(pdir, "trace.csv"), "w") as f:
        f.write(HDR + "\n" + "\n".join(rows) + "\n")
    with open(os.path.join(pdir, "records.csv"), "w") as f:
        f.write("id,client,op,offset,len,arrival_ns,submit_ns,complete_ns,status\n"
                + "\n".join(recs) + "\n")
    with open(os.path.join(pdir, "summary.json"), "w") as f:
        json.dump({"rate": rate, "arrival_cv2": 1.0, "outrun": False, "response": {}}, f)
    done = {"id": point["id"], "status": "ok", "comm": "ssaload", "generator": "ssaload",
            "notes": [], "guest_s": 1.0}
    with open(os.path.join(pdir, "point.json"), "w") as f:
        json.dump(done, f)
    return done


def main(argv: list[str]) -> int:
    outdir = argv[0]
    path = argv[1] if len(argv) > 1 and argv[1] else os.path.join(outdir, "plan.json")
    with open(path) as f:
        plans = json.load(f)
    labrun.run_point = lambda p, pl, od: fake_point(p, pl, od, path)
    labrun.run_plans(plans, labrun.guest_file(path))
    labrun.log("done")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
