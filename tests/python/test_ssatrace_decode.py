"""ssatrace decode on files made here: format 2 (the ring buffer's own
8-byte headers, discarded samples in place, padding to 8 bytes) and
format 1 (a byte count before each sample) give the same lines; a
discarded sample is skipped; a file cut inside a sample or inside a
header is refused with the records before the cut.  The recorded path
is checked against a live recording in tests/kernel (ssatrace_record_bin,
ssadisk_ssatrace)."""
import json
import struct
import subprocess
from pathlib import Path

import pytest

SSATRACE = Path(__file__).resolve().parents[2] / "build" / "ssatrace" / "ssatrace"
DISCARD = 1 << 30

pytestmark = pytest.mark.skipif(not SSATRACE.exists(), reason="build/ssatrace/ssatrace not built")


def record(i, slots=1, disk=False):
    """A request record as the BPF side sends it: struct ssa_trace_req,
    room for @slots children (one filled in), a disk time per slot."""
    req = struct.pack("<QQQQIIIIiBBxx16s", i, 8 * i, 1000 + i, 2000 + i, 254 << 20,
                      8, 1, 1, 0, i % 2, 1, b"fio")
    kid = struct.pack("<QQQQQIIiHBB", i, 1000 + i, 1000 + i + (i % 3), 2000 + i,
                      8 * i, 8, i % 5, 0, i % 4, i % 2, i % 2)
    empty = bytes(len(kid)) * (slots - 1)
    starts = struct.pack("<Q", 1500 + i) + bytes(8 * (slots - 1)) if disk else b""
    return req + kid + empty + starts


def v2(records, disk=False):
    """Format 2: header, then per sample the ring buffer's header and the
    sample padded to 8 bytes with old bytes (0xaa here)."""
    out = b"SSATRBIN" + struct.pack("<II", 2, 1 if disk else 0)
    for r, flags in records:
        pad = -len(r) % 8
        out += struct.pack("<II", len(r) | flags, 4096) + r + b"\xaa" * pad
    return out


def v1(records, disk=False):
    out = b"SSATRBIN" + struct.pack("<II", 1, 1 if disk else 0)
    for r in records:
        out += struct.pack("<I", len(r)) + r
    return out


def decode(tmp_path, data, fmt="csv"):
    f = tmp_path / "in.bin"
    f.write_bytes(data)
    p = subprocess.run([str(SSATRACE), "decode", str(f), "--format", fmt],
                       capture_output=True, text=True, check=False)
    return p.returncode, p.stdout, p.stderr


@pytest.mark.parametrize("disk", [False, True])
def test_v2_equals_v1_and_skips_discarded(tmp_path, disk):
    kept = [record(i, slots=4 if i == 2 else 1, disk=disk) for i in range(1, 8)]
    mixed = []
    for i, r in enumerate(kept):
        mixed.append((r, 0))
        if i % 3 == 0:  # a discarded sample after some of them
            mixed.append((record(100 + i, disk=disk), DISCARD))
    for fmt in ("csv", "json"):
        rc2, out2, err2 = decode(tmp_path, v2(mixed, disk), fmt)
        rc1, out1, err1 = decode(tmp_path, v1(kept, disk), fmt)
        assert rc2 == 0 and rc1 == 0, err2 + err1
        assert out2 == out1
        assert "7 records decoded" in err2
        if fmt == "csv":
            ids = [int(line.split(",")[3]) for line in out2.splitlines()[1:]]
        else:
            ids = [json.loads(line)["id"] for line in out2.splitlines()]
        assert ids == list(range(1, 8))  # the discarded ones (100...) skipped


def test_v2_cut_short(tmp_path):
    recs = [(record(i), 0) for i in range(1, 5)]
    whole = v2(recs)
    sample = 8 + len(record(1))
    for cut, before in ((4, 3), (sample - 4, 3), (sample + 4, 2)):
        rc, _, err = decode(tmp_path, whole[:len(whole) - cut])
        assert rc == 1, err
        assert f"cut short after {before} records" in err


def test_not_a_bin_file(tmp_path):
    rc, _, err = decode(tmp_path, b"fork_ns,join_ns\n1,2\n")
    assert rc == 1
    assert "not a file of ssatrace record --format bin" in err
    rc, _, err = decode(tmp_path, b"SSATRBIN" + struct.pack("<II", 3, 0))
    assert rc == 1
    assert "format version 3, this ssatrace reads 1 and 2" in err
