"""Page contexts hold exactly what their templates use.

The templates' syntax trees (jinja2's own parser) are walked for every ``page.<field>``, in the
page's template and every template it extends, includes or imports. A field a template uses
that its context dataclass does not define fails here, before a reader meets a StrictUndefined
error; a context field no template uses fails too, so contexts do not grow dead weight.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from jinja2 import Environment, FileSystemLoader, meta, nodes

from sitegen.collect import gather
from sitegen.config import load_config
from sitegen.model import run_from_dict
from sitegen.site.page import Site
from sitegen.site.plan import pages
from tests.kit.project import REPO, copy_site

TEMPLATES = REPO / "templates"
_ENV = Environment(loader=FileSystemLoader(TEMPLATES))


def _source_tree(name: str) -> nodes.Template:
    return _ENV.parse((TEMPLATES / name).read_text(encoding="utf-8"), name=name)


def _with_parents(name: str) -> list[str]:
    """``name`` and every template it extends, includes or imports, recursively."""
    seen: list[str] = []
    todo = [name]
    while todo:
        current = todo.pop()
        if current in seen:
            continue
        seen.append(current)
        found = list(meta.find_referenced_templates(_source_tree(current)))
        assert None not in found, f"{current}: a template name computed at render time"
        todo += [found_name for found_name in found if found_name]
    return seen


def fields_used(name: str) -> set[str]:
    """Every ``page.<field>`` in template ``name`` and the templates it builds on."""
    used: set[str] = set()
    for template in _with_parents(name):
        for node in _source_tree(template).find_all(nodes.Getattr):
            if isinstance(node.node, nodes.Name) and node.node.name == "page":
                used.add(node.attr)
    return used


@pytest.fixture(scope="module")
def contexts(tmp_path_factory: pytest.TempPathFactory) -> dict[str, type]:
    """The context class of each template, from planning the shipped site (a copy: gathering
    keeps what it checked in the site's cache, which is not to be written in the repository)."""
    folder = tmp_path_factory.mktemp("contexts")
    (folder / "cache").mkdir()
    site = copy_site(folder / "site", folder / "cache")
    report = gather(load_config(site / "sitegen.yaml"))
    runs = [
        run_from_dict(
            run.id, json.loads(run.canonical) if run.canonical else run.result, run.origin
        )
        for run in report.runs
    ]
    by_template: dict[str, type] = {}
    for page in pages(Site("t", "d", "https://example.org/"), runs):  # with site_url: every page
        by_template.setdefault(page.template, type(page.context))
    return by_template


def test_every_page_template_is_planned(contexts: dict[str, type]) -> None:
    shipped = {
        path.relative_to(TEMPLATES).as_posix() for path in (TEMPLATES / "pages").glob("*.html")
    }
    shipped |= {"feed.xml", "sitemap.xml", "changes.xml"}
    assert set(contexts) == shipped


def test_templates_use_only_fields_their_context_defines(contexts: dict[str, type]) -> None:
    for template, context in contexts.items():
        assert dataclasses.is_dataclass(context), context
        defined = {field.name for field in dataclasses.fields(context)}
        undefined = fields_used(template) - defined
        assert not undefined, (
            f"{template} uses page.{', page.'.join(sorted(undefined))}, which {context.__name__} "
            f"lacks"
        )


def test_contexts_hold_only_what_their_templates_use(contexts: dict[str, type]) -> None:
    for template, context in contexts.items():
        unused = {field.name for field in dataclasses.fields(context)} - fields_used(template)
        assert not unused, (
            f"{context.__name__} carries {sorted(unused)}, which {template} never uses"
        )


def test_the_walk_finds_a_field_in_a_parent_template(tmp_path: Path) -> None:
    # The check itself can fail: base.html's page.title counts for every page that extends it.
    assert {"title", "site"} <= fields_used("pages/404.html")
    assert "launch_command" in fields_used("pages/run.html")
    assert "launch_command" not in fields_used("pages/404.html")
