"""Setups over time and their changes (docs/comparisons.md#setups, #changes): planted next runs
judged in /data/changes.json, on the run page, in /changes.xml and in `sitegen summary`, every
verdict recomputed here from the documented rule; and the real DGX Spark history shipped."""

from __future__ import annotations

import json
import re
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.kit.project import REPO, load_yaml, run_cli

SEED = REPO / "content" / "runs" / "h200nvl2-sglang-deepseek-v4-flash-dspark.yaml"
HISTORY = REPO / "tests" / "data" / "history"
THRESHOLD = 0.05  # docs/comparisons.md: the default of changes.threshold_percent
HIGHER_IS_BETTER = {
    "total_tokens_per_s": True,
    "prompt_tokens_per_s": True,
    "ttft_ms": False,
    "time_between_tokens_ms": False,
}


def expected_verdict(figure: str, before: float, after: float) -> str:
    """The documented rule, written out: beyond ±5 % of the previous value is a change."""
    change = after / before - 1
    if abs(change) <= THRESHOLD:
        return "no change"
    return "improvement" if (change > 0) == HIGHER_IS_BETTER[figure] else "regression"


def seed() -> dict[str, Any]:
    data: dict[str, Any] = load_yaml(SEED.read_text(encoding="utf-8"))
    data["run"]["setup"] = "planted-setup"
    return data


def measured_cell(data: dict[str, Any]) -> dict[str, Any]:
    return next(
        c
        for c in data["measurements"]["decode"]
        if c.get("total_tokens_per_s") and c["concurrency"] > 1
    )


def site_with(tmp_path: Path, runs: dict[str, dict[str, Any]], shared_cache: Path) -> Path:
    """A site of ``runs`` (file name → document), collected and built, its cache the session's."""
    site = tmp_path / "site"
    (site / "content" / "runs").mkdir(parents=True)
    shutil.copy(REPO / "sitegen.yaml", site / "sitegen.yaml")
    shutil.copytree(REPO / "schema", site / "schema")
    (site / ".sitegen").mkdir()
    (site / ".sitegen" / "cache").symlink_to(shared_cache, target_is_directory=True)
    for run_id, data in runs.items():
        (site / "content" / "runs" / f"{run_id}.yaml").write_text(
            yaml.safe_dump(data, sort_keys=False), encoding="utf-8"
        )
    assert run_cli(site, "collect") == 0
    assert run_cli(site, "build") == 0
    return site


def changes(site: Path) -> list[dict[str, Any]]:
    document = json.loads((site / "_site" / "data" / "changes.json").read_text(encoding="utf-8"))
    assert document["format"] == "sitegen-changes"
    records: list[dict[str, Any]] = document["changes"]
    return records


def next_run(factor: float, date: str = "2026-08-01") -> dict[str, Any]:
    data = seed()
    data["run"]["date"] = date
    measured_cell(data)["total_tokens_per_s"] *= factor
    return data


def test_a_planted_run_15_percent_slower_is_a_regression_everywhere(
    tmp_path: Path,
    shared_cache: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    base = seed()
    cell = measured_cell(base)
    site = site_with(tmp_path, {"base": base, "slower": next_run(0.85)}, shared_cache)
    records = changes(site)
    assert (
        records
        and {r["run"] for r in records} == {"slower"}
        and {r["previous_run"] for r in records} == {"base"}
    )
    flagged = [r for r in records if r["verdict"] != "no change"]
    assert [(r["figure"], r["context_tokens"], r["concurrency"]) for r in flagged] == [
        ("total_tokens_per_s", cell["context_tokens"], cell["concurrency"])
    ]
    assert flagged[0]["before"] == pytest.approx(cell["total_tokens_per_s"])
    assert flagged[0]["after"] == pytest.approx(cell["total_tokens_per_s"] * 0.85)
    assert flagged[0]["verdict"] == "regression" and flagged[0]["setup"] == "planted-setup"
    for record in records:  # every verdict, recomputed from the rule
        assert record["ratio"] == pytest.approx(record["after"] / record["before"], abs=1e-6)
        assert record["verdict"] == expected_verdict(
            record["figure"], record["before"], record["after"]
        )
    page = (site / "_site" / "runs" / "slower" / "index.html").read_text(encoding="utf-8")
    section = page.split("<section id=changes", 1)[1].split("</section>", 1)[0]
    assert "<strong>regression</strong>" in section and "-15.0 %" in section
    assert "setups/planted-setup/index.html" in section
    feed = ET.fromstring((site / "_site" / "changes.xml").read_bytes())
    atom = "{http://www.w3.org/2005/Atom}"
    [entry] = feed.findall(f"{atom}entry")
    assert "slower" in (entry.findtext(f"{atom}title") or "") and "1 regression" in (
        entry.findtext(f"{atom}title") or ""
    )
    # The verdicts counted in words, from changes.json: the feed's title and the run page say them.
    unchanged = sum(1 for r in records if r["verdict"] == "no change")
    counted = f"1 regression, no change in {unchanged}"
    assert unchanged > 1 and counted in (entry.findtext(f"{atom}title") or "")
    assert f": {counted}." in section
    # /changes/: the run by its date, against the previous run's, the verdicts counted as
    # changes.json has them, the setup's page linked.
    listing = (site / "_site" / "changes" / "index.html").read_text(encoding="utf-8")
    [row] = re.findall(r"<tr><td>(.*?)(?=<tr>|</table>)", listing, flags=re.S)
    assert 'href="../runs/slower/index.html" title="slower">2026-08-01</a>' in row
    assert 'href="../setups/planted-setup/index.html"' in row
    assert f'{counted} against <a href="../runs/base/index.html" title="base">' in row
    assert "regression: total tok/s at " in row and "(-15.0 %)" in row
    # The setup page lists its runs oldest first, each by its date, its id in the link's title.
    setup_page = (site / "_site" / "setups" / "planted-setup" / "index.html").read_text(
        encoding="utf-8"
    )
    runs_table = setup_page.split("<h2 id=runs-h>", 1)[1].split("</table>", 1)[0]
    linked = re.findall(r'<a href="../../runs/([^/]+)/index.html" title="([^"]+)">', runs_table)
    assert [run for run, _ in linked] == ["base", "slower"] and all(a == b for a, b in linked)
    assert f"<td>{counted}<td>" in runs_table
    # The pull request that adds it: listed, annotated on the file, and failing when asked to.
    changed = tmp_path / "changed.txt"
    changed.write_text("A\tcontent/runs/slower.yaml\n", encoding="utf-8")
    monkeypatch.chdir(site)
    capsys.readouterr()
    assert run_cli(site, "summary", "--changed", str(changed)) == 0
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if "`slower`" in line and "regression" in line)
    assert "-15.0 %" in row and "`base`" in row
    assert (
        run_cli(site, "summary", "--changed", str(changed), "--fail-on-regression", "--annotate")
        == 1
    )
    err = capsys.readouterr().err
    assert (
        "::warning file=content/runs/slower.yaml,title=regression::regression: total tok/s" in err
    )


def test_one_percent_slower_is_no_change(tmp_path: Path, shared_cache: Path) -> None:
    site = site_with(tmp_path, {"base": seed(), "same": next_run(0.99)}, shared_cache)
    records = changes(site)
    assert records and all(r["verdict"] == "no change" for r in records)
    cell = measured_cell(seed())
    [moved] = [
        r
        for r in records
        if r["figure"] == "total_tokens_per_s"
        and r["context_tokens"] == cell["context_tokens"]
        and r["concurrency"] == cell["concurrency"]
    ]
    assert moved["ratio"] == pytest.approx(0.99, abs=1e-6)


def test_a_timeline_draws_a_tiny_change_as_tiny(tmp_path: Path, shared_cache: Path) -> None:
    # docs/comparisons.md#setups: the axis spans at least a fifth of the middle value, so a
    # 0.05 % step moves a point by 0.0005 / 0.2 of the plot's height, not the whole of it.
    site = site_with(
        tmp_path, {"a": next_run(1.0, "2026-07-01"), "b": next_run(1.0005)}, shared_cache
    )
    [setup] = {r["setup"] for r in changes(site)}
    page = (site / "_site" / "setups" / setup / "index.html").read_text(encoding="utf-8")
    charts = re.findall(
        r'<svg role=group[^>]* height=(\d+).*?<polyline points="([^"]+)"', page, re.S
    )
    assert charts
    for height, line in charts:
        ys = [float(point.split(",")[1]) for point in line.split()]
        assert max(ys) - min(ys) < 0.05 * int(height), (line, height)


def test_a_different_benchmark_shape_is_cant_tell_with_its_reason(
    tmp_path: Path, shared_cache: Path
) -> None:
    other = next_run(0.85)
    other["run"]["time_per_measurement_s"] = 60.0
    site = site_with(tmp_path, {"base": seed(), "longer": other}, shared_cache)
    records = changes(site)
    assert records and all(r["verdict"] == "can't tell" for r in records)
    assert all(
        "benchmark shape differs" in r["reason"]
        and "time per measurement 30.0 → 60.0" in r["reason"]
        for r in records
    )


def test_runs_of_different_setups_are_never_compared(tmp_path: Path, shared_cache: Path) -> None:
    other = next_run(0.85)
    del other["run"]["setup"]
    other["engine"]["quantization"] = "FP8"
    site = site_with(tmp_path, {"base": seed(), "other": other}, shared_cache)
    assert changes(site) == []
    assert not (site / "_site" / "setups").exists()


# --- the real history ---------------------------------------------------------------------------


def test_the_shipped_history_flags_the_bf16_regression(shipped: Path) -> None:
    site = shipped  # the repository's site, collected and built once for the test run (conftest)
    # The Strix Halo history is checked on its own (below).
    records = [r for r in changes(site) if not r["setup"].startswith("strixhalo-")]
    folder = HISTORY / "dgxspark1-vllm-gemma4-26b-a4b-bf16-monday-peak-c25"
    raw = {
        path.name[:10]: json.loads(path.read_text(encoding="utf-8"))
        for path in folder.glob("*.json")
    }
    step = [
        r
        for r in records
        if r["run"] == "dgxspark-vllm-gemma4-26b-bf16-monday-peak-c25-2026-08-06"
        and r["figure"] == "total_tokens_per_s"
    ]
    [record] = step
    assert record["previous_run"] == "dgxspark-vllm-gemma4-26b-bf16-monday-peak-c25-2026-06-22"
    before, after = raw["2026-06-22"]["output_throughput"], raw["2026-08-06"]["output_throughput"]
    assert record["ratio"] == pytest.approx(after / before, abs=1e-6)
    assert after / before - 1 == pytest.approx(-0.065, abs=0.001)
    assert record["verdict"] == "regression"
    # Every setup of four runs makes three steps; every verdict follows the rule.
    assert len({r["setup"] for r in records}) == 4
    assert len({(r["setup"], r["run"]) for r in records}) == 12
    # An id names the model and its quantization, once where the model's name holds it
    # (nvidia/Gemma-4-26B-A4B-NVFP4 at NVFP4), then a digest (docs/comparisons.md#setups).
    assert {r["setup"].rsplit("-", 1)[0] for r in records} == {
        "gemma-4-26b-a4b-it-bf16",
        "gemma-4-26b-a4b-nvfp4",
    }
    for record in records:
        assert record["verdict"] == expected_verdict(
            record["figure"], record["before"], record["after"]
        )
    setup_page = (site / "_site" / "setups" / step[0]["setup"] / "index.html").read_text(
        encoding="utf-8"
    )
    assert "0.26.0" in setup_page and "<polyline" in setup_page


def test_a_change_within_the_spread_of_repeats_is_cant_tell(
    tmp_path: Path, shared_cache: Path
) -> None:
    base, slower = seed(), next_run(0.85)
    repeats = [90.0, 100.0, 112.0]  # (max − min) / median = 22 %, wider than the 15 % drop
    for data in (base, slower):
        cell = measured_cell(data)
        listed = ", ".join(f"{v:g}" for v in repeats)
        cell["source_values"] = {"repetitions_total_tokens_per_s": listed}
    site = site_with(tmp_path, {"base": base, "slower": slower}, shared_cache)
    [record] = [r for r in changes(site) if r["verdict"] != "no change"]
    spread = (max(repeats) - min(repeats)) / sorted(repeats)[1]
    assert abs(record["ratio"] - 1) < spread
    assert record["verdict"] == "can't tell" and "spread of repeats (22.0%)" in record["reason"]


def test_the_threshold_is_a_setting(tmp_path: Path, shared_cache: Path) -> None:
    site = site_with(tmp_path, {"base": seed(), "slower": next_run(0.85)}, shared_cache)
    config = site / "sitegen.yaml"
    config.write_text(
        config.read_text(encoding="utf-8") + "changes:\n  threshold_percent: 20\n", encoding="utf-8"
    )
    assert run_cli(site, "build") == 0
    document = json.loads((site / "_site" / "data" / "changes.json").read_text(encoding="utf-8"))
    assert document["threshold"] == 0.2 and "±20 %" in document["rule"]
    assert all(r["verdict"] == "no change" for r in document["changes"])


def test_contexts_measured_a_little_apart_are_one_figure(
    tmp_path: Path, shared_cache: Path
) -> None:
    # A serving benchmark's context is the measured mean input length: it moves between runs.
    base, moved = seed(), next_run(0.85)
    cell = measured_cell(moved)
    for item in moved["measurements"]["decode"] + moved["measurements"]["prefill"]:
        item["context_tokens"] = round(item["context_tokens"] * 1.02)
    site = site_with(tmp_path, {"base": base, "moved": moved}, shared_cache)
    records = changes(site)
    assert all(r["verdict"] != "can't tell" for r in records)
    [flagged] = [r for r in records if r["verdict"] != "no change"]
    assert (flagged["figure"], flagged["context_tokens"], flagged["concurrency"]) == (
        "total_tokens_per_s",
        cell["context_tokens"],
        cell["concurrency"],
    )
    assert flagged["before"] == pytest.approx(measured_cell(base)["total_tokens_per_s"])
    assert flagged["verdict"] == "regression"


STRIX = HISTORY / "strixhalo-8060s-llamacpp-llama2-7b-q4_0-pp-tg-sweep"
STRIX_ID = "strixhalo-llamacpp-vulkan-llama2-7b-q4_0-{fa}-b{build}"


def strix_rows(build: int, flash_attn: bool) -> list[dict[str, Any]]:
    """The Vulkan (AMDVLK) rows of one build from the publisher's unsplit files."""
    rows = [
        json.loads(line)
        for path in sorted(STRIX.glob("*__raw_runs.jsonl"))
        for line in path.read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    wanted = {
        (row["n_prompt"], row["n_gen"]): row
        for row in rows
        if row["build_number"] == build
        and row["backends"] == "Vulkan"
        and row["gpu_info"] == "Radeon 8060S Graphics"
        and row["flash_attn"] is flash_attn
    }
    return list(wanted.values())


def test_the_shipped_strix_halo_history_is_what_import_makes_of_the_split_rows(
    project: Path,
) -> None:
    # tests/data/history/SOURCES.md: each jq-split file imported with its run.yaml.
    # Imported from inside the project, so the receipts name the files as the shipped ones do.
    inside = project / STRIX.relative_to(REPO)
    shutil.copytree(STRIX, inside)
    metas = sorted(inside.glob("_run/*.run.yaml"))
    assert len(metas) == 6
    for meta in metas:
        date, fa = meta.name[:10], meta.name[11:14]
        [raw] = inside.glob(f"_split/{date}_b*__vulkan-amdvlk-{fa}.jsonl")
        build = int(raw.name.split("_b", 1)[1].split("__", 1)[0])
        rows = [json.loads(line) for line in raw.read_text(encoding="utf-8").splitlines()]
        # jq rewrites numbers (-1.000000 as -1): the rows are equal as values.
        by_test = {(row["n_prompt"], row["n_gen"]): row for row in rows}
        assert by_test == {
            (row["n_prompt"], row["n_gen"]): row for row in strix_rows(build, fa == "fa1")
        }
        shipped = project / "content" / "runs" / f"{STRIX_ID.format(fa=fa, build=build)}.yaml"
        expected = shipped.read_bytes()
        shipped.unlink()
        run_id = shipped.stem
        assert run_cli(project, "import", str(raw), "--meta", str(meta), "--id", run_id) == 0
        assert shipped.read_bytes() == expected, run_id


def test_a_benchmark_parameter_splits_setups_a_launch_setting_does_not(project: Path) -> None:
    # llama-bench sweeps flash attention within one file (-fa 0,1): without run.setup, its runs
    # with it off and on are two setups, each judged against the same setting's earlier build;
    # use_mmap, which changed between those builds, stays an annotation of one history.
    runs = project / "content" / "runs"
    for stale in runs.iterdir():
        stale.unlink()
    for meta in sorted(STRIX.glob("_run/2025-0[78]-*.run.yaml"))[:4]:  # builds 5863 and 6077
        date, fa = meta.name[:10], meta.name[11:14]
        [raw] = STRIX.glob(f"_split/{date}_b*__vulkan-amdvlk-{fa}.jsonl")
        unnamed = project / f"{meta.name}"
        unnamed.write_text(
            "".join(
                line
                for line in meta.read_text(encoding="utf-8").splitlines(keepends=True)
                if not line.strip().startswith("setup:")
            ),
            encoding="utf-8",
        )
        assert (
            run_cli(project, "import", str(raw), "--meta", str(unnamed), "--id", f"{fa}-{date}")
            == 0
        )
    assert run_cli(project, "collect") == 0 and run_cli(project, "build") == 0
    records = changes(project)
    assert {(r["run"], r["previous_run"]) for r in records} == {
        ("fa0-2025-08-05", "fa0-2025-07-13"),
        ("fa1-2025-08-05", "fa1-2025-07-13"),
    }
    assert len({r["setup"] for r in records}) == 2
    assert all(r["verdict"] != "can't tell" for r in records)
    page = (project / "_site" / "runs" / "fa0-2025-08-05" / "index.html").read_text("utf-8")
    history = page.split("id=changes", 1)[1].split("</section>", 1)[0]
    assert "Launch settings that differ from the previous run: use_mmap yes → no" in history


def test_two_workloads_at_one_load_are_two_setups(project: Path) -> None:
    # The publisher's office baseline (random prompts of about 4,000 tokens at 0.3 req/s) and,
    # made from it here, a replay of short prompts at the same load (total_input_tokens cut to
    # 241 a request, as the publisher's sharegpt test sends): each its own setup and history.
    folder = HISTORY / "dgxspark1-vllm-gemma4-26b-a4b-bf16-office-baseline"
    runs = project / "content" / "runs"
    for stale in runs.iterdir():
        stale.unlink()
    for date in ("2026-08-06", "2026-08-16"):
        [raw] = folder.glob(f"{date}_*.json")
        meta = project / f"{date}.run.yaml"
        meta.write_text(
            (folder / "_run" / f"{date}.run.yaml").read_text("utf-8").replace("label:", "#"),
            encoding="utf-8",
        )
        data = json.loads(raw.read_text(encoding="utf-8"))
        replay = project / f"replay-{date}.json"
        replay.write_text(json.dumps({**data, "total_input_tokens": 241 * data["completed"]}))
        for run_id, path in ((f"office-{date}", raw), (f"replay-{date}", replay)):
            assert run_cli(project, "import", str(path), "--meta", str(meta), "--id", run_id) == 0
    assert run_cli(project, "collect") == 0 and run_cli(project, "build") == 0
    records = changes(project)
    assert {(r["run"], r["previous_run"]) for r in records} == {
        ("office-2026-08-16", "office-2026-08-06"),
        ("replay-2026-08-16", "replay-2026-08-06"),
    }
    assert all(r["verdict"] != "can't tell" for r in records)
    setups = {r["run"]: r["setup"] for r in records}
    headings = {
        run: re.search(
            r"<h1>([^<]*)",
            (project / "_site" / "setups" / setup / "index.html").read_text("utf-8"),
        ).group(1)  # type: ignore[union-attr]
        for run, setup in setups.items()
    }
    assert headings["replay-2026-08-16"].endswith(" · 0.3 req/s (gamma 0.7), 241 tokens in")
    office = json.loads(next(folder.glob("2026-08-16_*.json")).read_text(encoding="utf-8"))
    length = round(office["total_input_tokens"] / office["completed"])
    assert headings["office-2026-08-16"].endswith(f" · 0.3 req/s (gamma 0.7), {length:,} tokens in")


@pytest.fixture(scope="module")
def shipped_site(shipped: Path) -> Path:
    """The shipped site, built once for the session (conftest): read only here."""
    return shipped


def test_the_shipped_strix_halo_history_judges_every_prompt_and_output_length(
    shipped_site: Path,
) -> None:
    site = shipped_site
    records = [r for r in changes(site) if r["setup"].startswith("strixhalo-")]
    for fa in ("fa0", "fa1"):
        for before_build, after_build in ((5863, 6077), (6077, 6111)):
            run = STRIX_ID.format(fa=fa, build=after_build)
            step = {
                (r["figure"], r.get("prompt_chunk_tokens"), r.get("output_tokens_per_request")): r
                for r in records
                if r["run"] == run
            }
            old = strix_rows(before_build, fa == "fa1")
            new = strix_rows(after_build, fa == "fa1")
            # Every pp and tg size the later build measured is one record, engine versions apart.
            assert len(step) == len(new) == len([r for r in records if r["run"] == run])
            for row in new:
                pp = row["n_gen"] == 0
                key = (
                    "prompt_tokens_per_s" if pp else "total_tokens_per_s",
                    row["n_prompt"] if pp else None,
                    None if pp else row["n_gen"],
                )
                record = step[key]
                assert record["previous_run"] == STRIX_ID.format(fa=fa, build=before_build)
                assert record["after"] == pytest.approx(row["avg_ts"])
                [before] = [
                    o["avg_ts"]
                    for o in old
                    if (o["n_prompt"], o["n_gen"]) == (row["n_prompt"], row["n_gen"])
                ]
                assert record["verdict"] == expected_verdict(key[0], before, row["avg_ts"])
    # SOURCES.md: pp512 without flash attention 998 → 1230 → 1018 tok/s.
    pp512 = {
        r["run"]: r["verdict"]
        for r in records
        if r["setup"].endswith("-fa0") and r.get("prompt_chunk_tokens") == 512
    }
    assert pp512 == {
        STRIX_ID.format(fa="fa0", build=6077): "improvement",
        STRIX_ID.format(fa="fa0", build=6111): "regression",
    }
    page = (
        site / "_site" / "setups" / "strixhalo-llamacpp-vulkan-llama2-7b-q4_0-fa0" / "index.html"
    ).read_text(encoding="utf-8")
    # The engine version of each point is its llama.cpp build, commit and number.
    for build in ("a4575513 (5863)", "83bc2f28 (6077)", "7ad67ba9 (6111)"):
        assert f"build {build}" in page
    run_page = site / "_site" / "runs" / STRIX_ID.format(fa="fa0", build=6111) / "index.html"
    assert "Leonard Lin" in run_page.read_text(encoding="utf-8")


@pytest.mark.parametrize("fa", ["fa0", "fa1"])
def test_a_setup_page_shows_every_figure_its_runs_share(shipped_site: Path, fa: str) -> None:
    # Each pp and tg size two or more builds measured is one figure: drawn (the most widely
    # shared) or a row of the figure × run table, whose cells are the files' avg_ts.
    builds = (5863, 6077, 6111)
    by_build = {build: strix_rows(build, fa == "fa1") for build in builds}
    measured: dict[tuple[int, int], dict[int, float]] = {}
    for build, rows in by_build.items():
        for row in rows:
            measured.setdefault((row["n_prompt"], row["n_gen"]), {})[build] = row["avg_ts"]
    shared = {size: values for size, values in measured.items() if len(values) > 1}
    page = (
        shipped_site
        / "_site"
        / "setups"
        / f"strixhalo-llamacpp-vulkan-llama2-7b-q4_0-{fa}"
        / "index.html"
    ).read_text(encoding="utf-8")
    captions = re.findall(r"<figcaption id=\"timeline-\d+\">([^<]*)</figcaption>", page)
    table = page.split('class="data timeline-table"', 1)[1].split("</table>", 1)[0]
    rows = re.findall(r"<tr><th scope=row>([^<]*)((?:<td>[^<]*)+)", table)
    assert len(captions) == 8 and len(rows) == len(shared) - 8
    titles = captions + [title for title, _ in rows]
    assert len(set(titles)) == len(titles)
    for (n_prompt, n_gen), values in shared.items():
        if n_gen == 0:
            title = f"prefill tok/s at 0 context, {n_prompt:,}-token prompt"
        else:
            tokens = f"{n_gen:,} token{'s' if n_gen != 1 else ''}"
            title = f"total tok/s at 0 context × 1 request, {tokens} out"
        assert titles.count(title) == 1, title
        for row_title, cells in rows:
            if row_title == title:
                shown = re.findall(r"<td>([^<]*)", cells)
                for build, cell in zip(builds, shown, strict=True):
                    if build in values:
                        assert float(cell.replace(",", "")) == pytest.approx(
                            values[build], abs=0.051
                        )
                    else:
                        assert cell == "—"


def test_a_setup_page_writes_each_pair_of_runs_once(tmp_path: Path, shared_cache: Path) -> None:
    """The setup page's changes, by pair of runs: each pair heads its rows once, and the rows
    under it are its changes in changes.json (every flagged one, none of another pair's)."""
    runs = {"base": seed(), "slower": next_run(0.85), "faster": next_run(1.2, "2026-09-01")}
    site = site_with(tmp_path, runs, shared_cache)
    flagged = [r for r in changes(site) if r["verdict"] != "no change"]
    html = (site / "_site" / "setups" / "planted-setup" / "index.html").read_text(encoding="utf-8")
    table = html.split('aria-labelledby="changed-caption">', 1)[1].split("</table>", 1)[0]
    link = r'<a href="[./]*runs/([^/"]+)/index\.html" title="[^"]+">[^<]+</a>'
    heads = re.findall(
        rf"<tr class=pair><th colspan=7 scope=colgroup>Run {link} against the "
        rf"previous run {link}",
        table,
    )
    assert sorted(heads) == sorted({(r["run"], r["previous_run"]) for r in flagged})
    assert len(heads) == len(set(heads)) == 2
    for (run, previous), rows in zip(heads, table.split("<tr class=pair>")[1:], strict=True):
        shown = re.findall(r"<tr><td>[^<]*<td>([^<]*)<td", rows)
        mine = [r for r in flagged if (r["run"], r["previous_run"]) == (run, previous)]
        assert len(shown) == len(mine) > 0
        assert "title=" not in rows.split("\n", 1)[1]  # the pair's runs are not written again


def test_a_setup_page_keeps_a_runs_near_contexts_apart(tmp_path: Path, shared_cache: Path) -> None:
    """The seed run measures prefill at 1019K and at 1024K (within the 10 % that matches a
    context between runs, docs/comparisons.md): on the setup page they are two figures, each
    with one value a run, the file's own, never two points of one run in one chart."""
    base, later = seed(), next_run(0.85)
    site = site_with(tmp_path, {"base": base, "later": later}, shared_cache)
    html = (site / "_site" / "setups" / "planted-setup" / "index.html").read_text(encoding="utf-8")
    points = base["measurements"]["prefill"]
    prefill = {p["context_tokens"]: p["prompt_tokens_per_s"] for p in points}
    assert {1043456, 1048576} <= set(prefill)
    charts = re.findall(
        r'<figcaption id="timeline-\d+">([^<]*)</figcaption>(.*?)</svg>', html, flags=re.S
    )
    table = html.split('class="data timeline-table"', 1)[1].split("</table>", 1)[0]
    rows = re.findall(r"<tr><th scope=row>([^<]*)((?:<td>[^<]*)+)", table)
    shown: dict[str, list[str]] = {}
    for caption, svg in charts:
        # Each point's title: date · engine version · value; one point a run.
        shown[caption] = [t.rsplit(" · ", 1)[1] for t in re.findall(r"<title>([^<]*)<", svg)]
    for title, cells in rows:
        shown[title] = re.findall(r"<td>([^<]*)", cells)
    # The table reads in order: by context, then by requests, as numbers (8K before 16K, 2
    # requests before 16), each figure's kind together.
    decode = [
        re.fullmatch(r"total tok/s at (\d+)K context × (\d+) requests?", title)
        for title, _ in rows
        if title.startswith("total tok/s")
    ]
    order = [(int(m[1]), int(m[2])) for m in decode if m]
    assert len(order) == len(decode) > 8 and order == sorted(order)
    for title, values in shown.items():
        assert len(values) == 2, (title, values)  # two runs, one value each
    for context, words in ((1043456, "1019K"), (1048576, "1024K")):
        values = shown[f"prefill tok/s at {words} context"]
        expected = prefill[context]
        for value in values:  # shown in thousands ("10.2K") or whole
            figure = float(value.rstrip("K").replace(",", "")) * (1000 if "K" in value else 1)
            assert figure == pytest.approx(expected, rel=0.01), (words, value)
