#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The workload of the crash tests: N random O_DIRECT writes to a volume
of K consecutive 4 KiB blocks each (K = 1 unless given), one at a time,
each block stamped "SSAW" + the write's sequence number (then the block
number, then filler), with an fsync and a dm-log-writes mark "m<seq>"
after every F writes (the mark says: writes up to <seq> were acknowledged
and flushed).  Writes the sequence to a CSV (seq,block), a row per block.

usage: crash_writer.py DEV LOGWRITES_NAME BLOCKS N F SEED CSV [K]
"""
import mmap
import os
import random
import struct
import subprocess
import sys

BLOCK = 4096


def main(argv):
    if len(argv) not in (8, 9):
        sys.exit(__doc__.strip().splitlines()[-1])
    dev, lw, blocks, n, every, seed, out = argv[1], argv[2], *map(int, argv[3:7]), argv[7]
    k = int(argv[8]) if len(argv) == 9 else 1
    rng = random.Random(seed)
    buf = mmap.mmap(-1, k * BLOCK)
    fd = os.open(dev, os.O_WRONLY | os.O_DIRECT)
    with open(out, "w") as f:
        f.write("seq,block\n")
        for seq in range(1, n + 1):
            b = rng.randrange(blocks - k + 1)
            for i in range(k):
                buf[i * BLOCK:(i + 1) * BLOCK] = (b"SSAW" + bytes(4) + struct.pack("<QQ", seq, b + i)) \
                    .ljust(BLOCK, bytes([seq % 251]))
            if os.pwritev(fd, [buf], b * BLOCK) != k * BLOCK:
                sys.exit(f"short write at block {b}")
            f.writelines(f"{seq},{b + i}\n" for i in range(k))
            if seq % every == 0 or seq == n:
                os.fsync(fd)
                subprocess.run(["dmsetup", "message", lw, "0", "mark", f"m{seq}"], check=True)
    os.close(fd)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
