"""One name for one thing: an accelerator's other names (a shipped table, extended in
sitegen.yaml) make one hardware page, and no two run pages share a title, however little
tells the runs apart."""

from __future__ import annotations

import html
import re
import shutil
from pathlib import Path

import pytest

from tests.kit.importing import LLAMA, LLAMA_META, load_lines, run_import, write_meta
from tests.kit.project import SEED_RUN_ID, run_cli


def _only_the_seed(project: Path) -> str:
    """Leave only the seed run in content/runs/; its text."""
    for path in (project / "content" / "runs").iterdir():
        if path.name != f"{SEED_RUN_ID}.yaml":
            shutil.rmtree(path) if path.is_dir() else path.unlink()
    return (project / "content" / "runs" / f"{SEED_RUN_ID}.yaml").read_text(encoding="utf-8")


def _add(project: Path, run_id: str, text: str) -> None:
    (project / "content" / "runs" / f"{run_id}.yaml").write_text(text, encoding="utf-8")


def _build(project: Path) -> Path:
    assert run_cli(project, "collect") == 0
    assert run_cli(project, "build") == 0
    return project / "_site"


def _hardware_pages(site: Path) -> dict[str, set[str]]:
    """Each accelerator page's folder name and the run ids its table links to."""
    return {
        page.parent.name: set(
            re.findall(r'href="\.\./\.\./runs/([^/"]+)/index\.html"', page.read_text())
        )
        for page in (site / "hardware").glob("*/index.html")
    }


def test_llama_bench_names_the_gpu_as_its_driver_does_and_it_is_one_accelerator(
    project: Path, tmp_path: Path
) -> None:
    """A real llama-bench file records gpu_info "Radeon 8060S Graphics"; a result file written by
    hand says "Radeon 8060S". One page, at the shorter name, lists both."""
    seed = _only_the_seed(project)
    path = LLAMA / "lhl-strixhalo-8060s-rocwmma-gptoss20b-f16-depth-sweep.jsonl"
    assert load_lines(path)[0]["gpu_info"] == "Radeon 8060S Graphics"
    meta = write_meta(
        tmp_path, LLAMA_META.format(type="integrated-gpu", model="openai/gpt-oss-20b")
    )
    assert run_import(project, [path], meta, "strixhalo-llamacpp") == 0
    _add(
        project,
        "strixhalo-sglang",
        seed.replace("vendor: NVIDIA", "vendor: AMD").replace(
            "accelerator: H200 NVL", "accelerator: Radeon 8060S"
        ),
    )
    pages = _hardware_pages(_build(project))
    assert pages == {
        "h200-nvl": {SEED_RUN_ID},
        "radeon-8060s": {"strixhalo-llamacpp", "strixhalo-sglang"},
    }
    run_page = (project / "_site" / "runs" / "strixhalo-llamacpp" / "index.html").read_text()
    assert 'href="../../hardware/radeon-8060s/index.html"' in run_page


def test_sitegen_yaml_adds_aliases(project: Path) -> None:
    seed = _only_the_seed(project)
    _add(project, "h200-copy", seed.replace("accelerator: H200 NVL", "accelerator: h200  nvl pcie"))
    assert set(_hardware_pages(_build(project))) == {
        "h200-nvl",
        "h200-nvl-pcie",
    }  # two names, two pages
    config = project / "sitegen.yaml"
    config.write_text(config.read_text() + "accelerator_aliases:\n  H200 NVL: [H200 NVL PCIe]\n")
    assert _hardware_pages(_build(project)) == {"h200-nvl": {SEED_RUN_ID, "h200-copy"}}


def test_an_alias_of_two_accelerators_is_refused_at_its_line(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = project / "sitegen.yaml"
    lines = config.read_text().splitlines()
    config.write_text(
        "\n".join([*lines, "accelerator_aliases:", "  H200 NVL: [H200]", "  H200 SXM: [h200]", ""])
    )
    assert run_cli(project, "build") == 1
    line = len(lines) + 3
    assert (
        f"sitegen.yaml:{line}: /accelerator_aliases/H200 SXM/0: 'h200' is already an alias of "
        "'H200 NVL'; an alias names one accelerator"
    ) in capsys.readouterr().err


def _titles(site: Path) -> dict[str, str]:
    titles = {}
    for page in (site / "runs").glob("*/index.html"):
        found = re.search(r"<title>([^<]*) · ", page.read_text())
        assert found, page
        titles[page.parent.name] = html.unescape(found[1])
    return titles


def test_runs_that_differ_only_in_how_they_were_measured_say_so_in_their_titles(
    project: Path,
) -> None:
    seed = _only_the_seed(project)
    assert "decode_mode: fixed-duration" in seed and "prefill_mode: decode-warmup" in seed
    _add(project, "run-b", seed.replace("decode_mode: fixed-duration", "decode_mode: batched"))
    _add(
        project,
        "run-c",
        seed.replace("prefill_mode: decode-warmup", "prefill_mode: standalone-cold"),
    )
    _add(project, "run-d", seed.replace("  decode_mode: fixed-duration\n", ""))
    # Another model, measured once with each of two engines (siblings in nothing else).
    other = seed.replace(
        "model: deepseek-ai/DeepSeek-V4-Flash-DSpark", "model: someone/Other-Model"
    )
    _add(project, "other-1", other)
    _add(project, "other-2", other.replace("name: sglang", "name: vLLM"))
    titles = _titles(_build(project))
    assert len(titles) == 6 and len(set(titles.values())) == 6, titles
    assert "sustained" in titles[SEED_RUN_ID] and "batched" in titles["run-b"]
    assert "cold prefill" in titles["run-c"] and "not stated" in titles["run-d"]
    assert "sglang" in titles["other-1"] and "vLLM" in titles["other-2"]
    for run_id, title in titles.items():
        assert run_id not in title  # told apart by what differs, not by the file name
