"""The run's canonical JSON download, against the YAML the contributor wrote. (The run CSV is
made from this JSON in the reader's browser: tests/browser/test_browser_csv.py.)"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path


def test_run_json_is_the_canonical_run_one_field_or_measurement_a_line(built_site: Path) -> None:
    """The download is the result file's content (compared with the YAML the contributor wrote)
    laid out for reading and diffs: a line per section field and per measurement, no indent."""
    import yaml

    from tests.kit.project import REPO

    for path in sorted((built_site / "runs").glob("*.json")):
        text = path.read_text()
        source = REPO / "content" / "runs" / f"{path.stem}.yaml"
        if source.is_file():
            published = json.loads(text)
            # The receipt the site adds: the file's digest (worked out here) and the versions.
            receipt = published.pop("receipt")
            digest = hashlib.sha256(source.read_bytes()).hexdigest()
            assert receipt["result_file"] == {
                "file": f"content/runs/{source.name}",
                "bytes": source.stat().st_size,
                "sha256": digest,
            }
            assert receipt["schema_version"] == str(published["schema_version"])
            assert published == yaml.safe_load(source.read_text())
        document = json.loads(text)
        lines = text.splitlines()
        measurements = sum(
            len(document["measurements"].get(phase, [])) for phase in ("prefill", "decode")
        )
        whole = [
            json.loads(line.rstrip(","))
            for line in lines
            if line.startswith("{") and line.rstrip(",").endswith("}")
        ]
        assert sum(1 for item in whole if "context_tokens" in item) == measurements
        assert not any(line.startswith(" ") for line in lines)
        assert len(text.encode()) < len(json.dumps(document, indent=1).encode())
