"""Redaction: every secret pattern, the names it must leave alone, idempotence, documents,
and linear time on hostile input."""

from __future__ import annotations

import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sitegen.collect.redact import (
    Redaction,
    find_and_redact,
    is_secret_name,
    redact_document,
    redact_document_detailed,
    redact_text,
    redaction_warnings,
)
from sitegen.errors import SitegenError
from sitegen.parse import Document, parse_document
from tests.kit.project import REPO, SEED_RUN_ID

R = "<redacted>"
JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
HF = "hf_AbCdEfGhIjKlMnOpQrStUvWxYz01234567"
GHP = "ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"

# (text, expected) — the exact result, so a pattern that redacts too much or too little fails.
REDACTED_CASES: list[tuple[str, str]] = [
    # options: space and '=' forms, quoting, spelling, case
    ("--api-key sk-123", f"--api-key {R}"),
    ("--api-key=sk-123", f"--api-key={R}"),
    ("--api_key sk-123", f"--api_key {R}"),
    ("--API-KEY sk-123", f"--API-KEY {R}"),
    ('--api-key "a b c" --port 8000', f'--api-key "{R}" --port 8000'),
    ("--api-key 'a b c' --port 8000", f"--api-key '{R}' --port 8000"),
    ('--api-key="a b"', f'--api-key="{R}"'),
    ("--api-key    spaced", f"--api-key    {R}"),
    ("--api-key \\\n    sk-123 \\\n    --port 8000", f"--api-key \\\n    {R} \\\n    --port 8000"),
    ("--token abc", f"--token {R}"),
    ("--hf-token abc", f"--hf-token {R}"),
    ("--hf_token=abc", f"--hf_token={R}"),
    ("--access-token abc", f"--access-token {R}"),
    ("--auth-token abc", f"--auth-token {R}"),
    ("--password hunter2", f"--password {R}"),
    ("--secret s3cr3t", f"--secret {R}"),
    ("--key k3y", f"--key {R}"),
    ("--openai-api-key abc", f"--openai-api-key {R}"),
    ("--admin-api-key abc", f"--admin-api-key {R}"),
    ("['--api-key', 'sk-123', '--port']", f"['--api-key', '{R}', '--port']"),
    ("curl -u alice:pw http://x", f"curl -u {R} http://x"),
    # headers
    (
        "curl -H 'Authorization: Bearer abc123' http://x",
        f"curl -H 'Authorization: Bearer {R}' http://x",
    ),
    (
        'curl -H "Authorization: Basic dXNlcjpwYXNz" http://x',
        f'curl -H "Authorization: Basic {R}" http://x',
    ),
    ("authorization: bearer abc123", f"authorization: bearer {R}"),
    ("Authorization: abc123", f"Authorization: {R}"),
    ("curl -H 'X-API-Key: k1' http://x", f"curl -H 'X-API-Key: {R}' http://x"),
    ("curl -H 'api-key: k2' http://x", f"curl -H 'api-key: {R}' http://x"),
    ("curl -H 'X-Auth-Token: k3' http://x", f"curl -H 'X-Auth-Token: {R}' http://x"),
    ("Cookie: session=abc; theme=dark", f"Cookie: {R}"),
    ("sent Bearer abcdef123456 along", f"sent Bearer {R} along"),
    # environment assignments and key/value text
    ("HF_TOKEN=abc vllm serve m", f"HF_TOKEN={R} vllm serve m"),
    ("OPENAI_API_KEY=abc", f"OPENAI_API_KEY={R}"),
    ("export HUGGING_FACE_HUB_TOKEN=abc", f"export HUGGING_FACE_HUB_TOKEN={R}"),
    ("VLLM_API_KEY=abc", f"VLLM_API_KEY={R}"),
    ("DB_PASSWORD=abc DB_PASSWD=def", f"DB_PASSWORD={R} DB_PASSWD={R}"),
    ("GOOGLE_APPLICATION_CREDENTIALS=abc", f"GOOGLE_APPLICATION_CREDENTIALS={R}"),
    ("AWS_SECRET_ACCESS_KEY=abc", f"AWS_SECRET_ACCESS_KEY={R}"),
    ("MY_APIKEY=abc", f"MY_APIKEY={R}"),
    ("docker run -e HF_TOKEN=abc img", f"docker run -e HF_TOKEN={R} img"),
    ("HF_TOKEN='a b' cmd", f"HF_TOKEN='{R}' cmd"),
    ("hf_token = 'abc'", f"hf_token = '{R}'"),
    ('{"api_key": "abc", "model": "m"}', f'{{"api_key": "{R}", "model": "m"}}'),
    ("password: hunter2", f"password: {R}"),
    ('{"token": "abc"}', f'{{"token": "{R}"}}'),
    ("apiKey=abc accessToken=def", f"apiKey={R} accessToken={R}"),
    # token shapes in free text
    ("key sk-abcdefghijklmnop1234 here", f"key {R} here"),
    ("sk-proj-AbCdEfGhIj_Kl-MnOpQr0123", R),
    ("sk-ant-api03-AbCdEfGhIjKlMnOpQr", R),
    (f"token {HF} used", f"token {R} used"),
    (GHP, R),
    ("gho_AbCdEfGhIjKlMnOpQrStUvWx01", R),
    ("ghu_AbCdEfGhIjKlMnOpQrStUvWx01", R),
    ("ghs_AbCdEfGhIjKlMnOpQrStUvWx01", R),
    ("ghr_AbCdEfGhIjKlMnOpQrStUvWx01", R),
    ("github_pat_11ABCDEFG0abcdefghijkl_mnopqrstuvwxyz", R),
    ("lilb_AbCdEf0123456789", R),
    ("xoxb-1234567890-abcdefghij", R),
    ("xoxp-1234567890-abcdefghij", R),
    ("id AKIAIOSFODNN7EXAMPLE.", f"id {R}."),
    ("glpat-AbCdEfGhIjKlMnOpQrSt", R),
    (f"jwt {JWT}", f"jwt {R}"),
    ("nvapi-AbCdEfGhIjKlMnOpQrStUvWx", R),
    ("AIzaSyA-1234567890abcdefghijklmnopqrstu", R),
    ("-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\nabc+/=\n-----END RSA PRIVATE KEY-----", R),
    # URLs
    ("https://user:pass@host/path", f"https://{R}@host/path"),
    (
        "git clone https://x-access-token:abc@github.com/o/r",
        f"git clone https://{R}@github.com/o/r",
    ),
    ("https://user:p@ss@host/", f"https://{R}@host/"),
    ("https://h/x?token=abc&model=m", f"https://h/x?token={R}&model=m"),
    ("https://h/x?a=1&key=abc", f"https://h/x?a=1&key={R}"),
    ("https://h/x?api_key=abc#frag", f"https://h/x?api_key={R}#frag"),
    ("https://h/x?access_token=abc", f"https://h/x?access_token={R}"),
    ("https://h/x?sig=abc&sv=2020", f"https://h/x?sig={R}&sv=2020"),
    ("https://h/x?X-Amz-Signature=abc", f"https://h/x?X-Amz-Signature={R}"),
    ("https://h/x?signature=abc", f"https://h/x?signature={R}"),
    # several secrets on one line
    (
        f"HF_TOKEN={HF} vllm serve m --api-key sk-1 --port 8000 # see https://u:p@h/?token=t",
        f"HF_TOKEN={R} vllm serve m --api-key {R} --port 8000 # see https://{R}@h/?token={R}",
    ),
    (
        f"curl -H 'Authorization: Bearer x1' -H 'X-API-Key: x2' https://h/?key=x3 # {GHP} {JWT}",
        f"curl -H 'Authorization: Bearer {R}' -H 'X-API-Key: {R}' https://h/?key={R} # {R} {R}",
    ),
]

UNCHANGED_CASES: list[str] = [
    "--tokenizer deepseek-ai/DeepSeek-V3 --tokenizer-mode auto",
    "--max-num-batched-tokens 8192 --max-total-tokens 100000 --max-prefill-tokens 16384",
    "--kv-cache-dtype fp8_e4m3 --tool-call-parser hermes --reasoning-parser deepseek-r1",
    "--skip-tokenizer-init --num-speculative-tokens 2 --max-token-length 512 --token-budget 100",
    "--api-key-file /run/secrets/key --ssl-keyfile /etc/key.pem --ssl-key-file k.pem",
    "--hf-token --tp 2",
    '--speculative-config \'{"method":"mtp","num_speculative_tokens":2}\'',
    "--override-kv tokenizer.ggml.add_bos_token=bool:false",
    "HF_TOKEN_PATH=/root/.cache/huggingface/token MAX_TOKENS=4096 TOKENIZERS_PARALLELISM=false",
    "CUDA_VISIBLE_DEVICES=0,1 NCCL_P2P_LEVEL=SYS VLLM_USE_V1=1",
    "PUBLIC_KEY=ssh-ed25519 sort_key=date eos_token_id=2",
    "--api-key <redacted> --port 8000",
    "--api-key $VLLM_API_KEY --port 8000",
    '--api-key "${VLLM_API_KEY}" --port 8000',
    "--api-key $(cat /run/secrets/api_key)",
    "HF_TOKEN=$HF_TOKEN docker run -e HF_TOKEN img",
    "--token *** (lil-bench masks it)",
    "Key: the figures below are medians. Token: one piece of text.",
    "tokens per second, 4096 output tokens, the KV cache key",
    "sk-learn, sk-short1234, hf_transfer, hf_hub_enable_hf_transfer, ghp_short",
    "AKIA1234 eyJhbGciOi.eyJ.x",
    "https://huggingface.co/deepseek-ai/DeepSeek-V3?revision=main",
    "ssh://git@github.com/org/repo.git and git@github.com:org/repo.git",
    "https://h/x?tokens=5&keyboard=1&monkey=2",
    "docker run --user 1000:1000 img; python -u bench.py",
    "Bearer tokens are sent in a header; bearer authentication",
    "Authorization: Bearer <redacted>",
    "https://<redacted>@host/x?token=<redacted>",
    "",
]


@pytest.mark.parametrize(("text", "expected"), REDACTED_CASES)
def test_redacts(text: str, expected: str) -> None:
    assert redact_text(text) == expected


@pytest.mark.parametrize("text", UNCHANGED_CASES)
def test_leaves_harmless_text_alone(text: str) -> None:
    assert find_and_redact(text) == (text, [])


@pytest.mark.parametrize(("text", "expected"), REDACTED_CASES)
def test_redacting_again_changes_nothing(text: str, expected: str) -> None:
    assert find_and_redact(expected) == (expected, [])


@pytest.mark.parametrize(
    ("text", "kinds"),
    [
        ("--api-key sk-1", ["value of --api-key"]),
        ("HF_TOKEN=abc", ["value of HF_TOKEN"]),
        ("curl -H 'Authorization: Bearer abc123'", ["Authorization header"]),
        (f"note {HF}", ["Hugging Face token (hf_…)"]),
        (f"title {GHP}", ["GitHub token"]),
        ("https://u:p@h/", ["credentials in a URL"]),
        ("https://h/?token=t", ["URL parameter token"]),
        (f"{JWT} AKIAIOSFODNN7EXAMPLE", ["JSON Web Token", "AWS access key id"]),
        (
            "A=1 HF_TOKEN=a OPENAI_API_KEY=b HF_TOKEN=c",
            ["value of HF_TOKEN", "value of OPENAI_API_KEY"],
        ),
        # a name that is itself a token is not repeated in the message
        (
            "ghp_AbCdEfGhIjTokenKlMnOpQrSt=x",
            ["value of a name that holds a secret", "GitHub token"],
        ),
    ],
)
def test_names_the_kind_of_secret(text: str, kinds: list[str]) -> None:
    redacted, found = find_and_redact(text)
    assert found == kinds
    assert R in redacted


@pytest.mark.parametrize(
    ("name", "secret"),
    [
        ("HF_TOKEN", True),
        ("--api-key", True),
        ("X-API-Key", True),
        ("apiKey", True),
        ("HFToken", True),
        ("client_secret", True),
        ("DB_PASSWD", True),
        ("AWS_ACCESS_KEY_ID", True),
        ("credentials", True),
        ("--tokenizer", False),
        ("max_tokens", False),
        ("--kv-cache-dtype", False),
        ("bos_token", False),
        ("--api-key-file", False),
        ("HF_TOKEN_PATH", False),
        ("public_key", False),
        ("monkey", False),
        ("keyboard", False),
        ("", False),
    ],
)
def test_secret_names(name: str, secret: bool) -> None:
    assert is_secret_name(name) is secret


_FRAGMENTS = [
    "--api-key",
    "--token",
    "--tokenizer",
    "=",
    " ",
    "\n",
    "\\\n",
    "'",
    '"',
    "HF_TOKEN",
    "key",
    ":",
    "Authorization",
    "Bearer",
    "sk-",
    "abcdefghijklmnop1234",
    "hf_",
    "https://",
    "u:p@",
    "@",
    "/",
    "?",
    "&",
    "token=",
    R,
    "$X",
    "$(",
    ")",
    "-u",
    "a:b",
    "Cookie",
    ";",
    ",",
    "eyJ",
    ".",
    "-",
    "_",
    "x",
    "1",
    "api_key",
    "AKIA",
    "ABCDEFGHIJKLMNOP",
    "-----BEGIN PRIVATE KEY-----",
    "-----END PRIVATE KEY-----",
    "***",
    "<",
    ">",
    "X-API-Key",
    "password",
    "ghp_",
    "sig",
    "Basic",
    "\t",
    "export ",
]


@settings(
    max_examples=2000, derandomize=True, deadline=None, suppress_health_check=list(HealthCheck)
)
@given(st.lists(st.sampled_from(_FRAGMENTS), max_size=14))
def test_idempotent_on_any_mix(parts: list[str]) -> None:
    once, _ = find_and_redact("".join(parts))
    assert find_and_redact(once) == (once, [])


# --- documents -----------------------------------------------------------------------


def _document(data: object) -> Document:
    return Document("content/runs/x.yaml", data, {"": 1, "/engine": 5, "/engine/launch_command": 7})


def test_seed_run_comes_out_unchanged() -> None:
    path = REPO / "content" / "runs" / f"{SEED_RUN_ID}.yaml"
    document = parse_document(path.name, path.read_bytes())
    assert "--api-key <redacted>" in document.data["engine"]["launch_command"]
    redacted, pointers = redact_document(document)
    assert pointers == []
    assert redacted.data == document.data
    assert redacted.lines == document.lines


def test_every_string_value_is_redacted_and_reported() -> None:
    data = {
        "engine": {
            "launch_command": f"HF_TOKEN={HF} vllm serve m --api-key sk-1",
            "settings": {
                "VLLM_API_KEY": "plain",
                "hf_token": True,
                "max_num_seqs": 128,
                "Authorization": "Bearer x",
            },
            "notes": "nothing secret",
        },
        "run": {
            "notes": f"pulled with {HF}",
            "env": {"HF_TOKEN": "abc", "CUDA_VISIBLE_DEVICES": "0,1", "api_key": 42},
        },
        "source": {"title": f"results {GHP}", "url": "https://u:p@example.org/r.json"},
        "provenance": {"notes": ["fine", "curl -H 'Authorization: Bearer abc123'"]},
        "server": {
            "argv": ["vllm", "serve", "m", "--api-key", "k3y", "--port", "8000"],
            "credentials": {"user": "alice", "nested": ["p1", 7]},
        },
    }
    document = _document(data)
    redacted, redactions = redact_document_detailed(document)
    assert redacted.data == {
        "engine": {
            "launch_command": f"HF_TOKEN={R} vllm serve m --api-key {R}",
            "settings": {
                "VLLM_API_KEY": R,
                "hf_token": True,
                "max_num_seqs": 128,
                "Authorization": R,
            },
            "notes": "nothing secret",
        },
        "run": {
            "notes": f"pulled with {R}",
            "env": {"HF_TOKEN": R, "CUDA_VISIBLE_DEVICES": "0,1", "api_key": R},
        },
        "source": {"title": f"results {R}", "url": f"https://{R}@example.org/r.json"},
        "provenance": {"notes": ["fine", f"curl -H 'Authorization: Bearer {R}'"]},
        "server": {
            "argv": ["vllm", "serve", "m", "--api-key", R, "--port", "8000"],
            "credentials": {"user": R, "nested": [R, R]},
        },
    }
    assert redactions == [
        Redaction(
            "/engine/launch_command", ("value of --api-key", "value of HF_TOKEN")
        ),  # in pass order
        Redaction("/engine/settings/VLLM_API_KEY", ("value of VLLM_API_KEY",)),
        Redaction("/engine/settings/Authorization", ("value of Authorization",)),
        Redaction("/run/notes", ("Hugging Face token (hf_…)",)),
        Redaction("/run/env/HF_TOKEN", ("value of HF_TOKEN",)),
        Redaction("/run/env/api_key", ("value of api_key",)),
        Redaction("/source/title", ("GitHub token",)),
        Redaction("/source/url", ("credentials in a URL",)),
        Redaction("/provenance/notes/1", ("Authorization header",)),
        Redaction("/server/argv/4", ("value of --api-key",)),
        Redaction("/server/credentials/user", ("value of credentials",)),
        Redaction("/server/credentials/nested/0", ("value of credentials",)),
        Redaction("/server/credentials/nested/1", ("value of credentials",)),
    ]
    assert redact_document(document)[1] == [r.pointer for r in redactions]
    # The input is not modified, and the line map is carried over.
    assert data["engine"]["launch_command"].startswith(f"HF_TOKEN={HF}")  # type: ignore[index]
    assert redacted.lines == document.lines
    assert redact_document(redacted)[1] == []


def test_warnings_are_located_and_informational() -> None:
    document = _document({"engine": {"launch_command": "vllm serve m --api-key sk-1"}})
    redacted, redactions = redact_document_detailed(document)
    warnings = redaction_warnings(redacted, redactions)
    assert [str(w) for w in warnings] == [
        "content/runs/x.yaml:7: /engine/launch_command: note: redacted a secret (value of "
        "--api-key); "
        "the published site shows <redacted> (informational: nothing to fix, but revoke the secret "
        "if it was real)"
    ]


def test_secret_in_a_field_name_is_refused_without_repeating_it() -> None:
    document = Document(
        "content/runs/x.yaml",
        {"engine": {"settings": {HF: "x", "ok": "y"}}},
        {"/engine/settings": 3, f"/engine/settings/{HF}": 4},
    )
    with pytest.raises(SitegenError) as raised:
        redact_document(document)
    assert [str(p) for p in raised.value.problems] == [
        "content/runs/x.yaml:4: /engine/settings: a field name holds a secret (Hugging Face token "
        "(hf_…)); "
        "field names are published as written, so remove it (and revoke the secret: the pull "
        "request made it public)"
    ]
    assert HF not in str(raised.value)


# --- linear time ---------------------------------------------------------------------

_HOSTILE_UNITS = [
    " ",
    "a",
    "a.-",
    "--api-key=",
    "--api-key ",
    "HF_TOKEN=",
    "HF_TOKEN='",
    "key: ",
    "https://a:",
    "x://a@",
    "?token=",
    "Authorization: ",
    "eyJaaaaaaaaaa.",
    "sk-",
    "-----BEGIN PRIVATE KEY-----",
    '"',
    "\\",
    "$(",
    "-u a:",
]


@pytest.mark.parametrize("unit", _HOSTILE_UNITS)
def test_one_megabyte_is_linear_not_quadratic(unit: str) -> None:
    size = 1_000_000
    text = (unit * (size // len(unit) + 1))[:size]
    # CPU time of this process, not wall time: a busy machine stretches wall time tenfold (seen:
    # 10.5 s wall for 1.2 s of work) without the redaction doing any more work.
    started = time.process_time()
    redact_text(text)
    # Loose on purpose (shared CI machines); quadratic behaviour would take minutes.
    assert time.process_time() - started < 10.0
