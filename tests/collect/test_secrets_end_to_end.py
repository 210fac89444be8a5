"""Secrets planted in a result file never reach ``.sitegen/`` or ``_site/``: ``sitegen collect``
redacts them, says where, and still succeeds; ``sitegen build`` publishes only ``<redacted>``."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
import yaml

from tests.kit.project import REPO, SEED_RUN_ID, collected_entries, load_yaml, run_cli

# Every planted value contains MARK, so a partial leak (a secret cut in two, re-encoded,
# wrapped over lines) is caught as well as a whole one. Letters, digits and '-'/'_' only,
# so HTML, JSON and CSV output would show them byte for byte.
MARK = "Pl4nted"
API_KEY = f"sk-proj-{MARK}ApiKey0001aaaa"
ENV_TOKEN = f"hf_{MARK}EnvToken0002bbbbbbbb"
NOTE_TOKEN = f"hf_{MARK}NoteToken0003cccccccc"
GITHUB_TOKEN = f"ghp_{MARK}GithubToken0004dddddddd"
BEARER = f"{MARK}Bearer0005"
URL_PASSWORD = f"{MARK}UrlPassword0006"
SETTING = f"{MARK}Setting0007"
QUERY_TOKEN = f"{MARK}Query0008"
SLACK = f"xoxb-{MARK}-0009eeee"
SECRETS = [
    API_KEY,
    ENV_TOKEN,
    NOTE_TOKEN,
    GITHUB_TOKEN,
    BEARER,
    URL_PASSWORD,
    SETTING,
    QUERY_TOKEN,
    SLACK,
]

SEED = REPO / "content" / "runs" / f"{SEED_RUN_ID}.yaml"
SOURCE = f"content/runs/{SEED_RUN_ID}.yaml"
R = "<redacted>"


def _plant(project: Path) -> dict[str, object]:
    """Rewrite the seed run with secrets in many fields; return the data as written."""
    data = load_yaml(SEED.read_text(encoding="utf-8"))
    engine, run = data["engine"], data["run"]
    command = engine["launch_command"]
    assert "--api-key <redacted>" in command
    engine["launch_command"] = f"HF_TOKEN={ENV_TOKEN} " + command.replace(
        "--api-key <redacted>", f"--api-key {API_KEY}"
    )
    engine["settings"] = {"VLLM_API_KEY": SETTING, "max-num-seqs": 128}
    engine["notes"] = (
        f"Checked with `curl -H 'Authorization: Bearer {BEARER}' http://localhost:8000/v1/models`."
    )
    run["notes"] = f"Model pulled with the token {NOTE_TOKEN} on the day of the run."
    data["source"] = {
        "publisher": "Example Lab",
        "url": f"https://example.org/results/run.json?token={QUERY_TOKEN}",
        "title": f"Speed test ({GITHUB_TOKEN})",
        "retrieved": "2026-07-10",
    }
    data["provenance"]["notes"].append(
        f"Mirrored from https://bench:{URL_PASSWORD}@results.example.org/run.json"
    )
    data["measurements"]["decode"][0]["note"] = f"Reported to the channel with {SLACK}"
    path = project / SOURCE
    path.write_text(
        yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=100_000), encoding="utf-8"
    )
    text = path.read_text(encoding="utf-8")
    for secret in SECRETS:
        assert secret in text  # the test plants what it claims to plant
    return data


def _line_of(project: Path, needle: str) -> int:
    lines = (project / SOURCE).read_text(encoding="utf-8").splitlines()
    return next(number for number, line in enumerate(lines, 1) if needle in line)


def _files(*folders: Path) -> dict[str, bytes]:
    # os.walk with followlinks: the test project's .sitegen/cache is a link to a shared cache.
    found: dict[str, bytes] = {}
    for folder in folders:
        for root, _, names in os.walk(folder, followlinks=True):
            for name in names:
                path = Path(root) / name
                found[str(path)] = path.read_bytes()
    return found


def _leaks(files: dict[str, bytes]) -> list[str]:
    return [
        f"{path}: {secret}"
        for path, content in files.items()
        for secret in [*SECRETS, MARK]
        if secret.encode() in content
    ]


# (field pointer, text on its line in the written file, kinds the note names)
EXPECTED_NOTES = [
    ("/engine/launch_command", ENV_TOKEN, "value of --api-key, value of HF_TOKEN"),
    ("/engine/settings/VLLM_API_KEY", SETTING, "value of VLLM_API_KEY"),
    ("/engine/notes", BEARER, "Authorization header"),
    ("/run/notes", NOTE_TOKEN, "Hugging Face token (hf_…)"),
    ("/provenance/notes/1", URL_PASSWORD, "credentials in a URL"),
    ("/measurements/decode/0/note", SLACK, "Slack token"),
    ("/source/url", QUERY_TOKEN, "URL parameter token"),
    ("/source/title", GITHUB_TOKEN, "GitHub token"),
]


def test_collect_redacts_reports_and_succeeds(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _plant(project)
    assert run_cli(project, "collect") == 0
    out, err = capsys.readouterr()
    assert out.startswith("collected ")
    notes = [line for line in err.splitlines() if "redacted a secret" in line]
    expected = [
        f"{SOURCE}:{_line_of(project, needle)}: {pointer}: note: redacted a secret ({kinds}); the "
        f"published site "
        "shows <redacted> (informational: nothing to fix, but revoke the secret if it was real)"
        for pointer, needle, kinds in EXPECTED_NOTES
    ]
    assert sorted(notes) == sorted(expected)
    assert not _leaks({"stdout": out.encode(), "stderr": err.encode()})

    result = next(
        entry["result"] for entry in collected_entries(project) if entry["id"] == SEED_RUN_ID
    )
    seed_command = load_yaml(SEED.read_text(encoding="utf-8"))["engine"]["launch_command"]
    assert result["engine"]["launch_command"] == f"HF_TOKEN={R} {seed_command}"
    assert result["engine"]["settings"] == {"VLLM_API_KEY": R, "max-num-seqs": 128}
    assert result["engine"]["notes"] == (
        f"Checked with `curl -H 'Authorization: Bearer {R}' http://localhost:8000/v1/models`."
    )
    assert result["run"]["notes"] == f"Model pulled with the token {R} on the day of the run."
    assert result["source"]["url"] == f"https://example.org/results/run.json?token={R}"
    assert result["source"]["title"] == f"Speed test ({R})"
    assert (
        result["provenance"]["notes"][1]
        == f"Mirrored from https://{R}@results.example.org/run.json"
    )
    assert result["measurements"]["decode"][0]["note"] == f"Reported to the channel with {R}"
    assert not _leaks(_files(project / ".sitegen"))


def test_built_site_never_contains_a_planted_secret(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _plant(project)
    assert run_cli(project, "collect") == 0
    assert run_cli(project, "build") == 0
    capsys.readouterr()

    site = _files(project / "_site")
    state = _files(project / ".sitegen")
    assert not _leaks(site)
    assert not _leaks(state)
    # The scan saw the published run: its page and download show the placeholder instead.
    page = site[str(project / "_site" / "runs" / SEED_RUN_ID / "index.html")]
    assert b"--api-key &lt;redacted&gt;" in page
    assert b"HF_TOKEN=&lt;redacted&gt;" in page
    download = json.loads(site[str(project / "_site" / "runs" / f"{SEED_RUN_ID}.json")])
    assert R in json.dumps(download)


def test_unmodified_site_collects_without_redaction_notes(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_cli(project, "collect") == 0
    assert "redacted a secret" not in capsys.readouterr().err
    result = next(
        entry["result"] for entry in collected_entries(project) if entry["id"] == SEED_RUN_ID
    )
    assert (
        result["engine"]["launch_command"]
        == load_yaml(SEED.read_text())["engine"]["launch_command"]
    )


def test_secret_in_a_field_name_fails_collect_without_printing_it(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = load_yaml(SEED.read_text(encoding="utf-8"))
    data["engine"]["settings"] = {ENV_TOKEN: "oops"}
    (project / SOURCE).write_text(
        yaml.safe_dump(data, sort_keys=False, width=100_000), encoding="utf-8"
    )
    assert run_cli(project, "collect") == 1
    err = capsys.readouterr().err
    line = _line_of(project, ENV_TOKEN)
    assert (
        f"{SOURCE}:{line}: /engine/settings: a field name holds a secret (Hugging Face token "
        f"(hf_…)); "
        "field names are published as written"
    ) in err
    assert MARK not in err
    assert not (project / ".sitegen" / "collected.json").exists()
