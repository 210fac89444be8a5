"""Verdicts a reader can trust (docs/capacity.md): per-request speed from time between tokens,
three states, the reader's users, tail levels, warm and cold TTFT.

The rules are checked on hand-made cells whose answers are worked out by hand, and the built
site's /data/capacity.json against tests/kit/verdict_rule.py, the rules written again from the
documentation and applied to the published result files (/runs/<id>.json)."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import pytest
import yaml

from sitegen.config import ServiceLevel
from sitegen.site.figures import capacity as cap
from tests.kit import verdict_rule as rule
from tests.kit.capacity_json import capacity_records
from tests.kit.project import DATA, SEED_RUN_ID, run_cli
from tests.kit.run_json import published_run

SERVER = ServiceLevel("server", 5.0, 2000.0)
NIM = "h100x2-nim-llama33-70b-fp8"


def cell(concurrency: int, **figures: Any) -> dict[str, Any]:
    return {"context_tokens": 32768, "concurrency": concurrency, "status": "valid", **figures}


# --- the rules, on hand-made cells ---------------------------------------------------------


def test_per_request_speed_from_time_between_tokens_where_none_is_reported() -> None:
    # 59.7 ms between tokens is 1000 / 59.7 = 16.75 tok/s: above 5 tok/s.
    judged = cap.judge(cell(50, ttft_ms=835.0, time_between_tokens_ms=59.7), SERVER)
    assert (judged.state, judged.per_request_source) == ("meets", "time_between_tokens")
    # 250 ms between tokens is 4 tok/s: below 5.
    slow = cap.judge(cell(50, ttft_ms=835.0, time_between_tokens_ms=250.0), SERVER)
    assert (slow.state, slow.reason, slow.per_request_source) == (
        "misses",
        "per-request tok/s below 5",
        "time_between_tokens",
    )
    # A reported speed is used as it is, even beside a time between tokens that says otherwise.
    both = cap.judge(
        cell(50, ttft_ms=835.0, per_request_tokens_per_s=4.0, time_between_tokens_ms=10.0), SERVER
    )
    assert (both.state, both.per_request_source) == ("misses", "reported")
    assert cap.per_request_speed(cell(1, time_between_tokens_ms=40.0), None) == (
        25.0,
        "time_between_tokens",
    )
    assert cap.per_request_speed(cell(1, time_between_tokens_ms=0.0), None) == (None, None)


def test_three_states_of_a_capacity() -> None:
    good = {"per_request_tokens_per_s": 30.0, "ttft_ms": 500.0}
    meets = cap.capacity(
        32768,
        {1: cell(1, **good, total_tokens_per_s=30.0), 4: cell(4, **good, total_tokens_per_s=100.0)},
        SERVER,
        2,
    )
    assert (meets.state, meets.max_concurrency, meets.stopped_at, meets.reason) == (
        "meets",
        4,
        None,
        "",
    )
    none = cap.capacity(
        32768,
        {1: cell(1, per_request_tokens_per_s=3.0, ttft_ms=1.0), 4: cell(4, **good)},
        SERVER,
        2,
    )
    assert (none.state, none.max_concurrency, none.stopped_at, none.stopped_state) == (
        "none_meets",
        None,
        1,
        "misses",
    )
    unknown = cap.capacity(
        32768, {1: cell(1, per_request_tokens_per_s=30.0), 4: cell(4, **good)}, SERVER, 2
    )
    assert (unknown.state, unknown.max_concurrency, unknown.reason) == (
        "cannot_tell",
        None,
        "no TTFT",
    )
    # Met at 1, unknown at 4: the load seen to hold is 1, and the record says why it stops there.
    partly = cap.capacity(
        32768,
        {1: cell(1, **good, total_tokens_per_s=30.0), 4: cell(4, per_request_tokens_per_s=30.0)},
        SERVER,
        1,
    )
    assert (partly.state, partly.max_concurrency, partly.stopped_at, partly.stopped_state) == (
        "meets",
        1,
        4,
        "cannot_tell",
    )
    not_run = cap.judge({**cell(1, **good), "status": "not_run"}, SERVER)
    assert (not_run.state, not_run.reason) == ("cannot_tell", "not run")


def test_tail_levels_judge_the_slow_tail_or_cannot_tell() -> None:
    p99 = ServiceLevel("p99", 10.0, 1000.0, percentile="p99")
    p50 = ServiceLevel("p50", 10.0, 1000.0, percentile="p50")
    stats = {
        "ttft_ms": {"p50": 300.0, "p99": 900.0},
        "time_between_tokens_ms": {"p50": 20.0, "p99": 125.0},
        "per_request_tokens_per_s": {"p50": 45.0, "p90": 60.0, "p99": 70.0},
    }
    tails = cell(8, ttft_ms=300.0, per_request_tokens_per_s=45.0, statistics=stats)
    # p99 of a speed is its fast tail: the slow tail (p1) is not given, so 1000 ÷ p99 of the
    # time between tokens stands for it: 8 tok/s, below 10.
    judged = cap.judge(tails, p99)
    assert (judged.state, judged.reason, judged.per_request_source) == (
        "misses",
        "per-request tok/s (p99) below 10",
        "time_between_tokens",
    )
    assert cap.per_request_speed(tails, "p99") == (8.0, "time_between_tokens")
    # p50 of a speed is its own mirror: reported.
    assert cap.judge(tails, p50).met and cap.judge(tails, p50).per_request_source == "reported"
    # Without the TTFT percentile, cannot tell, and the reason names it.
    no_ttft = {**tails, "statistics": {**stats, "ttft_ms": {"p50": 300.0}}}
    low = ServiceLevel("low", 5.0, 1000.0, percentile="p99")
    assert (cap.judge(no_ttft, low).state, cap.judge(no_ttft, low).reason) == (
        "cannot_tell",
        "no TTFT (p99)",
    )


def test_a_cold_level_needs_the_measured_prefill_time_of_a_warm_run() -> None:
    cold = ServiceLevel("cold", 5.0, 2000.0, ttft="cold")
    fast = cell(1, per_request_tokens_per_s=30.0, ttft_ms=300.0)
    warm_slow_prefill = cap.RunTiming("warm", {32768: 2153.0})
    judged = cap.judge(fast, cold, warm_slow_prefill)
    assert (judged.state, judged.ttft) == ("misses", "cold_estimate")
    assert judged.reason == "cold TTFT (at least the prefill time) above 2000 ms"
    assert (
        cap.judge(fast, SERVER, warm_slow_prefill).ttft == "warm"
    )  # a level without ttft: cold judges as measured
    assert cap.judge(fast, SERVER, warm_slow_prefill).met
    assert cap.judge(
        fast, cold, cap.RunTiming("warm", {32000: 1900.0})
    ).met  # 32,000 is within 3 % of 32,768
    no_prefill = cap.judge(fast, cold, cap.RunTiming("warm", {8192: 500.0}))
    assert (no_prefill.state, no_prefill.reason) == (
        "cannot_tell",
        "no prefill time at this context for a cold TTFT",
    )
    # An unknown cache counts as possibly warm; a TTFT known to be cold is judged as it is.
    assert cap.judge(fast, cold, cap.RunTiming(None, {})).state == "cannot_tell"
    known_cold = cap.judge(fast, cold, cap.RunTiming("cold", {}))
    assert (known_cold.state, known_cold.ttft) == ("meets", "cold")


def test_capacity_json_names_every_reason_a_verdict_can_give() -> None:
    """/data/capacity.json writes a reason as its number in the file's words
    (cap.possible_reasons): every cell of an exhaustive grid — each limited figure absent, within
    or beyond its limit, valid or not — is judged with one of them."""
    strict = ServiceLevel(
        "strict", 10.0, 500.0, max_time_between_tokens_ms=50.0, percentile="p90", ttft="cold"
    )
    given: set[str] = set()
    choices = (None, "within", "beyond")
    for status in ("valid", "not_run", "failed"):
        for speed, ttft, gap, prefill in itertools.product(choices, repeat=4):
            figures = {"status": status, "statistics": {}}
            for name, choice, ok, bad in (
                ("per_request_tokens_per_s", speed, 20.0, 5.0),
                ("ttft_ms", ttft, 100.0, 900.0),
                ("time_between_tokens_ms", gap, 10.0, 80.0),
            ):
                if choice is not None:
                    figures["statistics"][name] = {"p90": ok if choice == "within" else bad}
                    figures["statistics"][name]["p10"] = figures["statistics"][name]["p90"]
            times = {} if prefill is None else {32768: 100.0 if prefill == "within" else 900.0}
            judged = cap.judge({**cell(4), **figures}, strict, cap.RunTiming("warm", times))
            if judged.reason:
                given.add(judged.reason)
    possible = set(cap.possible_reasons(strict))
    assert given <= possible, given - possible
    # Every combination of misses is given (missing figures combine less freely: a cell without
    # a speed falls back on its time between tokens, so lacks that too).
    misses = [r for r in possible if not r.startswith("no ") and "; no " not in r]
    assert len(misses) == 2 + 15 and set(misses) <= given
    # Its words: the states, sources and TTFTs judged, then every level's reasons, once each.
    words = cap.capacity_words((SERVER, strict))
    assert len(words) == len(set(words)) and possible <= set(words)
    assert "TTFT above 2000 ms" in words and "meets" in words


def test_prefill_times_are_measured_ttfts_never_at_depth_chunks() -> None:
    document = {
        "run": {"prefill_mode": "decode-warmup"},
        "measurements": {
            "prefill": [
                {"context_tokens": 8192, "ttft_ms": 803.0},
                {"context_tokens": 16384, "prompt_tokens_per_s": 9000.0},
                {"context_tokens": 32768, "ttft_ms": 10.0, "prompt_chunk_tokens": 512},
            ]
        },
    }
    assert cap.prefill_times(document) == {8192: 803.0}
    assert cap.prefill_times({**document, "run": {"prefill_mode": "at-depth"}}) == {}
    assert cap.run_timing(
        {"run": {"ttft_prompt_cache": "warm"}, "measurements": {}}
    ) == cap.RunTiming("warm", {})


@pytest.mark.parametrize(
    ("users", "expected"),
    [
        (1, ("meets", 1)),
        (10, ("meets", 16)),
        (16, ("meets", 16)),
        (20, ("fails", 32)),
        (32, ("fails", 32)),
        (100, ("fails", 32)),
    ],
)
def test_the_readers_users_read_off_the_measured_ladder(
    users: int, expected: tuple[str, int]
) -> None:
    good = {"per_request_tokens_per_s": 30.0, "ttft_ms": 500.0}
    row = {
        1: cell(1, **good),
        16: cell(16, **good),
        32: cell(32, per_request_tokens_per_s=30.0, ttft_ms=2500.0),
    }
    assert tuple(cap.answer_for_users(cap.capacity(32768, row, SERVER, 2), users)) == expected


def test_users_beyond_the_ladder_are_not_measured_and_unknowns_say_so() -> None:
    good = {"per_request_tokens_per_s": 30.0, "ttft_ms": 500.0}
    held = cap.capacity(32768, {1: cell(1, **good), 16: cell(16, **good)}, SERVER, 1)
    assert tuple(cap.answer_for_users(held, 17)) == ("not_measured", None)
    unknown = cap.capacity(
        32768, {1: cell(1, **good), 16: cell(16, per_request_tokens_per_s=30.0)}, SERVER, 1
    )
    assert tuple(cap.answer_for_users(unknown, 8)) == ("cannot_tell", 16)
    assert tuple(cap.answer_for_users(unknown, 1)) == ("meets", 1)


# --- the built site ------------------------------------------------------------------------

COLD_SERVER = {
    "name": "server-cold",
    "min_tokens_per_s_per_request": 5,
    "max_ttft_ms": 2000,
    "ttft": "cold",
}
TAIL = {"name": "tail", "min_tokens_per_s_per_request": 5, "max_ttft_ms": 2000, "percentile": "p99"}


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory, shared_cache: Path) -> Path:
    """The shipped site with a cold and a p99 variant of the server level added."""
    from tests.kit.project import copy_site

    site = copy_site(tmp_path_factory.mktemp("verdicts") / "site", shared_cache)
    config = yaml.safe_load((site / "sitegen.yaml").read_text())
    config["service_levels"] += [COLD_SERVER, TAIL]
    (site / "sitegen.yaml").write_text(yaml.safe_dump(config, allow_unicode=True))
    assert run_cli(site, "collect") == 0 and run_cli(site, "build") == 0
    return site


def published(site: Path) -> dict[tuple[str, str, int], dict[str, Any]]:
    """data/capacity.json's records, their capacity's figures put back from the run JSON."""
    records = capacity_records(site / "_site")
    return {(r["run"], r["service_level"], r["context_tokens"]): r for r in records}


def document(site: Path, run_id: str) -> dict[str, Any]:
    return {**published_run(site / "_site" / "runs" / f"{run_id}.json"), "_id": run_id}


def test_every_record_matches_an_independent_reading_of_the_runs(built: Path) -> None:
    records = published(built)
    levels = yaml.safe_load((built / "sitegen.yaml").read_text())["service_levels"]
    expected = {}
    for path in sorted((built / "_site" / "runs").glob("*.json")):
        run = document(built, path.stem)
        for level in levels:
            for context in rule.own_cells(run):
                expected[(path.stem, level["name"], context)] = rule.record(run, context, level)
    assert {
        key: {k: v for k, v in r.items() if k != "reason"} for key, r in records.items()
    } == expected
    states = {r["state"] for r in records.values()}
    sources = {r["per_request_source"] for r in records.values()}
    assert (
        states == {"meets", "none_meets", "cannot_tell"}
        and {"reported", "time_between_tokens"} <= sources
    )
    # Every users question has an answer from the record alone.
    for key, record in records.items():
        for users in (1, 20, 50, 64, 1000):
            assert rule.for_users(record, users)[0] in (
                "meets",
                "fails",
                "cannot_tell",
                "not_measured",
            ), key


def test_nim_5000_tokens_50_requests_meets_the_server_level(built: Path) -> None:
    run = document(built, NIM)
    at = next(
        c
        for c in run["measurements"]["decode"]
        if c["context_tokens"] == 5000 and c["concurrency"] == 50
    )
    # 834.51 ms to the first token, 59.73 ms between tokens (16.7 tok/s), no per-request tok/s.
    assert "per_request_tokens_per_s" not in at and round(at["ttft_ms"]) == 835
    assert 1000 / at["time_between_tokens_ms"] >= 5 and at["ttft_ms"] <= 2000
    record = published(built)[(NIM, "server", 5000)]
    assert record["state"] == "meets" and record["per_request_source"] == "time_between_tokens"
    assert record["max_concurrency"] >= 50
    assert rule.for_users(record, 50) == ("meets", 50)
    assert rule.for_users(record, 20) == ("meets", 25)  # the smallest measured load ≥ 20 users


def test_a_warm_ttft_does_not_pass_a_cold_limit_its_own_prefill_fails(built: Path) -> None:
    # The seed run (llm-inference-bench, warm prompt cache) at 32K: TTFT within 2 s, but its own
    # measured prefill of a 32K prompt takes longer than 2 s.
    run = document(built, SEED_RUN_ID)
    assert run["run"]["ttft_prompt_cache"] == "warm"
    prefill = next(p for p in run["measurements"]["prefill"] if p["context_tokens"] == 32768)[
        "ttft_ms"
    ]
    assert prefill > 2000
    records = published(built)
    assert records[(SEED_RUN_ID, "server", 32768)]["state"] == "meets"
    assert records[(SEED_RUN_ID, "server", 32768)]["ttft_judged"] == "warm"
    cold = records[(SEED_RUN_ID, "server-cold", 32768)]
    assert (cold["state"], cold["ttft_judged"], cold["stopped_at"]) == (
        "none_meets",
        "cold_estimate",
        1,
    )
    assert "prefill" in cold["reason"]
    # At 8K its prefill is within 2 s: the cold level holds there as the warm one does, up to
    # where TTFT allows.
    assert records[(SEED_RUN_ID, "server-cold", 8192)]["state"] == "meets"


def test_a_tail_level_without_the_statistic_cannot_tell(built: Path) -> None:
    records = published(built)
    nim = records[(NIM, "tail", 5000)]  # a file of schema 1: no statistics at all
    assert (nim["state"], nim["max_concurrency"]) == ("cannot_tell", None)
    assert "(p99)" in nim["reason"]
    seed = records[(SEED_RUN_ID, "tail", 32768)]  # p99 of TTFT and of the time between tokens
    assert (
        seed["state"] in ("meets", "none_meets")
        and seed["per_request_source"] == "time_between_tokens"
    )


# --- the result field and the importers ----------------------------------------------------


def test_llm_inference_bench_imports_a_warm_ttft_and_run_yaml_may_say_otherwise(
    project: Path, tmp_path: Path
) -> None:
    sample = DATA / "upstream" / "sample_benchmark_results.json"
    meta = yaml.safe_load((DATA / "import" / "seed-run.yaml").read_text())
    assert (
        run_cli(
            project,
            "import",
            str(sample),
            "--meta",
            str(DATA / "import" / "seed-run.yaml"),
            "--id",
            "warm-run",
        )
        == 0
    )
    written = yaml.safe_load((project / "content" / "runs" / "warm-run.yaml").read_text())
    assert written["run"]["ttft_prompt_cache"] == "warm"
    meta["run"]["ttft_prompt_cache"] = "cold"
    (tmp_path / "cold.yaml").write_text(yaml.safe_dump(meta))
    assert (
        run_cli(
            project,
            "import",
            str(sample),
            "--meta",
            str(tmp_path / "cold.yaml"),
            "--id",
            "cold-run",
        )
        == 0
    )
    assert (
        yaml.safe_load((project / "content" / "runs" / "cold-run.yaml").read_text())["run"][
            "ttft_prompt_cache"
        ]
        == "cold"
    )


def test_other_tools_leave_the_prompt_cache_unknown(project: Path, tmp_path: Path) -> None:
    sample = DATA / "samples" / "sglang" / "scicom-h100x8-gptoss120b-tp8-in1024-c100.jsonl"
    (tmp_path / "run.yaml").write_text(
        "hardware: {type: discrete-gpu, accelerator: H100, count: 8}\n"
        "engine: {name: sglang}\nrun: {model: openai/gpt-oss-120b}\n"
    )
    assert (
        run_cli(
            project,
            "import",
            str(sample),
            "--meta",
            str(tmp_path / "run.yaml"),
            "--id",
            "sglang-run",
        )
        == 0
    )
    written = yaml.safe_load((project / "content" / "runs" / "sglang-run.yaml").read_text())
    assert written["schema_version"] == 1.2 and "ttft_prompt_cache" not in written["run"]
