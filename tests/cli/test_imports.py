"""sitegen's modules import each other without cycles: read from the source with ast, so an
import inside a function (done to defer a slow import) counts as much as one at the top."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.kit.project import REPO

PACKAGE = REPO / "sitegen"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def import_graph() -> dict[str, set[str]]:
    """Each sitegen module → the sitegen modules it imports. ``from p import name`` runs p
    (its ``__init__`` when p is a package) and, when name is a submodule, that submodule too;
    ``import p.x`` and ``from p.x import name`` count as p.x only, as import tools count them."""
    modules = {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                    base = ".".join(anchor + ([base] if base else []))
                targets = [base] + [
                    f"{base}.{alias.name}"
                    for alias in node.names
                    if f"{base}.{alias.name}" in modules
                ]
            for target in targets:
                while target and target not in modules:
                    target = target.rpartition(".")[
                        0
                    ]  # `import sitegen.x.y` → the module that exists
                if target and target != name and target.startswith("sitegen"):
                    graph[name].add(target)
    return graph


def find_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every strongly connected group of two or more modules (Tarjan's algorithm), each as a
    sorted list; an acyclic graph has none."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph[node]):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(groups)


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert find_cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert find_cycles({"a": {"b"}, "b": set()}) == []


def test_the_graph_reads_every_kind_of_import() -> None:
    graph = import_graph()
    # from sitegen.site.figures import numbers: the package runs, and its submodule
    assert {"sitegen.site.figures", "sitegen.site.figures.numbers"} <= graph["sitegen.site.page"]
    assert "sitegen.errors" in graph["sitegen.config"]  # from sitegen.errors import Problem
    assert "sitegen.lock" in graph["sitegen.cli"]  # imported inside a function


def test_no_import_cycles() -> None:
    cycles = find_cycles(import_graph())
    assert cycles == [], "import cycles: " + "; ".join(" ↔ ".join(group) for group in cycles)


def test_a_build_imports_only_what_it_uses() -> None:
    """What ``sitegen build`` imports before it reads a run: none of what only some builds need
    (markdown-it for a run's notes, worker processes for many charts, the SVG compactor for a
    chart drawn, importlib.metadata for the version of Altair: charts.altair_version), each a
    part of its start-up."""
    import subprocess
    import sys

    later = [
        "markdown_it",
        "multiprocessing",
        "concurrent.futures.process",
        "xml.etree.ElementTree",
        "altair",
        "vl_convert",
        "importlib.metadata",
    ]
    code = (
        f"import sys, sitegen.cli, sitegen.site.build; print([m for m in {later!r} if m in "
        f"sys.modules])"
    )
    found = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO
    )
    assert found.stdout.strip() == "[]"
