"""Every link of the built site is relative and names a file, so the site works opened from
disk and served under any path with no setting; the one exception, 404.html, links from the
site's root path. Served over real HTTP under an arbitrary sub-path, no link is broken. The
feed and the sitemap are well-formed XML; cost stays linear in the number of runs."""

from __future__ import annotations

import base64
import hashlib
import html
import json
import re
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import parse_qs, unquote, urljoin, urlsplit

import httpx
import pytest

from sitegen.site.pages.compare import MAX_RUNS
from tests.kit.compare_rule import natural_pairs_from_files
from tests.kit.network import served_under
from tests.kit.paging_rule import site_pages
from tests.kit.project import PAGED_INDEX_SIZE, REPO, run_cli
from tests.kit.run_json import published_run
from tests.kit.search_index import search_runs

ATOM = "{http://www.w3.org/2005/Atom}"
SITEMAP = "{http://www.sitemaps.org/schemas/sitemap/0.9}"


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []
        self.ids: set[str] = set()
        self._root = ""
        self._picking = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if tag == "html":
            self._root = values.get("data-root") or ""
        # The compare picker's runs: compare.js fetches runs/<value>.json from the page's data-root.
        if tag == "select":
            self._picking = values.get("name") == "add"
        if tag == "option" and self._picking and values.get("value"):
            self.links.append(f"{self._root}runs/{values['value']}.json")
        if values.get("id"):
            self.ids.add(values["id"] or "")
        for name in ("href", "src", "data-spec", "data-result", "data-setups"):
            if values.get(name):
                self.links.append(values[name] or "")
        if values.get("srcset"):
            self.links += [
                part.strip().split(" ")[0] for part in (values["srcset"] or "").split(",")
            ]


def links_of(html: str) -> _Links:
    parser = _Links()
    parser.feed(html)
    return parser


def _internal(link: str) -> bool:
    return urlsplit(link).scheme not in ("http", "https", "mailto")  # links out go to sources


def check_relative_links(site: Path) -> int:
    """Every internal link of every page but 404.html, resolved from the page's own file as a
    browser resolves it over file://, is an existing file inside the site; return how many."""
    checked = 0
    base = "file:///site/"
    for page in sorted(site.rglob("*.html")):
        if page.name == "404.html" and page.parent == site:
            continue
        page_url = base + page.relative_to(site).as_posix()
        parser = links_of(page.read_text(encoding="utf-8"))
        for link in filter(_internal, parser.links):
            parts = urlsplit(link)
            assert not parts.scheme and not link.startswith("/"), f"{page}: {link} is not relative"
            if not parts.path:
                assert parts.fragment in parser.ids, f"{page}: broken anchor {link}"
                continue
            resolved = unquote(urlsplit(urljoin(page_url, link)).path)
            assert resolved.startswith("/site/"), f"{page}: {link} leaves the site"
            target = site / resolved.removeprefix("/site/")
            assert target.is_file(), (
                f"{page}: {link} is not a file of the site (a folder opens a listing from disk)"
            )
            checked += 1
    return checked


def build(project: Path, *args: str) -> Path:
    assert run_cli(project, "collect") == 0
    assert run_cli(project, "build", *args) == 0
    return project / "_site"


def test_every_link_is_relative_and_names_a_file(shipped: Path) -> None:
    site = shipped / "_site"
    assert check_relative_links(site) > 400
    # The index's links, read straight from the file: the run page by its file name.
    run_ids = sorted(p.stem for p in (shipped / "content" / "runs").glob("*.yaml"))
    index = (site / "index.html").read_text()
    for run_id in run_ids:
        assert f'href="runs/{run_id}/index.html"' in index
    run_page = (site / "runs" / run_ids[0] / "index.html").read_text()
    assert 'href="../../assets/style.css?v=' in run_page and 'href="../../index.html"' in run_page


def test_the_404_page_links_from_the_site_path(shipped: Path, project: Path) -> None:
    # Hosts serve 404.html at whatever address was asked for, so its links start at the site's
    # root path: "/" without site_url, the path of site_url with one.
    site = shipped / "_site"
    links = [
        link
        for link in links_of((site / "404.html").read_text()).links
        if _internal(link) and "/not-found.js?" not in "/" + link
    ]  # (its scripts are below)
    assert links and all(link.startswith(("/", "#")) for link in links), links
    assert "/" in links
    # Without site_url it carries its stylesheet, allowed by the CSP by its hash, and asks for
    # not-found.js from the folders above it, nearest first.
    page = (site / "404.html").read_text()
    policy = re.search(r'http-equiv=Content-Security-Policy content="([^"]+)"', page)
    text = (REPO / "templates" / "static" / "style.css").read_text()
    digest = base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()
    assert policy and f"style-src 'self' 'sha256-{digest}';" in policy[1]
    assert "script-src 'self';" in policy[1]
    assert page.count(f"<style>{text}</style>") == 1
    scripts = re.findall(r'<script defer src="([^"]+)"></script>', page)
    looked_in = ["../" * depth + "assets/not-found.js" for depth in range(8)]
    assert [src.split("?v=")[0] for src in scripts] == looked_in

    site = build(project, "--site-url", "https://example.org/deep/bench/")
    links = [link for link in links_of((site / "404.html").read_text()).links if _internal(link)]
    for link in links:
        if link.startswith("#"):
            continue
        assert link.startswith("/deep/bench/"), link
        path = urlsplit(link).path.removeprefix("/deep/bench/")
        assert (site / path).is_file() or (site / path / "index.html").is_file(), link


def test_served_under_an_arbitrary_sub_path_no_link_is_broken(shipped: Path) -> None:
    # Built with no base setting at all; served where the build could not have known.
    assert "site_url:" not in (shipped / "sitegen.yaml").read_text().replace("# site_url:", "")
    site = shipped / "_site"
    pages = sum(1 for _ in site.rglob("*.html"))
    files = sum(1 for path in site.rglob("*") if path.is_file())
    with served_under(site, "/any/sub-path/x7/") as address, httpx.Client(timeout=5.0) as client:
        assert (
            client.get(address.replace("/any/", "/other/")).status_code == 404
        )  # the prefix is real
        seen: set[str] = set()
        queue = [address + "index.html"]
        checked = 0
        while queue:
            assert len(seen) <= files, "the crawl must end"  # bounded: each file of the site once
            url = queue.pop()
            if url in seen:
                continue
            seen.add(url)
            response = client.get(url)
            assert response.status_code == 200, f"broken: {url}"
            checked += 1
            if not urlsplit(url).path.endswith(".html"):
                continue
            for link in filter(_internal, links_of(response.text).links):
                target = urljoin(url, link).split("#", 1)[0]
                assert target.startswith(address), f"{url}: {link} leaves the site's path"
                queue.append(target)
    assert (
        checked > 50 and sum(1 for url in seen if url.endswith(".html")) == pages - 1
    )  # all but 404.html
    # Issue 14's pages among them: /capacity/ and every preset's static view.
    presets = sorted(path.name for path in (site / "at").iterdir())
    assert presets and address + "capacity/index.html" in seen
    assert all(f"{address}at/{name}/index.html" in seen for name in presets)
    # What point.js fetches from the index (data-root "" + data/points/<context>/<n>.json) is served
    # there too.
    points = sorted((site / "data" / "points").rglob("*.json"))
    assert points
    with served_under(site, "/any/sub-path/x7/") as address, httpx.Client(timeout=5.0) as client:
        for path in points[:5]:
            assert client.get(address + path.relative_to(site).as_posix()).status_code == 200


def test_feed_sitemap_and_runs_index_with_a_site_url(project: Path) -> None:
    site = build(project, "--site-url", "https://example.org/bench")  # the trailing "/" is added
    runs = sorted(p.stem for p in (project / "content" / "runs").glob("*.yaml"))

    feed = ET.parse(site / "feed.xml").getroot()
    entries = feed.findall(f"{ATOM}entry")
    assert len(entries) == len(runs)
    links = {e.find(f"{ATOM}link").get("href") for e in entries}  # type: ignore[union-attr]
    assert links == {f"https://example.org/bench/runs/{run}/" for run in runs}
    assert {e.findtext(f"{ATOM}id") for e in entries} == links
    dates = [e.findtext(f"{ATOM}updated") for e in entries]
    assert dates == sorted(dates, reverse=True)

    sitemap = ET.parse(site / "sitemap.xml").getroot()
    locations = {loc.text for loc in sitemap.iter(f"{SITEMAP}loc")}
    assert "https://example.org/bench/" in locations
    assert {f"https://example.org/bench/runs/{run}/" for run in runs} <= locations
    for location in locations:
        assert (
            location
            and (
                site / (location.removeprefix("https://example.org/bench/") + "index.html")
            ).is_file()
        )

    page = (site / "runs" / runs[0] / "index.html").read_text()
    assert f'<link rel="canonical" href="https://example.org/bench/runs/{runs[0]}/">' in page
    assert f'<meta property="og:url" content="https://example.org/bench/runs/{runs[0]}/">' in page
    assert check_relative_links(site) > 400  # page links stay relative

    text = (site / "data" / "runs.json").read_text()
    index = json.loads(text)
    assert index["version"] == 3
    assert "csv" not in index["fields"]  # the run CSV is made in the browser from the "result" JSON
    entries = [
        dict(zip(index["fields"], run, strict=True)) for run in index["runs"]
    ]  # names once, then values
    assert [entry["id"] for entry in entries] == runs
    assert len(text.splitlines()) == len(runs) + 2  # compact: one run per line
    # Relative to data/runs.json itself, as any relative URL in a document is.
    assert entries[0]["page"] == f"../runs/{runs[0]}/index.html"
    assert (site / "data" / entries[0]["result"]).resolve() == (
        site / "runs" / f"{runs[0]}.json"
    ).resolve()
    first = published_run(site / "runs" / f"{runs[0]}.json")
    assert (entries[0]["model"], entries[0]["accelerator"], entries[0]["count"]) == (
        first["run"]["model"],
        first["hardware"]["accelerator"],
        first["hardware"]["count"],
    )
    headlines = dict(zip(index["headline_fields"], entries[0]["headlines"], strict=True))
    assert headlines["accelerators"] == first["hardware"]["count"]
    assert headlines["decode_peak"] == max(
        c["total_tokens_per_s"]
        for c in first["measurements"]["decode"]
        if c["status"] in ("valid", "requests_queued") and c.get("total_tokens_per_s") is not None
    )
    assert (site / "schema" / "result.schema.json").is_file()


def test_without_a_site_url_the_build_says_what_it_leaves_out(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    site = build(project)
    err = capsys.readouterr().err
    assert err.count("no site_url") == 1 and "sitemap.xml" in err
    assert not (site / "sitemap.xml").exists()  # the sitemap protocol allows only absolute URLs
    page = (site / "index.html").read_text()
    assert "canonical" not in page and "og:" not in page
    feed = ET.parse(site / "feed.xml").getroot()
    entries = feed.findall(f"{ATOM}entry")
    for entry in entries:
        link = entry.find(f"{ATOM}link").get("href")  # type: ignore[union-attr]
        assert (
            link is not None and not urlsplit(link).scheme
        )  # relative to feed.xml (RFC 4287 allows it)
        assert (site / link).is_file()
        assert (entry.findtext(f"{ATOM}id") or "").startswith(
            "urn:sitegen:run:"
        )  # Atom ids must be absolute
    build(project, "--site-url", "https://example.org/")
    assert "no site_url" not in capsys.readouterr().err
    assert (site / "sitemap.xml").is_file()
    build(project)  # an incremental build without it again removes the sitemap
    assert not (site / "sitemap.xml").exists()


def test_pages_grow_linearly_with_runs(shipped: Path) -> None:
    site = shipped / "_site"
    runs = len(list((shipped / "content" / "runs").glob("*.yaml")))
    # Comparisons are drawn by the reader's browser: no page a pair, and the ready-made ones on
    # /compare/ are consecutive pairs only, never every pair.
    assert [p.relative_to(site).as_posix() for p in (site / "compare").rglob("*")] == [
        "compare/index.html"
    ]
    ready_made = re.findall(r'href="[^"]*\?runs=', (site / "compare/index.html").read_text())
    assert 0 < len(ready_made) < runs
    html_pages = len(list(site.rglob("*.html")))
    # And a page per model at each service level (capacity_views): the levels are settings.
    models = len([p for p in (site / "models").iterdir() if p.is_dir()])
    levels = len([p for p in (site / "capacity").iterdir() if p.is_dir() and not p.name.isdigit()])
    assert levels >= 1 and html_pages <= 4 * runs + 3 + levels * models


def test_every_model_and_accelerator_has_its_page(shipped: Path) -> None:
    site = shipped / "_site"
    index = (site / "index.html").read_text()
    hrefs = set(re.findall(r'href="((?:models|hardware)/[^"]+/index\.html)"', index))
    assert hrefs
    for href in hrefs:
        assert (site / href).is_file()
    # The shipped runs' models and accelerators (Llama 2 7B on a Radeon 8060S the latest).
    assert len([p for p in (site / "models").iterdir() if p.is_dir()]) == 9
    assert len([p for p in (site / "hardware").iterdir() if p.is_dir()]) == 8


def test_group_index_pages_link_every_group_and_the_nav_links_them(shipped: Path) -> None:
    site = shipped / "_site"
    for kind in ("models", "hardware"):
        listing = (site / kind / "index.html").read_text()
        groups = {p.name for p in (site / kind).iterdir() if p.is_dir()}
        # Relative to /<kind>/index.html: the group's own page, by its file name.
        assert (
            set(
                re.findall(rf'<th scope="row"><a href="\.\./{kind}/([^"/]+)/index\.html">', listing)
            )
            == groups
        )
        assert (
            f'<a href="{kind}/index.html">' in (site / "index.html").read_text()
        )  # in the site nav


def test_every_run_page_links_to_a_comparison_when_its_group_has_another_run(shipped: Path) -> None:
    from sitegen.parse import parse_yaml

    site = shipped / "_site"
    pairs = natural_pairs_from_files(shipped / "content")
    # Groups as the result files say: the base model (or the model), and the accelerator.
    facts = {}
    for path in sorted((shipped / "content" / "runs").glob("*.yaml")):
        data = parse_yaml(path.name, path.read_bytes()).data
        facts[path.stem] = (
            (data["run"].get("base_model") or data["run"]["model"]).lower(),
            data["hardware"]["accelerator"].lower(),
        )
    linked = viewed = 0
    for run_id, (model, accelerator) in facts.items():
        others = [
            other
            for other, (m, a) in facts.items()
            if other != run_id and (m == model or a == accelerator)
        ]
        page = site / "runs" / run_id / "index.html"
        targets = [
            html.unescape(t)
            for t in re.findall(
                r'<a href="(\.\./\.\./compare/[^"]+)">Compare with', page.read_text()
            )
        ]
        if not others:
            assert not targets
            continue
        linked += 1
        # Each other run of its model or accelerator, in a reader's view (of a group larger than
        # one view holds, its closest runs: test_compare).
        for other in others if len(others) < MAX_RUNS else []:
            assert any(other in target and run_id in target for target in targets), (run_id, other)
        for target in targets:
            assert (page.parent / re.split(r"[?#]", target, maxsplit=1)[0]).resolve().is_file(), (
                target
            )
        # One reader's view per group at most (model, accelerator), not one per other run: the
        # run first (the baseline), then up to five others, each once.
        views = [
            parse_qs(urlsplit(target).query)["runs"][0].split(",")
            for target in targets
            if "?runs=" in target
        ]
        # A view of each natural pair the run is in, then one a group: two at most, besides.
        partners = {b for a, b in pairs if a == run_id} | {a for a, b in pairs if b == run_id}
        group_views = [view for view in views if not (len(view) == 2 and view[1] in partners)]
        assert len(group_views) <= 2, (run_id, views)
        assert all(any(view == [run_id, other] for view in views) for other in partners), views
        viewed += len(group_views)
        for view in views:
            assert view[0] == run_id and 2 <= len(view) <= 6 and len(set(view)) == len(view), view
        # Feed autodiscovery is on the pages that list runs, not on each run's page.
        assert "application/atom+xml" not in page.read_text()
    assert linked >= 5 and viewed >= 2  # the shipped runs: most others are natural pairs
    assert "application/atom+xml" in (site / "index.html").read_text()


def test_the_index_pages_link_relatively_from_their_own_folder(shipped_paged: Path) -> None:
    """Pages of 3 runs on average, so the 10 shipped runs make page/2/ and page/3/
    (tests/kit/paging_rule.py):
    from each, every link is a
    file of the site (read as over file://), and served under a sub-path a crawl from the
    front page reaches every page of the index and every run. The search index's links,
    relative to the site root, name the run pages' files."""
    site = shipped_paged / "_site"  # built with PAGED_INDEX_SIZE runs a page
    count = len(site_pages(site, PAGED_INDEX_SIZE))
    pages = ["index.html", *(f"page/{number}/index.html" for number in range(2, count + 1))]
    assert count > 2
    assert (
        all((site / page).is_file() for page in pages)
        and not (site / "page" / str(count + 1)).exists()
    )
    check_relative_links(site)
    second = (site / "page" / "2" / "index.html").read_text()
    assert 'href="../../assets/style.css?v=' in second
    assert (
        'rel="prev" href="../../index.html"' in second
        and 'rel="next" href="../../page/3/index.html"' in second
    )
    runs = {p.stem for p in (shipped_paged / "content" / "runs").glob("*.yaml")} | {
        p.name for p in (shipped_paged / "content" / "runs").iterdir() if p.is_dir()
    }
    hrefs = {run[0] for run in search_runs(site)}
    assert hrefs == {f"runs/{run_id}/index.html" for run_id in runs}
    assert all((site / href).is_file() for href in hrefs)
    with served_under(site, "/deep/er/") as address, httpx.Client(timeout=5.0) as client:
        seen: set[str] = set()
        queue = [address + "index.html"]
        for _ in range(5000):  # bounded: each page of the site once
            if not queue:
                break
            url = queue.pop()
            if url in seen or not url.endswith(".html"):
                continue
            seen.add(url)
            response = client.get(url)
            assert response.status_code == 200, f"broken: {url}"
            queue += [
                urljoin(url, link).split("#", 1)[0]
                for link in filter(_internal, links_of(response.text).links)
            ]
        else:
            pytest.fail("the crawl did not end")
    assert {address + page for page in pages} <= seen
    assert {f"{address}runs/{run_id}/index.html" for run_id in runs} <= seen
