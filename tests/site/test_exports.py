"""The run's canonical JSON download, against the YAML the contributor wrote. (The run CSV is
made from this JSON in the reader's browser: tests/browser/test_browser_csv.py.)"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from tests.kit.run_json import phase_records, published_measurements


def test_run_json_is_the_canonical_run_its_measurements_as_rows(built_site: Path) -> None:
    """The download is the result file's content (compared with the YAML the contributor wrote),
    its measurements a row a line under their field names, laid out for reading and diffs."""
    from tests.kit.project import REPO, load_yaml

    compared = 0
    for path in sorted((built_site / "runs").glob("*.json")):
        text = path.read_text()
        published = json.loads(text)
        assert published.pop("run_json_version") == 3
        measurements = published.pop("measurements")
        lines = text.splitlines()
        # Field names once a phase, then a row a line.
        rows = [line for line in lines if line.startswith("[")]
        assert all(isinstance(json.loads(line.rstrip(",")), list) for line in rows)
        assert len(rows) == sum(len(phase["rows"]) for phase in measurements.values())
        source = REPO / "content" / "runs" / f"{path.stem}.yaml"
        if source.is_file():
            # The receipt the site adds: the file's digest (worked out here) and the versions.
            receipt = published.pop("receipt")
            digest = hashlib.sha256(source.read_bytes()).hexdigest()
            assert receipt["result_file"] == {
                "file": f"content/runs/{source.name}",
                "bytes": source.stat().st_size,
                "sha256": digest,
            }
            assert receipt["schema_version"] == str(published["schema_version"])
            original = load_yaml(source.read_text())
            # Its figures at the published precision (docs/result-format.md, "Precision").
            expected = published_measurements(original).pop("measurements")
            original.pop("measurements")
            assert published == original
            assert {phase: phase_records(rows) for phase, rows in measurements.items()} == expected
            compared += 1
        assert not any(line.startswith(" ") for line in lines)
    assert compared >= 20


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
