# SPDX-License-Identifier: GPL-2.0-only
"""Raw access to a volume's members for the checkers that look past the
module (check_parity.py, check_srarray.py): a table's member as a device
node, and bytes as they are on the device."""
import mmap
import os

SECTOR = 512


def devnode(dev):
    """/dev path of a table's member: a MAJ:MIN pair or already a path."""
    if ":" not in dev:
        return dev
    with open(f"/sys/dev/block/{dev}/uevent") as f:
        for line in f:
            if line.startswith("DEVNAME="):
                return "/dev/" + line.strip().split("=", 1)[1]
    raise SystemExit(f"no device node for {dev}")


def read_direct(path, sector, nbytes):
    """nbytes from sector on, as on the device, read with O_DIRECT: the
    module writes members with bios, so a page cached earlier (udev's probe
    of a new device, say) would be stale."""
    buf = mmap.mmap(-1, max(nbytes, 1))     # page-aligned, as O_DIRECT wants
    fd = os.open(path, os.O_RDONLY | os.O_DIRECT)
    try:
        got = os.preadv(fd, [buf], sector * SECTOR)
    finally:
        os.close(fd)
    if got != nbytes:
        raise SystemExit(f"{path}: short read ({got} of {nbytes})")
    return bytes(buf[:nbytes])
