"""No import circle anywhere in ``brainview/``.

A module's imports at load time (module level and class bodies; not inside functions,
not under ``if TYPE_CHECKING:``) form a graph; every strongly connected component of
more than one module is a circle.  ``from pkg import submodule`` counts as importing
``pkg`` itself, whose ``__init__`` may import the importer back: import the submodule
by its full name instead (``import pkg.submodule as submodule``).
"""

from __future__ import annotations

import ast
from pathlib import Path

PKG = Path(__file__).resolve().parents[2] / "brainview"


def _modules() -> dict[str, Path]:
    out = {}
    for path in PKG.rglob("*.py"):
        parts = path.relative_to(PKG.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


def _imports(name: str, path: Path, known: set[str]) -> set[str]:
    found: set[str] = set()
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]

    def visit(nodes: list[ast.stmt]) -> None:
        for node in nodes:
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.dump(node.test):
                visit(node.orelse)
            elif isinstance(node, ast.ClassDef):
                visit(node.body)
            elif isinstance(node, ast.Import):
                found.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                    base = ".".join([*up, base] if base else up)
                found.add(base)
                found.update(f"{base}.{a.name}" for a in node.names)
            elif isinstance(node, (ast.If, ast.Try, ast.With)):
                for block in ("body", "orelse", "finalbody"):
                    visit(getattr(node, block, []))
                for handler in getattr(node, "handlers", []):
                    visit(handler.body)

    visit(ast.parse(path.read_text(encoding="utf-8")).body)
    return {m for m in found if m in known and m != name}


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one node (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, edges = work[-1]
            nxt = next(edges, None)
            if nxt is not None:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph[nxt]))))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    comp.append(member)
                    if member == node:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def test_no_import_circle_in_brainview() -> None:
    mods = _modules()
    graph = {name: _imports(name, path, set(mods)) for name, path in mods.items()}
    assert circles(graph) == []


def test_the_finder_sees_a_package_circle() -> None:
    """The shape that was everywhere: a package's ``__init__`` imports its screen, and
    the screen takes a sibling through the package."""
    graph = {"a": {"a.screen"}, "a.screen": {"a", "a.jobs"}, "a.jobs": set(), "b": {"a"}}
    assert circles(graph) == [["a", "a.screen"]]
    assert circles({"x": {"y"}, "y": set()}) == []
