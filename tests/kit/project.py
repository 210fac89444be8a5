"""The repository's site as tests use it: where it is, a throw-away copy of it to run sitegen
against, the CLI run in-process on such a copy, and the built site and collected file read back
independently of sitegen."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import yaml

from sitegen import progress

REPO = Path(__file__).resolve().parent.parent.parent
DATA = REPO / "tests" / "data"  # every fixture lives here; see tests/data/README.md
SEED_RUN_ID = "h200nvl2-sglang-deepseek-v4-flash-dspark"
# How long a command runs before it shows its progress (sitegen/progress.py), as shipped: read
# here, before conftest turns progress off for every test.
SHOW_AFTER_S = progress.SHOW_AFTER_S
# Runs a page of the index in the shipped site built with short pages (conftest's shipped_paged):
# the shipped runs then fill page/2/ and page/3/ (tests/kit/paging_rule.py).
PAGED_INDEX_SIZE = 3


def site_files(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` by its relative path: two builds compared byte for byte."""
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def forget_builds(project: Path, drawn: bool = False) -> None:
    """Make the next build a cold one: no site, manifest, spare, kept figures or pieces; with
    ``drawn``, no compiled templates or drawn charts either (the session shares those)."""
    shutil.rmtree(project / "_site")
    shutil.rmtree(project / ".sitegen" / "build")
    for kept in ("figures.json", "fragments.json"):
        (project / ".sitegen" / "cache" / kept).unlink(missing_ok=True)
    if drawn:
        for kept in ("templates", "charts"):
            shutil.rmtree(project / ".sitegen" / "cache" / kept)


def copy_site(site: Path, shared_cache: Path) -> Path:
    """A copy of the repository's site (sitegen.yaml, content/, and schema/ as result files'
    modelines point there) at ``site``, its chart cache the session's ``shared_cache``."""
    site.mkdir()
    shutil.copy(REPO / "sitegen.yaml", site / "sitegen.yaml")
    shutil.copytree(REPO / "content", site / "content")
    shutil.copytree(REPO / "schema", site / "schema")
    (site / ".sitegen").mkdir()
    (site / ".sitegen" / "cache").symlink_to(shared_cache, target_is_directory=True)
    return site


def copy_built(site: Path, copy: Path, shared_cache: Path) -> Path:
    """A copy at ``copy`` of the collected and built project ``site``, as a collect and build in
    it would have left it, its cache the session's ``shared_cache``: every file with its times,
    and the files the live site and the spare share (hard links, spare.Spare.mirror) shared in the
    copy too. What a copy cannot keep is each file's inode and change time, which a build compares
    with the identities the last one recorded (files.identity): so the first build in a copy
    lists the site's folders and reads the collected file where a build in ``site`` would trust
    them unread. A test of that trust builds a project of its own (conftest's ``project``)."""
    first_of: dict[tuple[int, int], str] = {}

    def copy_file(source: str, target: str) -> str:
        found = os.lstat(source)
        shared = first_of.get((found.st_dev, found.st_ino)) if found.st_nlink > 1 else None
        if shared is not None:
            os.link(shared, target)
        else:
            shutil.copy2(source, target)
            first_of[(found.st_dev, found.st_ino)] = target
        return target

    shutil.copytree(site, copy, symlinks=True, copy_function=copy_file)
    cache = copy / ".sitegen" / "cache"
    cache.unlink()
    cache.symlink_to(shared_cache, target_is_directory=True)
    return copy


def collected_entries(project: Path) -> list[dict]:  # type: ignore[type-arg]
    """The collected file's entries as read here, independently of sitegen: each result with
    its measurements read from the file their digest names (.sitegen/measurements/)."""
    state = project / ".sitegen"
    entries = json.loads((state / "collected.json").read_text(encoding="utf-8"))["runs"]
    for entry in entries:
        name = entry["result"]["measurements"]
        entry["result"]["measurements"] = json.loads(
            (state / "measurements" / f"{name}.json").read_text(encoding="utf-8")
        )
    return entries  # type: ignore[no-any-return]


# libyaml's reader where PyYAML has it: Python's own is several times slower, and the tests read
# the shipped result files back hundreds of times.
_YAML_LOADER: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def load_yaml(text: str) -> Any:
    """``text`` read as YAML (yaml.safe_load's rules), for a test's own reading of a file."""
    return yaml.load(text, Loader=_YAML_LOADER)


def run_cli(site: Path, *args: str) -> int:
    """Run ``sitegen --config <site>/sitegen.yaml ARGS`` in-process."""
    from sitegen.cli import main

    return main(["--config", str(site / "sitegen.yaml"), *args])
