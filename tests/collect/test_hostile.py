"""The hostile corpus (tests/data/hostile/cases.yaml): every bad input is refused with located
messages or rendered inert, through ``sitegen.cli.main`` exactly as a user runs it.

For every case: no traceback (an exception fails the test), nothing written outside ``_site/``
and ``.sitegen/`` (the whole project tree is compared before and after), and after a failure
the previous ``_site/`` and ``.sitegen/collected.json`` are byte-identical.
"""

from __future__ import annotations

import errno
import fcntl
import gzip
import json
import os
import shutil
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
import yaml

from sitegen import lock
from sitegen.parse import MAX_FILE_BYTES
from tests.kit import raw_samples
from tests.kit.audit import audit_html, audit_site
from tests.kit.project import REPO, SEED_RUN_ID, copy_built, load_yaml, run_cli

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Dialog

HOSTILE = REPO / "tests" / "data" / "hostile"
CASES: dict[str, dict[str, Any]] = (
    load_yaml((HOSTILE / "cases.yaml").read_text(encoding="utf-8")) or {}
)
RUNNABLE = {name: case for name, case in CASES.items() if "covered_by" not in case}
MINIMAL = (REPO / "tests" / "data" / "valid" / "minimal.yaml").read_text(encoding="utf-8")
# Every chart of the page has the toggle site.js adds on load: its chart upgrade has run.
CHARTS_UPGRADED = """() => Array.from(document.querySelectorAll("figure.chart[data-spec]"))
    .every((figure) => figure.querySelector("button.chart-toggle"))"""
# Planted by the secret cases; letters and digits only, so any output would show it byte for byte.
MARK = "Hst1leMark"


# --- the project every case starts from --------------------------------------------------------


@pytest.fixture
def site(seed_site: Path, tmp_path: Path, shared_cache: Path) -> Path:
    """A copy of the seed run alone, collected and built (conftest builds it once), its
    .sitegen/cache a link to the session's shared cache."""
    return copy_built(seed_site, tmp_path / "site", shared_cache)


def snapshot(root: Path) -> dict[str, bytes | str]:
    """Every file of the tree (links as their targets, never followed): what a case may change.
    In os.walk's order (each folder's folders, then its other entries; then into its folders),
    from os.scandir's entries, which know their kind without another stat."""
    found: dict[str, bytes | str] = {}
    folders = [("", str(root))]
    while folders:
        prefix, folder = folders.pop()
        with os.scandir(folder) as listed:
            entries = list(listed)
        into = [entry for entry in entries if _is_dir(entry)]  # links to folders too, as os.walk
        for entry in into + [entry for entry in entries if not _is_dir(entry)]:
            relative = prefix + entry.name
            if entry.is_symlink():
                found[relative] = f"-> {os.readlink(entry.path)}"
            elif entry.is_file():
                with open(entry.path, "rb") as stream:
                    found[relative] = stream.read()
            elif not _is_dir(entry):
                found[relative] = "<special file>"
        folders.extend(
            (prefix + entry.name + "/", entry.path)
            for entry in reversed(into)
            if not entry.is_symlink()
        )
    return found


def _is_dir(entry: os.DirEntry[str]) -> bool:
    """A folder, or a link to one; not a link that loops (as os.walk and Path.is_dir say)."""
    try:
        return entry.is_dir()
    except OSError:
        return False


def outside_output(tree: dict[str, bytes | str]) -> dict[str, bytes | str]:
    return {
        k: v
        for k, v in tree.items()
        if not k.startswith(("_site/", ".sitegen/")) and k not in ("_site", ".sitegen")
    }


def under(tree: dict[str, bytes | str], prefix: str) -> dict[str, bytes | str]:
    return {k: v for k, v in tree.items() if k.startswith(prefix)}


# --- builders for what cannot be committed --------------------------------------------------------

Builder = Callable[[Path, Path, pytest.MonkeyPatch], None]
BUILDERS: dict[str, Builder] = {}


def builder(name: str) -> Callable[[Builder], Builder]:
    def register(function: Builder) -> Builder:
        BUILDERS[name] = function
        return function

    return register


def _runs(site: Path) -> Path:
    return site / "content" / "runs"


@builder("over-size-limit")
def _over_size(site: Path, outside: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Valid YAML all the way, so only the size can refuse it.
    padding = "#" * 1000 + "\n"
    body = MINIMAL + padding * (MAX_FILE_BYTES // len(padding) + 1)
    (_runs(site) / "huge.yaml").write_text(body, encoding="utf-8")


@builder("one-mb-string")
def _one_mb_string(site: Path, outside: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (_runs(site) / "long-notes.yaml").write_text(
        MINIMAL.replace(
            "  model: Qwen/Qwen3-8B\n", "  model: Qwen/Qwen3-8B\n  notes: " + "a" * 1_048_576 + "\n"
        ),
        encoding="utf-8",
    )


def _decode_cells(count: int, diagonal: bool) -> list[dict[str, Any]]:
    return [
        {
            "context_tokens": i * (1 if diagonal else 0) + (0 if diagonal else i % 100),
            "concurrency": i + 1 if diagonal else i // 100 + 1,
            "status": "not_run",
        }
        for i in range(count)
    ]


def _result_with_decode(decode: list[dict[str, Any]]) -> str:
    document = yaml.safe_load(MINIMAL)
    document["measurements"]["decode"] = decode
    return json.dumps(document)


@builder("absurd-matrix")
def _absurd_matrix(site: Path, outside: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # 10,000 cells is within the schema's limit, but on a diagonal they span 10,000 × 10,000.
    (_runs(site) / "diagonal.json").write_text(
        _result_with_decode(_decode_cells(10_000, True)), encoding="utf-8"
    )


@builder("too-many-cells")
def _too_many_cells(site: Path, outside: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (_runs(site) / "many-cells.json").write_text(
        _result_with_decode(_decode_cells(10_001, False)), encoding="utf-8"
    )


@builder("link-outside-content")
def _link_outside(site: Path, outside: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (outside / "stolen.yaml").write_text(MINIMAL, encoding="utf-8")
    (_runs(site) / "linked.yaml").symlink_to(outside / "stolen.yaml")


@builder("link-to-folder-outside-content")
def _link_folder_outside(site: Path, outside: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (_runs(site) / "linked-folder").symlink_to(outside, target_is_directory=True)


@builder("link-inside-raw-folder")
def _link_in_raw_folder(site: Path, outside: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = _runs(site) / "raw-with-links"
    folder.mkdir()
    (outside / "benchmark_results.json").write_text(
        json.dumps(raw_samples.bench()), encoding="utf-8"
    )
    (outside / "run.yaml").write_text(yaml.safe_dump(raw_samples.RUN_META), encoding="utf-8")
    (folder / "benchmark_results.json").symlink_to(outside / "benchmark_results.json")
    (folder / "run.yaml").symlink_to(outside / "run.yaml")


@builder("runs-folder-is-a-link-outside")
def _runs_link_outside(site: Path, outside: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (outside / "elsewhere.yaml").write_text(MINIMAL, encoding="utf-8")
    shutil.rmtree(_runs(site))
    _runs(site).symlink_to(outside, target_is_directory=True)


@builder("link-loop")
def _link_loop(site: Path, outside: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (_runs(site) / "loop-a.yaml").symlink_to(_runs(site) / "loop-b.yaml")
    (_runs(site) / "loop-b.yaml").symlink_to(_runs(site) / "loop-a.yaml")


@builder("runs-folder-link-loop")
def _runs_link_loop(site: Path, outside: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    shutil.rmtree(_runs(site))
    _runs(site).symlink_to(_runs(site), target_is_directory=True)


@builder("broken-link")
def _broken_link(site: Path, outside: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (_runs(site) / "gone.yaml").symlink_to(_runs(site) / "never-there.yaml")


def _swap_after_discovery(
    site: Path, monkeypatch: pytest.MonkeyPatch, swap: Callable[[Path], None]
) -> None:
    """swapped.yaml is a good file when collect lists the folder, then ``swap`` replaces it
    before collect reads it (a race a contributor cannot win on CI, but a local user could)."""
    from sitegen import collect
    from sitegen.collect import local

    target = _runs(site) / "swapped.yaml"
    target.write_text(MINIMAL, encoding="utf-8")
    original = local.discover

    def discover(*args: Any, **kwargs: Any) -> Any:
        found = original(*args, **kwargs)
        target.unlink()
        swap(target)
        return found

    monkeypatch.setattr(collect, "discover", discover)


@builder("swapped-for-a-pipe")
def _swapped_for_pipe(site: Path, outside: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _swap_after_discovery(site, monkeypatch, os.mkfifo)


@builder("swapped-for-a-link")
def _swapped_for_link(site: Path, outside: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (outside / "secret.yaml").write_text(MINIMAL, encoding="utf-8")
    _swap_after_discovery(
        site, monkeypatch, lambda target: target.symlink_to(outside / "secret.yaml")
    )


@builder("swapped-for-a-huge-file")
def _swapped_for_huge(site: Path, outside: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def huge(target: Path) -> None:
        with target.open("wb") as stream:
            stream.truncate(MAX_FILE_BYTES + 1)  # sparse: no disk used, and never read in full

    _swap_after_discovery(site, monkeypatch, huge)


@builder("pipe-as-result-file")
def _pipe(site: Path, outside: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    os.mkfifo(_runs(site) / "pipe.yaml")  # reading it would block collect forever


@builder("newline-in-file-name")
def _newline_name(site: Path, outside: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (_runs(site) / "run\n.yaml").write_text(MINIMAL, encoding="utf-8")


@builder("bidi-override-in-file-name")
def _bidi_name(site: Path, outside: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (_runs(site) / "run\u202elmay.yaml").write_text(MINIMAL, encoding="utf-8")


@builder("secrets-in-raw-folder")
def _secrets_raw(site: Path, outside: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Secrets in every place a raw-output folder holds text: run.yaml and the lil-bench
    document."""
    folder = _runs(site) / "raw-secrets"
    folder.mkdir()
    bench = raw_samples.bench()
    bench["startup_diagnostics"]["env"] = {"HF_TOKEN": f"hf_{MARK}Env0001aaaaaaaa"}
    bench["event_log"].append(f"12:00:01 login with token ghp_{MARK}Log0002bbbbbbbbbbbb")
    document = raw_samples.lil_document(bench)
    document["server"]["argv"] += ["--api-key", f"sk-proj-{MARK}Argv0003cccc"]
    document["server"]["environment"]["OPENAI_API_KEY"] = f"{MARK}Env0004"
    document["server"]["options"]["api-key"] = f"{MARK}Option0005"
    document["server"]["url"] = f"http://admin:{MARK}Url0006@127.0.0.1:5091"
    document["client"]["argv"] = ["lil-bench", "--token", f"lilb_{MARK}Client0007dddd"]
    document["client"]["note"] = f"uploaded with Bearer {MARK}Bearer0008"
    (folder / "result.json.gz").write_bytes(gzip.compress(json.dumps(document).encode(), mtime=0))
    meta = json.loads(json.dumps(raw_samples.RUN_META))
    meta["engine"]["launch_command"] = (
        f"HF_TOKEN=hf_{MARK}Meta0009eeeeeeee vllm serve x --api-key {MARK}Meta0010"
    )
    meta["engine"]["notes"] = (
        f"curl -H 'Authorization: Bearer {MARK}Meta0011' http://127.0.0.1:5091"
    )
    meta["engine"]["settings"] = {"VLLM_API_KEY": f"{MARK}Meta0012"}
    meta["run"]["notes"] = f"token xoxb-{MARK}-Meta0013 and https://u:{MARK}Meta0014@example.org/x"
    (folder / "run.yaml").write_text(
        yaml.safe_dump(meta, sort_keys=False, width=10_000), encoding="utf-8"
    )


# --- the output folder and the state folder -----------------------------------------------------


def _config(site: Path, extra: str) -> None:
    with (site / "sitegen.yaml").open("a", encoding="utf-8") as stream:
        stream.write(extra)


@builder("output-is-a-file")
def _output_is_file(site: Path, outside: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (site / "out").write_text("not a folder\n", encoding="utf-8")
    _config(site, "output_dir: out\n")


@builder("output-parent-is-a-file")
def _output_parent_is_file(site: Path, outside: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The place of a read-only parent: tests run as root, where permissions stop nothing.
    (site / "blocker").write_text("not a folder\n", encoding="utf-8")
    _config(site, "output_dir: blocker/site\n")


@builder("output-is-content")
def _output_is_content(site: Path, outside: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _config(site, "output_dir: content\n")


@builder("output-inside-content")
def _output_inside_content(site: Path, outside: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _config(site, "output_dir: content/site\n")


@builder("output-contains-content")
def _output_contains_content(site: Path, outside: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (site / "pages").mkdir()
    (site / "content").rename(site / "pages" / "content")
    _config(site, "content_dir: pages/content\noutput_dir: pages\n")


@builder("output-is-git")
def _output_is_git(site: Path, outside: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (site / ".git").mkdir()
    (site / ".git" / "HEAD").write_text("ref: refs/heads/main\n", encoding="utf-8")
    _config(site, "output_dir: .git\n")


@builder("output-inside-state")
def _output_inside_state(site: Path, outside: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _config(site, "output_dir: .sitegen/site\n")


@builder("output-is-templates")
def _output_is_templates(site: Path, outside: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (site / "templates").mkdir()
    (site / "templates" / "note.txt").write_text("the site's own templates\n", encoding="utf-8")
    _config(site, "output_dir: templates\n")


@builder("output-link-to-content")
def _output_link_to_content(site: Path, outside: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (site / "published").symlink_to(site / "content", target_is_directory=True)
    _config(site, "output_dir: published\n")


@builder("output-foreign-folder")
def _output_foreign_folder(site: Path, outside: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (site / "docs").mkdir()
    (site / "docs" / "guide.md").write_text("# A guide someone wrote\n", encoding="utf-8")
    _config(site, "output_dir: docs\n")


@builder("lock-is-a-link")
def _lock_is_a_link(site: Path, outside: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    lock_file = site / ".sitegen" / "lock"
    lock_file.unlink(missing_ok=True)
    lock_file.symlink_to(outside / "created-through-the-link")  # opening it would create this file


@builder("disk-full-during-build")
def _disk_full_build(site: Path, outside: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A full build (the manifest gone), so that files are written rather than linked.
    (site / ".sitegen" / "build" / "manifest.json").unlink()
    # Fail at a file whose name does not depend on chart hashes, well into the build.
    monkeypatch.setattr(
        Path, "write_bytes", _failing_write_bytes(0, errno.ENOSPC, f"runs/{SEED_RUN_ID}.json")
    )


def _failing_write_bytes(count: int, error: int, name: str = "") -> Callable[..., int]:
    original = Path.write_bytes
    calls = iter(range(10**9))

    def write_bytes(self: Path, data: Any) -> int:
        if ".building-" in str(self) and str(self).endswith(name) and next(calls) >= count:
            original(self, bytes(data)[: len(data) // 2])  # half a file, as a full disk leaves it
            raise OSError(error, os.strerror(error))
        return original(self, data)

    return write_bytes


@builder("disk-full-swapping-in")
def _disk_full_commit(site: Path, outside: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from sitegen.site.output import staging as write

    original = os.rename

    def rename(source: Any, target: Any) -> None:
        # The old site has moved aside; putting the new one in its place fails.
        if ".building-" in str(source):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        original(source, target)

    # The swap without an atomic exchange, whose second rename has the most to undo.
    monkeypatch.setattr(write, "exchange", lambda first, second: False)
    monkeypatch.setattr(os, "rename", rename)
    # Without its manifest the build has the whole site to write (an unchanged one writes nothing).
    (site / ".sitegen" / "build" / "manifest.json").unlink(missing_ok=True)


@builder("disk-full-during-collect")
def _disk_full_collect(site: Path, outside: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (_runs(site) / "another.yaml").write_text(
        MINIMAL, encoding="utf-8"
    )  # so collect has new bytes to write

    def fsync(descriptor: int) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", fsync)  # store.write_atomic's fsync: the data did not fit


@builder("another-sitegen-running")
def _lock_held(site: Path, outside: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(lock, "WAIT_S", 0.3)
    handle = os.open(site / ".sitegen" / "lock", os.O_RDWR | os.O_CREAT)
    fcntl.flock(handle, fcntl.LOCK_EX)  # held by "another process" until the test ends
    HELD.append(handle)


HELD: list[int] = []


@pytest.fixture(autouse=True)
def _release_locks() -> Iterator[None]:
    yield
    while HELD:
        os.close(HELD.pop())


# --- what must not be in a page -----------------------------------------------------------------


def test_audit_finds_live_markup() -> None:
    """The audit itself: it must see each kind of live markup the cases try to plant."""
    page = (
        '<a href="javascript:x">a</a><img src=x '
        'onerror="window.__pwned=1"><script>window.__pwned=1</script>'
        '<iframe src="/"></iframe><a href=" DATA:text/html,x">d</a>'
    )
    assert len(audit_html(page)) == 6
    assert (
        audit_html(
            '<p>&lt;script&gt;window.__pwned=1&lt;/script&gt;</p><script src="/a.js"></script>'
        )
        == []
    )


# --- the one test that drives every case --------------------------------------------------------


def _place(site: Path, case: dict[str, Any]) -> None:
    for name in case.get("put", []):
        source = HOSTILE / name
        target = _runs(site) / source.name
        if source.is_dir():
            for child in sorted(source.iterdir()):
                shutil.copy(child, _runs(site) / child.name)
        else:
            shutil.copy(source, target)


def _expected(case: dict[str, Any], site: Path) -> list[str]:
    return [line.replace("{root}", str(site)) for line in case["refused"]]


@pytest.mark.parametrize("name", sorted(RUNNABLE))
def test_hostile_case(
    name: str,
    site: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    case = RUNNABLE[name]
    command = case.get("command", "collect")
    outside = tmp_path / "outside"
    outside.mkdir()
    before = snapshot(site)
    _place(site, case)
    if "generate" in case:
        BUILDERS[case["generate"]](site, outside, monkeypatch)
    placed = snapshot(site)
    outside_before = snapshot(outside)
    capsys.readouterr()

    if "refused" in case:
        assert run_cli(site, command) == 1
        err = capsys.readouterr().err
        lines = err.splitlines()
        assert lines[:-1] == _expected(case, site), err
        assert lines[-1].startswith(f"sitegen {command}: ") and lines[-1].endswith(
            "nothing was written"
        )
        after = snapshot(site)
        # The previous site and collected file are untouched, byte for byte.
        assert under(after, "_site") == under(before, "_site")
        assert after[".sitegen/collected.json"] == before[".sitegen/collected.json"]
        swapped = set(case.get("swapped", []))  # replaced by the case itself while the command ran
        assert {k: v for k, v in outside_output(after).items() if k not in swapped} == {
            k: v for k, v in outside_output(placed).items() if k not in swapped
        }
        assert [k for k in after if ".tmp" in k or ".building-" in k or ".old-" in k] == []
    else:
        collected_rc = run_cli(site, "collect")
        err = capsys.readouterr().err
        assert collected_rc == 0, err
        built_rc = run_cli(site, "build")
        assert built_rc == 0, capsys.readouterr().err
        after = snapshot(site)
        assert outside_output(after) == outside_output(placed)
        published = "\n".join(str(v) for k, v in under(after, "_site/").items())
        for text in case.get("absent", []):
            assert text not in published and text not in err
        markup = "\n".join(
            str(v)
            for k, v in under(after, "_site/").items()
            if k.endswith((".html", ".svg", ".xml"))
        )
        for text in case.get("absent_in_markup", []):
            assert text not in markup
        for text in case.get("present", []):
            assert text in markup
        assert audit_site(site / "_site") == []
        collected = json.loads((site / ".sitegen" / "collected.json").read_bytes())
        ids = sorted(run["id"] for run in collected["runs"])
        assert ids == sorted([SEED_RUN_ID, *case.get("collected", [])])
        for text in case.get("absent", []):
            assert text not in json.dumps(collected, ensure_ascii=False)
        for line in case.get("notes", []):
            assert line in err.splitlines()
    assert snapshot(outside) == outside_before  # nothing written through a link


def test_every_corpus_file_belongs_to_a_case() -> None:
    used = {name for case in CASES.values() for name in case.get("put", [])}
    files = {
        p.relative_to(HOSTILE).as_posix()
        for p in HOSTILE.rglob("*")
        if p.is_file() and p.name != "cases.yaml"
    }
    folders = {p for p in used if (HOSTILE / p).is_dir()}
    files = {f for f in files if not any(f.startswith(folder + "/") for folder in folders)}
    assert files <= used, sorted(files - used)
    assert {case["generate"] for case in CASES.values() if "generate" in case} == set(BUILDERS)
    for case in CASES.values():
        assert sum(key in case for key in ("refused", "covered_by", "collected")) == 1


def test_references_to_remote_tests_exist() -> None:
    for name, case in CASES.items():
        for reference in case.get("covered_by", []):
            module, _, function = reference.partition("::")
            text = (REPO / module).read_text(encoding="utf-8")
            assert f"def {function}(" in text, f"{name}: {reference} not found"


def test_two_builds_at_once_run_one_after_the_other(
    site: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Without a lock two builds race on the swap of _site/; with it the second waits its turn."""
    (site / ".sitegen" / "build" / "manifest.json").unlink()
    results: list[int] = []

    def one() -> None:
        results.append(run_cli(site, "build"))

    threads = [threading.Thread(target=one) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert results == [0, 0]
    assert (site / "_site" / "index.html").is_file()
    assert [p.name for p in site.iterdir() if ".building-" in p.name or ".old-" in p.name] == []


# --- messages: no secret, no flood --------------------------------------------------------------


def test_no_message_line_is_longer_than_the_cap(
    site: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A 400,000-character field name, value and duplicate key: each message keeps its start and
    end."""
    from sitegen.errors import MAX_PART_CHARS

    document = yaml.safe_load(MINIMAL)
    document["run"]["K" * 400_000] = 1
    document["engine"]["name"] = "N" * 400_000
    (_runs(site) / "long-key.json").write_text(json.dumps(document), encoding="utf-8")
    # YAML refuses keys over 1,024 characters while parsing; JSON takes them, twice.
    long_key = json.dumps("Y" * 400_000)
    (_runs(site) / "long-duplicate.json").write_text(
        f'{{"schema_version": 1, {long_key}: 1, {long_key}: 2}}', encoding="utf-8"
    )
    capsys.readouterr()
    assert run_cli(site, "collect") == 1
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 4, [line[:200] for line in err]
    # Source, line, pointer and message each capped: a few parts of the cap, never the whole value.
    assert all(len(line) <= 3 * MAX_PART_CHARS + 40 for line in err), [len(line) for line in err]
    assert sum("characters left out" in line for line in err) == 2
    assert any(line.endswith("over the limit of 100") for line in err)


def test_a_token_in_run_yaml_that_fails_validation_is_not_repeated(
    site: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """run.yaml is checked before the merged result is redacted: its messages must still not
    leak."""
    folder = tmp_path / "raw"
    folder.mkdir()
    (folder / "benchmark_results.json").write_text(
        json.dumps(raw_samples.bench()), encoding="utf-8"
    )
    meta = json.loads(json.dumps(raw_samples.RUN_META))
    meta["hardware"]["count"] = f"hf_{MARK}Count0001aaaaaaaa"
    meta["engine"]["version"] = {"api_key": f"{MARK}Version0002"}
    meta["run"]["model"] = f"--hf-token {MARK}Model0003"
    (folder / "run.yaml").write_text(yaml.safe_dump(meta), encoding="utf-8")
    capsys.readouterr()
    assert run_cli(site, "import", str(folder)) == 1
    shown = capsys.readouterr()
    assert "problem" in shown.err and MARK not in shown.err + shown.out, shown.err
    shutil.copytree(folder, _runs(site) / "raw-meta-secret")
    assert run_cli(site, "collect") == 1
    shown = capsys.readouterr()
    assert "raw-meta-secret" in shown.err and MARK not in shown.err + shown.out, shown.err


# --- in a real browser ----------------------------------------------------------------------------


@pytest.mark.browser
def test_hostile_text_does_not_run_in_the_browser(site: Path, browser: Browser) -> None:
    """Script and event-handler payloads in every free-text field, opened in headless chromium:
    the page, the index, model, hardware and compare pages (static and interactive) load, draw
    their interactive charts, and nothing sets window.__pwned or opens a dialog."""
    from tests.kit.browser import serve

    for name in ("script-everywhere.json", "script-everywhere-2.json"):
        shutil.copy(HOSTILE / "text" / name, _runs(site) / name)
    assert run_cli(site, "collect") == 0
    assert run_cli(site, "build") == 0
    output = site / "_site"
    addresses = [
        "/",
        "/runs/script-everywhere/",
        "/runs/script-everywhere-2/",
        "/compare/",
        "/compare/?a=script-everywhere&b=script-everywhere-2",
        "/feed.xml",
    ]
    addresses += [
        "/" + page.parent.relative_to(output).as_posix() + "/"
        for folder in ("models", "hardware", "compare")
        for page in sorted(output.glob(f"{folder}/*/index.html"))
        if "pwned" in page.read_text(encoding="utf-8")
    ]
    assert any(a.startswith("/models/") for a in addresses) and any(
        a.startswith("/hardware/") for a in addresses
    )
    dialogs: list[str] = []
    with serve(output) as origin:
        context = browser.new_context(java_script_enabled=True)
        try:
            page = context.new_page()

            def on_dialog(dialog: Dialog) -> None:
                dialogs.append(dialog.message)
                dialog.dismiss()

            page.on("dialog", on_dialog)
            for address in addresses:
                page.goto(origin + address, wait_until="load", timeout=15_000)
                # The interactive chart upgrade (which reads the chart specs) has run once
                # every chart has its toggle.
                page.wait_for_function(CHARTS_UPGRADED, timeout=15_000)
                # Sweep the pointer over the page: an onmouseover payload would fire.
                for x, y in ((x, y) for x in range(40, 1200, 280) for y in range(40, 700, 160)):
                    page.mouse.move(x, y)
                assert page.evaluate("typeof window.__pwned") == "undefined", address
            # The control: the same check sees a script that does run (a page the test adds).
            (output / "control.html").write_text(
                "<!doctype html><script>window.__pwned=1</script>", encoding="utf-8"
            )
            page.goto(origin + "/control.html", wait_until="load", timeout=15_000)
            assert page.evaluate("typeof window.__pwned") == "number"
        finally:
            context.close()
    assert dialogs == []
