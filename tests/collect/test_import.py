"""`sitegen import` through the CLI, and raw-output folders under content/runs/."""

from __future__ import annotations

import gzip
import hashlib
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sitegen.collect.importer import default_id
from sitegen.collect.result_yaml import HEADER, dump_result
from sitegen.parse import parse_yaml
from tests.kit.project import DATA, REPO, SEED_RUN_ID, collected_entries, run_cli
from tests.kit.raw_samples import bench, lil_document

SAMPLE = DATA / "upstream" / "sample_benchmark_results.json"
SEED_META = REPO / "tests" / "data" / "import" / "seed-run.yaml"
SEED_FILE = REPO / "content" / "runs" / f"{SEED_RUN_ID}.yaml"


def shipped_seed() -> dict[str, Any]:
    data: dict[str, Any] = parse_yaml("seed", SEED_FILE.read_bytes()).data
    return data


def seed_imported_elsewhere() -> dict[str, Any]:
    """The shipped seed as a project that does not hold tests/data/ imports it: its raw files
    named by their own names (the shipped file, imported in the repository, names them from it)."""
    data = shipped_seed()
    names = [item["file"] for item in data["provenance"]["raw_files"]]
    assert names == [
        "tests/data/import/seed-run.yaml",
        "tests/data/upstream/sample_benchmark_results.json",
    ]
    return with_raw_files(
        data, {"seed-run.yaml": SEED_META, "sample_benchmark_results.json": SAMPLE}
    )


def with_raw_files(data: dict[str, Any], files: dict[str, Path]) -> dict[str, Any]:
    """``data`` with ``provenance.raw_files`` listing these files (name → path) by name."""
    listed = [
        {
            "file": name,
            "bytes": len(path.read_bytes()),
            "sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
        }
        for name, path in sorted(files.items())
    ]
    return {**data, "provenance": {**data["provenance"], "raw_files": listed}}


def runs_dir(project: Path) -> Path:
    return project / "content" / "runs"


def read_run(path: Path) -> object:
    return parse_yaml(str(path), path.read_bytes()).data


@pytest.fixture
def empty_project(project: Path) -> Path:
    shutil.rmtree(runs_dir(project))
    runs_dir(project).mkdir()
    return project


def test_import_writes_the_seed_run(
    empty_project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_cli(empty_project, "import", str(SAMPLE), "--meta", str(SEED_META)) == 0
    written = runs_dir(empty_project) / f"{SEED_RUN_ID}.yaml"  # the default id is the seed's
    assert read_run(written) == seed_imported_elsewhere()
    out = capsys.readouterr().out
    assert out == (
        f"wrote content/runs/{SEED_RUN_ID}.yaml: 9 prefill points, 64 decode cells "
        "(21 over capacity, 1 requests queued, 42 valid)\n"
    )
    text = written.read_text(encoding="utf-8")
    assert text.startswith(
        "# yaml-language-server: $schema=../../schema/result-1.2.schema.json\n" + HEADER
    )
    top_level = [line.split(":")[0] for line in text.splitlines() if line[:1].isalpha()]
    assert top_level == [
        "schema_version",
        "hardware",
        "engine",
        "run",
        "provenance",
        "measurements",
    ]
    assert '  version: "0.5.16"\n' in text and '  date: "2026-07-09"\n' in text


def test_collect_accepts_the_imported_file(empty_project: Path) -> None:
    assert (
        run_cli(empty_project, "import", str(SAMPLE), "--meta", str(SEED_META), "--id", "imported")
        == 0
    )
    assert run_cli(empty_project, "collect") == 0
    [run] = collected_entries(empty_project)
    assert run["id"] == "imported"
    assert run["origin"] == "content/runs/imported.yaml"
    receipt = run["result"].pop("receipt")  # what collect adds: the file's digest, worked out here
    written = (runs_dir(empty_project) / "imported.yaml").read_bytes()
    assert receipt == {
        "result_file": {
            "file": "content/runs/imported.yaml",
            "bytes": len(written),
            "sha256": hashlib.sha256(written).hexdigest(),
        }
    }
    assert run["result"] == seed_imported_elsewhere()


def test_import_refuses_to_overwrite_without_force(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = runs_dir(project) / f"{SEED_RUN_ID}.yaml"
    target.write_text(target.read_text() + "# a reviewer's comment\n")
    before = target.read_bytes()
    assert run_cli(project, "import", str(SAMPLE), "--meta", str(SEED_META)) == 1
    assert capsys.readouterr().err.splitlines() == [
        f"content/runs/{SEED_RUN_ID}.yaml: already exists; pass --force to replace it, or --id to "
        f"import as "
        "another run",
        "sitegen import: 1 problem; nothing was written",
    ]
    assert target.read_bytes() == before
    assert run_cli(project, "import", str(SAMPLE), "--meta", str(SEED_META), "--force") == 0
    assert capsys.readouterr().out.startswith(f"replaced content/runs/{SEED_RUN_ID}.yaml: ")
    assert b"a reviewer's comment" not in target.read_bytes()
    assert read_run(target) == seed_imported_elsewhere()


def test_import_refuses_an_id_another_run_uses(
    empty_project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (runs_dir(empty_project) / "taken").mkdir()
    assert (
        run_cli(
            empty_project,
            "import",
            str(SAMPLE),
            "--meta",
            str(SEED_META),
            "--id",
            "taken",
            "--force",
        )
        == 1
    )
    assert capsys.readouterr().err.splitlines()[0] == (
        "content/runs/taken: a raw-output folder already has the run id 'taken'; import with "
        "another --id "
        "(or remove it first)"
    )
    assert not (runs_dir(empty_project) / "taken.yaml").exists()


def test_import_refuses_a_bad_id(empty_project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        run_cli(empty_project, "import", str(SAMPLE), "--meta", str(SEED_META), "--id", "Bad Id")
        == 1
    )
    assert "'Bad Id' cannot be a run id" in capsys.readouterr().err
    assert list(runs_dir(empty_project).iterdir()) == []


def test_import_lists_every_problem_and_writes_nothing(
    empty_project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    meta = tmp_path / "run.yaml"
    meta.write_text(
        "hardware:\n  type: gpu\n  count: 0\nengine:\n  buid: x\nrun:\n  date: 2026-13-01\n"
    )
    assert run_cli(empty_project, "import", str(SAMPLE), "--meta", str(meta)) == 1
    err = capsys.readouterr().err.splitlines()
    assert err == [
        f"{meta}:2: /hardware/type: 'gpu' is not one of 'discrete-gpu', 'integrated-gpu', "
        f"'accelerator', 'cpu'; "
        "did you mean 'cpu'?",
        f"{meta}:3: /hardware/count: 0 is out of range: must be at least 1",
        f"{meta}:5: /engine/buid: unknown field 'buid'; did you mean 'build'?",
        f"{meta}:7: /run/date: '2026-13-01' is not a date written YYYY-MM-DD",
        "sitegen import: 4 problems; nothing was written",
    ]
    assert list(runs_dir(empty_project).iterdir()) == []


def test_import_without_run_yaml_asks_for_it(
    empty_project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_cli(empty_project, "import", str(SAMPLE)) == 1
    assert capsys.readouterr().err.splitlines()[0] == (
        f"{SAMPLE}: /hardware: missing required field 'type'; the raw file does not tell it, so "
        f"give it in "
        "run.yaml (sitegen import --meta run.yaml)"
    )


def test_import_of_a_missing_file(empty_project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        run_cli(empty_project, "import", "no/such/benchmark_results.json", "--meta", str(SEED_META))
        == 1
    )
    assert capsys.readouterr().err.splitlines()[0] == "no/such/benchmark_results.json: not found"


def test_import_of_a_refused_mode(
    empty_project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    raw = tmp_path / "benchmark_results.json"
    raw.write_text(
        json.dumps({"metadata": {"version": "0.4.29", "mode": "completion_stats"}}, indent=2)
    )
    assert run_cli(empty_project, "import", str(raw), "--meta", str(SEED_META)) == 1
    err = capsys.readouterr().err
    assert (
        f"{raw}:4: /metadata/mode: this file is llm-inference-bench mode 'completion_stats'" in err
    )
    assert "Traceback" not in err


def test_import_redacts_secrets_before_writing(
    empty_project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    meta = tmp_path / "run.yaml"
    secret = "sk-live0123456789abcdefghijklmnop"
    meta.write_text(SEED_META.read_text().replace("--api-key <redacted>", f"--api-key {secret}"))
    assert (
        run_cli(empty_project, "import", str(SAMPLE), "--meta", str(meta), "--id", "redacted") == 0
    )
    text = (runs_dir(empty_project) / "redacted.yaml").read_text()
    assert secret not in text
    # The receipt names the run.yaml read, by the digest of its bytes (worked out here).
    expected = with_raw_files(
        shipped_seed(), {"sample_benchmark_results.json": SAMPLE, "run.yaml": meta}
    )
    assert read_run(runs_dir(empty_project) / "redacted.yaml") == expected
    assert f"{SAMPLE}: /engine/launch_command: note: redacted a secret" in capsys.readouterr().err


def test_import_of_a_folder_and_of_gzip_lil_bench(
    empty_project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "upload"
    folder.mkdir()
    (folder / "run.json.gz").write_bytes(gzip.compress(json.dumps(lil_document(bench())).encode()))
    (folder / "run.yaml").write_text("hardware:\n  type: discrete-gpu\n")
    assert run_cli(empty_project, "import", str(folder)) == 0
    run_id = "rtxpro6000blackwellserveredition2-vllm-qwen3-30b-a3b-fp8"
    assert capsys.readouterr().out.startswith(
        f"wrote content/runs/{run_id}.yaml: 2 prefill points, 4 decode cells"
    )
    data = read_run(runs_dir(empty_project) / f"{run_id}.yaml")
    assert isinstance(data, dict) and data["engine"]["name"] == "vLLM"
    assert run_cli(empty_project, "collect") == 0


@pytest.mark.parametrize(
    ("hardware", "engine", "model", "expected"),
    [
        (
            {"accelerator": "H200 NVL", "count": 2},
            "sglang",
            "deepseek-ai/DeepSeek-V4-Flash-DSpark",
            "h200nvl2-sglang-deepseek-v4-flash-dspark",
        ),
        (
            {"accelerator": "B200", "count": 2},
            "vLLM",
            "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-FP8",
            "b200x2-vllm-nvidia-nemotron-3-nano-30b-a3b-fp8",
        ),
        (
            {"accelerator": "GB10", "count": 1},
            "llama.cpp",
            "gpt-oss-120b",
            "gb10-llama-cpp-gpt-oss-120b",
        ),
    ],
)
def test_default_id(hardware: dict[str, object], engine: str, model: str, expected: str) -> None:
    assert (
        default_id({"hardware": hardware, "engine": {"name": engine}, "run": {"model": model}})
        == expected
    )


def test_dump_keeps_every_value_and_folds_long_text() -> None:
    data = shipped_seed()
    assert isinstance(data, dict)
    data["run"] = {**data["run"], "notes": "Line one.\n\n- a list item\n"}  # type: ignore[dict-item]
    text = dump_result(data).decode()
    assert parse_yaml("x", text.encode()).data == data
    assert "  notes: |\n    Line one.\n\n    - a list item\n" in text
    assert "  launch_command: >-\n" in text


# A real run.yaml value (djangodevreng/dgx-spark-benchmarks, Nemotron-3-Super meta.json's
# profile_env_vars): long, with a leading space. PyYAML's fallback for it read back a space as a
# line break, and import refused the run.
ENV_VARS = (
    " VLLM_TEST_FORCE_FP8_MARLIN=1 VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 "
    "VLLM_FLASHINFER_ALLREDUCE_BACKEND=trtllm VLLM_USE_FLASHINFER_MOE_FP4=0"
)


@settings(max_examples=100, deadline=None)
@given(
    text=st.text(alphabet=" ab-=\t'\"#:", min_size=60, max_size=240)
    | st.sampled_from([ENV_VARS, ENV_VARS + " ", ENV_VARS.replace(" ", "  ")])
)
def test_any_long_text_with_spaces_reads_back_as_written(text: str) -> None:
    data = {"engine": {"name": "vLLM", "settings": {"profile_env_vars": text}}}
    assert parse_yaml("x", dump_result(data)).data == data


# --- raw-output folders in content/runs/ --------------------------------------------------------


def test_raw_folder_is_collected_like_any_run(empty_project: Path) -> None:
    folder = runs_dir(empty_project) / "h200-raw"
    folder.mkdir()
    shutil.copy(SAMPLE, folder / "benchmark_results.json")
    shutil.copy(SEED_META, folder / "run.yaml")
    assert run_cli(empty_project, "collect") == 0
    [run] = collected_entries(empty_project)
    assert (run["id"], run["origin"]) == ("h200-raw", "content/runs/h200-raw")
    # The folder's files, named as they are in it, by digests worked out here.
    files = {"benchmark_results.json": SAMPLE, "run.yaml": SEED_META}
    assert run["result"] == with_raw_files(shipped_seed(), files)


def test_raw_folder_problems_name_the_file_and_line(
    empty_project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = runs_dir(empty_project) / "h200-raw"
    folder.mkdir()
    shutil.copy(SAMPLE, folder / "benchmark_results.json")
    (folder / "run.yaml").write_text("hardware:\n  type: discrete-gpu\nrun:\n  modle: x\n")
    assert run_cli(empty_project, "collect") == 1
    assert capsys.readouterr().err.splitlines()[0] == (
        "content/runs/h200-raw/run.yaml:4: /run/modle: unknown field 'modle'; did you mean 'model'?"
    )


@pytest.mark.parametrize(
    ("files", "message"),
    [
        (
            {"benchmark_results.json": "{}"},
            "content/runs/raw: no run.yaml: a raw-output folder needs one",
        ),
        (
            {"run.yaml": "hardware: {type: cpu}\n"},
            "content/runs/raw: no raw file: put the benchmark's output",
        ),
        (
            {"run.yaml": "{}", "a.json": "{}", "b.json.gz": ""},
            "content/runs/raw/b.json.gz: file is empty",
        ),
        (
            {"run.yaml": "{}", "a.json": "{}", "results.csv": ""},
            "content/runs/raw/results.csv: unexpected in a raw-output",
        ),
    ],
)
def test_raw_folder_layout_problems(
    empty_project: Path, capsys: pytest.CaptureFixture[str], files: dict[str, str], message: str
) -> None:
    folder = runs_dir(empty_project) / "raw"
    folder.mkdir()
    for name, content in files.items():
        (folder / name).write_text(content)
    assert run_cli(empty_project, "collect") == 1
    assert capsys.readouterr().err.splitlines()[0].startswith(message)


def test_import_redacts_a_key_in_the_lil_bench_server_command(
    empty_project: Path, tmp_path: Path
) -> None:
    # lil-bench stores the vLLM command line verbatim, --api-key included (FORMAT.md §4.3).
    document = lil_document(bench())
    secret = "tok-3f9a8b7c6d5e4f3a2b1c"
    document["server"]["argv"] += ["--api-key", secret]
    raw = tmp_path / "run.json.gz"
    raw.write_bytes(gzip.compress(json.dumps(document).encode()))
    meta = tmp_path / "run.yaml"
    meta.write_text("hardware:\n  type: discrete-gpu\n")
    assert run_cli(empty_project, "import", str(raw), "--meta", str(meta), "--id", "lil") == 0
    text = (runs_dir(empty_project) / "lil.yaml").read_text()
    assert secret not in text
    assert "--api-key <redacted>" in text
