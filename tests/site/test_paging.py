"""The listings' pages end where the paging rule says (sitegen/site/figures/paging.py against the
rule worked out in tests/kit/paging_rule.py), and a run added to one model builds again only the
pages that show that model (and the first page of the index, which counts every run, and of each
preset view, which lists every model with its page): the other listing pages keep their files."""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sitegen.site.figures.paging import paging
from tests.kit.paging_rule import ends_a_page, expected_pages, model_runs, site_pages
from tests.kit.project import run_cli


@dataclass(frozen=True)
class _Model:
    """What paging reads of a model group: its key and how many runs it has."""

    key: str
    runs: tuple[int, ...]


def _models(sizes: dict[str, int]) -> list[_Model]:
    return [_Model(key, tuple(range(count))) for key, count in sizes.items()]


def _pages(sizes: dict[str, int], size: int) -> list[list[tuple[str, int]]]:
    models = _models(sizes)
    return [
        [(group.key, last - first) for group, first, last in parts]
        for parts in paging(models, size).parts(models)
    ]  # type: ignore[arg-type]


model_sizes = st.dictionaries(
    st.text("abcdefghij/-.", min_size=1, max_size=12), st.integers(1, 40), max_size=60
).map(lambda found: dict(sorted(found.items())))


@settings(max_examples=300, deadline=None)
@given(sizes=model_sizes, size=st.sampled_from([1, 3, 10, 100]))
def test_pages_end_where_the_rule_says(sizes: dict[str, int], size: int) -> None:
    pages = _pages(sizes, size)
    assert pages == expected_pages(sizes, size)
    # Every run on exactly one page, none fuller than twice the page size.
    assert sum(count for page in pages for _, count in page) == sum(sizes.values())
    assert all(sum(count for _, count in page) <= 2 * size for page in pages)
    models = _models(sizes)
    found = paging(models, size)  # type: ignore[arg-type]
    offset = 0
    for model in models:  # page_of: where a model's first run is
        assert any(key == model.key for key, _ in pages[found.page_of(offset) - 1])
        offset += len(model.runs)


@settings(max_examples=300, deadline=None)
@given(sizes=model_sizes.filter(bool), size=st.sampled_from([3, 10]), data=st.data())
def test_a_run_added_to_a_model_moves_no_page_of_other_models(
    sizes: dict[str, int], size: int, data: st.DataObject
) -> None:
    """Unless the page count changes (the model's draw crossing its new share, or a stretch
    crossing twice the page size), every page without a model of the added run's stretch (the
    models from the one after the last that ends a page before it, to the first that ends a
    page from it on; from the first model when it is on the first page) is the same page as
    before: a stretch longer than twice the page size is cut from its start, so a run added in
    it moves runs of later models of it, no others."""
    model = data.draw(st.sampled_from(sorted(sizes)))
    grown = {**sizes, model: sizes[model] + 1}
    before, after = _pages(sizes, size), _pages(grown, size)
    if len(before) != len(after):
        return
    order = list(sizes)
    at = order.index(model)
    ends = [
        ends_a_page(key, sizes[key], size) and ends_a_page(key, grown[key], size) for key in order
    ]
    # The first page ends at the first model end from the page size on, whatever the draws: its
    # models' draws end no stretch, and a run added to one of them can move where it ends.
    first = max(order.index(key) for key, _ in before[0] + after[0])
    if at <= first:
        start, end = (
            0,
            min((n for n in range(first + 1, len(order)) if ends[n]), default=len(order) - 1),
        )
    else:
        start = max((n + 1 for n in range(first + 1, at) if ends[n]), default=first + 1)
        end = min((n for n in range(at, len(order)) if ends[n]), default=len(order) - 1)
    stretch = set(order[start : end + 1])
    for old, new in zip(before, after, strict=True):
        if all(key not in stretch for key, _ in old + new):
            assert old == new


def test_pages_hold_about_the_page_size_on_average() -> None:
    """20,000 runs in models of 10 (benchmarks/bench.py's shape): about 100 runs a page."""
    sizes = {f"org-{n % 7}/model-{n}": 10 for n in range(2000)}
    pages = _pages(dict(sorted(sizes.items())), 100)
    assert 150 <= len(pages) <= 300, len(pages)


LISTINGS = {
    "index": ("sitegen.site.pages.index.PAGE_SIZE", "index.html", "page/{}/index.html"),
    "capacity": (
        "sitegen.site.sections.capacity.CAPACITY_PAGE_SIZE",
        "capacity/index.html",
        "capacity/{}/index.html",
    ),
    "preset": (
        "sitegen.site.pages.presets.AT_PAGE_SIZE",
        "at/32k-16/index.html",
        "at/32k-16/{}/index.html",
    ),
}


def _listing_inodes(site: Path, count: int) -> dict[tuple[str, int], int]:
    found = {}
    for name, (_, first, later) in LISTINGS.items():
        for number in range(1, count + 1):
            found[(name, number)] = (
                (site / (first if number == 1 else later.format(number))).stat().st_ino
            )
    return found


def test_a_run_added_builds_only_the_listing_pages_of_its_model(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for setting, _, _ in LISTINGS.values():
        monkeypatch.setattr(setting, 3)
    assert run_cli(project, "collect") == 0 and run_cli(project, "build") == 0
    site = project / "_site"
    models = {key: len(ids) for key, ids in model_runs(site).items()}
    before = expected_pages(models, 3)
    # A model whose added run keeps the page count, and leaves some page without it.
    for model in models:
        after = expected_pages({**models, model: models[model] + 1}, 3)
        # A model split over pages whose part on one page changed shifts on all of them.
        moved = {
            key
            for old, new in zip(before, after, strict=False)
            if old != new
            for key, _ in old + new
        }
        changed = {
            number
            for number, (old, new) in enumerate(zip(before, after, strict=False), start=1)
            if old != new or any(key == model or key in moved for key, _ in old)
        }
        if len(after) == len(before) and len(changed) < len(before):
            break
    else:
        pytest.fail("no model of the shipped runs leaves a page unchanged")
    kept = _listing_inodes(site, len(before))
    source = project / "content" / "runs" / f"{model_runs(site)[model][0]}.yaml"
    if not source.is_file():
        pytest.skip(f"{source.name} is a raw-output folder")
    shutil.copy(source, source.with_name("added-again.yaml"))
    assert run_cli(project, "collect") == 0 and run_cli(project, "build") == 0
    assert site_pages(site, 3) == after
    now = _listing_inodes(site, len(after))
    rebuilt = {page for page in now if now[page] != kept[page]}
    # The first page of the index counts every run, and of a preset view lists every model.
    expected = {(name, number) for name in LISTINGS for number in changed} | {
        ("index", 1),
        ("preset", 1),
    }
    assert rebuilt == expected
    assert len(rebuilt) < len(now)
