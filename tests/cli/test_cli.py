"""The command line dispatches every command one way, through one table, and refuses an
unknown command with a message naming the commands (never falling through to another)."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from sitegen import cli
from tests.kit.project import run_cli


def _parser_commands() -> set[str]:
    parser = cli._parser()
    actions = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    assert len(actions) == 1
    return set(actions[0].choices)


def test_every_command_of_the_parser_has_exactly_one_handler() -> None:
    commands = {
        "collect",
        "build",
        "import",
        "check",
        "summary",
        "serve",
        "new",
        "clean",
        "export",
        "verify",
    }
    assert set(cli.COMMANDS) == _parser_commands() == commands


def test_an_unknown_command_is_refused(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        run_cli(project, "biuld")
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert (
        "unknown command 'biuld'; did you mean 'build'? the commands are collect, build, import"
    ) in err
    assert not (project / "_site").exists()  # nothing was built


@pytest.mark.parametrize(
    ("typed", "meant"),
    [
        ("biuld", "build"),
        ("colect", "collect"),
        ("chekc", "check"),
        ("srve", "serve"),
        ("imprt", "import"),
    ],
)
def test_a_mistyped_command_suggests_the_closest(
    typed: str, meant: str, project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as stopped:
        cli.main([typed, "--config", str(project / "sitegen.yaml")])
    assert stopped.value.code == 2
    assert f"unknown command {typed!r}; did you mean {meant!r}?" in capsys.readouterr().err


def test_a_word_like_no_command_gets_no_suggestion(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        run_cli(project, "xyzzy")
    err = capsys.readouterr().err
    assert "unknown command 'xyzzy'; the commands are" in err and "did you mean" not in err


def test_config_works_before_and_after_the_command(
    project: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)  # no sitegen.yaml here nor above: only --config can find the site
    config = str(project / "sitegen.yaml")
    runs = len(
        [p for p in (project / "content" / "runs").iterdir() if p.suffix == ".yaml" or p.is_dir()]
    )
    for arguments in (
        ["--config", config, "check"],
        ["check", "--config", config],
        ["check", "-c", config],
    ):
        assert cli.main(arguments) == 0, arguments
        assert capsys.readouterr().out == f"checked {runs} runs: no problems\n"
    assert cli.main(["check"]) == 1
    assert f"{elsewhere / 'sitegen.yaml'}: no sitegen.yaml here" in capsys.readouterr().err


def test_the_nearest_config_above_is_found_and_named(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    runs = project / "content" / "runs"
    monkeypatch.chdir(runs)
    assert cli.main(["check", "--format", "text"]) == 0
    captured = capsys.readouterr()
    assert captured.err == "sitegen: using ../../sitegen.yaml\n"
    assert captured.out.startswith("checked ")
    monkeypatch.chdir(project)
    assert cli.main(["check"]) == 0
    assert capsys.readouterr().err == ""  # the current folder's config goes without saying


def test_the_search_stops_at_the_repository_root(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A sitegen.yaml above the repository (a folder with .git) belongs to something else."""
    repository = project / "nested-repo"
    (repository / ".git").mkdir(parents=True)
    (repository / "docs").mkdir()
    monkeypatch.chdir(repository / "docs")
    assert cli.main(["check"]) == 1
    err = capsys.readouterr().err
    assert f"{repository / 'docs' / 'sitegen.yaml'}: no sitegen.yaml here" in err
    assert "using" not in err


@pytest.mark.parametrize(
    "verb", ["collect", "build", "import", "check", "summary", "serve", "new", "clean"]
)
def test_every_command_has_a_description_and_an_example(
    verb: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as stopped:
        cli.main([verb, "--help"])
    assert stopped.value.code == 0
    text = capsys.readouterr().out
    blocks = text.split("\n\n")
    description = blocks[1].strip()  # the block after "usage: …"
    assert "\n" not in description and description.endswith("."), description
    assert len(description) > 20, description
    example = blocks[-1].strip().splitlines()
    assert example[0] == "example:" and len(example) == 2, example
    assert f"sitegen {verb}" in example[1], example


def test_a_command_without_a_handler_is_refused_not_built(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # A parser entry someone adds without a handler must not fall through to another command.
    handlers = dict(cli.COMMANDS)
    del handlers["new"]
    monkeypatch.setattr(cli, "COMMANDS", handlers)
    with pytest.raises(SystemExit) as stopped:
        run_cli(project, "new", "some-run")
    assert stopped.value.code == 2
    assert (
        "unknown command 'new'; the commands are collect, build, import, check, summary, serve"
        in capsys.readouterr().err
    )
    assert (
        not (project / "content" / "runs" / "some-run.yaml").exists()
        and not (project / "_site").exists()
    )


def test_read_only_commands_do_not_say_nothing_was_written(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / "content" / "runs" / "broken.yaml").write_text("hardware: [\n")
    assert run_cli(project, "check") == 1
    assert capsys.readouterr().err.splitlines()[-1] == "sitegen check: 1 problem"
    assert run_cli(project, "collect") == 1
    assert (
        capsys.readouterr().err.splitlines()[-1]
        == "sitegen collect: 1 problem; nothing was written"
    )
