"""The experiment lab's host side: boots the guest that runs the executor
(``ssa.labrun``) over a run's plan, watches its log, stops it on
``--timeout`` and summarises each experiment (``ssa.experiment``) when it
ends.  ``ssa.experiment`` re-exports these names for its callers."""

from __future__ import annotations

import json
import os

from . import experiment as ex


def resolve(names: list[str], cat: dict) -> list[str]:
    """Experiment names as given (``all`` for the catalogue), checked."""
    if names == ["all"]:
        return list(cat)
    unknown = [n for n in names if n not in cat]
    if unknown:
        raise ex.SpecError(f"unknown experiment(s) {', '.join(unknown)}; "
                           f"`ssa experiment list` shows the {len(cat)} there are")
    return names


def vm_command(clock: str, outdir: str) -> list[str]:
    """tools/vm's command line that runs the executor on ``clock``."""
    top = os.path.dirname(ex.spec_dir())
    where = {"icount": ["-i"], "tcg": ["--guest"], "native": ["--native"]}[clock]
    inner = f"PYTHONPATH=tools/pylib python3 -m ssa.labrun {outdir}"
    return [os.path.join(top, "tools", "vm"), *where, "-o", outdir, "--", inner]


def _done_ok(pdir: str) -> bool:
    return ex._read_json(os.path.join(pdir, "point.json")).get("status") == "ok"


def _stop_group(p) -> None:
    """SIGTERM to a child's process group, SIGKILL after 30 s."""
    import signal
    import subprocess
    for sig, wait in ((signal.SIGTERM, 30), (signal.SIGKILL, 10)):
        try:
            os.killpg(p.pid, sig)
        except ProcessLookupError:
            return
        try:
            p.wait(timeout=wait)
            break
        except subprocess.TimeoutExpired:
            continue
    try:                                        # what outlived the leader
        os.killpg(p.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


class _LogWatch:
    """The host's time at which each experiment's first point appears in
    run.log ("labrun: NAME pNN ..."), read as the guest writes it: in one
    boot only the host can tell how long each experiment took (the
    guest's clock is the instruction count's, not the host's)."""

    def __init__(self, path: str, t0: float):
        import time
        self.path, self.t0, self.pos, self.first = path, t0, 0, {}
        self._now = time.monotonic

    def poll(self) -> None:
        try:
            with open(self.path, encoding="utf-8", errors="replace") as f:
                f.seek(self.pos)
                text = f.read()
        except OSError:
            return
        end = text.rfind("\n") + 1             # whole lines only
        self.pos += len(text[:end].encode("utf-8", errors="replace"))
        t = self._now() - self.t0
        for line in text[:end].splitlines():
            w = line.split()
            if len(w) >= 3 and w[0] == "labrun:" and w[2].startswith("p") and "(" in line:
                self.first.setdefault(w[1], t)


def experiment_walls(first: dict, names: list[str], end: float) -> dict:
    """Each experiment's own wall time in a run of several: from when its
    first point was seen to when the next experiment's was (the last one
    to ``end``).  Experiments never seen (nothing ran) are left out."""
    started = sorted((t, n) for n, t in first.items() if n in names)
    out = {}
    for i, (t, n) in enumerate(started):
        out[n] = (started[i + 1][0] if i + 1 < len(started) else end) - t
    return out


def run(names: list[str], quick: bool, clock: str, out: str, timeout: float | None = None,
        echo=print, resume: bool = False) -> list[dict]:
    """Run experiments in one boot on ``clock`` and summarise each.  One
    experiment writes into ``out``; several into ``out/NAME``."""
    import subprocess
    import time
    if clock not in ex.CLOCKS:
        raise ex.SpecError(f"--clock must be one of {', '.join(ex.CLOCKS)}")
    cat = ex.catalogue()
    names = resolve(names, cat)
    out = os.path.abspath(out)
    os.makedirs(out, exist_ok=True)
    dirs = {n: out if len(names) == 1 else os.path.join(out, n) for n in names}
    plans = []
    for n in names:
        os.makedirs(dirs[n], exist_ok=True)
        for old in ("results.json", "report.md"):
            if os.path.exists(os.path.join(dirs[n], old)):
                os.remove(os.path.join(dirs[n], old))
        pl = ex.plan(cat[n], quick, clock, dirs[n])
        if resume:                              # keep the points that ran ok
            pl["points"] = [p for p in pl["points"]
                            if not _done_ok(os.path.join(dirs[n], p["id"]))]
        if pl["points"]:
            plans.append(pl)
    if not plans:
        echo("ssa experiment: every point has run already (--resume)")
    if plans:
        with open(os.path.join(out, "plan.json"), "w", encoding="utf-8") as f:
            json.dump(plans, f, indent=1)
    cmd = vm_command(clock, out)
    echo(f"ssa experiment: {', '.join(names)} ({sum(len(p['points']) for p in plans)} points, "
         f"{'quick, ' if quick else ''}{clock} clock); log: {os.path.join(out, 'run.log')}")
    t0 = time.monotonic()
    rc = None
    with open(os.path.join(out, "run.log"), "a" if resume else "w", encoding="utf-8") as logf:
        if not plans:
            cmd = ["true"]
        p = subprocess.Popen(cmd, stdout=logf, stderr=subprocess.STDOUT,
                             start_new_session=True)
        seen = _LogWatch(os.path.join(out, "run.log"), t0)
        while rc is None:
            try:
                rc = p.wait(timeout=1)
            except subprocess.TimeoutExpired:
                seen.poll()
                if timeout is not None and time.monotonic() - t0 > timeout:
                    # the whole group: the emulator (or, natively, the
                    # executor, which restores udev's queue on SIGTERM),
                    # then what is left
                    logf.write(f"\nssa experiment: stopped after {timeout:.0f} s\n")
                    _stop_group(p)
                    rc = "timeout"
        seen.poll()
    wall = time.monotonic() - t0
    own = experiment_walls(seen.first, names, wall)
    results = []
    for n in names:
        r = ex.summarise(cat[n], dirs[n], quick, clock, wall, len(names), own_wall_s=own.get(n))
        if rc not in (0, None):
            r["failures"].append(f"the {'guest' if clock != 'native' else 'run'} ended "
                                 f"with status {rc} (see {os.path.join(out, 'run.log')})")
            with open(os.path.join(dirs[n], "results.json"), "w", encoding="utf-8") as f:
                json.dump(ex.nan_to_none(r), f, indent=1, sort_keys=True)
            with open(os.path.join(dirs[n], "report.md"), "w", encoding="utf-8") as f:
                f.write(ex.report_md(r))
        r["dir"] = dirs[n]
        results.append(r)
    return results
