"""ssa.identify_write: a raid5's small-write method from where a write waits,
against a model array whose members serve first come first served."""
import random

import pytest

from ssa import identify_write as iw
from ssa.identify import IdentifyError

SECTOR = 512


def test_left_symmetric_places_as_md():
    # md's left-symmetric over 4: stripe 0's parity on member 3, its data
    # chunks 0, 1, 2 on members 0, 1, 2; stripe 1's parity on member 2,
    # chunks 3, 4, 5 on members 3, 0, 1
    n = 4
    assert [iw.ls_parity(r, n) for r in range(5)] == [3, 2, 1, 0, 3]
    for k in range(40):
        row = k // (n - 1)
        assert iw.ls_chunk(iw.ls_member(k, n), row, n) == k
    assert iw.ls_chunk(2, 1, n) is None
    assert [iw.ls_chunk(m, 1, n) for m in (3, 0, 1)] == [3, 4, 5]


class ModelRaid5:
    """Members that serve one request a turn (1.0), in arrival order; a
    small write reads what its method needs (in parallel), then writes
    the target and the parity.  ``cache``: writes complete at once."""

    def __init__(self, n, chunk, method, cache=False, parity_shift=0, rows=512):
        self.n, self.chunk, self.method, self.cache = n, chunk, method, cache
        self.shift = parity_shift
        self.sectors, self.unit, self.reads, self.writable = rows * chunk * (n - 1), 1, 0, False
        self.data = {}
        self.slots = [bytearray(4096) for _ in range(8)]

    def open_for_writes(self):
        self.writable = True

    def slot(self, i):
        return memoryview(self.slots[i])

    def read_block(self, sector, buf):
        return self.data.get(sector, bytes(4096))

    def place(self, sector):
        k = sector // self.chunk
        return k % self.n, k // (self.n - 1)

    def batch(self, sectors, writes=None):
        assert writes and self.writable
        free = [0.0] * self.n
        done = []

        def serve(member, t):
            free[member] = max(free[member], t) + 1.0
            return free[member]
        w = None
        for i, s in enumerate(sectors):
            if i in writes:
                w = (i, s)
                continue
            done.append((i, serve(self.place(s)[0], 0.0)))
        i, s = w
        target, row = self.place(s)
        p = (iw.ls_parity(row, self.n) + self.shift) % self.n
        if self.cache:
            done.append((i, 0.1))
        else:
            others = [m for m in range(self.n) if m not in (target, p)]
            need = [target, p] if self.method == "rmw" else others
            t1 = max(serve(m, 0.0) for m in need)
            t2 = max(serve(m, t1) for m in (target, p))
            done.append((i, t2))
        self.reads += len(sectors)
        return sorted(done, key=lambda x: (x[1], x[0]))


GEO = {"layout": "raid5", "parity": "left-symmetric", "members": 4, "chunk_sectors": 128}


@pytest.mark.parametrize("n", [3, 4, 5, 8])
@pytest.mark.parametrize("method", ["rmw", "rcw"])
def test_method_told(n, method):
    dev = ModelRaid5(n, 128, method)
    out = iw.measure_write_method(dev, dict(GEO, members=n), quick=True, seed=n,
                                  echo=lambda m: None)
    assert out["method"] == method
    assert out["agreement"] == 1.0
    assert out["writes"] == 9


def test_write_back_cache_cannot_tell():
    out = iw.measure_write_method(ModelRaid5(4, 128, "rcw", cache=True), GEO, quick=True,
                                  seed=1, echo=lambda m: None)
    assert out["method"] is None
    assert "write-back" in out["why"]


def test_parity_elsewhere_cannot_tell():
    # a rotation other than left-symmetric: the parity control fails
    out = iw.measure_write_method(ModelRaid5(5, 64, "rmw", parity_shift=2),
                                  dict(GEO, members=5, chunk_sectors=64), quick=True,
                                  seed=2, echo=lambda m: None)
    assert out["method"] is None


def test_probes_use_fresh_stripes_and_stay_in_their_chunks():
    rng, used = random.Random(5), set()
    for k in range(38):
        role = ("other", "target", "parity")[k % 3]
        pl = iw.plan(40, 4, 64, 1, rng, used, role)
        k_w = pl["write"] // 64
        assert k_w // 3 == pl["row"] and pl["write"] % 8 == 0
        assert iw.ls_member(k_w, 4) == pl["target_member"]
        assert all(iw.ls_member(s // 64, 4) == pl["member"] for s in pl["reads"])
        assert all(s // 64 // 3 != pl["row"] for s in pl["reads"])
        assert len(set(pl["reads"])) == iw.ANCHORS
    assert len(used) == 38
    with pytest.raises(IdentifyError, match="too few stripes"):
        for _ in range(3):
            iw.plan(40, 4, 64, 1, rng, used, "other")


def test_refusals():
    with pytest.raises(IdentifyError, match="raid5 left-symmetric"):
        iw.measure_write_method(ModelRaid5(4, 128, "rmw"), dict(GEO, layout="stripe"),
                                echo=lambda m: None)
    with pytest.raises(IdentifyError, match="smaller than"):
        iw.measure_write_method(ModelRaid5(4, 4, "rmw"), dict(GEO, chunk_sectors=4),
                                echo=lambda m: None)


def test_cli_needs_destructive(capsys):
    assert iw.main(["/dev/null"]) == 2
    assert "--destructive" in capsys.readouterr().err


def test_tools_ssa_write_method_needs_destructive(capsys, tmp_path):
    from ssa import cli
    assert cli.main(["identify", "--write-method", str(tmp_path / "none")]) == 2
    assert "--destructive" in capsys.readouterr().err
    # with it: says so first, then fails on the missing device
    assert cli.main(["identify", "--write-method", "--destructive",
                     "--geometry", str(tmp_path / "none.json"), str(tmp_path / "none")]) == 2
    err = capsys.readouterr().err
    assert err.index("--destructive: 4 KiB writes") < err.index("none.json")
