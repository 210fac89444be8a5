"""`sitegen build --base-url`: the address the Pages workflow builds for, instead of sitegen.yaml's."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import SEED_RUN_ID, run_cli


def test_build_for_a_project_site(project: Path) -> None:
    assert run_cli(project, "collect") == 0
    assert run_cli(project, "build", "--base-url", "https://owner.github.io/llm-speed/") == 0
    index = (project / "_site" / "index.html").read_text()
    assert f'href="/llm-speed/runs/{SEED_RUN_ID}/"' in index
    assert f'href="/runs/{SEED_RUN_ID}/"' not in index
    assert "base_url: /\n" in (project / "sitegen.yaml").read_text()  # the file is not changed


@pytest.mark.parametrize("bad", ["owner.github.io/x/", "/no-trailing-slash", "https://x.org/a b/"])
def test_a_bad_base_url_is_refused(project: Path, bad: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert run_cli(project, "build", "--base-url", bad) == 1
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith(f"--base-url: {bad!r} is not a base URL: Where the site is served:")
    assert err[1] == "sitegen build: 1 problem; nothing was written"
