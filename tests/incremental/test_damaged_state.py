"""Files sitegen wrote earlier are not trusted: a collected file, build manifest or cache that is
cut short, edited by hand, or replaced by a pipe or a link is either refused with a clear message
(collected.json: only collect can make it again) or treated as a miss and made again, and the
site built is then byte for byte what a build from scratch makes. Never a traceback, never a hang,
never damaged content published."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.kit.figure_store import entries, segments, write_entries
from tests.kit.project import SEED_RUN_ID, run_cli, site_files


@pytest.fixture
def built(small_built: Path) -> Path:
    """A site of three runs, collected and built (a copy of the session's: conftest's small_built):
    what damaged state costs does not depend on how many runs a site has."""
    return small_built


def _collected(project: Path) -> Path:
    return project / ".sitegen" / "collected.json"


def _edit_collected(project: Path, edit: Callable[[dict], None]) -> None:  # type: ignore[type-arg]
    document = json.loads(_collected(project).read_bytes())
    edit(document)
    _collected(project).write_text(json.dumps(document), encoding="utf-8")


def _set_figure(document: dict) -> None:  # type: ignore[type-arg]
    # A hand edit that keeps the old digest: the figure would otherwise be published unchecked.
    document["runs"][0]["result"]["hardware"]["count"] = 64


def _wrong_types(document: dict) -> None:  # type: ignore[type-arg]
    # A digest is the sha256 of the result's canonical JSON (sorted keys, no spaces).
    document["runs"][0]["result"]["measurements"] = "none"
    canonical = json.dumps(
        document["runs"][0]["result"], sort_keys=True, ensure_ascii=False, separators=(",", ":")
    )
    assert hashlib.sha256(canonical.encode()).hexdigest() != document["runs"][0]["digest"]


def _measurements_inline(document: dict) -> None:  # type: ignore[type-arg]
    # The measurements put back in the result (format 1's form), with a digest that matches.
    result = document["runs"][0]["result"]
    result["measurements"] = {"decode": [], "prefill": []}
    canonical = json.dumps(result, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    document["runs"][0]["digest"] = hashlib.sha256(canonical.encode()).hexdigest()


def _edit_in_place(project: Path, old: bytes, new: bytes, new_digest: bool = False) -> None:
    """Change the first run's result in the bytes collect wrote, keeping their form (no
    spaces, same order), so the reader's fast path for an untouched file reads it; with
    ``new_digest``, the run's digest is made the sha256 of the edited result's text."""
    data = _collected(project).read_bytes()
    start = data.index(b'"result":') + len(b'"result":')
    end = data.index(b'},{"digest":') if b'},{"digest":' in data else data.rindex(b'}],"version":')
    result = data[start:end]
    assert re.search(old, result), result[:200]
    edited = re.sub(old, new, result, count=1)
    if new_digest:
        digest_at = data.index(b'"digest":"') + len(b'"digest":"')
        data = (
            data[:digest_at] + hashlib.sha256(edited).hexdigest().encode() + data[digest_at + 64 :]
        )
    _collected(project).write_bytes(data[:start] + edited + data[end:])


DAMAGE: dict[str, tuple[Callable[[Path], None], str]] = {
    "edited in place, digest kept": (
        lambda p: _edit_in_place(p, rb'"count":\d+', b'"count":64'),
        "/runs/0: does not match its checksum (edited by hand?); run `sitegen collect` again",
    ),
    "NaN in place, digest made to match": (
        lambda p: _edit_in_place(p, rb'"count":\d+', b'"count":NaN', new_digest=True),
        "/runs/0: is damaged (not what sitegen collect writes)",
    ),
    "measurements not named by a digest": (
        lambda p: _edit_collected(p, _measurements_inline),
        "/runs/0/result/measurements: is damaged (not what sitegen collect writes)",
    ),
    "cut short": (
        lambda p: _collected(p).write_bytes(_collected(p).read_bytes()[:5000]),
        "unreadable (Unterminated string",
    ),
    "edited, digest kept": (
        lambda p: _edit_collected(p, _set_figure),
        "/runs/0: does not match its checksum (edited by hand?); run `sitegen collect` again",
    ),
    "wrong shape": (
        lambda p: _edit_collected(p, _wrong_types),
        "/runs/0: does not match its checksum (edited by hand?); run `sitegen collect` again",
    ),
    "no digest": (
        lambda p: _edit_collected(p, lambda d: d["runs"][0].pop("digest")),
        "/runs/0: does not match its checksum (edited by hand?); run `sitegen collect` again",
    ),
    "runs not a list": (
        lambda p: _edit_collected(p, lambda d: d.update(runs={"a": 1})),
        "is damaged (not what sitegen collect writes); run `sitegen collect` again",
    ),
    "an entry not a mapping": (
        lambda p: _edit_collected(p, lambda d: d["runs"].append(7)),
        "is damaged (not what sitegen collect writes); run `sitegen collect` again",
    ),
    "a bad run id": (
        lambda p: _edit_collected(p, lambda d: d["runs"][0].update(id="../../x")),
        "is damaged (not what sitegen collect writes); run `sitegen collect` again",
    ),
    "a pipe": (
        lambda p: (_collected(p).unlink(), os.mkfifo(_collected(p))),  # type: ignore[func-returns-value]
        "is not a plain file (a device, pipe or socket)",
    ),
}


@pytest.mark.parametrize("damage", sorted(DAMAGE))
def test_a_damaged_collected_file_is_refused_and_the_site_kept(
    built: Path, capsys: pytest.CaptureFixture[str], damage: str
) -> None:
    before = site_files(built / "_site")
    make, message = DAMAGE[damage]
    make(built)
    capsys.readouterr()
    assert run_cli(built, "build") == 1
    err = capsys.readouterr().err
    assert err.startswith(".sitegen/collected.json") and message in err, err
    assert "Traceback" not in err
    assert site_files(built / "_site") == before
    assert run_cli(built, "collect") == 0 and run_cli(built, "build") == 0  # the advice works


def test_the_file_collect_wrote_is_believed_and_any_other_checked_entry_by_entry(
    built: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Collect records the sha256 of the bytes it wrote; a build that finds those very bytes takes
    # each entry's digest as collect worked it out, and any other bytes (here: the same document
    # rewritten with spaces, by hand) have every digest worked out again from the result.
    from sitegen import store
    from sitegen.site import build as build_module

    header, _, recorded = (
        (built / ".sitegen" / "cache" / "collected-written").read_bytes().partition(b"\n")
    )
    assert header.startswith(b"sitegen-cache sha256=")
    assert recorded.decode() == hashlib.sha256(_collected(built).read_bytes()).hexdigest()
    asked: list[bool] = []
    worked_out: list[object] = []
    read, canonical = store.read_collected, store._canonical
    monkeypatch.setattr(
        build_module,
        "read_collected",
        lambda *args, **kwargs: asked.append(kwargs["as_written"]) or read(*args, **kwargs),
    )
    monkeypatch.setattr(
        store, "_canonical", lambda value: worked_out.append(value) or canonical(value)
    )
    _manifest(built).unlink()  # so that the next build reads the runs
    assert run_cli(built, "build") == 0
    assert asked == [True] and worked_out == []
    document = json.loads(_collected(built).read_bytes())
    _collected(built).write_text(
        json.dumps(document, indent=1), encoding="utf-8"
    )  # same content, other bytes
    before = site_files(built / "_site")
    assert run_cli(built, "build") == 0
    assert asked == [True, False]
    assert (
        len(worked_out) >= len(document["runs"]) >= 2
    )  # each result serialised again to check its digest
    assert site_files(built / "_site") == before


def _manifest(project: Path) -> Path:
    return project / ".sitegen" / "build" / "manifest.json"


def _edit_manifest(project: Path, edit: Callable[[dict], None]) -> None:  # type: ignore[type-arg]
    document = json.loads(_manifest(project).read_bytes())
    edit(document)
    _manifest(project).write_text(json.dumps(document), encoding="utf-8")


def _seed_page_files(document: dict, files: object) -> None:  # type: ignore[type-arg]
    """Give the seed run's page other files: out of ``pages`` (path, key, ...: a page that is its
    one file) into ``entries`` (path: [key, file, ...]), the manifest's two forms of an entry."""
    pages, path = document["pages"], f"runs/{SEED_RUN_ID}/index.html"
    at = pages.index(path)
    key = pages[at + 1]
    del pages[at : at + 2]
    document["entries"][path] = [key, *files] if isinstance(files, list) else files


MANIFEST_DAMAGE: dict[str, Callable[[Path], None]] = {
    "cut short": lambda p: _manifest(p).write_bytes(_manifest(p).read_bytes()[:300]),
    "entries a list": lambda p: _edit_manifest(p, lambda d: d.update(entries=[1, 2])),
    "pages not strings": lambda p: _edit_manifest(p, lambda d: d["pages"].extend([5, 6])),
    "pages unpaired": lambda p: _edit_manifest(
        p, lambda d: d["pages"].append(f"runs/{SEED_RUN_ID}/index.html")
    ),
    "files not a list": lambda p: _edit_manifest(p, lambda d: _seed_page_files(d, 5)),
    "a folder's identity not numbers": lambda p: _edit_manifest(
        p, lambda d: d["folders"].__setitem__(1, "x")
    ),
    "a file outside the site": lambda p: _edit_manifest(
        p, lambda d: _seed_page_files(d, ["../sitegen.yaml"])
    ),
    "an absolute file": lambda p: _edit_manifest(
        p, lambda d: _seed_page_files(d, ["/etc/hostname"])
    ),
    "a kept file replaced by a link": lambda p: (
        (p / "_site" / "runs" / SEED_RUN_ID / "index.html").unlink(),
        (p / "_site" / "runs" / SEED_RUN_ID / "index.html").symlink_to(p / "sitegen.yaml"),
    ),
    "a pipe": lambda p: (_manifest(p).unlink(), os.mkfifo(_manifest(p))),  # type: ignore[func-returns-value]
}


@pytest.mark.parametrize("damage", sorted(MANIFEST_DAMAGE))
def test_a_damaged_manifest_costs_a_rebuild_never_a_wrong_site(
    built: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], damage: str
) -> None:
    cold = tmp_path / "cold"
    shutil.copytree(built, cold, symlinks=True)
    shutil.rmtree(cold / "_site")
    _manifest(cold).unlink()
    assert run_cli(cold, "build") == 0
    MANIFEST_DAMAGE[damage](built)
    capsys.readouterr()
    assert run_cli(built, "build") == 0, capsys.readouterr().err
    assert site_files(built / "_site") == site_files(cold / "_site")
    assert not any(path.is_symlink() for path in (built / "_site").rglob("*"))
    assert (built / "sitegen.yaml").is_file()


def test_a_damaged_collect_cache_entry_is_checked_again(built: Path) -> None:
    good = _collected(built).read_bytes()
    entries = sorted((built / ".sitegen" / "cache" / "collect").glob("*.json"))
    assert entries
    for entry in entries:  # cut short inside the document: a '}' still ends the file
        data = entry.read_bytes()
        entry.write_bytes(data[: len(data) // 2] + b"}")
    _collected(built).unlink()
    assert run_cli(built, "collect") == 0
    assert _collected(built).read_bytes() == good
    assert run_cli(built, "collect") == 0  # and the entries are whole again
    assert _collected(built).read_bytes() == good


def test_a_cut_short_chart_bundle_is_made_again(built: Path, tmp_path: Path) -> None:
    import vl_convert

    cache = built / ".sitegen" / "cache"
    [bundle] = sorted(cache.glob("vega-*.js"))
    data = bundle.read_bytes()
    expected = vl_convert.javascript_bundle().encode()  # type: ignore[call-arg]
    try:
        bundle.write_bytes(data[: len(data) // 2])
        (
            built / ".sitegen" / "build" / "manifest.json"
        ).unlink()  # a full build writes vega.js again
        assert run_cli(built, "build") == 0
        assert (built / "_site" / "assets" / "vega.js").read_bytes() == expected
    finally:
        bundle.write_bytes(data)  # the cache is shared by the session's tests


def test_an_edited_chart_drawing_is_drawn_again(built: Path, tmp_path: Path) -> None:
    svgs = sorted((built / "_site" / "assets" / "charts").rglob("*.svg"))
    before = {path: path.read_bytes() for path in svgs}
    cache = built / ".sitegen" / "cache" / "charts"
    saved = {path: path.read_bytes() for path in cache.glob("*.svg")}
    assert saved
    try:
        for path in saved:
            path.write_bytes(saved[path].replace(b"<svg", b'<svg onload="alert(1)"', 1))
        (built / ".sitegen" / "build" / "manifest.json").unlink()
        assert run_cli(built, "build") == 0
        assert {path: path.read_bytes() for path in svgs} == before
    finally:
        for path, data in saved.items():
            path.write_bytes(data)


def _canonical_digest(value: object) -> str:
    return hashlib.sha256(
        json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode()
    ).hexdigest()


def test_measurements_are_read_from_their_own_files_when_first_needed(built: Path) -> None:
    from sitegen import store

    runs = store.read_collected(built / ".sitegen")
    assert runs and all(run.measurements is not None and "raw" not in vars(run) for run in runs)
    document = json.loads(_collected(built).read_bytes())  # the independent reading
    folder = built / ".sitegen" / "measurements"
    for run, entry in zip(runs, document["runs"], strict=True):
        name = entry["result"]["measurements"]
        measurements = json.loads((folder / f"{name}.json").read_bytes())
        assert list(run.raw) == list(entry["result"])  # same fields, same order
        assert run.raw == {**entry["result"], "measurements": measurements}
        assert run.digest == entry["digest"] == _canonical_digest(entry["result"])
        assert run.decode or run.prefill or run.load_points


def test_measurements_that_look_like_json_of_the_result_are_read_right(tmp_path: Path) -> None:
    # Text inside the measurements that looks like the result's own fields or a digest is data.
    from sitegen import store
    from tests.kit.project import REPO

    seed = json.loads(
        json.dumps(
            __import__("yaml").safe_load(
                (REPO / "content" / "runs" / f"{SEED_RUN_ID}.yaml").read_text()
            )
        )
    )
    decoys = {
        "a": {"b": 1},
        "provenance": {"method": "decoy"},
        "run": {"model": "decoy"},
        "measurements": "0" * 64,
    }
    seed["measurements"]["decode"][0]["source_values"] = decoys
    seed["measurements"]["prefill"][0]["source_values"] = {
        "z": [{"q": 1}],
        "run": {"model": '}],"run":{'},
    }
    other = json.loads(json.dumps(seed))
    other.pop("source", None)
    other.pop("provenance", None)
    store.write_collected(
        tmp_path,
        [
            store.CollectedRun("a", "content/runs/a.yaml", seed),
            store.CollectedRun("b", "content/runs/b.yaml", other),
        ],
    )
    runs = store.read_collected(tmp_path)
    assert [run.raw for run in runs] == [seed, other]
    assert (
        runs[0].info.model == seed["run"]["model"] != "decoy"
        and runs[1].source is None
        and runs[1].provenance is None
    )
    assert len(list((tmp_path / "measurements").iterdir())) == 1  # the same measurements: one file


def _seed_measurements(project: Path) -> Path:
    document = json.loads(_collected(project).read_bytes())
    entry = next(entry for entry in document["runs"] if entry["id"] == SEED_RUN_ID)
    return project / ".sitegen" / "measurements" / f"{entry['result']['measurements']}.json"


def _nan_made_to_match(project: Path) -> None:
    """NaN in the measurements, in a file named by its digest, named by the seed run's entry,
    whose digest is made to match too: every checksum is right, the content is not JSON."""
    path = _seed_measurements(project)
    data = re.sub(
        rb'"total_tokens_per_s":[0-9.]+', b'"total_tokens_per_s":NaN', path.read_bytes(), count=1
    )
    name = hashlib.sha256(data).hexdigest()
    (path.parent / f"{name}.json").write_bytes(data)

    def rename(document: dict) -> None:  # type: ignore[type-arg]
        entry = next(entry for entry in document["runs"] if entry["id"] == SEED_RUN_ID)
        entry["result"]["measurements"] = name
        entry["digest"] = _canonical_digest(entry["result"])

    _edit_collected(project, rename)


MEASUREMENTS_DAMAGE: dict[str, tuple[Callable[[Path], None], str]] = {
    "edited": (
        lambda p: _seed_measurements(p).write_bytes(
            re.sub(
                rb'"total_tokens_per_s":[0-9]',
                b'"total_tokens_per_s":9',
                _seed_measurements(p).read_bytes(),
                count=1,
            )
        ),
        "does not match its checksum (edited by hand?); run `sitegen collect` again",
    ),
    "cut short": (
        lambda p: _seed_measurements(p).write_bytes(_seed_measurements(p).read_bytes()[:100]),
        "does not match its checksum (edited by hand?); run `sitegen collect` again",
    ),
    "NaN, every checksum made to match": (
        _nan_made_to_match,
        "is damaged (not what sitegen collect writes); run `sitegen collect` again",
    ),
    "missing": (
        lambda p: _seed_measurements(p).unlink(),
        "is missing; run `sitegen collect` again",
    ),
    "a link": (
        lambda p: (
            _seed_measurements(p).unlink(),  # type: ignore[func-returns-value]
            _seed_measurements(p).symlink_to(p / "sitegen.yaml"),
        ),
        "cannot be read (is a link",
    ),
    "a pipe": (
        lambda p: (_seed_measurements(p).unlink(), os.mkfifo(_seed_measurements(p))),  # type: ignore[func-returns-value]
        "cannot be read (is not a plain file",
    ),
}


@pytest.mark.parametrize("damage", sorted(MEASUREMENTS_DAMAGE))
def test_a_damaged_measurements_file_is_refused_and_collect_makes_it_again(
    built: Path, capsys: pytest.CaptureFixture[str], damage: str
) -> None:
    before = site_files(built / "_site")
    make, message = MEASUREMENTS_DAMAGE[damage]
    name = _seed_measurements(built).name
    make(built)
    _manifest(built).unlink()  # a full build, which reads every run's measurements
    capsys.readouterr()
    assert run_cli(built, "build") == 1
    err = capsys.readouterr().err
    assert (
        err.startswith(f".sitegen/measurements/{_seed_measurements(built).name}: ")
        and message in err
    ), err
    assert "Traceback" not in err
    assert site_files(built / "_site") == before
    assert run_cli(built, "collect") == 0 and run_cli(built, "build") == 0  # the advice works
    assert site_files(built / "_site") == before and _seed_measurements(built).name == name
    assert _seed_measurements(built).is_file() and not _seed_measurements(built).is_symlink()


@pytest.mark.parametrize("damage", ["wrong shapes", "cut short", "another key"])
def test_damaged_stored_figures_are_worked_out_again(
    built: Path, tmp_path: Path, damage: str
) -> None:

    cold = tmp_path / "cold"
    shutil.copytree(built, cold, symlinks=True)
    for folder in (built, cold):
        shutil.rmtree(folder / "_site")
        _manifest(folder).unlink()
    (cold / ".sitegen" / "cache" / "figures.json").unlink()
    # Without kept pieces the build makes every row, so it works out (and keeps) every headline.
    (cold / ".sitegen" / "cache" / "fragments.json").unlink(missing_ok=True)
    assert run_cli(cold, "build") == 0
    path = built / ".sitegen" / "cache" / "figures.json"
    scope = str(segments(path)[0][0]["scope"])
    held = {digest: json.loads(text) for digest, text in entries(path).items()}
    if damage == "wrong shapes":
        headlines = 0
        for entry in held.values():
            entry["capacity"] = [["8K", 0, 1, 2.0], *entry.get("capacity", [])]
            if "headlines" in entry:  # (kept for the runs whose headlines a build worked out)
                entry["headlines"] = [True] * len(entry["headlines"])
                headlines += 1
        assert headlines == len(held)
        write_entries(path, {digest: json.dumps(entry) for digest, entry in held.items()}, scope)
    elif damage == "cut short":
        path.write_bytes(path.read_bytes()[:200])
    else:
        for entry in held.values():  # right shapes, other figures: stored for other levels
            entry["capacity"] = [
                [c, level, 99, 1.0, *rest] for c, level, _, _, *rest in entry.get("capacity", [])
            ]
        write_entries(
            path,
            {digest: json.dumps(entry) for digest, entry in held.items()},
            "sitegen-figures:" + "0" * 64,
        )
    assert run_cli(built, "build") == 0
    assert site_files(built / "_site") == site_files(cold / "_site")


@pytest.mark.parametrize("runs_changed", [False, True], ids=["no run changed", "a run removed"])
def test_collect_keeps_exactly_the_measurements_files_the_collected_file_names(
    project: Path, runs_changed: bool
) -> None:
    """A removed run's measurements file, a stray one and the temporary file of a stopped collect
    are removed; every file the collected file names stays (read from both, by name)."""
    assert run_cli(project, "collect") == 0
    folder = project / ".sitegen" / "measurements"
    (folder / ".0123abcd.json.tmp").write_bytes(b"{")  # what write_atomic leaves when stopped
    stray = folder / f"{'0' * 64}.json"
    stray.write_bytes(b"{}")
    if runs_changed:
        (project / "content" / "runs" / "ttp300-vllm-qwen3-4b.yaml").unlink()
    assert run_cli(project, "collect") == 0
    document = json.loads(_collected(project).read_bytes())
    named = {f"{entry['result']['measurements']}.json" for entry in document["runs"]}
    from tests.kit.project import REPO

    shipped = len(list((REPO / "content" / "runs").glob("*.yaml")))
    assert len(named) == len(document["runs"]) == (shipped - 1 if runs_changed else shipped)
    assert {path.name for path in folder.iterdir()} == named
