"""Receipts and `sitegen verify` (sitegen/receipts.py, sitegen/verify.py): digests worked out here
with hashlib from the files themselves, figures changed here by editing bytes, and the published
site read from a folder and from a real HTTP server on 127.0.0.1."""

from __future__ import annotations

import hashlib
import html
import json
import re
import shutil
from pathlib import Path

import pytest

from tests.kit.browser import serve
from tests.kit.project import DATA, REPO, SEED_RUN_ID, copy_site, run_cli

SAMPLE = DATA / "upstream" / "sample_benchmark_results.json"
SEED_META = DATA / "import" / "seed-run.yaml"
VLLM = DATA / "samples" / "vllm"
RAW_ARGS = ("--raw", str(SAMPLE.parent), "--raw", str(SEED_META.parent))


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def add_raw_folders(project: Path) -> None:
    """Held-out runs kept as raw output: the seed's file, and a vLLM sweep of five load points."""
    runs = project / "content" / "runs"
    seed = runs / "h200-raw"
    seed.mkdir()
    shutil.copy(SAMPLE, seed / "benchmark_results.json")
    shutil.copy(SEED_META, seed / "run.yaml")
    sweep = runs / "b200x8-raw-sweep"
    sweep.mkdir()
    for path in sorted(VLLM.glob("scicom-b200x8-*.json")):
        shutil.copy(path, sweep / path.name)
    (sweep / "run.yaml").write_text(
        "hardware: {type: discrete-gpu, accelerator: B200, count: 8}\n"
        "engine: {name: vLLM, version: '0.9.1'}\n"
        "run: {model: Qwen/Qwen3-32B}\n",
        encoding="utf-8",
    )


@pytest.fixture(scope="module")
def verified_site(tmp_path_factory: pytest.TempPathFactory, shared_cache: Path) -> Path:
    """The shipped site with the held-out raw folders, collected and built once for the module:
    each test verifies a copy of it (verify reads files; it keeps no state of its own)."""
    site = copy_site(tmp_path_factory.mktemp("verify") / "site", shared_cache)
    add_raw_folders(site)
    assert run_cli(site, "collect") == 0
    assert run_cli(site, "build") == 0
    return site


@pytest.fixture
def built(verified_site: Path, tmp_path: Path) -> Path:
    """A copy of the built site for a test to change (the chart cache stays the shared link)."""
    copy = tmp_path / "site"
    shutil.copytree(verified_site, copy, symlinks=True)
    return copy


def test_the_shipped_site_and_held_out_raw_folders_verify(
    built: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_cli(built, "verify", *RAW_ARGS) == 0
    out, err = capsys.readouterr()
    # Every shipped run (a result file each) and the two held-out raw-output folders.
    runs = len(list((built / "content" / "runs").glob("*.yaml"))) + 2
    assert out == f"verified {runs} runs: every figure agrees with the files it came from\n"
    assert f"content/runs/{SEED_RUN_ID}.yaml: 2 raw files match the receipt" in err


def test_a_changed_figure_of_a_result_file_is_named_with_its_line_and_both_values(
    built: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = built / "content" / "runs" / f"{SEED_RUN_ID}.yaml"
    text = path.read_text(encoding="utf-8")
    assert text.count("total_tokens_per_s: 1625.81003\n") == 1
    line = text[: text.index("total_tokens_per_s: 1625.81003")].count("\n") + 1
    path.write_text(
        text.replace("total_tokens_per_s: 1625.81003", "total_tokens_per_s: 1625.81004"),
        encoding="utf-8",
    )
    capsys.readouterr()
    assert run_cli(built, "verify", *RAW_ARGS) == 1
    err = capsys.readouterr().err
    # Which cell: the decode cell at 32768 × 16 is the 21st of the file (counted here).
    cells = re.findall(
        r"- context_tokens: (\d+)\n\s+concurrency: (\d+)", text.split("decode:", 1)[1]
    )
    index = cells.index(("32768", "16"))
    pointer = f"/measurements/decode/{index}/total_tokens_per_s"
    where = f"content/runs/{SEED_RUN_ID}.yaml:{line}: {pointer}: decode cell 32768 × 16"
    assert f"{where}: the file says 1625.81004, the raw files give 1625.81003" in err
    assert (
        f"{where}: the file says 1625.81004, _site/runs/{SEED_RUN_ID}.json says 1625.81003" in err
    )
    assert (
        f"content/runs/{SEED_RUN_ID}.yaml: sha256 {sha256(path)} is not the one "
        f"_site/runs/{SEED_RUN_ID}.json" in err
    )


def test_a_changed_byte_of_a_raw_file_is_named(
    built: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    raw = tmp_path / "raw"
    raw.mkdir()
    data = SAMPLE.read_bytes()
    at = data.index(b'"aggregate_tps": 228.3') + len(b'"aggregate_tps": ')
    (raw / SAMPLE.name).write_bytes(data[:at] + b"3" + data[at + 1 :])  # 228.3… → 328.3…
    capsys.readouterr()
    assert (
        run_cli(built, "verify", SEED_RUN_ID, "--raw", str(raw), "--raw", str(SEED_META.parent))
        == 1
    )
    err = capsys.readouterr().err
    assert (
        f"{raw / SAMPLE.name}: sha256 {sha256(raw / SAMPLE.name)} differs from the receipt's "
        f"{sha256(SAMPLE)}" in err
    )
    assert "decode cell 8192 × 1: the file says 228.386789, the raw files give 328.386789" in err


def test_a_changed_byte_of_a_raw_folder_is_named(
    built: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    raw = built / "content" / "runs" / "h200-raw" / "benchmark_results.json"
    data = raw.read_bytes()
    at = data.index(b'"aggregate_tps": 228.3') + len(b'"aggregate_tps": ')
    raw.write_bytes(data[:at] + b"3" + data[at + 1 :])
    capsys.readouterr()
    assert run_cli(built, "verify", "h200-raw") == 1
    err = capsys.readouterr().err
    assert (
        f"content/runs/h200-raw/benchmark_results.json: sha256 {sha256(raw)} is not the one "
        f"_site/runs/h200-raw.json names ({sha256(SAMPLE)})"
    ) in err
    assert (
        "decode cell 8192 × 1: the file says 328.386789, _site/runs/h200-raw.json says 228.386789"
        in err
    )


def history_files(run_id: str) -> dict[str, str]:
    """A shipped history run's raw file and run.yaml (content/SOURCES.md) with their digests."""
    history = REPO / "tests" / "data" / "history"
    if run_id.startswith("strixhalo-"):
        fa, build = run_id.rsplit("-", 2)[1:]
        [raw] = history.glob(f"strixhalo-*/_split/*_{build}__vulkan-amdvlk-{fa}.jsonl")
        meta = raw.parent.parent / "_run" / f"{raw.name[:10]}-{fa}.run.yaml"
    else:
        date, rest = run_id[-10:], run_id.removeprefix("dgxspark-vllm-gemma4-26b-")[:-11]
        [raw] = history.glob(f"dgxspark1-*-{rest}/{date}_*.json")
        meta = raw.parent / "_run" / f"{date}.run.yaml"
    return {p.relative_to(REPO).as_posix(): sha256(p) for p in (raw, meta)}


def test_every_run_page_shows_the_digests_of_its_files(built: Path) -> None:
    runs = built / "content" / "runs"
    for path in sorted(runs.iterdir()):
        run_id = path.name.removesuffix(".yaml")
        page = html.unescape(
            (built / "_site" / "runs" / run_id / "index.html").read_text(encoding="utf-8")
        )
        block = page.split("<section id=reproduce", 1)[1].split("</section>", 1)[0]
        shown = dict(
            re.findall(
                r"<li><code>([^<]+)</code> <small>[\d,]+ bytes</small><br><code class=sha>sha256:"
                r"([0-9a-f]{64})</code>",
                block,
            )
        )
        if path.is_dir():
            expected = {child.name: sha256(child) for child in path.iterdir()}
        else:
            expected = {f"content/runs/{path.name}": sha256(path)}
            if run_id == SEED_RUN_ID:  # imported in the repository, from tests/data/
                expected |= {
                    "tests/data/upstream/" + SAMPLE.name: sha256(SAMPLE),
                    "tests/data/import/" + SEED_META.name: sha256(SEED_META),
                }
            elif run_id.startswith(("dgxspark-vllm-", "strixhalo-")):  # the shipped histories
                expected |= history_files(run_id)
        assert shown == expected, run_id
        published = json.loads(
            (built / "_site" / "runs" / f"{run_id}.json").read_text(encoding="utf-8")
        )
        if path.is_file():
            assert published["receipt"]["result_file"]["sha256"] == sha256(path)


def test_verify_checks_a_site_served_over_http(
    built: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with serve(built / "_site") as origin:
        assert run_cli(built, "verify", "--site", origin + "/") == 0
        published = built / "_site" / "runs" / "b200x8-raw-sweep.json"
        text = published.read_text(encoding="utf-8")
        # The first decode row's total tok/s (the run JSON's rows: docs/result-format.md).
        decode = json.loads(text)["measurements"]["decode"]
        column = decode["fields"].index("total_tokens_per_s")
        row = decode["rows"][0]
        edited = [*row[:column], 1.5, *row[column + 1 :]]
        line = json.dumps(row, separators=(",", ":"))
        assert text.count(line) == 1
        published.write_text(
            text.replace(line, json.dumps(edited, separators=(",", ":"))), encoding="utf-8"
        )
        capsys.readouterr()
        assert run_cli(built, "verify", "--site", origin + "/") == 1
    err = capsys.readouterr().err
    said = f"the file says {row[column]}, {origin}/runs/b200x8-raw-sweep.json says 1.5"
    assert said in err


def test_verify_names_an_unknown_run(built: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run_cli(built, "verify", "no-such-run") == 1
    assert "no-such-run: no such run in content/runs/" in capsys.readouterr().err


def test_the_reproduce_block_shows_image_and_commands_redacted(
    project: Path, tmp_path: Path
) -> None:
    meta = tmp_path / "run.yaml"
    secret = "sk-live0123456789abcdefghijklmnop"
    digest = "sha256:" + "ab" * 32
    meta.write_text(
        SEED_META.read_text(encoding="utf-8")
        .replace(
            "engine:\n",
            "engine:\n"
            "  container_image: lmsysorg/sglang:v0.5.16-cu129\n"
            f"  container_image_digest: '{digest}'\n",
            1,
        )
        .replace(
            "run:\n",
            f"run:\n  benchmark_command: python3 llm_decode_bench.py --api-key {secret} "
            "--contexts 8k,16k\n",
            1,
        ),
        encoding="utf-8",
    )
    assert run_cli(project, "import", str(SAMPLE), "--meta", str(meta), "--id", "imaged") == 0
    assert run_cli(project, "collect") == 0
    assert run_cli(project, "build") == 0
    page = (project / "_site" / "runs" / "imaged" / "index.html").read_text(encoding="utf-8")
    block = page.split("<section id=reproduce", 1)[1].split("</section>", 1)[0]
    assert (
        "<code>lmsysorg/sglang:v0.5.16-cu129</code><br><code class=sha>" + digest + "</code>"
        in block
    )
    assert (
        "<pre class=command><code id=bench-command>python3 llm_decode_bench.py "
        "--api-key &lt;redacted&gt; "
        "--contexts 8k,16k</code></pre>"
    ) in block
    assert "data-copy=bench-command" in block and secret not in page


def test_a_published_run_without_a_file_is_named(
    built: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    runs = built / "_site" / "runs"
    (runs / "ghost.json").write_bytes((runs / f"{SEED_RUN_ID}.json").read_bytes())
    capsys.readouterr()
    assert run_cli(built, "verify") == 1
    err = capsys.readouterr().err
    assert "_site/runs/: publishes the run 'ghost', which content/runs/ does not hold" in err
