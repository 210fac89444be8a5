"""Property-based tests of parse → redact → validate → render, with a fixed seed.

For any input, sitegen either raises SitegenError (a located problem for the user) or, for a
document that passes validation, renders a well-formed run page in which no text from the
data became markup. Any other exception is a bug. ``derandomize=True`` makes every run of the
suite try the same examples, so a failure is reproducible and the suite stays fast.
"""

from __future__ import annotations

import contextlib
import copy
import json
import math
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from sitegen.collect import check_run
from sitegen.errors import SitegenError
from sitegen.model import run_from_dict
from sitegen.parse import Document, parse_document
from sitegen.resources import resource_dir
from sitegen.site.figures.build_figures import Analysis
from sitegen.site.figures.grouping import hardware_groups, model_groups
from sitegen.site.incremental.fragments import Fragments
from sitegen.site.page import Site
from sitegen.site.pages.index import index_page
from sitegen.site.pages.run import run_page
from sitegen.site.render import environment, render
from tests.kit.audit import audit_html
from tests.kit.project import REPO, SEED_RUN_ID, load_yaml

SEED = REPO / "content" / "runs" / f"{SEED_RUN_ID}.yaml"
SEED_DATA: dict[str, Any] = load_yaml(SEED.read_text(encoding="utf-8"))
# Shrinking a failure can take minutes; the suite reports the failing example unshrunk
# (with the draws that made it). SITEGEN_FUZZ_SHRINK=1 shrinks it, for debugging.
_PHASES = list(Phase) if os.environ.get("SITEGEN_FUZZ_SHRINK") else [Phase.explicit, Phase.generate]
# SITEGEN_FUZZ_EXAMPLES=5000 runs a longer fuzzing session with the same fixed seed.
_EXAMPLES = os.environ.get("SITEGEN_FUZZ_EXAMPLES")
FUZZ = settings(
    max_examples=int(_EXAMPLES or "120"),
    deadline=None,
    derandomize=True,
    database=None,
    phases=_PHASES,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
# Fewer examples for hostile text in valid runs, where most examples pass validation and render
# two whole pages (elsewhere most stop at parsing or validation): enough to place every payload
# it draws from, several times over.
FUZZ_RENDERED = settings(FUZZ, max_examples=int(_EXAMPLES or "50"))

HOSTILE_TEXT = [
    "<script>window.__pwned=1</script>",
    "<img src=x onerror=window.__pwned=1>",
    '"><svg onload=alert(1)>',
    "javascript:window.__pwned=1",
    "[x](javascript:window.__pwned=1)",
    "[x](data:text/html,<script>1</script>)",
    "</textarea><script>1</script>",
    "{{ 7*7 }}",
    "{% raw %}",
    "\u202egnp.exe",
    "a\u200bb",
    "\x00",
    "\x1b[31m",
    '=HYPERLINK("x")',
    "--api-key sk-proj-abcdefghijklmnop1234",
    "&lt;script&gt;",
    "<!--",
    "]]>",
    "\ud800",
    "é" * 3,
    "",
    " ",
    "\n",
    "../../etc/passwd",
    "%2e%2e%2f",
]
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=40),
    st.sampled_from(HOSTILE_TEXT),
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(
            st.one_of(st.text(max_size=12), st.sampled_from(HOSTILE_TEXT)), inner, max_size=4
        ),
    ),
    max_leaves=12,
)

_FAST_DUMPER = getattr(yaml, "CSafeDumper", None)
TEMPLATES = resource_dir("templates")  # the templates sitegen ships, as a site without its own uses
_ENV = environment(TEMPLATES)
_SITE = Site("Fuzz", "Fuzzed runs")


def _pipeline(source: str, raw: bytes) -> None:
    """What collect and build do to one file; SitegenError is the only allowed failure."""
    try:
        document = parse_document(source, raw)
    except SitegenError as error:
        assert error.problems and all(p.source == source for p in error.problems)
        return
    try:
        document, problems = check_run(document)
    except SitegenError as error:  # redaction refuses a secret in a field name
        assert error.problems and all(p.source == source for p in error.problems)
        return
    for problem in problems:
        assert problem.source == source and problem.message
    if not problems:
        _render(document)


def _render(document: Document) -> None:
    run = run_from_dict("fuzzed-run", document.data, "content/runs/fuzzed-run.yaml")
    runs = [run]
    groups = {(g.kind, g.key): g for g in model_groups(runs) + hardware_groups(runs)}
    # One build's figures, its pieces rendered with the templates compiled once above (as a
    # build renders with its own): without them each page would compile the macros again.
    analysis = Analysis(fragments=Fragments(None, "", _ENV))
    pages = (
        run_page(_SITE, run, groups, analysis=analysis),
        index_page(_SITE, runs, groups, analysis),
    )
    for page in pages:
        html = render(_ENV, page).decode("utf-8")
        assert html.startswith("<!doctype html>")
        assert audit_html(html) == [], (
            page.path
        )  # no on* attribute, inline script or script link from data


@FUZZ
@given(st.binary(max_size=2000), st.sampled_from(["x.yaml", "x.json"]))
def test_any_bytes(raw: bytes, name: str) -> None:
    _pipeline(f"content/runs/{name}", raw)


@FUZZ
@given(st.text(max_size=2000), st.sampled_from(["x.yaml", "x.json"]))
def test_any_text(text: str, name: str) -> None:
    _pipeline(f"content/runs/{name}", text.encode("utf-8", "surrogatepass"))


@FUZZ
@given(values, st.sampled_from(["yaml", "json"]))
def test_any_document(value: Any, kind: str) -> None:
    _pipeline(f"content/runs/x.{kind}", _dump(value, kind))


def _dump(value: Any, kind: str) -> bytes:
    if kind == "json":
        return json.dumps(value, ensure_ascii=False).encode("utf-8", "surrogatepass")
    try:
        return _yaml_text(value).encode("utf-8", "surrogatepass")
    except yaml.YAMLError:
        return json.dumps(value).encode()  # PyYAML cannot write some keys; JSON is YAML too


def _yaml_text(value: Any) -> str:
    """``value`` as YAML, written by libyaml where PyYAML has it (Python's own writer took most
    of these tests' time), or by Python's for text libyaml refuses (lone surrogates, which
    Python's writes as escapes)."""
    if _FAST_DUMPER is not None:
        with contextlib.suppress(UnicodeEncodeError):
            return yaml.dump(value, Dumper=_FAST_DUMPER, allow_unicode=True)
    return yaml.safe_dump(value, allow_unicode=True)


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [prefix]
    if isinstance(value, dict):
        for key, item in value.items():
            found += _paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value[:3]):  # the first cells stand for the rest
            found += _paths(item, (*prefix, index))
    return found


SEED_PATHS = _paths(SEED_DATA)[1:]


def _mutate(data: dict[str, Any], draw: Callable[..., Any]) -> dict[str, Any]:
    mutated = copy.deepcopy(data)
    for _ in range(draw(st.integers(1, 4))):
        path = draw(st.sampled_from(SEED_PATHS))
        parent: Any = mutated
        try:
            for key in path[:-1]:
                parent = parent[key]
            action = draw(st.sampled_from(["replace", "delete", "hostile", "scale"]))
            last = path[-1]
            if action == "delete":
                del parent[last]
            elif action == "hostile":
                parent[last] = draw(st.sampled_from(HOSTILE_TEXT)) + draw(st.text(max_size=10))
            elif (
                action == "scale"
                and isinstance(parent[last], (int, float))
                and not isinstance(parent[last], bool)
            ):
                parent[last] = parent[last] * draw(
                    st.sampled_from([-1, 0, 10**9, 1e300, math.inf, 0.5])
                )
            else:
                parent[last] = draw(values)
        except (KeyError, IndexError, TypeError):
            continue  # an earlier mutation removed this path
    return mutated


@FUZZ
@given(st.data(), st.sampled_from(["yaml", "json"]))
def test_mutated_seed_run(data: st.DataObject, kind: str) -> None:
    mutated = _mutate(SEED_DATA, data.draw)
    _pipeline(f"content/runs/x.{kind}", _dump(mutated, kind))


@FUZZ_RENDERED
@given(st.data())
def test_hostile_text_in_valid_runs_renders_inert(data: st.DataObject) -> None:
    """Only string fields change, to hostile text the schema accepts: every example renders."""
    mutated = copy.deepcopy(SEED_DATA)
    text_paths = [
        p
        for p in SEED_PATHS
        if _get(SEED_DATA, p).__class__ is str
        and p[-1] not in ("type", "status", "decode_mode", "prefill_mode", "date", "method")
    ]
    for path in data.draw(st.lists(st.sampled_from(text_paths), min_size=1, max_size=6)):
        payload = data.draw(st.sampled_from(HOSTILE_TEXT[:8])) + data.draw(
            st.text(
                alphabet=st.characters(codec="utf-8", exclude_categories=["Cc", "Cs", "Cf"]),
                max_size=8,
            )
        )
        _set(mutated, path, ("x" + payload)[:90])
    _pipeline("content/runs/x.yaml", _dump(mutated, "yaml"))


def _get(value: Any, path: tuple[Any, ...]) -> Any:
    for key in path:
        value = value[key]
    return value


def _set(value: Any, path: tuple[Any, ...], item: Any) -> None:
    _get(value, path[:-1])[path[-1]] = item


def test_the_renderer_is_really_exercised() -> None:
    """The seed run renders through the same path, so the properties above test real pages."""
    document = parse_document("content/runs/x.yaml", SEED.read_bytes())
    document, problems = check_run(document)
    assert problems == []
    _render(document)
    assert Path(TEMPLATES, "base.html").is_file()
