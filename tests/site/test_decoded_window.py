"""Bounded memory in large builds (issue 18): at most a window of runs holds its decoded
measurements (model.DecodedRuns) and cell grids (analysis.Analysis.grid) at once, and a group
page reads where its runs measured from their kept outlines (capacity.Outline) instead of
decoding every one. None of it may change a byte of the site."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from sitegen import store
from sitegen.errors import SitegenError
from sitegen.model import DecodedRuns
from sitegen.site.draw.chart_specs import MAX_SERIES
from sitegen.site.figures import build_figures as analysis
from sitegen.site.figures.build_figures import Analysis
from sitegen.store import collected_path, read_collected
from tests.kit.figure_store import entries as kept_entries
from tests.kit.project import collected_entries, run_cli, site_files


def _measured_contexts(document: dict[str, object]) -> list[int]:
    """Read from the result document itself: contexts where a measured cell has a total."""
    cells = document["measurements"]["decode"]  # type: ignore[index]
    return sorted(
        {
            cell["context_tokens"]
            for cell in cells
            if cell["status"] in ("valid", "requests_queued")
            and cell.get("total_tokens_per_s") is not None
        }
    )


def test_runs_beyond_the_window_let_go_and_decode_the_same_again(shipped: Path) -> None:
    runs = read_collected(shipped / ".sitegen")
    documents = {entry["id"]: entry["result"] for entry in collected_entries(shipped)}
    window = DecodedRuns(2)
    for run in runs:
        object.__setattr__(run, "decoded", window)
    first, second, third = runs[:3]
    decoded_first = first.decode
    assert "decode" in vars(first)
    second.raw, third.raw  # noqa: B018 (decoding is the point)
    assert "raw" not in vars(first) and "decode" not in vars(first)  # the oldest let go
    assert "raw" in vars(second) and "raw" in vars(third)
    # Decoded again on the next use, equal to the first time and to the file.
    assert first.decode == decoded_first
    assert first.raw["measurements"] == documents[first.id]["measurements"]
    assert "raw" not in vars(second)  # and that pushed the next oldest out


def test_grids_beyond_the_window_keep_what_they_worked_out(
    shipped: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runs = read_collected(shipped / ".sitegen")
    monkeypatch.setattr(analysis, "GRIDS_KEPT", 1)
    book = Analysis()
    level = book.settings.service_levels[0]
    first, second = runs[:2]
    grid = book.grid(first)
    context = grid.contexts[0]
    found = grid.capacity_at(context, level)
    worked_out = grid.worked_out  # (the first grid of a run works out every context and level)
    assert worked_out >= 1
    book.grid(second)  # lets go of the first grid
    again = book.grid(first)
    assert again is not grid
    assert again.capacity_at(context, level) == found
    assert again.worked_out == worked_out  # remembered, not worked out a second time


def test_a_grid_made_again_answers_without_reading_the_cells(
    shipped: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Its contexts, request counts, capacities and the cells at the preset points, as the
    # result document has them, with the measurements not read a second time.
    monkeypatch.setattr(analysis, "GRIDS_KEPT", 1)
    monkeypatch.setattr(store, "DECODED_RUNS", 1)
    runs = read_collected(shipped / ".sitegen")
    documents = {entry["id"]: entry["result"] for entry in collected_entries(shipped)}
    book = Analysis()
    first, second = runs[:2]
    made = book.grid(first)
    capacities = {
        (context, level.name): made.capacity_at(context, level)
        for context in made.contexts
        for level in book.settings.service_levels
    }
    book.grid(second)  # lets go of the first grid and of the first run's decoded measurements
    assert "raw" not in vars(first)
    again = book.grid(first)
    cells = documents[first.id]["measurements"]["decode"]  # type: ignore[index]
    assert again.contexts == sorted({cell["context_tokens"] for cell in cells})
    assert again.levels == sorted({cell["concurrency"] for cell in cells})
    assert {
        (context, level.name): again.capacity_at(context, level)
        for context in again.contexts
        for level in book.settings.service_levels
    } == capacities
    default = documents[first.id]["run"].get("output_tokens_per_request")  # type: ignore[index]
    for preset in book.settings.presets:
        # Read from the document: the nearest context within 3 % (on a tie the smaller), the
        # cell there at the preset's concurrency, the run's own output length first.
        near = [c for c in again.contexts if abs(c - preset.context) <= 0.03 * preset.context]
        matched = min(near, key=lambda c: (abs(c - preset.context), c)) if near else None
        at = sorted(
            (
                cell
                for cell in cells
                if cell["context_tokens"] == matched and cell["concurrency"] == preset.concurrency
            ),
            key=lambda cell: cell.get("output_tokens_per_request") or 0,
        )
        own = [cell for cell in at if cell.get("output_tokens_per_request") in (None, default)]
        expected = (own or at)[0] if at else None
        assert again.point_at(preset.context, preset.concurrency) == (
            None if expected is None else (matched, expected)
        )
    assert "raw" not in vars(first) and "rows" not in vars(again)  # none of it read the cells again


def test_a_run_is_decoded_once_per_page_kind_that_draws_its_cells(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # With a window of one run, every visit to a run decodes it again. In a cold build (no
    # figures or pieces kept by the session's earlier builds, which would spare some visits
    # and make the count depend on which tests ran before), a run in no comparison and no
    # setup is decoded when first read, for its page and its JSON, its model's page, its
    # accelerator's page and its model's points file, and by each preset view that judges a
    # service level (its verdicts need the run's timing: a cold-TTFT level reads the run's
    # prefill times); the other listings and data files (/capacity/, capacity.json, the search
    # index) answer from what the first reading worked out.
    assert run_cli(project, "collect") == 0
    for kept in ("figures.json", "fragments.json"):
        (project / ".sitegen" / "cache" / kept).unlink(missing_ok=True)
    presets = yaml.safe_load((project / "sitegen.yaml").read_text())["presets"]
    judging = sum(1 for preset in presets if preset.get("service_level"))
    monkeypatch.setattr(store, "DECODED_RUNS", 1)
    monkeypatch.setattr(analysis, "GRIDS_KEPT", 1)
    decoded: dict[str, int] = {}
    original = store._Measurements.__call__

    def counted(self: store._Measurements) -> object:
        decoded[self.sha256] = decoded.get(self.sha256, 0) + 1
        return original(self)

    monkeypatch.setattr(store._Measurements, "__call__", counted)
    assert run_cli(project, "build") == 0
    # The runs of the ready-made comparisons (/compare/ links the reader's view of each pair).
    compared = (project / "_site" / "compare" / "index.html").read_text(encoding="utf-8")
    listed = json.loads((project / ".sitegen" / "collected.json").read_text(encoding="utf-8"))[
        "runs"
    ]
    # (A run of a setup is read again by its setup's changes and timelines.)
    setups = " ".join(
        path.read_text(encoding="utf-8") for path in (project / "_site" / "setups").glob("*/*.html")
    )
    alone = [
        entry["result"]["measurements"]
        for entry in listed
        if f"{entry['id']}," not in compared
        and f",{entry['id']}" not in compared
        and entry["id"] not in setups
    ]
    assert alone  # the shipped site has runs in no comparison and no setup
    for digest in alone:
        assert decoded.get(digest, 0) <= 5 + judging, (digest, decoded.get(digest), judging)


def test_small_windows_build_the_same_site(
    shipped: Path, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    wide = site_files(shipped / "_site")  # built with the windows as shipped
    assert run_cli(project, "collect") == 0
    # A cold build: no kept figures or pieces from builds before (the session shares the cache);
    # the drawn charts stay: the windows, not the charts, are under test.
    for kept in ("figures.json", "fragments.json"):
        (project / ".sitegen" / "cache" / kept).unlink(missing_ok=True)
    monkeypatch.setattr(store, "DECODED_RUNS", 1)
    monkeypatch.setattr(analysis, "GRIDS_KEPT", 1)
    assert run_cli(project, "build") == 0
    assert site_files(project / "_site") == wide


def test_an_added_run_decodes_few_of_its_groups_runs(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Thirty runs on one accelerator; one more added: its accelerator's page is built again from
    # the others' kept outlines and headlines, so only the runs its charts draw are decoded (and
    # those whose own pages link to the new run).
    runs = project / "content" / "runs"
    source = runs / "ttp300-vllm-qwen3-4b.yaml"
    text = source.read_text()
    for path in runs.glob("*.yaml"):
        path.unlink()
    for index in range(30):
        (runs / f"same-{index:02d}.yaml").write_text(text.replace("Qwen3-4B", f"Qwen3-4B-v{index}"))
    assert run_cli(project, "collect") == 0
    assert run_cli(project, "build") == 0
    (runs / "same-30.yaml").write_text(text.replace("Qwen3-4B", "Qwen3-4B-v30"))
    assert run_cli(project, "collect") == 0
    decoded: list[int] = []
    original = store._Measurements.__call__

    def counted(self: store._Measurements) -> object:
        decoded.append(id(self))  # one reader a run (the 31 runs measured the same)
        return original(self)

    monkeypatch.setattr(store._Measurements, "__call__", counted)
    assert run_cli(project, "build") == 0
    # Of 31 runs: the MAX_SERIES newest, which the page's charts draw (the added one among them,
    # and the pages linking to it are theirs); every run's grid was decoded before outlines.
    assert 0 < len(set(decoded)) <= MAX_SERIES
    after = (project / "_site" / "hardware").rglob("index.html")
    assert any(b"same-30" in path.read_bytes() for path in after)


def test_outlines_are_kept_and_read_back(project: Path) -> None:
    assert run_cli(project, "collect") == 0
    assert run_cli(project, "build") == 0
    documents = {entry["digest"]: entry["result"] for entry in collected_entries(project)}

    entries = {
        digest: json.loads(text)
        for digest, text in kept_entries(project / ".sitegen" / "cache" / "figures.json").items()
    }
    for digest, document in documents.items():
        contexts, levels, measured = entries[digest]["outline"]
        assert measured == _measured_contexts(document)
        cells = document["measurements"]["decode"]
        assert contexts == sorted({cell["context_tokens"] for cell in cells})
        assert levels == sorted({cell["concurrency"] for cell in cells})


def test_measurements_are_read_from_their_file_and_checked_each_time(project: Path) -> None:
    # The runs keep no copy of their measurements' text: they are read from their file when
    # decoded, and checked against their digest each time. A new collected file renamed onto
    # its name changes nothing (the files are named by their content); a file changed since it
    # was last read is refused, never decoded.
    assert run_cli(project, "collect") == 0
    path = collected_path(project / ".sitegen")
    entries = collected_entries(project)
    runs = read_collected(project / ".sitegen")
    first, second = runs[0], runs[1]
    written = path.read_bytes()
    replacement = path.with_name("other.json")
    replacement.write_bytes(written.replace(b'"count":', b'"count":1', 1))
    replacement.replace(path)
    assert first.raw["measurements"] == entries[0]["result"]["measurements"]  # type: ignore[index]
    assert second.measurements is not None
    measured = project / ".sitegen" / "measurements" / f"{second.measurements.sha256}.json"  # type: ignore[attr-defined]
    data = bytearray(measured.read_bytes())
    at = data.index(b'"total_tokens_per_s":') + 21
    data[at] = ord("9") if data[at] != ord("9") else ord("8")  # one digit, the length kept
    measured.write_bytes(bytes(data))
    with pytest.raises(SitegenError, match="does not match its checksum"):
        second.raw  # noqa: B018
    assert (
        not measured.exists()
    )  # a file that is not what its name says: the next collect writes it again


def test_wide_characters_round_trip(project: Path) -> None:
    # Characters of two, three and four bytes in a run's hardware notes, its origin and its
    # measurements: read back as written.
    assert run_cli(project, "collect") == 0
    entries = []
    document = collected_entries(project)
    for index, entry in enumerate(document):
        result = entry["result"]
        result["hardware"]["notes"] = "µ — 𝛑 " * (index + 1)  # type: ignore[index]
        measurements = result["measurements"]  # type: ignore[index]
        points = (
            measurements.get("prefill") or measurements["decode"] or measurements["load_points"]
        )
        points[0]["note"] = "𝛑 µ" * (index + 1)
        entries.append(store.CollectedRun(entry["id"], f"content/runs/é{index}.yaml", result))  # type: ignore[arg-type]
    store.write_collected(project / ".sitegen", entries)
    for run, entry in zip(read_collected(project / ".sitegen"), document, strict=True):
        assert run.origin == f"content/runs/é{document.index(entry)}.yaml"
        assert run.raw == entry["result"]
