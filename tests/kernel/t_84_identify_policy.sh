# SPDX-License-Identifier: GPL-2.0-only
# ssa identify --policies (Documentation/identify.rst, "Array policies"):
# seed 001's elimination on a device.  Six ssadisk members as the lab's
# seed 001 volumes have them (cheetah73 over its whole stroke, LOOK) carry
# RAID 1/0 volumes of three pairs and 16 KiB chunks whose policies are
# hidden from the tool: the FC-60's (coalesce 1, read_policy split), a
# queue-length balanced one (read_policy queue) and an uncoalesced one
# dealing units over disks and mirrors (coalesce 0, read_policy
# round_robin).  identify measures one member disk (--quick); then, told
# only the volume and that member's results, it measures the geometry
# (--array --quick) and closed-loop reads (ssaload) and fits the four
# model versions.  It must give the geometry and each volume's balance,
# and its coalescing where the model can tell it (under queue-length
# balance it cannot: a disk's units lie back to back, and it must say
# so).  Then an ssacache taking writes of at most two stripes over the
# first volume (seed001-fig9's): identify --policies --destructive must
# say so first and find the write-back limit, 96 KiB.  A wrong answer
# fails.  Clocked: response times held to the model.

identify_policy_hidden() {
	local j rc=0
	mkdir -p "$WORK"
	for ((j = 0; j < 6; j++)); do
		dmsetup create ssat-ipd$j --table "0 131072 ssadisk /dev/ram$j 0 10 preset \
cheetah73 heads 1 cylinders 362 seek_b 499us sched look" ||
			{ fail "member $j refused"; rc=1; }
	done
	# one interpreter for the member and every volume, and ssaload run
	# from the guest's memory: under the instruction clock the guest's
	# time jumps ahead whenever it waits for a file from the host
	cp "$SSALOAD" "$WORK/ssaload" || { fail "no ssaload"; rc=1; }
	[ $rc = 0 ] && OPENBLAS_NUM_THREADS=1 PYTHONPATH="$TOP/tools/pylib" SSALOAD="$WORK/ssaload" \
		"$TOP/.venv/bin/python3" - "$WORK" <<'PY' || rc=1
import json, subprocess, sys, time
from ssa import identify, identify_policy as ip
work = sys.argv[1]
t0 = time.monotonic()
member = identify.run("/dev/mapper/ssat-ipd5", quick=True, budget_s=900,
                      out_dir=f"{work}/ip-disk", echo=lambda m: None)
print(f"# member: {member['summary']} ({time.monotonic() - t0:.0f} s)")
members = " ".join(f"/dev/mapper/ssat-ipd{j} 0" for j in range(6))
bad = 0
# options (hidden from identify), the coalescing and balance it must name
for i, (opts, co, ba) in enumerate([("coalesce 1 read_policy split", True, "transfer"),
                                    ("coalesce 1 read_policy queue", None, "queue"),
                                    ("coalesce 0 read_policy round_robin", False, "transfer")]):
    subprocess.run(["dmsetup", "create", "ssat-ip", "--table",
                    f"0 393216 ssastripe mirror 32 6 {members} 6 copies 2 {opts}"], check=True)
    t0 = time.monotonic()
    try:
        r = ip.run("/dev/mapper/ssat-ip", f"{work}/ip-disk/results.json", mpls=[1, 4, 8],
                   requests=100, out_dir=f"{work}/ip-{i}", quick=True, echo=lambda m: None)
    except (OSError, ValueError) as e:
        print(f"FAIL: volume {i} ({opts}): identify failed: {e}")
        sys.exit(2)
    finally:
        subprocess.run(["dmsetup", "remove", "ssat-ip"], check=True)
    g = r["geometry"]
    ok = (g["layout"], g["copies"], g["width"], g["chunk_bytes"]) == ("mirror", 2, 3, 16384)
    ok = ok and r["coalescing"] is co and r["balance"] == ba
    print(f"# volume {i} ({opts}): {r['summary']}; geometry {g['layout']}, {g['copies']} "
          f"copies, width {g['width']}, chunk {g['chunk_bytes']} "
          f"({time.monotonic() - t0:.0f} s): {'ok' if ok else 'WRONG'}")
    bad += not ok
# the write-back limit (seed 001, 6.4): an ssacache taking writes of at most
# two stripes (96 KiB) over the first volume, as seed001-fig9's; told only
# the cache device and the volume's geometry from above (reads through a
# cache would hide the members' order), writes of 16 to 288 KiB at MPL 1
subprocess.run(["dmsetup", "create", "ssat-ip", "--table",
                f"0 393216 ssastripe mirror 32 6 {members} 6 copies 2 coalesce 1 "
                "read_policy split"], check=True)
subprocess.run(["dmsetup", "create", "ssat-ipc", "--table",
                "0 393216 ssacache /dev/mapper/ssat-ip 32 256 12 low_water 96 high_water 96 "
                "max_dirty 128 destage_depth 8 cache_max 192 transfer_mbps 62"], check=True)
t0 = time.monotonic()
try:
    said = []
    r = ip.run("/dev/mapper/ssat-ipc", f"{work}/ip-disk/results.json",
               f"{work}/ip-0/results.json", units=[6], mpls=[1], requests=60,
               out_dir=f"{work}/ip-cache", destructive=True, echo=said.append)
    w = r["writes"]
    ok = ("--destructive" in said[0] and w["cache"] and w["clear"]
          and w["limit_bytes"] == 96 * 1024)
    print(f"# cache (cache_max 96 KiB): {w['summary']} ({time.monotonic() - t0:.0f} s): "
          f"{'ok' if ok else 'WRONG'}")
    bad += not ok
except (OSError, ValueError) as e:
    print(f"FAIL: the cache: identify failed: {e}")
    bad += 1
finally:
    subprocess.run(["dmsetup", "remove", "ssat-ipc"], check=True)
    subprocess.run(["dmsetup", "remove", "ssat-ip"], check=True)
sys.exit(1 if bad else 0)
PY
	for ((j = 0; j < 6; j++)); do dmsetup remove ssat-ipd$j 2>/dev/null; done
	[ $rc = 0 ] || { fail "a hidden policy was not recovered"; return 1; }
	return 0
}

register_clocked identify_policy_hidden identify_policy_hidden
