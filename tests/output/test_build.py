"""`sitegen build`: reads only the collected file, writes the whole site, escapes everything
from result files, gives the same bytes for the same input, and leaves alone what is not its
own. Incremental builds: tests/incremental/test_incremental_build.py; a build cut short:
test_crash_safety.py; the spare: tests/incremental/test_spare.py."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from tests.kit.builds import MINIMAL
from tests.kit.project import REPO, SEED_RUN_ID, run_cli, site_files


def test_build_without_collect_asks_for_collect(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_cli(project, "build") == 1
    err = capsys.readouterr().err
    assert ".sitegen/collected.json: not found; run `sitegen collect` first" in err
    assert not (project / "_site").exists()


@pytest.mark.parametrize(
    ("version", "message"),
    [
        (0, "was written by an older sitegen (format 0); run `sitegen collect` to upgrade it"),
        (99, "was written by a newer sitegen (format 99"),
    ],
)
def test_outdated_collected_file(
    project: Path, capsys: pytest.CaptureFixture[str], version: int, message: str
) -> None:
    assert run_cli(project, "collect") == 0
    path = project / ".sitegen" / "collected.json"
    document = json.loads(path.read_text())
    document["version"] = version
    path.write_text(json.dumps(document))
    assert run_cli(project, "build") == 1
    assert message in capsys.readouterr().err


def test_site_layout(shipped: Path) -> None:
    site = shipped / "_site"
    for path in (
        "index.html",
        "404.html",
        f"runs/{SEED_RUN_ID}/index.html",
        f"runs/{SEED_RUN_ID}.json",
        "assets/style.css",
        "assets/site.js",
    ):
        assert (site / path).is_file(), path
    # The run CSV is made by the reader's browser from the JSON
    # (tests/browser/test_browser_csv.py), not shipped.
    assert not list(site.rglob("*.csv"))
    index = (site / "index.html").read_text()
    run_ids = sorted(p.stem for p in (shipped / "content" / "runs").glob("*.yaml"))
    for run_id in run_ids:
        assert f'href="runs/{run_id}/index.html"' in index
    exported = json.loads((site / "runs" / f"{SEED_RUN_ID}.json").read_text())
    assert exported["run"]["model"] == "deepseek-ai/DeepSeek-V4-Flash-DSpark"
    assert exported["run_json_version"] == 3  # measurements as rows (docs/result-format.md)
    assert (
        len(exported["measurements"]["prefill"]["rows"]) == 9
        and len(exported["measurements"]["decode"]["rows"]) == 64
    )


def test_same_input_gives_identical_bytes(project: Path) -> None:
    keep = {
        SEED_RUN_ID,
        "rtx6kpro4x-vllm-qwen35-397b-nvfp4-nomtp",
        "rtx6kpro4x-vllm-qwen35-397b-awq-mtp",
    }
    for path in (project / "content" / "runs").iterdir():
        if path.stem not in keep:
            path.unlink()  # a few runs, one comparison: enough to render every kind of chart cold
    assert run_cli(project, "collect") == 0
    assert run_cli(project, "build") == 0
    first = site_files(project / "_site")
    (
        project / ".sitegen" / "cache"
    ).unlink()  # without the shared cache: cold charts must render the same SVG
    assert run_cli(project, "build") == 0
    assert site_files(project / "_site") == first


def test_pages_reference_no_other_host(shipped: Path) -> None:
    for page in (shipped / "_site").rglob("*.html"):
        html = page.read_text()
        for attribute, url in re.findall(r'\b(src|srcset|data-spec)="([^"]*)"', html):
            assert not urlsplit(url).scheme and not url.startswith("//"), (page, attribute, url)
        for url in re.findall(r'<link [^>]*href="([^"]*)"', html):
            assert not urlsplit(url).scheme and not url.startswith("//"), (page, url)
    for chart in (shipped / "_site" / "assets" / "charts").glob("*.svg"):
        assert b'href="http' not in chart.read_bytes()


def test_hostile_text_is_escaped(project: Path) -> None:
    runs = project / "content" / "runs"
    text = MINIMAL.read_text()
    text = text.replace("accelerator: RTX 4090", "accelerator: '<img src=x onerror=alert(1)>'")
    text = text.replace(
        "model: Qwen/Qwen3-8B",
        "model: '\"><script>alert(1)</script>'\n  notes: '<script>alert(2)</script> "
        "[x](javascript:alert(3))'",
    )
    text = text.replace(
        "name: llama.cpp",
        "name: llama.cpp\n  repository: 'javascript:alert(4)'\n"
        "  launch_command: '</code><script>alert(5)</script>'",
    )
    (runs / "hostile.yaml").write_text(text)
    assert run_cli(project, "collect") == 0
    assert run_cli(project, "build") == 0
    html = (project / "_site" / "runs" / "hostile" / "index.html").read_text()
    assert "<script>alert" not in html
    assert "<img src=x" not in html
    assert 'href="javascript:' not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    index = (project / "_site" / "index.html").read_text()
    assert "<script>alert" not in index


def test_failed_build_leaves_previous_site(built: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = site_files(built / "_site")
    templates = built / "templates"
    shutil.copytree(REPO / "templates", templates)
    (templates / "pages" / "run.html").write_text(
        "{% extends 'base.html' %}{% block main %}{{ page.nope }}{% endblock %}"
    )
    with pytest.raises(Exception, match="nope"):
        run_cli(built, "build")
    assert site_files(built / "_site") == before
    assert not list(built.glob("._site.*")), "staging folders are cleaned up"


def test_unwritable_output_is_a_clear_error(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_cli(project, "collect") == 0
    (project / "_site").write_text("a file where the output folder should be")
    assert run_cli(project, "build") == 1
    err = capsys.readouterr().err
    assert "_site" in err and "Traceback" not in err


@pytest.mark.parametrize("how", ["--force-output", "output_replace"])
def test_a_foreign_output_folder_is_replaced_only_when_told(
    project: Path, capsys: pytest.CaptureFixture[str], how: str
) -> None:
    assert run_cli(project, "collect") == 0
    docs = project / "docs"
    docs.mkdir()
    (docs / "guide.md").write_text("# someone's guide\n")
    config = project / "sitegen.yaml"
    config.write_text(config.read_text() + "output_dir: docs\n")
    assert run_cli(project, "build") == 1
    assert "docs: holds files that sitegen did not make" in capsys.readouterr().err
    assert (docs / "guide.md").read_text() == "# someone's guide\n"
    if how == "output_replace":
        config.write_text(config.read_text() + "output_replace: true\n")
        assert run_cli(project, "build") == 0
    else:
        assert run_cli(project, "build", "--force-output") == 0
    assert not (docs / "guide.md").exists() and (docs / "index.html").is_file()
    assert (docs / ".sitegen-output").is_file()
    if how == "output_replace":
        config.write_text(config.read_text().replace("output_replace: true\n", ""))
    assert run_cli(project, "build") == 0  # a folder sitegen made is its own to replace


def test_an_empty_output_folder_is_used(project: Path) -> None:
    assert run_cli(project, "collect") == 0
    (project / "_site").mkdir()
    assert run_cli(project, "build") == 0
    assert (project / "_site" / "index.html").is_file()


def test_force_output_never_replaces_the_projects_own_folders(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_cli(project, "collect") == 0
    config = project / "sitegen.yaml"
    before = site_files(project / "content")
    config.write_text(config.read_text() + "output_dir: content\noutput_replace: true\n")
    assert run_cli(project, "build", "--force-output") == 1
    assert "output_dir: content is the content folder" in capsys.readouterr().err
    assert site_files(project / "content") == before


def test_characters_xml_forbids_never_reach_an_xml_file(project: Path) -> None:
    # sitegen.yaml is not a result file, so its text is not checked like one; the feed must still
    # parse.
    from xml.etree import ElementTree

    config = project / "sitegen.yaml"
    text = config.read_text()
    assert "title: LLM inference speed tests\n" in text
    config.write_text(
        text.replace(
            "title: LLM inference speed tests\n", 'title: "Speed\\x01 tests\\uffff\\x1b"\n'
        )
    )
    assert run_cli(project, "collect") == 0
    # With a site_url, or there is no sitemap (its protocol allows only absolute URLs).
    assert run_cli(project, "build", "--site-url", "https://example.org/bench/") == 0
    for name in ("feed.xml", "sitemap.xml"):
        ElementTree.fromstring(
            (project / "_site" / name).read_bytes()
        )  # raises on a forbidden character
    assert b"<title>Speed tests</title>" in (project / "_site" / "feed.xml").read_bytes()


@pytest.mark.parametrize(
    "name",
    [
        "index.html",
        "runs/a/index.html",
        "assets/charts/x.svg",
        "",
        "/etc/passwd",
        "../x",
        "a/../b",
        "a/./b",
        "./a",
        "a//b",
        "a/",
        "..",
        ".",
        "a/b/..",
        "a\0b",
        "...",
        "a/.../b",
        ".a/b.",
        "a/..b",
        "./.",
        "/",
        "//",
        "a/b/.",
    ],
)
def test_a_kept_or_written_name_is_a_plain_path_inside_the_site(name: str) -> None:
    # The fast test must agree with the path library's reading: relative, normalised, no "..".
    from pathlib import PurePosixPath

    from sitegen.site.incremental.folder_records import plain_relative

    path = PurePosixPath(name)
    expected = (
        bool(path.parts)
        and not path.is_absolute()
        and ".." not in path.parts
        and path.as_posix() == name
        and "\0" not in name
    )
    assert plain_relative(name) is expected


def test_what_a_feed_drops_is_exactly_what_xml_does_not_allow() -> None:
    """Every code point, against XML 1.0's Char production (section 2.2): #x9 | #xA | #xD |
    [#x20-#xD7FF] | [#xE000-#xFFFD] | [#x10000-#x10FFFF]."""
    from sitegen.site.render import _NOT_XML

    def allowed(point: int) -> bool:
        return (
            point in (0x9, 0xA, 0xD)
            or 0x20 <= point <= 0xD7FF
            or 0xE000 <= point <= 0xFFFD
            or 0x10000 <= point <= 0x10FFFF
        )

    text = "".join(map(chr, range(0x110000)))
    kept = _NOT_XML.sub("", text)
    assert kept == "".join(chr(point) for point in range(0x110000) if allowed(point))
