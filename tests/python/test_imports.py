"""The ssa package's modules import one another without a circle.

Every import of a module of the package counts, the ones inside a
function (deferred until the call) too: a deferred import only hides a
circle from the interpreter, not from a reader.  ``ssa.experiment`` is
the thin module that re-exports the lab's names for older callers; no
module of the package imports it but the command line (``ssa.cli``, the
front end: tests set names on ``ssa.experiment`` and drive the commands).
"""
import ast
import pathlib

PKG = pathlib.Path(__file__).resolve().parents[2] / "tools" / "pylib" / "ssa"


def imports_of(path: pathlib.Path, names: set[str] | None = None) -> set[str]:
    """The package's modules (names; default: those in PKG) that the
    module at path imports, anywhere in it."""
    names = names or {p.stem for p in PKG.glob("*.py")}
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level == 1 and node.module:             # from .x import y
                out.add(node.module.split(".")[0])
            elif node.level == 1:                           # from . import x, y
                out.update(a.name for a in node.names)
            elif node.module and node.module.split(".")[0] == "ssa":
                parts = node.module.split(".")
                out.update([parts[1]] if len(parts) > 1 else [a.name for a in node.names])
        elif isinstance(node, ast.Import):
            for a in node.names:
                parts = a.name.split(".")
                if parts[0] == "ssa" and len(parts) > 1:
                    out.add(parts[1])
    return {n for n in out if n in names} - {path.stem}


def graph() -> dict[str, set[str]]:
    return {p.stem: imports_of(p) for p in PKG.glob("*.py") if p.stem != "__init__"}


def cycles(g: dict[str, set[str]]) -> list[list[str]]:
    """Every strongly connected component of more than one module (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(g.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(g):
        if v not in index:
            visit(v)
    return out


def test_the_checker_sees_a_circle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_the_checker_sees_deferred_imports(tmp_path):
    f = tmp_path / "derive.py"
    f.write_text("from . import replicate\nfrom .spec import x\n"
                 "def f():\n    from . import experiment as ex\n    import ssa.plan\n")
    names = {"derive", "replicate", "spec", "experiment", "plan", "report"}
    assert imports_of(f, names) == {"replicate", "spec", "experiment", "plan"}


def test_no_import_circle_in_the_package():
    assert cycles(graph()) == []


def test_nothing_in_the_package_imports_the_facade():
    users = sorted(m for m, deps in graph().items() if "experiment" in deps)
    assert users == ["cli"]
