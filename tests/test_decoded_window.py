"""Bounded memory in large builds (issue 18): at most a window of runs holds its decoded
measurements (model.DecodedRuns) and cell grids (analysis.Analysis.grid) at once, and a group
page reads where its runs measured from their kept outlines (capacity.Outline) instead of
decoding every one. None of it may change a byte of the site."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sitegen import store
from sitegen.errors import SitegenError
from sitegen.model import DecodedRuns
from sitegen.site import analysis
from sitegen.site.analysis import Analysis
from sitegen.site.charts import MAX_SERIES
from sitegen.store import collected_path, read_collected
from tests.conftest import collected_entries, forget_builds, run_cli, site_files


def _measured_contexts(document: dict[str, object]) -> list[int]:
    """Read from the result document itself: contexts where a measured cell has a total."""
    cells = document["measurements"]["decode"]  # type: ignore[index]
    return sorted({cell["context_tokens"] for cell in cells
                   if cell["status"] in ("valid", "requests_queued") and cell.get("total_tokens_per_s") is not None})


def test_runs_beyond_the_window_let_go_and_decode_the_same_again(project: Path) -> None:
    assert run_cli(project, "collect") == 0
    runs = read_collected(project / ".sitegen")
    documents = {entry["id"]: entry["result"] for entry in collected_entries(project)}
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


def test_grids_beyond_the_window_keep_what_they_worked_out(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert run_cli(project, "collect") == 0
    runs = read_collected(project / ".sitegen")
    monkeypatch.setattr(analysis, "GRIDS_KEPT", 1)
    book = Analysis()
    level = book.settings.service_levels[0]
    first, second = runs[:2]
    context = book.grid(first).contexts[0]
    found = book.grid(first).capacity_at(context, level)
    book.grid(second)  # lets go of the first grid
    again = book.grid(first)
    assert again.capacity_at(context, level) == found
    assert again.worked_out == 1  # remembered, not worked out a second time


def test_small_windows_build_the_same_site(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert run_cli(project, "collect") == 0
    assert run_cli(project, "build") == 0
    wide = site_files(project / "_site")
    forget_builds(project)  # the drawn charts stay: the windows, not the charts, are under test
    monkeypatch.setattr(store, "DECODED_RUNS", 1)
    monkeypatch.setattr(analysis, "GRIDS_KEPT", 1)
    assert run_cli(project, "build") == 0
    assert site_files(project / "_site") == wide


def test_an_added_run_decodes_few_of_its_groups_runs(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
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
    data = store.read_cache(project / ".sitegen" / "cache" / "figures.json")
    assert data is not None
    entries = json.loads(data)["runs"]
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
    assert not measured.exists()  # a file that is not what its name says: the next collect writes it again


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
        (measurements.get("prefill") or measurements["decode"])[0]["note"] = "𝛑 µ" * (index + 1)
        entries.append(store.CollectedRun(entry["id"], f"content/runs/é{index}.yaml", result))  # type: ignore[arg-type]
    store.write_collected(project / ".sitegen", entries)
    for run, entry in zip(read_collected(project / ".sitegen"), document, strict=True):
        assert run.origin == f"content/runs/é{document.index(entry)}.yaml"
        assert run.raw == entry["result"]
