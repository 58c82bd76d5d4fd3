"""The experiment executor: runs a plan's points where the module is loaded.

``python3 -m ssa.labrun OUTDIR [PLAN]`` reads ``PLAN`` (default
``OUTDIR/plan.json``; written by ``ssa experiment run`` on the host, which
gives each of its guests a ``plan-K.json`` of its own under ``-j N``) and,
for every point in turn, in one boot: loads fresh ramdisks when the point
starts a unit (its devices differ from the point before's, or it is the
first of an experiment), creates the point's ssadisks and volume, starts
``ssatrace record`` on the volume, runs the workload, stops the tracer and
saves the devices' tables and status.  Each point writes its own directory
``OUTDIR/pNN/`` and finishes with ``point.json``, so a run that dies leaves
every finished point readable.  Only the standard library: it runs in the
guest, where time is precious.
"""

from __future__ import annotations

import gc
import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time

TOP = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".."))
SSATRACE = os.path.join(TOP, "build", "ssatrace", "ssatrace")
ATTACH_S = 600
SSALOAD = os.path.join(TOP, "build", "ssaload", "ssaload")
PREFIX = "lab"
_current = None         # the devices in place: (unit, tables) of the last point
_programs: dict = {}    # program -> the command that runs it from guest memory
_memdir = None          # where those copies are (a tmpfs)
_pending: list = []     # (scratch, point dir) of the unit's finished points
# what the programs run from memory get: every symbol bound at start, so
# that no lookup runs (in the loader, over the libraries) mid-measurement
RUN_ENV = dict(os.environ, LD_BIND_NOW="1")


def log(msg: str) -> None:
    print(f"labrun: {msg}", flush=True)


# udev would probe every new device of a point, and through an ssadisk
# each of its reads takes a modelled disk access: minutes of guest time,
# and reads that overlap the workload.  So the executor holds udev's event
# queue for the whole run and lets libdevmapper make the /dev/mapper nodes.
DM_ENV = dict(os.environ, DM_DISABLE_UDEV="1")


def sh(cmd: list[str], check: bool = True, **kw) -> subprocess.CompletedProcess:
    kw.setdefault("env", DM_ENV)
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if check and r.returncode:
        raise RuntimeError(f"{shlex.join(cmd)} failed ({r.returncode}): "
                           f"{(r.stderr or r.stdout).strip()}")
    return r


def dmsetup(*args: str, check: bool = False) -> subprocess.CompletedProcess:
    """dmsetup, from guest memory (``program``)."""
    return sh([*program("dmsetup"), *args], check=check)


def lab_devices() -> list[str]:
    r = dmsetup("ls")
    return [ln.split()[0] for ln in r.stdout.splitlines()
            if ln.split() and ln.split()[0].startswith(PREFIX + "-")]


def teardown() -> None:
    """Remove the lab's devices, the volume before its members, in one call."""
    names = sorted(lab_devices(), key=lambda n: not n.endswith("-vol"))
    if names and dmsetup("remove", *names).returncode:
        for n in names:
            dmsetup("remove", "--retry", n)


def create(devices: list[list[str]]) -> None:
    """All of a point's devices in one dmsetup call (--concise: name,uuid,
    minor,flags,table entries separated by ';'), in order."""
    spec = ";".join(f"{name},,,,{table}" for name, table in devices)
    r = dmsetup("create", "--concise", spec)
    if r.returncode:
        teardown()
        raise RuntimeError(f"dmsetup create --concise failed: {r.stderr.strip()}; "
                           f"kernel: {dmesg_tail()}; tables: {devices}")


def fresh_ramdisks(count: int, mb: int, prefill: int = 0) -> list[str]:
    """Zeroed ramdisks: brd reloaded, so a parity volume created with
    initial_sync off starts in sync whatever the last point wrote.

    With ``prefill`` the first that many are written with zeros end to
    end: brd gives a page its memory (zeroed) at the page's first write,
    and on the guest's one CPU that work would be added to the measured
    writes until every page had been written once (volume.prefill,
    Documentation/experiments.rst)."""
    sh(["rmmod", "brd"], check=False)
    sh(["modprobe", "brd", f"rd_nr={count}", f"rd_size={mb * 1024}"])
    devs = [f"/dev/ram{i}" for i in range(count)]
    for _ in range(100):
        if all(os.path.exists(d) for d in devs):
            break
        time.sleep(0.05)
    else:
        raise RuntimeError(f"brd did not make {count} ramdisks")
    for d in devs[:prefill]:
        sh(["dd", "if=/dev/zero", f"of={d}", "bs=1M", f"count={mb}", "oflag=direct"])
    return devs


def ldd_objects(text: str) -> list[tuple[str, str]]:
    """(name, path) of each shared object in ldd's output, the loader
    (``/lib64/ld-linux-x86-64.so.2 (0x...)``) by its file name."""
    out = []
    for line in text.splitlines():
        w = line.split()
        if len(w) >= 3 and w[1] == "=>" and w[2].startswith("/"):
            out.append((w[0], w[2]))
        elif w and w[0].startswith("/"):
            out.append((os.path.basename(w[0]), w[0]))
    return out


def in_memory(prog: str, into: str) -> list[str]:
    """The command that runs ``prog`` from copies in ``into`` (guest
    memory), or ``[prog]`` where that cannot be made.

    The guest's root is 9p without a cache: every process that maps a
    program or a library gets a fresh inode, so each page of code it
    touches for the first time -- in the middle of a measured run too (a
    path first taken) -- is read from the host, and on the instruction
    clock the guest's time jumps ahead while it waits, by as much as the
    host is slow.  From a tmpfs the same faults are the guest's own
    work.  The loader is copied too, and named as the program, so that
    the tasks keep the program's name (what the analysis selects the
    requests by); RUN_ENV binds every symbol at the start."""
    r = sh(["ldd", prog], check=False)
    objs = ldd_objects(r.stdout)
    loader = [p for n, p in objs if n.startswith("ld-linux")]
    if r.returncode or len(loader) != 1:
        return [prog]
    name = os.path.basename(prog)
    copies = [(p, n) for n, p in objs if not n.startswith("ld-linux")]
    for src, n in copies + [(loader[0], name), (prog, name + ".bin")]:
        # a library another program shares is there already, and maybe
        # mapped: writing it again would end that program (SIGBUS)
        if not os.path.exists(os.path.join(into, n)):
            shutil.copy(src, os.path.join(into, n))
    return [os.path.join(into, name), "--library-path", into, os.path.join(into, name + ".bin")]


def memory_dir(prefix: str) -> str:
    """A new directory in memory (a tmpfs: /dev/shm where there is one)."""
    return tempfile.mkdtemp(prefix=prefix, dir="/dev/shm" if os.path.isdir("/dev/shm") else None)


def program(prog: str) -> list[str]:
    """How to run ``prog``: from guest memory in a guest (once copied,
    for the whole boot), as it is natively (a real page cache)."""
    global _memdir
    if prog not in _programs:
        cmd = [prog]
        if os.environ.get("SSA_VM_NATIVE") != "1":
            try:
                if _memdir is None:
                    _memdir = memory_dir("labrun-bin-")
                cmd = in_memory(shutil.which(prog) or prog, _memdir)
            except OSError as e:
                log(f"{prog} runs from the shared file system ({e})")
        _programs[prog] = cmd
    return _programs[prog]


# In a guest (never natively: the host's settings are not the lab's), the
# memory a point's programs get must not depend on what ran before:
# * no transparent huge pages (Debian's kernel: always).  A first touch of
#   an aligned 2 MiB of anonymous memory (the generator's records, 4 MiB
#   at a time) clears a huge page when one happens to be free: on the
#   instruction clock, where each byte ``rep stosb`` clears counts as an
#   instruction, 17 ms of guest time inside a measured run, and only in
#   the boots whose memory had a free 2 MiB block then (seen: submissions
#   2-78 ms late, at a record index that moved from boot to boot; none
#   in three boots without);
# * no address space randomisation: where that 2 MiB boundary falls, and
#   the alignment the C library's copies work with, move with it.
GUEST_SETTINGS = (("/sys/kernel/mm/transparent_hugepage/enabled", "never"),
                  ("/sys/kernel/mm/transparent_hugepage/defrag", "never"),
                  ("/proc/sys/kernel/randomize_va_space", "0"))


def settle_guest(settings=GUEST_SETTINGS) -> list[str]:
    """Apply ``settings`` (path, value) in a guest; what could not be set."""
    if os.environ.get("SSA_VM_NATIVE") == "1":
        return []
    missed = []
    for path, value in settings:
        try:
            with open(path, "w", encoding="ascii") as f:
                f.write(value)
        except OSError:
            missed.append(path)
    return missed


def start_trace(pdir: str, scratch: str, dev: str) -> subprocess.Popen:
    errf = open(os.path.join(pdir, "ssatrace.log"), "w", encoding="utf-8")
    p = subprocess.Popen([*program(SSATRACE), "record", "-D", dev, "-o",
                          os.path.join(scratch, "trace.csv")], stdout=errf, stderr=errf,
                         env=RUN_ENV)
    # Generous: on the instruction clock every wait of the idle guest for
    # the host (reading ssatrace, its BTF, through the shared file system)
    # jumps the guest's clock to its next timer, so a busy host can make
    # an attach that took a second of real work read as a minute (seen
    # once in 252 points beside three other guests).
    deadline = time.monotonic() + ATTACH_S
    while time.monotonic() < deadline:
        with open(os.path.join(pdir, "ssatrace.log"), encoding="utf-8") as f:
            if "tracing" in f.read():
                return p
        if p.poll() is not None:
            raise RuntimeError(f"ssatrace exited ({p.returncode}); see ssatrace.log")
        time.sleep(0.05)
    p.kill()
    raise RuntimeError(f"ssatrace did not attach within {ATTACH_S} s of guest time")


def stop_trace(p: subprocess.Popen) -> int:
    p.send_signal(signal.SIGINT)
    try:
        return p.wait(timeout=60)
    except subprocess.TimeoutExpired:
        p.kill()
        return p.wait()


def run_workload(point: dict, pdir: str, scratch: str) -> tuple[int, str, dict]:
    """(exit status, comm of the workload's requests, extra point data);
    its files in ``scratch`` (an fio job copied there first)."""
    w = point["workload"]
    dev = f"/dev/mapper/{PREFIX}-vol"
    if w.get("generator", "ssaload") == "fio":
        env = dict(os.environ, DEV=dev)
        for k, v in w.items():
            env[k.upper()] = str(v)
        out = os.path.join(scratch, "fio.json")
        job = os.path.join(scratch, "job.fio")
        with open(os.path.join(scratch, "workload.log"), "w", encoding="utf-8") as lf:
            rc = subprocess.run([*program("fio"), "--output-format=json", f"--output={out}",
                                 job], env=dict(env, LD_BIND_NOW="1"), stdout=lf,
                                stderr=subprocess.STDOUT).returncode
        extra = {}
        try:
            with open(out, encoding="utf-8") as f:
                jobs = json.load(f)["jobs"]
            rd = sum(j["read"]["bw_bytes"] for j in jobs)
            wr = sum(j["write"]["bw_bytes"] for j in jobs)
            extra["fio"] = {"bandwidth_Bps": rd + wr, "read_bw_Bps": rd, "write_bw_Bps": wr,
                            "iops": sum(j["read"]["iops"] + j["write"]["iops"] for j in jobs)}
        except (OSError, ValueError, KeyError) as e:
            extra["notes"] = [f"fio output unreadable: {e}"]
        return rc, "fio", extra
    args = [a.replace(pdir, scratch) for a in point["command"]]
    with open(os.path.join(scratch, "workload.log"), "w", encoding="utf-8") as lf:
        lf.write(shlex.join([SSALOAD] + args) + "\n")
        lf.flush()
        rc = subprocess.run(program(SSALOAD) + args, stdout=lf, stderr=subprocess.STDOUT,
                            env=RUN_ENV).returncode
    return rc, "ssaload", {}


def save_devices(pdir: str, fn: str) -> None:
    with open(os.path.join(pdir, fn), "w", encoding="utf-8") as f:
        for what in ("table", "status", "ls"):
            f.write(f"## dmsetup {what}\n{dmsetup(what).stdout}")


def flush() -> None:
    """Move the finished points' files from guest memory to their
    directories, ``point.json`` last (what says a point ran)."""
    while _pending:
        scratch, pdir = _pending.pop(0)
        os.makedirs(pdir, exist_ok=True)
        names = sorted(os.listdir(scratch), key=lambda n: (n == "point.json", n))
        for fn in names:
            shutil.move(os.path.join(scratch, fn), os.path.join(pdir, fn))
        os.rmdir(scratch)


def run_point(point: dict, plan: dict, outdir: str) -> dict:
    """One point, its files in guest memory until its unit ends (flush).

    From the moment a unit's devices are created to its last point's
    end nothing is read from or written to the host: the programs run
    from guest memory, their files are written there, and only then
    moved to the point directories.  On the instruction clock the guest's
    time leaps ahead while it waits for the host, by as much as the host
    is slow; an emulated disk's spindle turns from the moment its table
    was loaded, so such a leap would set the angle at which the workload
    finds the disks -- and a sequential stream can lock onto one of
    several steady phases (seen: seed004-graph9's reads 10.3 or 9.5 ms,
    by where in the boot the point ran)."""
    pdir = os.path.join(outdir, point["id"])
    done = {"id": point["id"], "status": "failed", "notes": [],
            "generator": point["workload"].get("generator", "ssaload")}
    t0 = time.monotonic()
    phases = done["phases_s"] = {}

    def phase(name: str, since=[t0]) -> None:
        now = time.monotonic()
        phases[name] = round(now - since[0], 3)
        since[0] = now

    # A point whose devices are those of the point before reuses them (the
    # sweep of a rate): a parity volume keeps its parity in sync itself.
    # The host numbers these runs of points (``unit``) and gives a guest
    # whole units, so a point finds the same devices, in the same state,
    # whichever guest runs it: never an earlier unit's.
    global _current
    key = (point.get("unit"), point["devices"])
    if _current != key:
        flush()
        gc.collect()
    scratch = memory_dir("labrun-")
    w = point["workload"]
    # the programs and the job in memory before the devices exist
    for prog in ("dmsetup", SSATRACE, "fio" if w.get("generator") == "fio" else SSALOAD):
        program(prog)
    if w.get("generator") == "fio":
        shutil.copy(os.path.join(TOP, w["job"]), os.path.join(scratch, "job.fio"))
    if _current != key:
        teardown()
        _current = None
        vol = point["volume"]
        backing = fresh_ramdisks(plan["ramdisks"], plan["ramdisk_mb"],
                                 vol["members"] if vol.get("prefill") else 0)
        if backing != [f"/dev/ram{i}" for i in range(plan["ramdisks"])]:
            raise RuntimeError(f"unexpected ramdisks {backing}")
        phase("ramdisks")
        create(point["devices"])
        _current = key
    else:
        done["devices_reused"] = True
    save_devices(scratch, "tables.txt")
    # what ssa compare --tables reads: dmsetup table, then dmsetup ls
    with open(os.path.join(scratch, "volume.tables"), "w", encoding="utf-8") as f:
        f.write(dmsetup("table").stdout)
        f.write(dmsetup("ls").stdout)
    phase("create")
    # behind an array cache the volume's forks are the cache's own I/O:
    # trace them, and measure the requests at the generator
    cached = any(name == f"{PREFIX}-arr" for name, _ in point["devices"])
    if cached:
        done["measure"] = "generator"
        dmsetup("message", f"{PREFIX}-vol", "0", "reset_stats")
    tracer = start_trace(scratch, scratch, f"{PREFIX}-arr" if cached else f"{PREFIX}-vol")
    phase("trace_attach")
    try:
        rc, comm, extra = run_workload(point, pdir, scratch)
        phase("workload")
    finally:
        trc = stop_trace(tracer)
        phase("trace_stop")
    done.update(extra)
    done["comm"] = comm
    done["workload_rc"] = rc
    done["ssatrace_rc"] = trc
    if rc == 0:
        done["status"] = "ok"
    elif rc == 3:
        done["status"] = "outrun"
        done["notes"].append("the arrivals outran the volume (ssaload exit 3): the rate "
                             "is beyond what it can serve; the point's numbers are partial")
    else:
        done["notes"].append(f"the workload exited with status {rc} (workload.log)")
    if trc != 0:
        done["notes"].append(f"ssatrace exited with status {trc} (ssatrace.log)")
    with open(os.path.join(scratch, "ssatrace.log"), encoding="utf-8") as f:
        tl = f.read()
    if " 0 lost" not in tl and "lost" in tl:
        done["notes"].append("ssatrace lost records: " + tl.strip().splitlines()[-1])
    save_devices(scratch, "status.txt")
    if cached:
        with open(os.path.join(scratch, "cache.status"), "w", encoding="utf-8") as f:
            f.write(dmsetup("status", f"{PREFIX}-vol").stdout)
    done["guest_s"] = time.monotonic() - t0
    with open(os.path.join(scratch, "point.json"), "w", encoding="utf-8") as f:
        json.dump(done, f, indent=1)
    _pending.append((scratch, pdir))
    return done


def dmesg_tail() -> str:
    r = sh(["dmesg"], check=False)
    return " | ".join(r.stdout.strip().splitlines()[-3:])


def guest_file(plan_path: str) -> str:
    """Where a plan's guest time goes in each experiment's directory:
    ``guest.json`` for ``plan.json``, ``guest-K.json`` for ``plan-K.json``
    (the host adds a run's shards up)."""
    base = os.path.basename(plan_path)
    tag = base[len("plan"):-len(".json")] if base.startswith("plan") and \
        base.endswith(".json") else ""
    return f"guest{tag}.json"


def main(argv: list[str]) -> int:
    if len(argv) not in (1, 2):
        print("usage: python3 -m ssa.labrun OUTDIR [PLAN] (PLAN: OUTDIR/plan.json)",
              file=sys.stderr)
        return 2
    outdir = argv[0]
    path = argv[1] if len(argv) == 2 else os.path.join(outdir, "plan.json")
    with open(path, encoding="utf-8") as f:
        plans = json.load(f)
    for tool in (SSATRACE, SSALOAD):
        if not os.access(tool, os.X_OK):
            print(f"labrun: {tool} is missing: run make first", file=sys.stderr)
            return 2
    t0 = time.monotonic()
    # stopped from outside (ssa experiment --timeout): still give udev its
    # queue back and remove the devices (the finally below)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    gc.disable()                        # collected between units only (run_point)
    sh(["udevadm", "control", "--stop-exec-queue"], check=False)
    for path in settle_guest():
        log(f"could not set {path}")
    try:
        bad = run_plans(plans, guest_file(path))
    finally:
        flush()
        teardown()
        sh(["rmmod", "brd"], check=False)
        if _memdir:
            shutil.rmtree(_memdir, ignore_errors=True)
        sh(["udevadm", "control", "--start-exec-queue"], check=False)
    log(f"done: {sum(len(p['points']) for p in plans)} points, {bad} not ok, "
        f"{time.monotonic() - t0:.0f} s of guest time")
    return 0


def run_plans(plans: list[dict], guest_json: str = "guest.json") -> int:
    """Every point of every plan in turn; the number not ok."""
    global _current
    bad = 0
    for plan in plans:
        edir = plan["dir"]
        os.makedirs(edir, exist_ok=True)
        e0 = time.monotonic()
        _current = None                 # an experiment starts on fresh devices
        for i, point in enumerate(plan["points"]):
            log(f"{plan['experiment']} {point['id']} ({i + 1}/{len(plan['points'])}) "
                f"{point['label']} {point['params']}")
            try:
                d = run_point(point, plan, edir)
            except (RuntimeError, OSError) as e:
                log(f"{point['id']} failed: {e}")
                bad += 1
                _current = None
                flush()
                teardown()
                os.makedirs(os.path.join(edir, point["id"]), exist_ok=True)
                with open(os.path.join(edir, point["id"], "point.json"), "w",
                          encoding="utf-8") as f:
                    json.dump({"id": point["id"], "status": "failed", "notes": [str(e)]}, f)
                continue
            log(f"{point['id']} {d['status']} in {d['guest_s']:.1f} s of guest time")
            bad += d["status"] != "ok"
        flush()                         # the experiment's last unit ends
        with open(os.path.join(edir, guest_json), "w", encoding="utf-8") as f:
            json.dump({"guest_s": time.monotonic() - e0}, f)
    return bad


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
