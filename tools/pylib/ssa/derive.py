"""Tables derived from a whole experiment's points (``[derive]`` in a spec).

``derive(spec, results, outdir)`` returns ``{"sections": [{"title": ...,
"markdown": ...}], "data": {...}, "figures": [...]}``: report.md prints
each section after the points' table, results.json keeps ``data``.
A deriver gets the spec and the results (points already analysed and
modelled) and must not change them.
"""

from __future__ import annotations

DERIVERS: dict = {}


def deriver(name):
    def reg(fn):
        DERIVERS[name] = fn
        return fn
    return reg


def derive(spec: dict, results: dict, outdir: str) -> dict:
    kind = spec["derive"].get("kind")
    if kind not in DERIVERS:
        raise ValueError(f"[derive] kind {kind!r} unknown; known: {', '.join(DERIVERS)}")
    return DERIVERS[kind](spec, results, outdir)
