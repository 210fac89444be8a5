"""Every internal link of the built site resolves, at the domain root and under a sub-path;
the feed and the sitemap are well-formed XML; cost stays linear in the number of runs."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from tests.conftest import run_cli

ATOM = "{http://www.w3.org/2005/Atom}"


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if values.get("id"):
            self.ids.add(values["id"] or "")
        for name in ("href", "src", "data-spec"):
            if values.get(name):
                self.links.append(values[name] or "")
        if values.get("srcset"):
            self.links += [part.strip().split(" ")[0] for part in (values["srcset"] or "").split(",")]


def _resolve(site: Path, base: str, url: str) -> Path | None:
    path = unquote(urlsplit(url).path)
    assert path.startswith(base), f"{url} is outside the base path {base}"
    relative = path[len(base):]
    target = site / relative
    if path.endswith("/"):
        target = target / "index.html"
    return target


def check_links(site: Path, base: str) -> int:
    checked = 0
    for page in sorted(site.rglob("*.html")):
        parser = _Links()
        parser.feed(page.read_text(encoding="utf-8"))
        for link in parser.links:
            parts = urlsplit(link)
            if parts.scheme in ("http", "https", "mailto"):
                continue  # links to sources; no page loads anything from other hosts (test_build)
            assert not parts.scheme, f"{page}: unexpected link {link}"
            if not parts.path and parts.fragment:
                assert parts.fragment in parser.ids, f"{page}: broken anchor {link}"
                continue
            target = _resolve(site, base, link)
            assert target is not None and target.is_file(), f"{page}: broken link {link}"
            checked += 1
    return checked


@pytest.mark.parametrize("base_url", ["/", "/llm-bench/", "https://example.github.io/llm-bench/"])
def test_no_broken_internal_link(project: Path, base_url: str) -> None:
    config = project / "sitegen.yaml"
    config.write_text(config.read_text().replace("base_url: /", f"base_url: {base_url}"))
    assert run_cli(project, "collect") == 0
    assert run_cli(project, "build") == 0
    base = urlsplit(base_url).path
    assert check_links(project / "_site", base) > 400


def test_feed_sitemap_and_runs_index(project: Path) -> None:
    config = project / "sitegen.yaml"
    config.write_text(config.read_text().replace("base_url: /", "base_url: https://example.org/bench/"))
    assert run_cli(project, "collect") == 0
    assert run_cli(project, "build") == 0
    site = project / "_site"
    runs = sorted(p.stem for p in (project / "content" / "runs").glob("*.yaml"))

    feed = ET.parse(site / "feed.xml").getroot()
    entries = feed.findall(f"{ATOM}entry")
    assert len(entries) == len(runs)
    links = {e.find(f"{ATOM}link").get("href") for e in entries}  # type: ignore[union-attr]
    assert links == {f"https://example.org/bench/runs/{run}/" for run in runs}
    dates = [e.findtext(f"{ATOM}updated") for e in entries]
    assert dates == sorted(dates, reverse=True)

    sitemap = ET.parse(site / "sitemap.xml").getroot()
    locations = {loc.text for loc in sitemap.iter("{http://www.sitemaps.org/schemas/sitemap/0.9}loc")}
    assert "https://example.org/bench/" in locations
    assert {f"https://example.org/bench/runs/{run}/" for run in runs} <= locations
    for location in locations:
        assert location and (site / (location.removeprefix("https://example.org/bench/") + "index.html")).is_file()

    index = json.loads((site / "data" / "runs.json").read_text())
    assert [entry["id"] for entry in index["runs"]] == runs
    assert (site / "schema" / "result.schema.json").is_file()


def test_pages_grow_linearly_with_runs(project: Path) -> None:
    assert run_cli(project, "collect") == 0
    assert run_cli(project, "build") == 0
    site = project / "_site"
    runs = len(list((project / "content" / "runs").glob("*.yaml")))
    compare_pages = len(list((site / "compare").glob("*--*/index.html")))
    assert 0 < compare_pages < 2 * runs  # consecutive pairs only (both ways round), never every pair
    html_pages = len(list(site.rglob("*.html")))
    assert html_pages <= 4 * runs + 3


def test_every_model_and_accelerator_has_its_page(project: Path) -> None:
    assert run_cli(project, "collect") == 0
    assert run_cli(project, "build") == 0
    site = project / "_site"
    index = (site / "index.html").read_text()
    for href in set(re.findall(r'href="/((?:models|hardware)/[^"]+/)"', index)):
        assert (site / href / "index.html").is_file()
    assert len([p for p in (site / "models").iterdir() if p.is_dir()]) == 7
    assert len([p for p in (site / "hardware").iterdir() if p.is_dir()]) == 7


def test_group_index_pages_link_every_group_and_the_nav_links_them(project: Path) -> None:
    assert run_cli(project, "collect") == 0
    assert run_cli(project, "build") == 0
    site = project / "_site"
    for kind in ("models", "hardware"):
        listing = (site / kind / "index.html").read_text()
        groups = {p.name for p in (site / kind).iterdir() if p.is_dir()}
        assert set(re.findall(rf'<th scope="row"><a href="/{kind}/([^"/]+)/">', listing)) == groups
        assert f'<a href="/{kind}/">' in (site / "index.html").read_text()  # in the site nav


def test_every_run_page_links_to_a_comparison_when_its_group_has_another_run(project: Path) -> None:
    from sitegen.parse import parse_yaml

    assert run_cli(project, "collect") == 0
    assert run_cli(project, "build") == 0
    site = project / "_site"
    # Groups as the result files say: the base model (or the model), and the accelerator.
    facts = {}
    for path in sorted((project / "content" / "runs").glob("*.yaml")):
        data = parse_yaml(path.name, path.read_bytes()).data
        facts[path.stem] = ((data["run"].get("base_model") or data["run"]["model"]).lower(),
                            data["hardware"]["accelerator"].lower())
    linked = 0
    for run_id, (model, accelerator) in facts.items():
        others = [other for other, (m, a) in facts.items() if other != run_id and (m == model or a == accelerator)]
        html = (site / "runs" / run_id / "index.html").read_text()
        targets = re.findall(r'<a href="(/compare/[^"]+)">Compare with', html)
        if not others:
            assert not targets
            continue
        linked += 1
        for other in others:  # each other run of its model or accelerator, by a static page or the reader's view
            assert any(other in target and run_id in target for target in targets), (run_id, other)
        for target in targets:
            if "?" not in target:
                assert (site / target.lstrip("/") / "index.html").is_file()
    assert linked >= 5
