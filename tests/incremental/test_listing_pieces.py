"""The pieces of listing pages are keyed in one place (sitegen/site/incremental/fragments.py): each
is made by a plain function whose arguments are all it is made from, and a group stands for the
plan's digest of it. A changed run, label or setting makes anew every piece that shows it: the
pages made from the last build's pieces are the pages made from none, and they show the change."""

from __future__ import annotations

import functools
import re
from pathlib import Path

import pytest
from jinja2 import Environment

from sitegen.config import load_config
from sitegen.resources import resource_dir
from sitegen.site.figures.build_figures import Analysis, Settings
from sitegen.site.figures.grouping import Group, site_groups, use_accelerator_aliases
from sitegen.site.incremental.fragments import Fragments, key_of
from sitegen.site.page import Site
from sitegen.site.pages.index import search_index_of
from sitegen.site.pages.presets import point_contexts, preset_path
from sitegen.site.plan import PlanMemory, plan
from sitegen.site.render import environment, render
from sitegen.store import read_collected
from tests.kit.listing_change import QWEN3_4B, listing_change
from tests.kit.project import REPO, SEED_RUN_ID, run_cli

# The listing pages made of kept pieces, one of each kind: the index, /compare/, the lists of
# models and of accelerators, /capacity/, a preset view, and the seed run's model page.
LISTINGS = (
    "index.html",
    "compare/index.html",
    "models/index.html",
    "hardware/index.html",
    "capacity/index.html",
)
SEED_MODEL_PAGE = "models/deepseek-v4-flash-dspark/index.html"


@functools.cache
def _templates() -> Environment:
    """The shipped templates, compiled once for every page these tests render (as a build's own
    environment is, for its pages)."""
    return environment(resource_dir("templates"))


def _made(project: Path, fragments: Fragments) -> dict[str, bytes]:
    """The listing pages and the data files made of pieces, as a build makes them from the
    project's collected runs, with ``fragments`` keeping the pieces."""
    config = load_config(project / "sitegen.yaml")
    settings = Settings.of(config)
    use_accelerator_aliases(settings.accelerator_aliases)
    site = Site(config.title, config.description, config.site_url)
    runs = read_collected(config.state_dir)
    analysis = Analysis(settings, fragments=fragments)
    memory = PlanMemory()
    planned = {page.path: page for page in plan(site, runs, analysis, memory)}
    wanted = [*LISTINGS, SEED_MODEL_PAGE, preset_path(settings.presets[0], 1)]
    made = {path: render(_templates(), planned[path].make()) for path in wanted}
    assert memory.site_groups is not None
    made["data/index.json"] = search_index_of(
        site, runs, analysis, memory.site_groups, memory.labels
    )
    models = [group for group in memory.site_groups.values() if group.kind == "models"]
    made.update(point_contexts(runs, analysis, models))
    return made


def _raise_peak(project: Path) -> str:
    """The seed run's largest total tok/s raised by a half: its new peak decode, as the listings
    write a throughput (numbers.rate, below 10K: '1,900.5')."""
    path = project / "content" / "runs" / f"{SEED_RUN_ID}.yaml"
    text = path.read_text()
    found = re.findall(r"total_tokens_per_s: ([\d.]+)", text)
    peak = max(found, key=float)
    raised = float(peak) + 0.5
    assert raised < 10_000
    path.write_text(
        text.replace(f"total_tokens_per_s: {peak}\n", f"total_tokens_per_s: {raised}\n")
    )
    return f"{raised:,.1f}"


@pytest.mark.parametrize("change", ["figure", "sibling", "group label", "service level"])
def test_a_changed_input_makes_the_pieces_that_show_it_anew(
    project: Path, tmp_path: Path, change: str
) -> None:
    if change == "group label":
        listing_change(project, "sibling")
    assert run_cli(project, "collect") == 0
    store = tmp_path / "fragments.json"
    first = Fragments(store, "scope", _templates())
    before = _made(project, first)
    first.save()
    shown = _raise_peak(project) if change == "figure" else ""
    if change != "figure":
        listing_change(project, change)
    assert run_cli(project, "collect") == 0
    kept = Fragments(store, "scope", _templates())
    again = _made(project, kept)
    cold = _made(project, Fragments(None, "", _templates()))
    assert sorted(again) == sorted(cold)
    assert [name for name in cold if again[name] != cold[name]] == []
    # Some pieces were kept (the test is of kept pieces), and some made anew. The store's scope
    # is the same: a setting is in the key of each piece that shows it (its group's digest).
    assert 0 < kept.made < len(kept._used), (kept.made, len(kept._used))
    text = {name: data.decode() for name, data in cold.items()}
    changed = {name for name in cold if before.get(name) != cold[name]}
    if change == "figure":
        assert {"index.html", SEED_MODEL_PAGE, "models/index.html", "data/index.json"} <= changed
        assert shown in text["index.html"] and shown in text[SEED_MODEL_PAGE]
        assert shown in text["models/index.html"] and shown in text["data/index.json"]
    elif change == "sibling":  # the unchanged run gets a distinguishing label where it is named
        assert {"index.html", "compare/index.html", "data/index.json"} <= changed
        row = next(row for row in text["index.html"].split("<tr") if f"runs/{QWEN3_4B}/" in row)
        assert "class=run-label" in row
        option = next(
            line for line in text["compare/index.html"].split("<option") if QWEN3_4B in line
        )
        assert "Qwen3-4B · " in option and option.count(" · ") >= 3
    elif change == "group label":
        assert {"models/index.html", "capacity/index.html", "data/index.json"} <= changed
        for name in ("models/index.html", "capacity/index.html", "compare/index.html"):
            assert "QWEN/Qwen3-4B" in text[name] and "Qwen/Qwen3-4B" not in text[name], name
    else:
        assert {"capacity/index.html"} <= changed
        assert ">srv</a>" in text["capacity/index.html"]


def _group(label: str, runs: tuple[object, ...] = (), digest: str = "") -> Group:
    return Group("models", "m", "m", label, runs, digest)  # type: ignore[arg-type]


def _listed(group: Group) -> str:
    return group.label


def test_a_group_is_keyed_by_the_plans_digest_or_else_by_its_fields_and_runs(
    project: Path,
) -> None:
    assert run_cli(project, "collect") == 0
    runs = read_collected(load_config(project / "sitegen.yaml").state_dir)
    groups = [group for group in site_groups(runs).values() if len(group.runs) > 1]
    group = groups[0]
    # Outside a plan: its label and each of its runs are in its key.
    assert key_of(_listed, group) == key_of(_listed, Group(**{**group.__dict__}))
    assert key_of(_listed, group) != key_of(_listed, _group("other", group.runs))
    assert key_of(_listed, group) != key_of(
        _listed, Group(group.kind, group.key, group.slug, group.label, group.runs[1:])
    )
    # From a plan: the digest it worked out (each group's, by its path), and nothing else.
    memory = PlanMemory()
    plan(Site("T", "D"), runs, Analysis(), memory)
    assert memory.site_groups is not None
    for planned in memory.site_groups.values():
        assert planned.digest == memory.groups[planned.path]
    digests = {planned.digest for planned in memory.site_groups.values()}
    assert len(digests) == len(memory.site_groups)
    with_digest = _group("a", (), "d1")
    assert key_of(_listed, with_digest) == key_of(_listed, _group("b", group.runs, "d1"))
    assert key_of(_listed, with_digest) != key_of(_listed, _group("a", (), "d2"))


# A key made by hand at a call site names what its author thought of, and a forgotten input is a
# stale page: pieces are kept only through Fragments.cached, cached_bytes, cached_run_bytes and
# render_cached.
HAND_MADE = re.compile(
    r"Fragments\.key\(|fragments\.(?:key|get|get_bytes|put)\("
    r"|\bgroup_digests\b|\bgroup_content\(|_points_key\("
)
KEYS_MADE_IN = REPO / "sitegen" / "site" / "incremental" / "fragments.py"


def _hand_made_keys(text: str) -> list[str]:
    return [
        f"{number}: {line.strip()}"
        for number, line in enumerate(text.splitlines(), start=1)
        if HAND_MADE.search(line)
    ]


def test_the_rule_finds_a_key_made_by_hand() -> None:
    planted = (
        'key = Fragments.key("index row", site.root, run.id)\n'
        "rows = analysis.fragments.get_bytes(key, make)\n"
        "rows = fragments.cached_bytes(make, run)\n"
    )
    assert _hand_made_keys(planted) == [
        '1: key = Fragments.key("index row", site.root, run.id)',
        "2: rows = analysis.fragments.get_bytes(key, make)",
    ]
    assert _hand_made_keys("text = analysis.fragments.cached(_index_row, site, run)\n") == []


def test_no_key_is_made_by_hand_outside_the_fragments() -> None:
    found = {
        str(path.relative_to(REPO)): _hand_made_keys(path.read_text())
        for path in sorted((REPO / "sitegen").rglob("*.py"))
        if path != KEYS_MADE_IN
    }
    assert {path: lines for path, lines in found.items() if lines} == {}
