"""sitegen's modules import each other without cycles: read from the source with ast
(tests/kit/import_graph.py), so an import inside a function (done to defer a slow import) counts
as much as one at the top."""

from __future__ import annotations

from tests.kit.import_graph import import_graph
from tests.kit.project import REPO


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
