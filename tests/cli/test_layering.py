"""The layers of sitegen, read from the source's imports (tests/kit/import_graph.py's graph, which
counts an import inside a function as much as one at the top): page builders are siblings,
what they share lies below them, and the collect stage never reaches the site's code."""

from __future__ import annotations

from tests.kit.import_graph import import_graph

PAGES = "sitegen.site.pages."
BELOW_PAGES = ("sitegen.site.sections", "sitegen.site.figures", "sitegen.site.draw")


def _within(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def pages_importing_pages(graph: dict[str, set[str]]) -> list[str]:
    """'a → b' for each page builder a that imports another page builder b."""
    return sorted(
        f"{name} → {target}"
        for name, targets in graph.items()
        if name.startswith(PAGES)
        for target in targets
        if target.startswith(PAGES) and target != name
    )


def shared_parts_importing_pages(graph: dict[str, set[str]]) -> list[str]:
    """'a → b' for each module of sections/, figures/ or draw/ that imports a page builder."""
    return sorted(
        f"{name} → {target}"
        for name, targets in graph.items()
        if any(_within(name, package) for package in BELOW_PAGES)
        for target in targets
        if _within(target, "sitegen.site.pages")
    )


def collect_reaching_site(graph: dict[str, set[str]]) -> list[str]:
    """Each module of sitegen.site that a module of sitegen.collect imports, directly or through
    others (a shared module that imports the site counts as much as a direct import)."""
    reached: set[str] = set()
    todo = [name for name in graph if _within(name, "sitegen.collect")]
    while todo:
        for target in graph[todo.pop()]:
            if target not in reached:
                reached.add(target)
                todo.append(target)
    return sorted(name for name in reached if _within(name, "sitegen.site"))


def test_the_rules_find_what_they_forbid() -> None:
    graph = {
        "sitegen.site.pages.a": {"sitegen.site.pages.b", "sitegen.site.sections.s"},
        "sitegen.site.pages.b": {"sitegen.site.pages"},
        "sitegen.site.pages": set(),
        "sitegen.site.sections.s": {"sitegen.site.pages.b"},
        "sitegen.site.figures.f": set(),
        "sitegen.collect": {"sitegen.shared"},
        "sitegen.shared": {"sitegen.site.figures.f"},
    }
    assert pages_importing_pages(graph) == ["sitegen.site.pages.a → sitegen.site.pages.b"]
    assert shared_parts_importing_pages(graph) == ["sitegen.site.sections.s → sitegen.site.pages.b"]
    assert collect_reaching_site(graph) == ["sitegen.site.figures.f"]
    del graph["sitegen.shared"]
    graph["sitegen.collect"] = set()
    assert collect_reaching_site(graph) == []


def test_no_page_builder_imports_another() -> None:
    graph = import_graph()
    assert {"sitegen.site.pages.run", "sitegen.site.pages.index"} <= set(graph)
    assert pages_importing_pages(graph) == []


def test_what_pages_share_never_imports_a_page_builder() -> None:
    assert shared_parts_importing_pages(import_graph()) == []


def test_the_collect_stage_never_reaches_the_site() -> None:
    graph = import_graph()
    assert "sitegen.plausibility" in graph["sitegen.collect"]  # the graph sees collect's imports
    assert collect_reaching_site(graph) == []
