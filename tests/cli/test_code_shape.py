"""The code's shape that issue 42 asks to keep: no function in sitegen/ runs past 100 lines, the
function that runs a build reads in one screen (at most 60 lines), and no docstring quotes a
measurement (sizes, seconds, site sizes in runs): those go to docs/performance-log.md, where
they keep their date and machine."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from tests.kit.project import REPO

PACKAGE = REPO / "sitegen"
LONGEST_FUNCTION = 100
LONGEST_BUILD = 60

# A measured figure: a size with its unit, a duration spelled out, or a site size of
# thousands of runs. Format examples in docstrings ("30.0 s", "141GB") are not measurements.
MEASUREMENT = re.compile(
    r"\b\d[\d,]*(?:\.\d+)? (?:KB|MB|GB|KiB|MiB|GiB)\b"
    r"|\b\d[\d,]*(?:\.\d+)? seconds\b"
    r"|\b\d{1,3}(?:,\d{3})+ runs\b"
)


def _functions(tree: ast.AST) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    return [
        node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
    ]


def _length(node: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    assert node.end_lineno is not None
    return node.end_lineno - node.lineno + 1


def _modules() -> list[tuple[Path, ast.Module]]:
    return [(path, ast.parse(path.read_text())) for path in sorted(PACKAGE.rglob("*.py"))]


def _docstring_measurements(tree: ast.Module) -> list[str]:
    found = []
    nodes = [tree, *(n for n in ast.walk(tree) if isinstance(n, ast.ClassDef))]
    for node in [*nodes, *_functions(tree)]:
        doc = ast.get_docstring(node)  # type: ignore[arg-type]
        for match in MEASUREMENT.finditer(doc or ""):
            found.append(f"{getattr(node, 'name', '<module>')}: {match.group(0)!r}")
    return found


def test_the_rules_find_what_they_forbid() -> None:
    planted = ast.parse(
        'def slow():\n    """Takes 3.2 seconds at 20,000 runs and 1.5 GB."""\n'
        + "    x = 1\n" * LONGEST_FUNCTION
    )
    (function,) = _functions(planted)
    assert _length(function) > LONGEST_FUNCTION
    assert _docstring_measurements(planted) == [
        "slow: '3.2 seconds'",
        "slow: '20,000 runs'",
        "slow: '1.5 GB'",
    ]
    # Format examples are not measurements.
    example = ast.parse('def f():\n    """A time: 1,317 ms; a window: 30.0 s; 141GB ×2."""\n')
    assert _docstring_measurements(example) == []


def test_no_function_runs_past_100_lines() -> None:
    too_long = [
        f"{path.relative_to(REPO)}:{node.lineno} {node.name} ({_length(node)} lines)"
        for path, tree in _modules()
        for node in _functions(tree)
        if _length(node) > LONGEST_FUNCTION
    ]
    assert too_long == []


def test_the_build_reads_in_one_screen() -> None:
    tree = ast.parse((PACKAGE / "site" / "build.py").read_text())
    (build,) = [node for node in _functions(tree) if node.name == "_build"]
    assert _length(build) <= LONGEST_BUILD


def test_no_docstring_quotes_a_measurement() -> None:
    quoted = [
        f"{path.relative_to(REPO)}: {found}"
        for path, tree in _modules()
        for found in _docstring_measurements(tree)
    ]
    assert quoted == []


# A path of the project's own code or tests, as comments, templates and docs name it.
NAMED_PATH = re.compile(r"(?<![\w/.-])(?:sitegen|tests|benchmarks)/[\w/]+\.py\b")
# Where such names must be true today; the performance log and the changelog are history.
NAMING_FILES = ("sitegen", "templates", "benchmarks", "tests", "docs")
NAMING_DOCS = ("README.md", "CONTRIBUTING.md")
HISTORY = {REPO / "docs" / "performance-log.md", REPO / "CHANGELOG.md"}
TEXT = {".py", ".md", ".html", ".js", ".css", ".yaml", ".yml", ".txt"}


def _stale_names(paths: list[Path]) -> list[str]:
    """Each path of code that a line of ``paths`` names and the repository does not hold."""
    return [
        f"{path.name}:{number}: {name}"
        for path in paths
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1)
        for name in NAMED_PATH.findall(line)
        if not (REPO / name).exists()
    ]


def test_the_path_rule_finds_a_stale_name(tmp_path: Path) -> None:
    gone, kept = "sitegen/site/" + "plots.py", "tests/kit/" + "project.py"  # (not named here)
    note = tmp_path / "note.md"
    note.write_text(f"drawn by {gone};\nread by {kept}\n")
    assert _stale_names([note]) == [f"note.md:1: {gone}"]


def _naming_files() -> list[Path]:
    files = [REPO / name for name in NAMING_DOCS]
    for top in NAMING_FILES:
        files += [
            path
            for path in sorted((REPO / top).rglob("*"))
            if path.is_file()
            and path.suffix in TEXT
            and path not in HISTORY
            and not {"data", "artifacts", "node_modules"} & set(path.relative_to(REPO).parts)
        ]
    return files


def test_every_code_path_a_comment_or_doc_names_exists() -> None:
    assert _stale_names(_naming_files()) == []
