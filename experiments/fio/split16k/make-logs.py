#!/usr/bin/env python3
"""Write the I/O logs of experiments/fio/seqread-split16k.fio: for each
request size of seed004-graph9 (896 to 1152 KB every 8 KB), REQUESTS = 48
sequential reads from byte 0, each read as its largest multiple of 16 KB
and then, once that is in, the rest -- the split the seed's stack made of
a request that is not a multiple of 16 KB, with the parts in series (its
section 9: "broken up into a series of smaller, serialized requests").
Run from the top of the checkout: python3 experiments/fio/split16k/make-logs.py"""

import os

REQUESTS = 48
UNIT = 16384
HERE = os.path.dirname(os.path.abspath(__file__))

for size in range(917504, 1179648 + 1, 8192):
    body = size // UNIT * UNIT
    lines = ["fio version 2 iolog", "vol add", "vol open"]
    for i in range(REQUESTS):
        lines.append(f"vol read {i * size} {body}")
        if size > body:
            lines.append(f"vol read {i * size + body} {size - body}")
    lines.append("vol close")
    with open(os.path.join(HERE, f"{size}.log"), "w", encoding="ascii") as f:
        f.write("\n".join(lines) + "\n")
