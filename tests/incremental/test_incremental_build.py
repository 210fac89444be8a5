"""Incremental builds: an unchanged build renders and reads nothing, a changed input makes
again exactly the pages, figures, pieces and data files that show it, and the result is
byte-identical to a cold build."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from sitegen.site.incremental import folder_records as site_folders
from tests.kit.builds import MINIMAL, cold_build, trust_recorded_identities
from tests.kit.clock import past_the_file_system_tick
from tests.kit.figure_store import entries
from tests.kit.listing_change import QWEN3_4B, listing_change
from tests.kit.project import SEED_RUN_ID, forget_builds, run_cli, site_files
from tests.kit.search_index import search_strings


def test_incremental_build_is_byte_identical_to_a_cold_one(built: Path, tmp_path: Path) -> None:
    runs = built / "content" / "runs"
    # Change the site the ways contributors do: edit a figure, add a run, remove a run.
    seed = runs / f"{SEED_RUN_ID}.yaml"
    seed.write_text(
        seed.read_text().replace("total_tokens_per_s: 228.386789", "total_tokens_per_s: 230.5", 1)
    )
    shutil.copy(MINIMAL, runs / "added-run.yaml")
    (runs / "ttp300-vllm-qwen3-4b.yaml").unlink()
    assert run_cli(built, "collect") == 0
    assert run_cli(built, "build") == 0
    incremental = site_files(built / "_site")
    # Cold: no figures, pieces, compiled templates or charts kept by earlier builds either.
    forget_builds(built, drawn=True)
    assert run_cli(built, "build") == 0
    assert site_files(built / "_site") == incremental
    page = (built / "_site" / "runs" / SEED_RUN_ID / "index.html").read_text()
    assert "230.5" in page and "added-run" in (built / "_site" / "index.html").read_text()


def test_unchanged_build_renders_nothing(built: Path, capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert run_cli(built, "build") == 0
    assert "(0 rendered, 0 new charts)" in capsys.readouterr().out


def test_unchanged_build_reads_no_run_and_touches_no_file(
    small_project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from sitegen.site import build as build_module

    assert run_cli(small_project, "collect") == 0
    assert run_cli(small_project, "build") == 0
    site = small_project / "_site"
    before = {
        path: (path.stat().st_ino, path.stat().st_mtime_ns)
        for path in site.rglob("*")
        if path.is_file()
    }

    def no_reading(*args: object, **kwargs: object) -> None:
        raise AssertionError("an unchanged build read the collected runs")

    monkeypatch.setattr(build_module, "read_collected", no_reading)
    capsys.readouterr()
    assert run_cli(small_project, "build") == 0
    out = capsys.readouterr().out
    pages = sum(1 for path in before if path.name == "index.html" or path.name == "404.html")
    assert "(0 rendered, 0 new charts)" in out and re.search(r"built (\d+) pages", out)
    assert int(re.search(r"built (\d+) pages", out).group(1)) >= pages - 1  # type: ignore[union-attr]
    assert {
        path: (path.stat().st_ino, path.stat().st_mtime_ns)
        for path in site.rglob("*")
        if path.is_file()
    } == before


def _built_and_settled(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Collect and build ``project``, its builds trusting what they record however recent, and
    wait out the clock's resolution: the next build trusts what this one recorded."""
    trust_recorded_identities(monkeypatch)
    assert run_cli(project, "collect") == 0
    assert run_cli(project, "build") == 0
    past_the_file_system_tick(project)


def test_settled_unchanged_build_reads_neither_the_collected_file_nor_each_folder(
    small_project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from sitegen.site import build as build_module

    _built_and_settled(small_project, monkeypatch)

    def no_reading(*args: object, **kwargs: object) -> None:
        raise AssertionError("the unchanged build read the collected file or listed a folder")

    monkeypatch.setattr(build_module, "_read_collected_bytes", no_reading)
    monkeypatch.setattr(site_folders, "lists_exactly", no_reading)
    capsys.readouterr()
    assert run_cli(small_project, "build") == 0
    assert "(0 rendered, 0 new charts)" in capsys.readouterr().out


def _folders_listed_by_a_build(project: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The folders the next build lists (site_folders.lists_exactly) instead of trusting their
    recorded identity."""
    listed: list[str] = []
    real = site_folders.lists_exactly

    def listing(path: str, *args: object) -> object:
        listed.append(path)
        return real(path, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(site_folders, "lists_exactly", listing)
    assert run_cli(project, "build") == 0
    return listed


def test_a_folder_changed_in_the_recording_tick_is_checked_not_trusted(
    small_project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A folder whose change time is the clock's reading when the build recorded it could change
    again in that tick without its time showing it: the next build lists it. (Here the reading
    is made to fall in the site folder's tick, as it does on a coarse clock that the build
    cannot wait out.)"""
    from sitegen import files

    assert run_cli(small_project, "collect") == 0
    real_clock = files.file_system_now
    site = small_project / "_site"

    def in_the_sites_tick(folder: Path, after_tick: bool = False) -> files.Clock | None:
        clock = real_clock(folder, after_tick)
        if not after_tick or clock is None or not site.is_dir():
            return clock
        return files.Clock(os.stat(site).st_ctime_ns, clock.device)

    monkeypatch.setattr(files, "file_system_now", in_the_sites_tick)
    assert run_cli(small_project, "build") == 0
    monkeypatch.setattr(files, "file_system_now", real_clock)
    assert str(site) in _folders_listed_by_a_build(small_project, monkeypatch)


def test_a_build_right_after_another_trusts_the_folders_it_recorded(
    small_project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The build waits for the file system's clock to move past its own changes before it
    records its folders (files.file_system_now's after_tick), so the next build, however soon,
    lists none of them: at 20,000 runs the folder ``runs/`` alone holds 40,000 entries."""
    assert run_cli(small_project, "collect") == 0
    assert run_cli(small_project, "build") == 0
    # the next build changes pages
    (small_project / "content" / "runs" / f"{SEED_RUN_ID}.yaml").unlink()
    assert run_cli(small_project, "collect") == 0
    assert run_cli(small_project, "build") == 0
    # Straight after: nothing to list, unless the clock is coarse.
    assert _folders_listed_by_a_build(small_project, monkeypatch) == []


def test_collected_file_changed_in_place_with_its_old_time_is_read(
    small_project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Same size, same modification time, same inode: the change time still tells."""
    _built_and_settled(small_project, monkeypatch)
    path = small_project / ".sitegen" / "collected.json"
    before = path.stat()
    data = path.read_bytes()
    at = data.index(b'"count":') + len(b'"count":')  # a run's accelerator count, one digit changed
    with path.open("r+b") as stream:  # in place: the inode stays
        stream.seek(at)
        stream.write(b"9" if data[at : at + 1] != b"9" else b"8")
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert path.stat().st_size == before.st_size and path.stat().st_ino == before.st_ino
    capsys.readouterr()
    assert run_cli(small_project, "build") == 1  # read, and found not to match its checksum
    assert "run `sitegen collect` again" in capsys.readouterr().err


@pytest.mark.parametrize("settled", [False, True], ids=["just built", "settled"])
@pytest.mark.parametrize(
    "change",
    [
        "stray file",
        "missing file",
        "file made a link",
        "settings",
        "collected runs",
        "stray folder",
        "folder made a link",
    ],
)
def test_unchanged_looking_build_still_builds_what_differs(
    small_project: Path, monkeypatch: pytest.MonkeyPatch, change: str, settled: bool
) -> None:
    """Only the inputs of the last build and exactly its files let a build stop early, whether
    the next build lists the folders (changed within the clock's resolution) or trusts the
    identities the last build recorded."""
    if settled:
        trust_recorded_identities(monkeypatch)
    assert run_cli(small_project, "collect") == 0
    assert run_cli(small_project, "build") == 0
    if settled:
        past_the_file_system_tick(small_project)
    site = small_project / "_site"
    reference = site_files(site)
    page = site / "runs" / SEED_RUN_ID / "index.html"
    if change == "stray file":
        (site / "runs" / "left-over.html").write_text("not part of the site")
    elif change == "missing file":
        page.unlink()
    elif change == "file made a link":
        page.unlink()
        page.symlink_to(site / "404.html")
    elif change == "stray folder":
        (site / "runs" / "left-over").mkdir()
    elif change == "folder made a link":
        shutil.move(page.parent, small_project / "moved")
        page.parent.symlink_to(small_project / "moved")
    elif change == "settings":
        config = small_project / "sitegen.yaml"
        config.write_text(
            config.read_text().replace(
                "title: LLM inference speed tests", "title: Another title", 1
            )
        )
    else:
        seed = small_project / "content" / "runs" / f"{SEED_RUN_ID}.yaml"
        seed.write_text(
            seed.read_text().replace(
                "total_tokens_per_s: 228.386789", "total_tokens_per_s: 230.5", 1
            )
        )
        assert run_cli(small_project, "collect") == 0
    assert run_cli(small_project, "build") == 0
    after = site_files(site)
    assert (
        not (site / "runs" / "left-over.html").exists()
        and not (site / "runs" / "left-over").exists()
    )
    assert page.is_file() and not page.is_symlink() and not page.parent.is_symlink()
    if change in (
        "stray file",
        "missing file",
        "file made a link",
        "stray folder",
        "folder made a link",
    ):
        assert after == reference
    elif change == "settings":
        assert "Another title" in (site / "index.html").read_text()
    else:
        assert "230.5" in page.read_text()


def test_incremental_build_moves_in_only_what_changed(built: Path) -> None:
    site = built / "_site"
    unchanged, changed = (
        site / "runs" / "ttp300-vllm-qwen3-4b" / "index.html",
        site / "runs" / SEED_RUN_ID / "index.html",
    )
    inodes = {path: path.stat().st_ino for path in (unchanged, changed)}
    seed = built / "content" / "runs" / f"{SEED_RUN_ID}.yaml"
    seed.write_text(
        seed.read_text().replace("total_tokens_per_s: 228.386789", "total_tokens_per_s: 230.5", 1)
    )
    assert run_cli(built, "collect") == 0
    assert run_cli(built, "build") == 0
    assert unchanged.stat().st_ino == inodes[unchanged], "an unchanged page is left where it is"
    assert changed.stat().st_ino != inodes[changed] and "230.5" in changed.read_text()


def test_an_added_run_works_out_only_its_own_figures(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Capacities and headlines of runs an earlier build saw are read from
    # .sitegen/cache/figures.json.
    from sitegen.config import load_config
    from sitegen.site.figures import capacity, headlines

    # The session's builds share one cache folder: without this project's first build, the
    # figures of runs of other projects (the added run's among them) would be kept there.
    (project / ".sitegen" / "cache" / "figures.json").unlink(missing_ok=True)
    assert run_cli(project, "collect") == 0
    assert run_cli(project, "build") == 0

    stored = entries(project / ".sitegen" / "cache" / "figures.json")
    collected = json.loads((project / ".sitegen" / "collected.json").read_bytes())
    assert sorted(stored) == sorted(entry["digest"] for entry in collected["runs"])
    shutil.copy(MINIMAL, project / "content" / "runs" / "added-run.yaml")
    assert run_cli(project, "collect") == 0
    worked_out: list[str] = []
    original_capacity, original_headlines = capacity.capacity, headlines.headlines

    def counted_capacity(*args: object, **kwargs: object) -> capacity.Capacity:
        worked_out.append("capacity")
        return original_capacity(*args, **kwargs)  # type: ignore[arg-type]

    def counted_headlines(run: object) -> headlines.Headlines:
        worked_out.append(f"headlines {run.id}")  # type: ignore[attr-defined]
        return original_headlines(run)  # type: ignore[arg-type]

    monkeypatch.setattr(capacity, "capacity", counted_capacity)
    monkeypatch.setattr(headlines, "headlines", counted_headlines)
    assert run_cli(project, "build") == 0
    added = json.loads((project / "_site" / "runs" / "added-run.json").read_bytes())
    decode = added["measurements"]["decode"]
    column = decode["fields"].index("context_tokens")
    contexts = {row[column] for row in decode["rows"]}
    levels = len(load_config(project / "sitegen.yaml").service_levels)
    assert [entry for entry in worked_out if entry.startswith("headlines")] == [
        "headlines added-run"
    ]
    assert worked_out.count("capacity") == len(contexts) * levels


_PRICE = (
    '\nprices:\n  H200 NVL: {usd_per_hour: 3.5, source: "https://example.com/pricing", date: '
    "2026-01-15}\n"
)


# Each change, and a data file that shows it: the data files are joins of pieces kept by a key
# of their inputs, so an input the key misses would leave that file as it was.
@pytest.mark.parametrize(
    ("change", "shown_in"),
    [
        ("a run's model", "data/setups.json"),
        ("a run's model", "data/runs.json"),
        ("a price", "data/points/{context}/deepseek-v4-flash-dspark.json"),
        ("a service level's name", "data/capacity.json"),
        ("a sibling's label", "data/runs.json"),
        ("a removed run", "data/points/32768.json"),
        ("a run's peak", "index.html"),  # the second of its model's runs becomes the first
    ],
)
def test_data_files_follow_every_input_they_show(built: Path, change: str, shown_in: str) -> None:
    runs = built / "content" / "runs"
    config = built / "sitegen.yaml"
    seed = json.loads((built / "_site" / "runs" / f"{SEED_RUN_ID}.json").read_bytes())
    decode = seed["measurements"]["decode"]
    context = decode["rows"][0][decode["fields"].index("context_tokens")]
    shown_in = shown_in.format(context=context)
    before = (built / "_site" / shown_in).read_bytes()
    if change == "a run's model":
        path = runs / f"{SEED_RUN_ID}.yaml"
        path.write_text(
            path.read_text().replace(
                "model: deepseek-ai/DeepSeek-V4-Flash-DSpark",
                "model: deepseek-ai/DeepSeek-V4-Flash-DSpark-Renamed",
                1,
            )
        )
    elif change == "a price":
        config.write_text(config.read_text() + _PRICE)
    elif change == "a service level's name":
        config.write_text(
            config.read_text().replace("  - name: interactive\n", "  - name: chat\n", 1)
        )
    elif change == "a sibling's label":
        # The same setup again: the run already there is now labelled to tell the two apart.
        shutil.copy(runs / "ttp300-vllm-qwen3-4b.yaml", runs / "ttp300-vllm-qwen3-4b-again.yaml")
    elif change == "a run's peak":
        path = runs / "dgxspark-llamacpp-gptoss120b-depth.yaml"
        path.write_text(
            path.read_text().replace(
                "total_tokens_per_s: 59.02", "total_tokens_per_s: 7654321.0", 1
            )
        )
        order = re.findall(r"runs/(dgxspark-llamacpp-gptoss120b-\w+)/index\.html", before.decode())
        assert list(dict.fromkeys(order)) == [
            "dgxspark-llamacpp-gptoss120b-batched",
            "dgxspark-llamacpp-gptoss120b-depth",
        ]
    else:
        # The only run of gpt-oss-120b at 32K: that context's list of models loses it.
        (runs / "dgxspark-llamacpp-gptoss120b-depth.yaml").unlink()
    assert run_cli(built, "collect") == 0
    assert run_cli(built, "build") == 0
    incremental = site_files(built / "_site")
    assert incremental.get(shown_in, b"") != before
    if change == "a run's peak":
        order = re.findall(
            r"runs/(dgxspark-llamacpp-gptoss120b-\w+)/index\.html", incremental[shown_in].decode()
        )
        assert order[0] == "dgxspark-llamacpp-gptoss120b-depth"
    assert cold_build(built) == incremental


def test_an_added_run_makes_only_its_own_pieces_of_the_data_files(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # capacity.json, setups.json, runs.json and the picker's context files are joins of pieces
    # kept by run (or model): the added run's are made, the others read back without making
    # their grids or headlines, and the files are the ones made from nothing.
    from sitegen.config import load_config
    from sitegen.model import Run
    from sitegen.site.figures import capacity
    from sitegen.site.figures.build_figures import Analysis, Settings
    from sitegen.site.incremental.fragments import Fragments
    from sitegen.site.page import Site
    from sitegen.site.pages.compare import setups_json
    from sitegen.site.pages.feeds import runs_index
    from sitegen.site.pages.presets import capacity_json, point_contexts
    from sitegen.store import read_collected

    shutil.copy(MINIMAL, project / "content" / "runs" / "added-run.yaml")  # a model of its own
    assert run_cli(project, "collect") == 0
    runs = read_collected(project / ".sitegen")
    settings = Settings.of(load_config(project / "sitegen.yaml"))
    site = Site("Title", "Description", None)

    def data_files(runs: list[Run], fragments: Fragments) -> tuple[bytes, ...]:
        analysis = Analysis(settings, fragments=fragments)
        return (
            capacity_json(runs, analysis),
            setups_json(runs, fragments),
            runs_index(site, runs, analysis.headlines, fragments),
            *point_contexts(runs, analysis).values(),
        )

    path = tmp_path / "fragments.json"
    earlier = Fragments(path, "scope")
    data_files([run for run in runs if run.id != "added-run"], earlier)
    earlier.save()
    grids: list[str] = []
    headlines: list[str] = []
    from sitegen.site.figures import headlines as headlines_module

    original_grid, original_headlines = capacity.CellGrid, headlines_module.headlines

    def counted_grid(run: object, *rest: object) -> object:
        grids.append(run.id)  # type: ignore[attr-defined]
        return original_grid(run, *rest)  # type: ignore[arg-type]

    def counted_headlines(run: object) -> object:
        headlines.append(run.id)  # type: ignore[attr-defined]
        return original_headlines(run)  # type: ignore[arg-type]

    monkeypatch.setattr(
        "sitegen.site.figures.build_figures.CellGrid", counted_grid
    )  # as the analysis makes them
    monkeypatch.setattr(
        headlines_module, "headlines", counted_headlines
    )  # as the book works them out
    fragments = Fragments(path, "scope")
    made = data_files(runs, fragments)
    assert grids == ["added-run"] and headlines == ["added-run"]
    assert (
        fragments.made == 4
    )  # its capacity records, setup, runs.json line and its model's contexts
    monkeypatch.undo()
    assert made == data_files(runs, Fragments(None, ""))


@pytest.mark.parametrize(
    "change",
    ["add", "remove", "edit", "sibling", "group path", "group label", "service level", "price"],
)
def test_listing_pages_built_from_kept_pieces_equal_a_cold_build(
    project: Path, monkeypatch: pytest.MonkeyPatch, change: str
) -> None:
    """The index, /capacity/ and the preset views are joins of pieces kept between builds
    (sitegen/site/incremental/fragments.py), each keyed by what it shows. Pages of three runs, so
    that the pieces move between pages and a model's part on a page is "continued"; each change
    is one whose pieces a key that missed an input would leave stale."""
    for name in (
        "sitegen.site.pages.index.PAGE_SIZE",
        "sitegen.site.sections.capacity.CAPACITY_PAGE_SIZE",
        "sitegen.site.pages.presets.AT_PAGE_SIZE",
    ):
        monkeypatch.setattr(name, 3)
    if change == "group label":
        listing_change(project, "sibling")
    assert run_cli(project, "collect") == 0
    assert run_cli(project, "build") == 0
    site = project / "_site"
    before = site_files(site)
    assert (project / ".sitegen" / "cache" / "fragments.json").is_file()
    listing_change(project, change)
    assert run_cli(project, "collect") == 0
    assert run_cli(project, "build") == 0
    incremental = site_files(site)
    shutil.rmtree(site)
    shutil.rmtree(project / ".sitegen" / "build")
    for kept in ("fragments.json", "figures.json"):
        (project / ".sitegen" / "cache" / kept).unlink()
    assert run_cli(project, "build") == 0
    cold = site_files(site)
    assert sorted(incremental) == sorted(cold)
    assert [name for name in cold if incremental[name] != cold[name]] == []
    listings = [
        name
        for name in cold
        if name == "index.html" or name.split("/")[0] in ("page", "capacity", "at")
    ]
    assert any(before.get(name) != cold[name] for name in listings), (
        "the change shows on a listing page"
    )
    text = {name: cold[name].decode() for name in listings}
    index_pages = [name for name in listings if name == "index.html" or name.startswith("page/")]
    unchanged_row = next(
        row
        for name in index_pages
        for row in text[name].split("<tr")
        if f"runs/{QWEN3_4B}/index.html" in row
    )
    if change == "sibling":
        assert "class=run-label" in unchanged_row
    elif change == "group path":
        assert "models/qwen-qwen3-4b/index.html" in unchanged_row
    elif change == "group label":
        search = search_strings(site)
        assert "QWEN/Qwen3-4B" in search and "Qwen/Qwen3-4B" not in search
        assert any(
            ">QWEN/Qwen3-4B</a>" in page
            for name, page in text.items()
            if name.startswith("capacity/")
        )
    elif change == "service level":
        assert any(
            ">srv</a>" in page for name, page in text.items() if name.startswith("capacity/")
        )
    elif change == "price":
        assert any(
            "USD per M tokens" in page for name, page in text.items() if name.startswith("at/")
        )


def _run_pages_made(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The run pages the next builds make from their run (pages.run_page), by path."""
    from sitegen.site import plan as pages

    made: list[str] = []
    real = pages.run_page

    def recording(site: Any, run: Any, *args: Any, **kwargs: Any) -> Any:
        made.append(f"runs/{run.id}/index.html")
        return real(site, run, *args, **kwargs)

    monkeypatch.setattr(pages, "run_page", recording)
    return made


@pytest.mark.parametrize("tamper", ["none", "links section gone"])
def test_pages_whose_links_alone_change_are_patched_and_equal_a_cold_build(
    built: Path, monkeypatch: pytest.MonkeyPatch, tamper: str
) -> None:
    # A run of another model on the DGX Spark's accelerator: the links of the two runs there
    # change, and nothing else of their pages. The build puts the new links in the pages the
    # last build wrote (build._patched) instead of making them from their runs again; a page
    # that no longer has the section where links go is made from its run.
    runs = built / "content" / "runs"
    site = built / "_site"
    before = site_files(site)
    spark = [
        "runs/dgxspark-llamacpp-gptoss120b-batched/index.html",
        "runs/dgxspark-llamacpp-gptoss120b-depth/index.html",
    ]
    if tamper != "none":
        page = site / spark[0]
        text = page.read_bytes().replace(
            b"<section class=card aria-labelledby=downloads-h>", b"<section>"
        )
        page.unlink()  # (a new file: the old one is shared with the spare)
        page.write_bytes(text)
    (runs / "spark-other-model.yaml").write_text(
        (runs / "dgxspark-llamacpp-gptoss120b-batched.yaml")
        .read_text()
        .replace("model: ggml-org/gpt-oss-120b-GGUF", "model: ggml-org/gpt-oss-20b-GGUF", 1)
        .replace("base_model: openai/gpt-oss-120b", "base_model: openai/gpt-oss-20b", 1)
    )
    made = _run_pages_made(monkeypatch)
    assert run_cli(built, "collect") == 0
    assert run_cli(built, "build") == 0
    incremental = site_files(site)
    for path in spark:  # their links name the new run now
        assert incremental[path] != before[path] and b"spark-other-model" in incremental[path]
    expected = {"runs/spark-other-model/index.html", *(spark[:1] if tamper != "none" else [])}
    assert set(made) == expected
    made.clear()
    assert cold_build(built) == incremental
    assert set(made) >= {
        *spark,
        "runs/spark-other-model/index.html",
    }  # (the cold build made them all)
