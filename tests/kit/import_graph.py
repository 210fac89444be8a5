"""sitegen's modules and what each imports, read from the source with ast, so an import inside a
function (done to defer a slow import) counts as much as one at the top: for the tests of cycles
(tests/cli/test_imports.py) and of layers (tests/cli/test_layering.py)."""

from __future__ import annotations

import ast
import functools
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
    ``import p.x`` and ``from p.x import name`` count as p.x only, as import tools count them.
    Read once a test process (the source does not change during a test run); each call gets
    its own copy."""
    return {name: set(targets) for name, targets in _read_import_graph().items()}


@functools.cache
def _read_import_graph() -> dict[str, frozenset[str]]:
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
    return {name: frozenset(targets) for name, targets in graph.items()}
