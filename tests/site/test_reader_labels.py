"""Labels a reader can trust (issue 41): models listed by their own name, an accelerator's
memory said once. Expected orders and names are worked out here from the shipped result files
(content/runs/*.yaml), not from sitegen's code."""

from __future__ import annotations

import re
from pathlib import Path

from sitegen.parse import parse_yaml
from tests.kit.html_tables import tables
from tests.kit.project import REPO
from tests.kit.run_json import published_run

RUNS = REPO / "content" / "runs"


def shipped_runs() -> dict[str, dict]:  # type: ignore[type-arg]
    return {
        path.stem: parse_yaml(path.name, path.read_bytes()).data
        for path in sorted(RUNS.glob("*.yaml"))
    }


def test_the_index_lists_models_by_their_own_name(built_site: Path) -> None:
    page = (built_site / "index.html").read_text(encoding="utf-8")
    order = re.findall(r'<tr data-f="[^"]*"><th><a href="runs/([^/]+)/index.html">', page)
    documents = shipped_runs()
    assert sorted(order) == sorted(documents)

    def own_name(
        run_id: str,
    ) -> str:  # the group's model (base model, else model), its prefix aside
        run = documents[run_id]["run"]
        return (run.get("base_model") or run["model"]).lower().rsplit("/", 1)[-1]

    names = [own_name(run_id) for run_id in order]
    assert names == sorted(names)
    # Not by the organisation: openai/gpt-oss-120b comes before meta/llama-3.3-70b-instruct.
    assert names.index("gpt-oss-120b") < names.index("llama-3.3-70b-instruct")


def test_an_accelerator_that_names_its_memory_does_not_get_it_twice(built_site: Path) -> None:
    documents = shipped_runs()
    named = [
        run_id
        for run_id, d in documents.items()
        if re.search(r"\b80G\b", d["hardware"]["accelerator"])
        and d["hardware"].get("memory_per_device_gb") == 80
    ]
    assert named, "the shipped H100 80G run"
    for run_id in named:
        page = (built_site / "runs" / run_id / "index.html").read_text(encoding="utf-8")
        assert "80G 80GB" not in page and "H100 80G ×" in page
    # An accelerator whose name does not say its memory still gets it.
    seed = (
        built_site / "runs" / "h200nvl2-sglang-deepseek-v4-flash-dspark" / "index.html"
    ).read_text(encoding="utf-8")
    assert "H200 NVL 141GB ×2" in seed


def test_the_hardware_listing_ranks_within_each_model(built_site: Path) -> None:
    page = (built_site / "hardware" / "index.html").read_text(encoding="utf-8")
    rows = tables(page)["data"]
    assert rows[0] == ["Accelerator", "Runs", "Models: best peak decode tok/s of each"]
    runs = {p.stem: published_run(p) for p in sorted((built_site / "runs").glob("*.json"))}
    rtx = next(row for row in rows if row[0].endswith("RTX PRO 6000 Blackwell Server Edition"))
    peaks = [
        max(
            c["total_tokens_per_s"]
            for c in d["measurements"]["decode"]
            if c["status"] in ("valid", "requests_queued")
            and c.get("total_tokens_per_s") is not None
        )
        for d in runs.values()
        if d["hardware"]["accelerator"] == "RTX PRO 6000 Blackwell Server Edition"
    ]
    assert rtx[2] == f"Qwen3.5-397B-A17B {max(peaks):,.1f}"
