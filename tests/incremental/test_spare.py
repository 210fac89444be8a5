"""The spare: the site the last build set aside, in which the next build stages its own. A
build staged there is a cold build, looks at no file it keeps, and nothing done to the live
site reaches it."""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path
from typing import Any

import pytest

from tests.kit.builds import MINIMAL, cold_build_copy, trust_recorded_identities
from tests.kit.clock import past_the_file_system_tick
from tests.kit.project import SEED_RUN_ID, run_cli, site_files


# The sites these tests build: three runs (conftest's small_project and small_built) in place of
# the shipped ones. What the spare holds and what a build staged there looks at do not depend on
# how many runs a site has, and each of the many builds here costs a fraction of theirs.
@pytest.fixture
def project(small_project: Path) -> Path:
    return small_project


@pytest.fixture
def built_project(small_built: Path) -> Path:
    return small_built


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
    assert built == site_files(cold_build_copy(built_project, tmp_path / "cold"))
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


JOINED_FILES = {
    "data/runs.json",
    "data/setups.json",
    "data/capacity.json",
    "data/changes.json",
    "data/index.json",
}


def test_a_build_staged_in_the_mirror_looks_at_no_kept_file(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each build leaves the spare a mirror of its site and records the spare's folders. The next
    builds, one added run each, find them as recorded and keep the files of the unchanged pages
    without looking at any of them (in the spare or the live site). The first lists no folder but
    the two roots (the spare's was renamed into the staging folder, the set-aside site's into the
    spare); a later one, no folder but those the build before it changed, so the listing does not
    grow from build to build. Each site is exactly a cold build's, and the spare its mirror."""
    trust_recorded_identities(monkeypatch)
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
        # Only the data files it made, each once after the swap, to record them for the next
        # build's splice (incremental/joined.py): no kept file.
        assert {Path(name).relative_to(site).as_posix() for name in files} <= JOINED_FILES
        assert len(files) == len(set(files))
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
    assert built == site_files(cold_build_copy(project, tmp_path / "cold"))


@pytest.mark.parametrize("change", ["stray file", "other content", "removed file", "stray folder"])
def test_a_change_to_the_live_site_never_reaches_the_mirror(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, change: str
) -> None:
    """Someone changes the published site by hand. The next build stages in the mirror, which
    still holds the last build's own files, and publishes exactly a cold build's site; the site
    it replaced is found changed and is not made the next mirror unchecked: the build after
    that is exactly a cold build's too, and leaves a true mirror."""
    trust_recorded_identities(monkeypatch)
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
        assert built == site_files(cold_build_copy(project, tmp_path / f"cold-{step}"))
    assert not any(b"a stranger's page" in data for data in site_files(spare).values())
    assert sorted(site_files(spare)) == sorted(built)
    assert all((spare / name).stat().st_ino == (site / name).stat().st_ino for name in built)
