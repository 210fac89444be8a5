"""Collect's manifest (sitegen/collect/manifest.py): a file whose stat is as the last collect
recorded it is not read again, and the collected file stays byte-identical to what a collect
that reads everything writes, whatever changed: an edit that keeps the size and the times, an
edit within the clock's tick, a file replaced or relinked, files added or removed, sitegen.yaml
or sitegen's code, the collected file itself. Also the kept compiled schema checks."""

from __future__ import annotations

import json
import os
import re
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import fastjsonschema
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

import sitegen.collect
import sitegen.validate
from sitegen import files
from sitegen.collect import CollectReport, collect, gather, manifest
from sitegen.collect.cache import EntryCache
from sitegen.config import load_config
from sitegen.errors import SitegenError
from sitegen.parse import Document
from sitegen.resources import load_schema
from sitegen.store import encode, read_cache, write_cache
from tests.kit.clock import past_the_file_system_tick
from tests.kit.project import DATA
from tests.kit.reads import count_opens

EDITED = "b200x2-vllm-nemotron3nano30b-fp8.yaml"


@pytest.fixture
def site(project: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    # A file counts as old enough to trust once it is older than the collect's reading of the
    # clock (the real rule adds two seconds for coarse time stamps; the racy tests use it).
    monkeypatch.setattr(files, "SETTLED_NS", 0)
    return project


def _collect(site: Path) -> CollectReport:
    past_the_file_system_tick(site)  # what was written before is older than the collect's clock
    return collect(load_config(site / "sitegen.yaml"))


def _collected(site: Path) -> bytes:
    return (site / ".sitegen" / "collected.json").read_bytes()


def _reference(site: Path) -> bytes:
    """What collect writes when it reads every file (no manifest): the collected file, and
    (checked here) exactly the measurements files it names, byte for byte."""
    data, measurements = encode(gather(load_config(site / "sitegen.yaml")).runs)
    folder = site / ".sitegen" / "measurements"
    assert {path.name: path.read_bytes() for path in folder.iterdir()} == {
        f"{name}.json": value for name, value in measurements.items()
    }
    return data


def _opened_by_collect(site: Path, monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    with monkeypatch.context() as patch:
        opened = count_opens(patch, (site / "content").resolve())
        _collect(site)
    return opened


def _same_size_edit(path: Path, keep_times: bool = True) -> None:
    """Change the run's date, keeping the file's size and (by default) its times."""
    before = path.stat()
    text = path.read_text(encoding="utf-8")
    found = re.search(r'date: "(\d{4}-\d\d-\d\d)"', text)
    assert found is not None
    new = "2025-01-01" if found.group(1) != "2025-01-01" else "2025-01-02"
    path.write_text(text[: found.start(1)] + new + text[found.end(1) :], encoding="utf-8")
    assert path.stat().st_size == before.st_size
    if keep_times:
        os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))


def test_an_unchanged_collect_reads_no_result_file_and_keeps_the_collected_file(
    site: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shutil.copy(DATA / "plausibility" / "planted.yaml", site / "content" / "runs" / "planted.yaml")
    first = _collect(site)
    assert first.warnings, "the planted file has warnings, which an unchanged collect must repeat"
    written = _collected(site)
    stamp = (site / ".sitegen" / "collected.json").stat().st_mtime_ns
    _collect(site)  # the collected file is now old enough for its own stat to be trusted
    with monkeypatch.context() as patch:
        opened = count_opens(patch, (site / "content").resolve())
        again = _collect(site)
    assert opened == Counter()
    assert again.warnings == first.warnings
    assert len(again.runs) == len(first.runs)
    assert _collected(site) == written == _reference(site)
    assert (site / ".sitegen" / "collected.json").stat().st_mtime_ns == stamp


def test_an_added_run_is_the_only_file_read(site: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _collect(site)
    runs = site / "content" / "runs"
    shutil.copy(runs / EDITED, runs / "added-run.yaml")
    assert _opened_by_collect(site, monkeypatch) == Counter({"added-run.yaml": 1})
    assert _collected(site) == _reference(site)
    assert b'"id":"added-run"' in _collected(site)


def test_an_edit_that_keeps_size_and_times_is_seen(site: Path) -> None:
    _collect(site)
    before = _collected(site)
    _same_size_edit(site / "content" / "runs" / EDITED)
    _collect(site)
    assert _collected(site) != before
    assert _collected(site) == _reference(site)


def test_a_file_replaced_by_another_of_the_same_size_and_times_is_seen(site: Path) -> None:
    _collect(site)
    before = _collected(site)
    path = site / "content" / "runs" / EDITED
    other = path.with_name(".replacement")  # a dot file: not a run
    shutil.copy2(path, other)
    _same_size_edit(other)
    os.utime(other, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns))
    os.replace(other, path)
    _collect(site)
    assert _collected(site) != before
    assert _collected(site) == _reference(site)


def test_an_edit_in_the_same_tick_as_the_last_read_is_seen(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Git's racy case, with the real rule: a file changed less than two seconds before a collect
    is read again by the next, so an edit its time stamps cannot show is still seen."""
    runs = project / "content" / "runs"
    fresh = runs / "fresh-run.yaml"
    shutil.copy(runs / EDITED, fresh)
    # Time stamps too coarse to show the edit below (on a fine clock the new change time would).
    monkeypatch.setattr(
        files, "identity", lambda found: (found.st_dev, found.st_ino, found.st_size, 0, 0)
    )
    # The collect reads the file in the tick it was changed in, whatever the machine's load:
    # its clock says "now" is the file's own change time (a real clock could have moved on by
    # more than the settling margin on a busy machine, and then the file counts as settled).
    changed = fresh.stat()
    with monkeypatch.context() as patch:
        patch.setattr(
            files,
            "file_system_now",
            lambda folder, after_tick=False: files.Clock(changed.st_ctime_ns, changed.st_dev),
        )
        collect(load_config(project / "sitegen.yaml"))
    _same_size_edit(fresh)
    with monkeypatch.context() as patch:
        opened = count_opens(patch, runs.resolve())
        collect(load_config(project / "sitegen.yaml"))
    assert opened["fresh-run.yaml"] == 1  # (the whole site was copied just now: every file is read)
    assert _collected(project) == _reference(project)


def test_a_link_led_elsewhere_is_seen(site: Path) -> None:
    elsewhere = site / "content" / "elsewhere"
    elsewhere.mkdir()
    runs = site / "content" / "runs"
    shutil.copy(runs / EDITED, elsewhere / "one.yaml")
    shutil.copy(runs / EDITED, elsewhere / "two.yaml")
    _same_size_edit(elsewhere / "two.yaml")
    (runs / "linked.yaml").symlink_to(elsewhere / "one.yaml")
    _collect(site)
    before = _collected(site)
    swap = runs / ".swap"
    swap.symlink_to(elsewhere / "two.yaml")
    os.replace(swap, runs / "linked.yaml")
    _collect(site)
    assert _collected(site) != before
    assert _collected(site) == _reference(site)


def test_a_removed_run_is_gone_and_its_cache_entry_too(site: Path) -> None:
    _collect(site)
    path = site / "content" / "runs" / EDITED
    config = load_config(site / "sitegen.yaml")
    cache = EntryCache(config.state_dir / "cache" / "collect")
    key = cache.key(f"content/runs/{EDITED}", path.read_bytes())
    assert cache.has(key)
    path.unlink()
    _collect(site)
    assert _collected(site) == _reference(site)
    assert EDITED.removesuffix(".yaml").encode() not in _collected(site)
    assert not cache.has(key)


def test_new_settings_or_new_code_read_every_file_again(
    site: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _collect(site)
    names = [path.name for path in (site / "content" / "runs").iterdir()]
    config = site / "sitegen.yaml"
    text = config.read_text(encoding="utf-8")
    config.write_text(
        re.sub(r"(?m)^title: .*$", "title: Another title", text, count=1), encoding="utf-8"
    )
    assert _opened_by_collect(site, monkeypatch) == Counter(names)
    assert _opened_by_collect(site, monkeypatch) == Counter()
    monkeypatch.setattr(sitegen.collect, "code_salt", lambda: b"a new sitegen")
    assert _opened_by_collect(site, monkeypatch) == Counter(names)
    assert _collected(site) == _reference(site)


@pytest.mark.parametrize("damage", ["edited", "edited-keeping-times", "removed", "cut"])
def test_a_damaged_collected_file_is_written_again(site: Path, damage: str) -> None:
    _collect(site)
    _collect(site)  # its stat is recorded now: an edit must still be seen
    path = site / ".sitegen" / "collected.json"
    data = path.read_bytes()
    before = path.stat()
    if damage == "removed":
        path.unlink()
    elif damage == "cut":
        path.write_bytes(data[: len(data) // 2])
    else:
        at = data.index(b'"origin":"content/runs/') + len(b'"origin":"content/runs/')
        path.write_bytes(data[:at] + (b"x" if data[at : at + 1] != b"x" else b"y") + data[at + 1 :])
        if damage == "edited-keeping-times":
            os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    _collect(site)
    assert path.read_bytes() == data == _reference(site)


def test_an_added_run_after_the_collected_file_was_edited_is_still_right(site: Path) -> None:
    """The unchanged runs' entries are copied from the collected file only when it is the one
    recorded."""
    _collect(site)
    path = site / ".sitegen" / "collected.json"
    data = path.read_bytes()
    at = data.index(b'"origin":"content/runs/') + len(b'"origin":"content/runs/')
    path.write_bytes(data[:at] + b"x" + data[at + 1 :])
    runs = site / "content" / "runs"
    shutil.copy(runs / EDITED, runs / "added-run.yaml")
    _collect(site)
    assert path.read_bytes() == _reference(site)


def test_an_added_run_copies_the_others_from_the_recorded_file_without_hashing_it(
    site: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The collected file recorded (identity and all, once settled) is read for the unchanged
    runs' entries without working out its checksum again; one changed since, even keeping its
    size and times, is hashed, found to differ, and every run read again."""
    import hashlib

    _collect(site)
    _collect(site)  # its stat is recorded now
    path = site / ".sitegen" / "collected.json"
    size = path.stat().st_size
    hashed: list[int] = []
    real = hashlib.sha256

    class Counting:
        @staticmethod
        def sha256(data: bytes = b"") -> Any:
            hashed.append(len(data))
            return real(data)

    monkeypatch.setattr(sitegen.collect, "hashlib", Counting)
    runs = site / "content" / "runs"
    shutil.copy(runs / EDITED, runs / "added-run.yaml")
    _collect(site)
    assert size not in hashed  # the old file, read but not hashed
    assert path.read_bytes() == _reference(site)
    data, before = path.read_bytes(), path.stat()
    at = data.index(b'"origin":"content/runs/') + len(b'"origin":"content/runs/')
    _collect(site)  # recorded again, unchanged
    path.write_bytes(data[:at] + (b"x" if data[at : at + 1] != b"x" else b"y") + data[at + 1 :])
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    (runs / "added-run.yaml").unlink()
    hashed.clear()
    _collect(site)
    assert len(data) in hashed  # checked, and refused
    assert path.read_bytes() == _reference(site)


def test_a_failed_collect_leaves_the_collected_file_and_the_manifest(site: Path) -> None:
    _collect(site)
    written = _collected(site)
    manifest_path = site / ".sitegen" / "cache" / manifest.MANIFEST_NAME
    recorded = manifest_path.read_bytes()
    runs = site / "content" / "runs"
    shutil.copy(DATA / "invalid" / "bad-status.yaml", runs / "bad-status.yaml")
    _same_size_edit(runs / EDITED)
    with pytest.raises(SitegenError) as raised:
        _collect(site)
    assert any(
        problem.source == "content/runs/bad-status.yaml" and problem.line
        for problem in raised.value.problems
    )
    assert _collected(site) == written
    assert manifest_path.read_bytes() == recorded
    (runs / "bad-status.yaml").unlink()
    _collect(site)
    assert _collected(site) == _reference(site) != written


def test_a_damaged_manifest_is_ignored(site: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _collect(site)
    manifest_path = site / ".sitegen" / "cache" / manifest.MANIFEST_NAME
    data = manifest_path.read_bytes()
    damaged = data.replace(b'"files":["', b'"files":["x', 1)
    assert damaged != data
    manifest_path.write_bytes(damaged)
    names = [path.name for path in (site / "content" / "runs").iterdir()]
    assert _opened_by_collect(site, monkeypatch) == Counter(names)
    assert _collected(site) == _reference(site)


def _reshaped(document: dict[str, Any], shape: str) -> None:
    files_list, runs = document["files"], document["collected"]["runs"]
    if shape == "a file's item missing":
        del files_list[-1]
    elif shape == "an identity not a number":
        files_list[1] = str(files_list[1])
    elif shape == "an identity a boolean":
        files_list[1] = True
    elif shape == "warnings for a file it does not know":
        document["warnings"] = {"nowhere.yaml": [["nowhere.yaml", 1, "", "?"]]}
    elif shape == "a run's end not a number":
        runs[4] = float(runs[4])
    else:
        document["warnings"] = [1]


@pytest.mark.parametrize(
    "shape",
    [
        "a file's item missing",
        "an identity not a number",
        "an identity a boolean",
        "warnings for a file it does not know",
        "a run's end not a number",
        "warnings a list",
    ],
)
def test_a_manifest_of_the_wrong_shape_is_ignored(
    site: Path, monkeypatch: pytest.MonkeyPatch, shape: str
) -> None:
    # Written with a good checksum, as sitegen writes it: only its shape is wrong.
    _collect(site)
    manifest_path = site / ".sitegen" / "cache" / manifest.MANIFEST_NAME
    data = read_cache(manifest_path)
    assert data is not None
    document = json.loads(data)
    _reshaped(document, shape)
    write_cache(manifest_path, json.dumps(document).encode())
    names = [path.name for path in (site / "content" / "runs").iterdir()]
    assert _opened_by_collect(site, monkeypatch) == Counter(names)
    assert _collected(site) == _reference(site)


def _check_document(check: Any, data: Any) -> bool:
    try:
        check(data)
    except fastjsonschema.JsonSchemaException:
        return False
    return True


def test_kept_schema_checks_are_the_compiled_ones(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / ".sitegen" / "cache" / "validators"
    (tmp_path / ".sitegen").mkdir()
    seed = yaml.safe_load((DATA / "valid" / "minimal.yaml").read_text(encoding="utf-8"))
    broken = {**seed, "hardware": "not a mapping"}
    reference = fastjsonschema.compile(
        {
            **sitegen.validate.inline_refs(load_schema("result")),
            "$schema": "http://json-schema.org/draft-07/schema#",
        }
    )
    try:
        sitegen.validate.keep_compiled_checks(folder)
        made = sitegen.validate._fast_check("result")
        [entry] = folder.iterdir()
        sitegen.validate.keep_compiled_checks(folder)  # a new process, as far as the check goes

        def no_compiling(*args: Any, **kwargs: Any) -> str:
            raise AssertionError("compiled again")

        with monkeypatch.context() as patch:
            patch.setattr(fastjsonschema, "compile_to_code", no_compiling)
            kept = sitegen.validate._fast_check("result")
        for check in (made, kept):
            assert _check_document(check, seed) == _check_document(reference, seed) is True
            assert _check_document(check, broken) == _check_document(reference, broken) is False
        # A damaged entry is compiled again, never run.
        entry.write_bytes(entry.read_bytes()[:-10] + b"0123456789")
        sitegen.validate.keep_compiled_checks(folder)
        compiled: list[bool] = []
        real = fastjsonschema.compile_to_code

        def counting(*args: Any, **kwargs: Any) -> str:
            compiled.append(True)
            return real(*args, **kwargs)

        with monkeypatch.context() as patch:
            patch.setattr(fastjsonschema, "compile_to_code", counting)
            again = sitegen.validate._fast_check("result")
        assert compiled == [True]
        assert _check_document(again, broken) is False
        # And the problems a file is told about are the same.
        document = Document("x.yaml", broken, {})
        assert sitegen.validate.check_schema(document, "result")
    finally:
        sitegen.validate.keep_compiled_checks(None)


def test_without_the_file_systems_clock_every_file_is_read(
    site: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """When nothing can be made in .sitegen/cache to read the clock, no file is trusted unread."""
    monkeypatch.setattr(files, "file_system_now", lambda folder: None)
    _collect(site)
    names = [path.name for path in (site / "content" / "runs").iterdir()]
    assert _opened_by_collect(site, monkeypatch) == Counter(names)
    assert _collected(site) == _reference(site)


@pytest.mark.parametrize("measured", ["the same", "new"])
def test_a_collect_that_cannot_write_leaves_the_collected_file(
    site: Path, monkeypatch: pytest.MonkeyPatch, measured: str
) -> None:
    """The collected file made from the old one's entries and the new run's, and the new run's
    measurements file, are written as atomically as any: a full disk leaves the old files, and
    no temporary file. (An added run that measured the same as another shares its file.)"""
    _collect(site)
    written = _collected(site)
    folder = site / ".sitegen" / "measurements"
    kept = {path.name: path.read_bytes() for path in folder.iterdir()}
    runs = site / "content" / "runs"
    text = (runs / EDITED).read_text(encoding="utf-8")
    if measured == "new":
        assert "itl_p99_ms: 3.14\n" in text
        text = text.replace(
            "itl_p99_ms: 3.14\n", "itl_p99_ms: 3.15\n", 1
        )  # a figure kept as printed
    (runs / "added-run.yaml").write_text(text, encoding="utf-8")

    def full(descriptor: int) -> None:
        raise OSError(28, "No space left on device")

    with monkeypatch.context() as patch:
        patch.setattr(os, "fsync", full)
        with pytest.raises(
            SitegenError,
            match="cannot write the measurements"
            if measured == "new"
            else "cannot write the collected file",
        ):
            _collect(site)
    assert _collected(site) == written
    assert sorted(path.name for path in (site / ".sitegen").iterdir()) == [
        "cache",
        "collected.json",
        "measurements",
    ]
    assert {path.name: path.read_bytes() for path in folder.iterdir()} == kept
    _collect(site)
    assert _collected(site) == _reference(site) != written
    assert len(list(folder.iterdir())) == len(kept) + (measured == "new")


def test_the_entry_cache_keeps_only_what_the_last_collect_used(site: Path) -> None:
    """An edited file's old entry-cache entry is removed by the next collect (the cache is
    listed by name, collect/cache.py EntryCache.prune); what is not an entry (another suffix, a
    folder) is left alone."""
    cache = site / ".sitegen" / "cache" / "collect"
    _collect(site)
    valid = len(_reference_ids(site))
    first = {path.name for path in cache.glob("*.json")}
    assert len(first) == valid  # one entry per valid result file, nothing else
    (cache / "notes.txt").write_text("not an entry")
    (cache / "folder.d").mkdir()
    edited = site / "content" / "runs" / EDITED
    edited.write_text(edited.read_text() + "\n# an edit: new bytes, so a new cache key\n")
    _collect(site)
    second = {path.name for path in cache.glob("*.json")}
    assert len(second) == valid
    assert (
        len(first - second) == 1 and len(second - first) == 1
    )  # the old entry went, the new one came
    assert (cache / "notes.txt").read_text() == "not an entry" and (cache / "folder.d").is_dir()


def _reference_ids(site: Path) -> list[str]:
    return [run.id for run in gather(load_config(site / "sitegen.yaml")).runs]


# Any value a state file's JSON can hold, and a str and an int subclass JSON never makes.
class _Text(str):
    pass


class _Number(int):
    pass


_JSON_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False),
    st.text(max_size=3),
    st.builds(_Text, st.text(max_size=3)),
    st.builds(_Number, st.integers()),
    st.lists(st.integers(), max_size=2),
    st.dictionaries(st.text(max_size=2), st.integers(), max_size=2),
)
_KINDS = st.lists(
    st.sampled_from([str, int, float, bool, type(None), list, dict]), min_size=1, max_size=3
)


@settings(max_examples=300, deadline=None)
@given(values=st.lists(_JSON_VALUES, max_size=8), kinds=_KINDS)
def test_all_of_types_is_the_exact_type_test_of_every_item(
    values: list[Any], kinds: list[type]
) -> None:
    """files.all_of_types, which checks the manifests' long columns at once, says what a test of
    each item's exact type says (a bool is no int, a subclass is not its base)."""
    assert files.all_of_types(values, *kinds) == all(type(value) in kinds for value in values)
    assert files.all_of_types(iter(values), *kinds) == all(type(value) in kinds for value in values)
