"""A plan told the last build's group digests and page keys (pages.PlanMemory) gives every page
the key a plan told nothing gives it: a run page keeps its old key only where nothing it shows
changed, whatever changed elsewhere."""

from __future__ import annotations

from pathlib import Path

import pytest

from sitegen.config import load_config
from sitegen.site.figures.build_figures import Analysis, Settings
from sitegen.site.page import Site
from sitegen.site.plan import PlanMemory, plan
from sitegen.store import read_collected
from tests.kit.listing_change import listing_change
from tests.kit.project import run_cli


def _keys(project: Path, memory: PlanMemory | None = None) -> dict[str, str]:
    config = load_config(project / "sitegen.yaml")
    site = Site(config.title, config.description, config.site_url)
    runs = read_collected(config.state_dir)
    return {page.path: page.key for page in plan(site, runs, Analysis(Settings.of(config)), memory)}


@pytest.mark.parametrize(
    "change", ["add", "remove", "edit", "sibling", "group path", "group label", "service level"]
)
def test_keys_from_the_last_plan_are_the_keys_worked_out_anew(project: Path, change: str) -> None:
    if change == "group label":
        listing_change(project, "sibling")
    assert run_cli(project, "collect") == 0
    first = PlanMemory()
    before = _keys(project, first)
    assert first.groups and all(path.endswith("/") for path in first.groups)
    listing_change(project, change)
    assert run_cli(project, "collect") == 0
    taken: list[str] = []

    def last_key(path: str) -> str | None:
        taken.append(path)
        return before.get(path)

    second = PlanMemory(first.groups, last_key)
    remembered = _keys(project, second)
    fresh = PlanMemory()
    assert remembered == _keys(project, fresh)
    assert second.groups == fresh.groups
    run_pages = [path for path in remembered if path.startswith("runs/")]
    if change == "service level":  # in every group's digest: nothing is taken from the last plan
        assert taken == []
    else:  # the runs of the groups the change did not touch keep their keys
        assert taken and all(remembered[path] == before[path] for path in taken), (change, taken)
        taken_run_pages = [path for path in taken if path.startswith("runs/")]
        assert taken_run_pages
        assert set(taken) <= set(run_pages)
        if change != "remove":  # (the removed run was alone in its model and on its accelerator)
            assert len(taken_run_pages) < len(run_pages)
