"""site_url (sitegen.yaml) and `sitegen build --site-url`: the absolute address, used only for
the feed, the sitemap and the canonical and og: tags; the old base_url setting is read with a
located deprecation message."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.kit.project import SEED_RUN_ID, run_cli


def _config(project: Path, extra: str) -> None:
    config = project / "sitegen.yaml"
    config.write_text(config.read_text() + extra)


def test_build_for_a_project_site(project: Path) -> None:
    before = (project / "sitegen.yaml").read_text()
    assert run_cli(project, "collect") == 0
    assert run_cli(project, "build", "--site-url", "https://owner.github.io/llm-speed/") == 0
    page = (project / "_site" / "runs" / SEED_RUN_ID / "index.html").read_text()
    assert (
        f'<link rel="canonical" href="https://owner.github.io/llm-speed/runs/{SEED_RUN_ID}/">'
        in page
    )
    assert 'href="../../index.html"' in page and "/llm-speed/runs" not in page.replace(
        "github.io/llm-speed/runs", ""
    )
    assert (project / "sitegen.yaml").read_text() == before  # the file is not changed


def test_site_url_in_the_config(project: Path) -> None:
    _config(project, "site_url: https://example.org/bench\n")
    assert run_cli(project, "collect") == 0
    assert run_cli(project, "build") == 0
    assert (
        "<loc>https://example.org/bench/</loc>" in (project / "_site" / "sitemap.xml").read_text()
    )


@pytest.mark.parametrize(
    "bad", ["owner.github.io/x/", "/a-path/", "https://x.org/a b/", "ftp://x.org/"]
)
def test_a_bad_site_url_is_refused(
    project: Path, bad: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_cli(project, "build", "--site-url", bad) == 1
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith(
        f"--site-url: {bad!r} is not an absolute http(s) address: The site's absolute address"
    )
    assert err[1] == "sitegen build: 1 problem; nothing was written"


def test_a_bad_site_url_in_the_config_is_located(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _config(project, "site_url: /bench/\n")
    assert run_cli(project, "build") == 1
    lines = (project / "sitegen.yaml").read_text().splitlines()
    assert capsys.readouterr().err.startswith(f"sitegen.yaml:{len(lines)}: /site_url: ")


def test_an_old_full_base_url_is_read_as_site_url_and_named(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _config(project, "base_url: https://example.org/old/\n")
    line = len((project / "sitegen.yaml").read_text().splitlines())
    assert run_cli(project, "collect") == 0
    assert run_cli(project, "build") == 0
    err = capsys.readouterr().err
    expected = (
        f"sitegen.yaml:{line}: /base_url: base_url is deprecated: write 'site_url: "
        f"https://example.org/old/' "
        "instead (read as site_url for now)"
    )
    assert err.count(expected) == 2  # once per command
    assert "<loc>https://example.org/old/</loc>" in (project / "_site" / "sitemap.xml").read_text()


def test_an_old_base_path_is_ignored_and_named(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _config(project, "base_url: /bench/\n")
    line = len((project / "sitegen.yaml").read_text().splitlines())
    assert run_cli(project, "collect") == 0
    assert run_cli(project, "build") == 0
    err = capsys.readouterr().err
    assert (
        f"sitegen.yaml:{line}: /base_url: base_url is deprecated and ignored: links are relative "
        f"now" in err
    )
    assert 'href="runs/' in (project / "_site" / "index.html").read_text()


def test_the_old_build_option_says_what_to_pass(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_cli(project, "collect") == 0
    assert run_cli(project, "build", "--base-url", "https://example.org/x/") == 0
    assert (
        "--base-url: deprecated: pass --site-url https://example.org/x/ instead"
        in capsys.readouterr().err
    )
    assert "<loc>https://example.org/x/</loc>" in (project / "_site" / "sitemap.xml").read_text()
    assert run_cli(project, "build", "--base-url", "/x/") == 0
    assert "--base-url: deprecated and ignored" in capsys.readouterr().err
    assert not (project / "_site" / "sitemap.xml").exists()
