"""`sitegen build`: reads only the collected file, writes the whole site atomically,
escapes everything from result files, and gives the same bytes for the same input."""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from sitegen.site.incremental import folder_records as site_folders
from tests.kit.clock import past_the_file_system_tick
from tests.kit.figure_store import entries
from tests.kit.listing_change import QWEN3_4B, listing_change
from tests.kit.project import REPO, SEED_RUN_ID, forget_builds, run_cli, site_files
from tests.kit.search_index import search_strings

MINIMAL = REPO / "tests" / "data" / "valid" / "minimal.yaml"


@pytest.fixture
def built(built_project: Path) -> Path:
    """The repository's site, collected and built: a copy of the session's (conftest), for tests
    that start from a built site and whose subject is not what the last build recorded of its
    files' identities (a copy has other inodes: copy_built)."""
    return built_project


def test_build_without_collect_asks_for_collect(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_cli(project, "build") == 1
    err = capsys.readouterr().err
    assert ".sitegen/collected.json: not found; run `sitegen collect` first" in err
    assert not (project / "_site").exists()


@pytest.mark.parametrize(
    ("version", "message"),
    [
        (0, "was written by an older sitegen (format 0); run `sitegen collect` to upgrade it"),
        (99, "was written by a newer sitegen (format 99"),
    ],
)
def test_outdated_collected_file(
    project: Path, capsys: pytest.CaptureFixture[str], version: int, message: str
) -> None:
    assert run_cli(project, "collect") == 0
    path = project / ".sitegen" / "collected.json"
    document = json.loads(path.read_text())
    document["version"] = version
    path.write_text(json.dumps(document))
    assert run_cli(project, "build") == 1
    assert message in capsys.readouterr().err


def test_site_layout(shipped: Path) -> None:
    site = shipped / "_site"
    for path in (
        "index.html",
        "404.html",
        f"runs/{SEED_RUN_ID}/index.html",
        f"runs/{SEED_RUN_ID}.json",
        "assets/style.css",
        "assets/site.js",
    ):
        assert (site / path).is_file(), path
    # The run CSV is made by the reader's browser from the JSON
    # (tests/browser/test_browser_csv.py), not shipped.
    assert not list(site.rglob("*.csv"))
    index = (site / "index.html").read_text()
    run_ids = sorted(p.stem for p in (shipped / "content" / "runs").glob("*.yaml"))
    for run_id in run_ids:
        assert f'href="runs/{run_id}/index.html"' in index
    exported = json.loads((site / "runs" / f"{SEED_RUN_ID}.json").read_text())
    assert exported["run"]["model"] == "deepseek-ai/DeepSeek-V4-Flash-DSpark"
    assert exported["run_json_version"] == 2  # measurements as rows (docs/result-format.md)
    assert (
        len(exported["measurements"]["prefill"]["rows"]) == 9
        and len(exported["measurements"]["decode"]["rows"]) == 64
    )


def test_same_input_gives_identical_bytes(project: Path) -> None:
    keep = {
        SEED_RUN_ID,
        "rtx6kpro4x-vllm-qwen35-397b-nvfp4-nomtp",
        "rtx6kpro4x-vllm-qwen35-397b-awq-mtp",
    }
    for path in (project / "content" / "runs").iterdir():
        if path.stem not in keep:
            path.unlink()  # a few runs, one comparison: enough to render every kind of chart cold
    assert run_cli(project, "collect") == 0
    assert run_cli(project, "build") == 0
    first = site_files(project / "_site")
    (
        project / ".sitegen" / "cache"
    ).unlink()  # without the shared cache: cold charts must render the same SVG
    assert run_cli(project, "build") == 0
    assert site_files(project / "_site") == first


def test_pages_reference_no_other_host(shipped: Path) -> None:
    for page in (shipped / "_site").rglob("*.html"):
        html = page.read_text()
        for attribute, url in re.findall(r'\b(src|srcset|data-spec)="([^"]*)"', html):
            assert not urlsplit(url).scheme and not url.startswith("//"), (page, attribute, url)
        for url in re.findall(r'<link [^>]*href="([^"]*)"', html):
            assert not urlsplit(url).scheme and not url.startswith("//"), (page, url)
    for chart in (shipped / "_site" / "assets" / "charts").glob("*.svg"):
        assert b'href="http' not in chart.read_bytes()


def test_hostile_text_is_escaped(project: Path) -> None:
    runs = project / "content" / "runs"
    text = MINIMAL.read_text()
    text = text.replace("accelerator: RTX 4090", "accelerator: '<img src=x onerror=alert(1)>'")
    text = text.replace(
        "model: Qwen/Qwen3-8B",
        "model: '\"><script>alert(1)</script>'\n  notes: '<script>alert(2)</script> "
        "[x](javascript:alert(3))'",
    )
    text = text.replace(
        "name: llama.cpp",
        "name: llama.cpp\n  repository: 'javascript:alert(4)'\n"
        "  launch_command: '</code><script>alert(5)</script>'",
    )
    (runs / "hostile.yaml").write_text(text)
    assert run_cli(project, "collect") == 0
    assert run_cli(project, "build") == 0
    html = (project / "_site" / "runs" / "hostile" / "index.html").read_text()
    assert "<script>alert" not in html
    assert "<img src=x" not in html
    assert 'href="javascript:' not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    index = (project / "_site" / "index.html").read_text()
    assert "<script>alert" not in index


def test_failed_build_leaves_previous_site(built: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = site_files(built / "_site")
    templates = built / "templates"
    shutil.copytree(REPO / "templates", templates)
    (templates / "pages" / "run.html").write_text(
        "{% extends 'base.html' %}{% block main %}{{ page.nope }}{% endblock %}"
    )
    with pytest.raises(Exception, match="nope"):
        run_cli(built, "build")
    assert site_files(built / "_site") == before
    assert not list(built.glob("._site.*")), "staging folders are cleaned up"


def test_unwritable_output_is_a_clear_error(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_cli(project, "collect") == 0
    (project / "_site").write_text("a file where the output folder should be")
    assert run_cli(project, "build") == 1
    err = capsys.readouterr().err
    assert "_site" in err and "Traceback" not in err


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
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from sitegen.site import build as build_module

    assert run_cli(project, "collect") == 0
    assert run_cli(project, "build") == 0
    site = project / "_site"
    before = {
        path: (path.stat().st_ino, path.stat().st_mtime_ns)
        for path in site.rglob("*")
        if path.is_file()
    }

    def no_reading(*args: object, **kwargs: object) -> None:
        raise AssertionError("an unchanged build read the collected runs")

    monkeypatch.setattr(build_module, "read_collected", no_reading)
    capsys.readouterr()
    assert run_cli(project, "build") == 0
    out = capsys.readouterr().out
    pages = sum(1 for path in before if path.name == "index.html" or path.name == "404.html")
    assert "(0 rendered, 0 new charts)" in out and re.search(r"built (\d+) pages", out)
    assert int(re.search(r"built (\d+) pages", out).group(1)) >= pages - 1  # type: ignore[union-attr]
    assert {
        path: (path.stat().st_ino, path.stat().st_mtime_ns)
        for path in site.rglob("*")
        if path.is_file()
    } == before


def _trust_recorded_identities(monkeypatch: pytest.MonkeyPatch) -> None:
    """Let the builds record every identity (files.identity) however recent, then wait out the
    clock's resolution: the next build trusts what the last one recorded instead of listing
    folders and reading the collected file, the path large sites take. (With the real margin,
    files.SETTLED_NS, only what changed in the last seconds is listed or read again.)"""
    from sitegen import files

    monkeypatch.setattr(
        files, "SETTLED_NS", -(10**15)
    )  # "settled" however recent, even in the same tick
    monkeypatch.setattr(files, "SAME_DEVICE_SETTLED_NS", -(10**15))


def test_settled_unchanged_build_reads_neither_the_collected_file_nor_each_folder(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from sitegen.site import build as build_module

    _trust_recorded_identities(monkeypatch)
    assert run_cli(project, "collect") == 0
    assert run_cli(project, "build") == 0
    past_the_file_system_tick(project)

    def no_reading(*args: object, **kwargs: object) -> None:
        raise AssertionError("the unchanged build read the collected file or listed a folder")

    monkeypatch.setattr(build_module, "_read_collected_bytes", no_reading)
    monkeypatch.setattr(site_folders, "lists_exactly", no_reading)
    capsys.readouterr()
    assert run_cli(project, "build") == 0
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
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A folder whose change time is the clock's reading when the build recorded it could change
    again in that tick without its time showing it: the next build lists it. (Here the reading
    is made to fall in the site folder's tick, as it does on a coarse clock that the build
    cannot wait out.)"""
    from sitegen import files

    assert run_cli(project, "collect") == 0
    real_clock = files.file_system_now
    site = project / "_site"

    def in_the_sites_tick(folder: Path, after_tick: bool = False) -> files.Clock | None:
        clock = real_clock(folder, after_tick)
        if not after_tick or clock is None or not site.is_dir():
            return clock
        return files.Clock(os.stat(site).st_ctime_ns, clock.device)

    monkeypatch.setattr(files, "file_system_now", in_the_sites_tick)
    assert run_cli(project, "build") == 0
    monkeypatch.setattr(files, "file_system_now", real_clock)
    assert str(site) in _folders_listed_by_a_build(project, monkeypatch)


def test_a_build_right_after_another_trusts_the_folders_it_recorded(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The build waits for the file system's clock to move past its own changes before it
    records its folders (files.file_system_now's after_tick), so the next build, however soon,
    lists none of them: at 20,000 runs the folder ``runs/`` alone holds 40,000 entries."""
    assert run_cli(project, "collect") == 0
    assert run_cli(project, "build") == 0
    (project / "content" / "runs" / f"{SEED_RUN_ID}.yaml").unlink()  # the next build changes pages
    assert run_cli(project, "collect") == 0
    assert run_cli(project, "build") == 0
    # Straight after: nothing to list, unless the clock is coarse.
    assert _folders_listed_by_a_build(project, monkeypatch) == []


def test_collected_file_changed_in_place_with_its_old_time_is_read(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Same size, same modification time, same inode: the change time still tells."""
    _trust_recorded_identities(monkeypatch)
    assert run_cli(project, "collect") == 0
    assert run_cli(project, "build") == 0
    past_the_file_system_tick(project)
    path = project / ".sitegen" / "collected.json"
    before = path.stat()
    data = path.read_bytes()
    at = data.index(b'"count":') + len(b'"count":')  # a run's accelerator count, one digit changed
    with path.open("r+b") as stream:  # in place: the inode stays
        stream.seek(at)
        stream.write(b"9" if data[at : at + 1] != b"9" else b"8")
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert path.stat().st_size == before.st_size and path.stat().st_ino == before.st_ino
    capsys.readouterr()
    assert run_cli(project, "build") == 1  # read, and found not to match its checksum
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
    project: Path, monkeypatch: pytest.MonkeyPatch, change: str, settled: bool
) -> None:
    """Only the inputs of the last build and exactly its files let a build stop early, whether
    the next build lists the folders (changed within the clock's resolution) or trusts the
    identities the last build recorded."""
    if settled:
        _trust_recorded_identities(monkeypatch)
    assert run_cli(project, "collect") == 0
    assert run_cli(project, "build") == 0
    if settled:
        past_the_file_system_tick(project)
    site = project / "_site"
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
        shutil.move(page.parent, project / "moved")
        page.parent.symlink_to(project / "moved")
    elif change == "settings":
        config = project / "sitegen.yaml"
        config.write_text(
            config.read_text().replace(
                "title: LLM inference speed tests", "title: Another title", 1
            )
        )
    else:
        seed = project / "content" / "runs" / f"{SEED_RUN_ID}.yaml"
        seed.write_text(
            seed.read_text().replace(
                "total_tokens_per_s: 228.386789", "total_tokens_per_s: 230.5", 1
            )
        )
        assert run_cli(project, "collect") == 0
    assert run_cli(project, "build") == 0
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


@pytest.mark.parametrize("failure", ["exchange", "rename-in"])
def test_incremental_build_that_fails_while_swapping_in_keeps_the_old_site(
    built: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], failure: str
) -> None:
    import errno
    import os

    from sitegen.site.output import staging as write

    before = site_files(built / "_site")
    runs = built / "content" / "runs"
    seed = runs / f"{SEED_RUN_ID}.yaml"
    seed.write_text(
        seed.read_text().replace("total_tokens_per_s: 228.386789", "total_tokens_per_s: 230.5", 1)
    )
    (runs / "ttp300-vllm-qwen3-4b.yaml").unlink()  # so files are also removed
    assert run_cli(built, "collect") == 0
    original_rename = os.rename

    def failing_exchange(first: Path, second: Path) -> bool:
        raise OSError(errno.EIO, os.strerror(errno.EIO))

    def rename(source: object, target: object) -> None:
        # Without an atomic exchange: the old site is set aside, then moving the new one in fails.
        if ".building-" in str(source):
            raise OSError(errno.EIO, os.strerror(errno.EIO))
        original_rename(source, target)  # type: ignore[arg-type]

    if failure == "exchange":
        monkeypatch.setattr(write, "exchange", failing_exchange)
    else:
        monkeypatch.setattr(write, "exchange", lambda first, second: False)
        monkeypatch.setattr(os, "rename", rename)
    capsys.readouterr()
    assert run_cli(built, "build") == 1
    assert "cannot replace the output folder: Input/output error" in capsys.readouterr().err
    assert site_files(built / "_site") == before
    assert [p.name for p in built.iterdir() if p.name.startswith("._site.")] == []
    monkeypatch.undo()
    assert run_cli(built, "build") == 0  # and the next build gets it right
    assert "230.5" in (built / "_site" / "runs" / SEED_RUN_ID / "index.html").read_text()


# Run as `python - <crash at call N> <config>`: a build that dies (os._exit, as kill -9 does: no
# cleanup, no finally) at the Nth file-system step that moves, links or removes files.
_CRASHING_BUILD = """
import os, shutil, sys
from sitegen.site.output import staging as write
if sys.argv[3] == "no-exchange":
    write.exchange = lambda first, second: False
crash_at, calls = int(sys.argv[1]), [0]
def counted(original):
    def step(*args, **kwargs):
        calls[0] += 1
        if calls[0] == crash_at:
            os._exit(137)
        return original(*args, **kwargs)
    return step
os.link, os.rename, shutil.rmtree = counted(os.link), counted(os.rename), counted(shutil.rmtree)
write.exchange = counted(write.exchange)
from sitegen.cli import main
code = main(["--config", sys.argv[2], "build"])
print("steps", calls[0])
sys.exit(code)
"""


def _crashing_build(project: Path, crash_at: int, mode: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", _CRASHING_BUILD, str(crash_at), str(project / "sitegen.yaml"), mode],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=project,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )


@pytest.mark.parametrize("mode", ["exchange", "no-exchange", "exchange, staged in the spare"])
def test_a_build_killed_at_any_step_leaves_the_old_site_or_the_new(
    built: Path, tmp_path: Path, mode: str
) -> None:
    from sitegen.site.output.staging import clean_leftovers

    if mode.endswith("spare"):  # one more build, so that the next one stages in the site set aside
        shutil.copy(MINIMAL, built / "content" / "runs" / "added-run.yaml")
        assert run_cli(built, "collect") == 0 and run_cli(built, "build") == 0
        assert (built / ".sitegen" / "build" / "spare" / "index.html").is_file()
    old = site_files(built / "_site")
    seed = built / "content" / "runs" / f"{SEED_RUN_ID}.yaml"
    seed.write_text(
        seed.read_text().replace("total_tokens_per_s: 228.386789", "total_tokens_per_s: 230.5", 1)
    )
    (built / "content" / "runs" / "ttp300-vllm-qwen3-4b.yaml").unlink()
    assert run_cli(built, "collect") == 0
    pristine = tmp_path / "pristine"
    shutil.copytree(built, pristine, symlinks=True)
    finished = _crashing_build(
        built, 0, mode
    )  # never crashes: counts the steps, makes the new site
    assert finished.returncode == 0, finished.stderr
    steps = int(finished.stdout.split("steps ")[1])
    new = site_files(built / "_site")
    assert new != old and "230.5" in new[f"runs/{SEED_RUN_ID}/index.html"].decode()
    assert new == site_files(
        _cold_build_copy(pristine, tmp_path / "cold")
    )  # an incremental build is a cold one
    # A step while staging, and every step of the swap and the clean-up at the end (the last
    # three: exchange or two renames, then removing the old tree).
    points = sorted({steps // 2, *range(max(1, steps - 3), steps + 1)})
    for point in points:
        trial = tmp_path / f"crash-{point}"
        shutil.copytree(pristine, trial, symlinks=True)
        crashed = _crashing_build(trial, point, mode)
        assert crashed.returncode == 137, (point, crashed.stdout, crashed.stderr)
        if (trial / "_site").exists():
            assert site_files(trial / "_site") in (old, new), (
                f"a mixed site after a crash at step {point}"
            )
        else:  # only without an atomic exchange, between its two renames: the old site is set aside
            assert mode == "no-exchange", point
            clean_leftovers(trial / "_site")  # what the next build does first
            assert site_files(trial / "_site") == old
        assert run_cli(trial, "build") == 0  # the next build cleans up and gets it right
        assert site_files(trial / "_site") == new
        assert [p.name for p in trial.iterdir() if p.name.startswith("._site.")] == []


def _cold_build_copy(project: Path, copy: Path) -> Path:
    shutil.copytree(project, copy, symlinks=True)
    shutil.rmtree(copy / "_site")
    (copy / ".sitegen" / "build" / "manifest.json").unlink()
    assert run_cli(copy, "build") == 0
    return copy / "_site"


@pytest.mark.parametrize("how", ["--force-output", "output_replace"])
def test_a_foreign_output_folder_is_replaced_only_when_told(
    project: Path, capsys: pytest.CaptureFixture[str], how: str
) -> None:
    assert run_cli(project, "collect") == 0
    docs = project / "docs"
    docs.mkdir()
    (docs / "guide.md").write_text("# someone's guide\n")
    config = project / "sitegen.yaml"
    config.write_text(config.read_text() + "output_dir: docs\n")
    assert run_cli(project, "build") == 1
    assert "docs: holds files that sitegen did not make" in capsys.readouterr().err
    assert (docs / "guide.md").read_text() == "# someone's guide\n"
    if how == "output_replace":
        config.write_text(config.read_text() + "output_replace: true\n")
        assert run_cli(project, "build") == 0
    else:
        assert run_cli(project, "build", "--force-output") == 0
    assert not (docs / "guide.md").exists() and (docs / "index.html").is_file()
    assert (docs / ".sitegen-output").is_file()
    if how == "output_replace":
        config.write_text(config.read_text().replace("output_replace: true\n", ""))
    assert run_cli(project, "build") == 0  # a folder sitegen made is its own to replace


def test_an_empty_output_folder_is_used(project: Path) -> None:
    assert run_cli(project, "collect") == 0
    (project / "_site").mkdir()
    assert run_cli(project, "build") == 0
    assert (project / "_site" / "index.html").is_file()


def test_force_output_never_replaces_the_projects_own_folders(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_cli(project, "collect") == 0
    config = project / "sitegen.yaml"
    before = site_files(project / "content")
    config.write_text(config.read_text() + "output_dir: content\noutput_replace: true\n")
    assert run_cli(project, "build", "--force-output") == 1
    assert "output_dir: content is the content folder" in capsys.readouterr().err
    assert site_files(project / "content") == before


def test_characters_xml_forbids_never_reach_an_xml_file(project: Path) -> None:
    # sitegen.yaml is not a result file, so its text is not checked like one; the feed must still
    # parse.
    from xml.etree import ElementTree

    config = project / "sitegen.yaml"
    text = config.read_text()
    assert "title: LLM inference speed tests\n" in text
    config.write_text(
        text.replace(
            "title: LLM inference speed tests\n", 'title: "Speed\\x01 tests\\uffff\\x1b"\n'
        )
    )
    assert run_cli(project, "collect") == 0
    # With a site_url, or there is no sitemap (its protocol allows only absolute URLs).
    assert run_cli(project, "build", "--site-url", "https://example.org/bench/") == 0
    for name in ("feed.xml", "sitemap.xml"):
        ElementTree.fromstring(
            (project / "_site" / name).read_bytes()
        )  # raises on a forbidden character
    assert b"<title>Speed tests</title>" in (project / "_site" / "feed.xml").read_bytes()


@pytest.mark.parametrize(
    "name",
    [
        "index.html",
        "runs/a/index.html",
        "assets/charts/x.svg",
        "",
        "/etc/passwd",
        "../x",
        "a/../b",
        "a/./b",
        "./a",
        "a//b",
        "a/",
        "..",
        ".",
        "a/b/..",
        "a\0b",
        "...",
        "a/.../b",
        ".a/b.",
        "a/..b",
        "./.",
        "/",
        "//",
        "a/b/.",
    ],
)
def test_a_kept_or_written_name_is_a_plain_path_inside_the_site(name: str) -> None:
    # The fast test must agree with the path library's reading: relative, normalised, no "..".
    from pathlib import PurePosixPath

    from sitegen.site.incremental.folder_records import plain_relative

    path = PurePosixPath(name)
    expected = (
        bool(path.parts)
        and not path.is_absolute()
        and ".." not in path.parts
        and path.as_posix() == name
        and "\0" not in name
    )
    assert plain_relative(name) is expected


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


def _cold_build(project: Path) -> dict[str, bytes]:
    """The site as a build from nothing kept makes it (the chart cache stays: it is checked by
    the content of each chart)."""
    shutil.rmtree(project / "_site")
    shutil.rmtree(project / ".sitegen" / "build")
    for kept in ("figures.json", "fragments.json"):
        (project / ".sitegen" / "cache" / kept).unlink(missing_ok=True)
    assert run_cli(project, "build") == 0
    return site_files(project / "_site")


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
    assert _cold_build(built) == incremental


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
    "tamper",
    [
        "none",
        "stray file",
        "link out",
        "folder for a file",
        "file for a folder",
        "other content",
        "spare a file",
    ],
)
def test_a_build_staged_in_the_spare_is_a_cold_build(
    built_project: Path, tmp_path: Path, tamper: str
) -> None:
    """The last build keeps the site it replaced in .sitegen/build/spare; the next one stages in it
    (links only what is not already the live site's file) and makes exactly what a cold build does,
    whatever was done to the spare."""
    runs, site, spare = (
        built_project / "content" / "runs",
        built_project / "_site",
        built_project / ".sitegen" / "build" / "spare",
    )
    seed = runs / f"{SEED_RUN_ID}.yaml"
    seed.write_text(
        seed.read_text().replace("total_tokens_per_s: 228.386789", "total_tokens_per_s: 230.5", 1)
    )
    assert run_cli(built_project, "collect") == 0 and run_cli(built_project, "build") == 0
    assert spare.is_dir() and not [
        p.name for p in built_project.iterdir() if p.name.startswith("._site.")
    ]
    outside = tmp_path / "outside.txt"
    outside.write_text("not the site's")
    kept = "runs/ttp300-vllm-qwen3-4b/index.html"
    if tamper == "stray file":
        (spare / "runs" / "left-over.html").write_text("stray")
    elif tamper == "link out":
        (spare / kept).unlink()
        (spare / kept).symlink_to(outside)
    elif tamper == "folder for a file":
        (spare / kept).unlink()
        (spare / kept).mkdir()
        (spare / kept / "x").write_text("x")
    elif tamper == "file for a folder":
        shutil.rmtree(spare / "runs" / "ttp300-vllm-qwen3-4b")
        (spare / "runs" / "ttp300-vllm-qwen3-4b").write_text("a file where a folder goes")
    elif tamper == "other content":
        (spare / kept).unlink()  # not the live site's file any more: its own inode
        (spare / kept).write_text("other content")
    elif tamper == "spare a file":
        shutil.rmtree(spare)
        spare.write_text("not a folder")
    # Add a run, remove one, edit one back.
    shutil.copy(MINIMAL, runs / "added-run.yaml")
    (runs / "mi100x4-vllm-qwen3coder30b-gptq4.yaml").unlink()
    seed.write_text(
        seed.read_text().replace("total_tokens_per_s: 230.5", "total_tokens_per_s: 231.5", 1)
    )
    assert run_cli(built_project, "collect") == 0
    unchanged = site / "runs" / "ttp300-vllm-qwen3-4b" / "index.html"
    inode = unchanged.stat().st_ino
    links: list[object] = []
    original_link = os.link

    def counted_link(*args: object, **kwargs: object) -> None:
        links.append(args)
        original_link(*args, **kwargs)  # type: ignore[arg-type]

    os.link = counted_link  # type: ignore[assignment]
    try:
        assert run_cli(built_project, "build") == 0
    finally:
        os.link = original_link
    built = site_files(site)
    staged = [link for link in links if not str(link[1]).startswith(str(spare))]
    if (
        tamper == "none"
    ):  # the spare held the site before last: only what changed since then is linked
        assert len(staged) < len(built) // 2, (len(staged), len(built))
        assert unchanged.stat().st_ino == inode
    # Whatever was done to it, the spare is left a mirror of the new site: its very files.
    assert sorted(site_files(spare)) == sorted(built)
    assert all((spare / name).stat().st_ino == (site / name).stat().st_ino for name in built)
    assert not any(path.is_symlink() for path in site.rglob("*"))
    assert outside.read_text() == "not the site's"
    assert not [p.name for p in built_project.iterdir() if p.name.startswith("._site.")]
    assert built == site_files(_cold_build_copy(built_project, tmp_path / "cold"))
    assert (
        "231.5" in built[f"runs/{SEED_RUN_ID}/index.html"].decode()
        and "runs/added-run/index.html" in built
    )


def test_a_first_build_leaves_a_spare_of_its_own_files(project: Path) -> None:
    # So that the next build, one added run, stages in it rather than linking every file again.
    assert run_cli(project, "collect") == 0 and run_cli(project, "build") == 0
    site, spare = project / "_site", project / ".sitegen" / "build" / "spare"
    files = sorted(path.relative_to(site) for path in site.rglob("*") if path.is_file())
    assert files == sorted(path.relative_to(spare) for path in spare.rglob("*") if path.is_file())
    assert all((site / name).stat().st_ino == (spare / name).stat().st_ino for name in files)
    assert not [p.name for p in project.iterdir() if p.name.startswith("._site.")]


def _looked_at(monkeypatch: pytest.MonkeyPatch, trees: list[Path]) -> tuple[list[str], list[str]]:
    """Record, from now on, which files (lstat of a plain file) and which folders (scandir) in
    ``trees`` and in the staging folders beside the first one are looked at."""
    files: list[str] = []
    listed: list[str] = []
    staging = f"{trees[0].parent}/.{trees[0].name}."
    roots = [str(tree) for tree in trees]

    def inside(path: object) -> bool:
        text = os.fsdecode(path) if isinstance(path, (str, bytes, os.PathLike)) else ""
        return text.startswith(staging) or any(
            text == root or text.startswith(root + "/") for root in roots
        )

    real_lstat, real_scandir = os.lstat, os.scandir

    def lstat(path: Any, *args: Any, **kwargs: Any) -> os.stat_result:
        found = real_lstat(path, *args, **kwargs)
        if inside(path) and stat.S_ISREG(found.st_mode):
            files.append(os.fsdecode(path))
        return found

    def scandir(path: Any = ".") -> Any:
        if inside(path):
            listed.append(os.fsdecode(path))
        return real_scandir(path)

    monkeypatch.setattr(os, "lstat", lstat)
    monkeypatch.setattr(os, "scandir", scandir)
    return files, listed


def _relative_folder(path: str, project: Path) -> str:
    """A listed folder of the site, the spare or a staging folder, as a folder of the site."""
    relative = Path(path).relative_to(project).as_posix()
    if relative.startswith("._site.building-"):
        return relative.partition("/")[2]
    for tree in ("_site", ".sitegen/build/spare"):
        if relative == tree or relative.startswith(tree + "/"):
            return relative[len(tree) + 1 :]
    raise AssertionError(f"{path} is in no tree of the site")


def _with_folders(names: set[str]) -> set[str]:
    """The folders that hold ``names``, and every folder above them ("" the site's own)."""
    folders = {""}
    for name in names:
        while "/" in name:
            name = name.rpartition("/")[0]
            folders.add(name)
    return folders


def test_a_build_staged_in_the_mirror_looks_at_no_kept_file(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each build leaves the spare a mirror of its site and records the spare's folders. The next
    builds, one added run each, find them as recorded and keep the files of the unchanged pages
    without looking at any of them (in the spare or the live site). The first lists no folder but
    the two roots (the spare's was renamed into the staging folder, the set-aside site's into the
    spare); a later one, no folder but those the build before it changed, so the listing does not
    grow from build to build. Each site is exactly a cold build's, and the spare its mirror."""
    _trust_recorded_identities(monkeypatch)
    site, spare = project / "_site", project / ".sitegen" / "build" / "spare"
    assert run_cli(project, "collect") == 0 and run_cli(project, "build") == 0

    def inodes() -> dict[str, int]:
        return {
            path.relative_to(site).as_posix(): path.stat().st_ino
            for path in site.rglob("*")
            if path.is_file()
        }

    before = inodes()
    changed_last: set[str] | None = None  # files the build before wrote anew or removed
    # Each run of another model on another accelerator, so its group pages are no other step's:
    # the first one's are pages the site had (touched by the first build only), the others' new.
    setups = [
        ("Blackhole P300", "Qwen/Qwen3-4B"),
        ("RTX 5090", "Qwen/Qwen3-14B"),
        ("L40S", "Qwen/Qwen3-32B"),
    ]
    for step, (accelerator, model) in enumerate(setups):
        text = MINIMAL.read_text().replace("RTX 4090", accelerator).replace("Qwen/Qwen3-8B", model)
        (project / "content" / "runs" / f"added-{step}.yaml").write_text(text)
        assert run_cli(project, "collect") == 0
        past_the_file_system_tick(project)
        with monkeypatch.context() as watching:
            files, listed = _looked_at(watching, [site, spare])
            assert run_cli(project, "build") == 0
        assert files == []
        folders = {_relative_folder(path, project) for path in listed}
        if changed_last is None:
            assert folders == {""}, listed
        else:
            assert folders <= _with_folders(changed_last), folders - _with_folders(changed_last)
        now = inodes()
        changed_last = {
            name for name in set(now) | set(before) if now.get(name) != before.get(name)
        }
        before = now
        built = site_files(site)
        assert f"runs/added-{step}/index.html" in built
        assert sorted(site_files(spare)) == sorted(built)
        assert all((spare / name).stat().st_ino == (site / name).stat().st_ino for name in built)
    monkeypatch.undo()
    assert built == site_files(_cold_build_copy(project, tmp_path / "cold"))


@pytest.mark.parametrize("change", ["stray file", "other content", "removed file", "stray folder"])
def test_a_change_to_the_live_site_never_reaches_the_mirror(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, change: str
) -> None:
    """Someone changes the published site by hand. The next build stages in the mirror, which
    still holds the last build's own files, and publishes exactly a cold build's site; the site
    it replaced is found changed and is not made the next mirror unchecked: the build after
    that is exactly a cold build's too, and leaves a true mirror."""
    _trust_recorded_identities(monkeypatch)
    runs, site, spare = (
        project / "content" / "runs",
        project / "_site",
        project / ".sitegen" / "build" / "spare",
    )
    assert run_cli(project, "collect") == 0 and run_cli(project, "build") == 0
    seed = runs / f"{SEED_RUN_ID}.yaml"
    seed.write_text(
        seed.read_text().replace("total_tokens_per_s: 228.386789", "total_tokens_per_s: 230.5", 1)
    )
    assert run_cli(project, "collect") == 0 and run_cli(project, "build") == 0
    past_the_file_system_tick(project)
    kept = site / "runs" / "ttp300-vllm-qwen3-4b" / "index.html"
    if change == "stray file":
        (kept.parent / "notes.html").write_text("a stranger's page")
    elif change == "other content":
        kept.unlink()
        kept.write_text("a stranger's page")
    elif change == "removed file":
        kept.unlink()
    elif change == "stray folder":
        (kept.parent / "extra").mkdir()
        (kept.parent / "extra" / "index.html").write_text("a stranger's page")
    for step in range(2):
        shutil.copy(MINIMAL, runs / f"added-{step}.yaml")
        assert run_cli(project, "collect") == 0 and run_cli(project, "build") == 0
        built = site_files(site)
        assert not any(b"a stranger's page" in data for data in built.values())
        assert built == site_files(_cold_build_copy(project, tmp_path / f"cold-{step}"))
    assert not any(b"a stranger's page" in data for data in site_files(spare).values())
    assert sorted(site_files(spare)) == sorted(built)
    assert all((spare / name).stat().st_ino == (site / name).stat().st_ino for name in built)


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


def test_what_a_feed_drops_is_exactly_what_xml_does_not_allow() -> None:
    """Every code point, against XML 1.0's Char production (section 2.2): #x9 | #xA | #xD |
    [#x20-#xD7FF] | [#xE000-#xFFFD] | [#x10000-#x10FFFF]."""
    from sitegen.site.render import _NOT_XML

    def allowed(point: int) -> bool:
        return (
            point in (0x9, 0xA, 0xD)
            or 0x20 <= point <= 0xD7FF
            or 0xE000 <= point <= 0xFFFD
            or 0x10000 <= point <= 0x10FFFF
        )

    text = "".join(map(chr, range(0x110000)))
    kept = _NOT_XML.sub("", text)
    assert kept == "".join(chr(point) for point in range(0x110000) if allowed(point))


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
    assert _cold_build(built) == incremental
    assert set(made) >= {
        *spark,
        "runs/spark-other-model/index.html",
    }  # (the cold build made them all)
