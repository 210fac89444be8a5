"""The run's canonical JSON download, against the YAML the contributor wrote. (The run CSV is
made from this JSON in the reader's browser: tests/browser/test_browser_csv.py.)"""

from __future__ import annotations

import json
from pathlib import Path

from tests.kit.run_json import check_run_jsons


def test_run_json_is_the_canonical_run_its_measurements_as_rows(built_site: Path) -> None:
    """The download is the result file's content (compared with the YAML the contributor wrote),
    its measurements a row a line under their field names, laid out for reading and diffs."""
    assert check_run_jsons(built_site) >= 20


def test_statistics_equal_to_their_figure_are_written_once(built_site: Path) -> None:
    """The seed run's headline figures are means (run.latency_statistic): each mean is the
    figure its cell states, so it is named in "same" and not written again."""
    from tests.kit.project import REPO, SEED_RUN_ID, load_yaml

    published = json.loads((built_site / "runs" / f"{SEED_RUN_ID}.json").read_text())
    source = load_yaml((REPO / "content" / "runs" / f"{SEED_RUN_ID}.yaml").read_text())
    assert source["run"]["latency_statistic"] == "mean"
    decode = published["measurements"]["decode"]
    for figure in ("ttft_ms", "time_between_tokens_ms", "per_request_tokens_per_s"):
        assert decode["same"][f"statistics/{figure}/mean"] == figure
        assert f"statistics/{figure}/mean" not in decode["fields"]
        assert f"statistics/{figure}/p99" in decode["fields"]
    means = [
        cell["statistics"]["ttft_ms"]["mean"]
        for cell in source["measurements"]["decode"]
        if "statistics" in cell
    ]
    assert len(means) > 30
    row_text = "\n".join(json.dumps(row) for row in decode["rows"])
    assert all(json.dumps(mean) in row_text for mean in means)  # written once, as the figure
