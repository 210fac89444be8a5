"""The command line dispatches every command one way, through one table, and refuses an
unknown command with a message naming the commands (never falling through to another)."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from sitegen import cli
from tests.conftest import run_cli


def _parser_commands() -> set[str]:
    parser = cli._parser()
    actions = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    assert len(actions) == 1
    return set(actions[0].choices)


def test_every_command_of_the_parser_has_exactly_one_handler() -> None:
    commands = {"collect", "build", "import", "check", "summary", "serve", "new", "verify"}
    assert set(cli.COMMANDS) == _parser_commands() == commands


def test_an_unknown_command_is_refused(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        run_cli(project, "biuld")
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert "invalid choice: 'biuld'" in err and "collect" in err
    assert not (project / "_site").exists()  # nothing was built


def test_a_command_without_a_handler_is_refused_not_built(project: Path, capsys: pytest.CaptureFixture[str],
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    # A parser entry someone adds without a handler must not fall through to another command.
    handlers = dict(cli.COMMANDS)
    del handlers["new"]
    monkeypatch.setattr(cli, "COMMANDS", handlers)
    with pytest.raises(SystemExit) as stopped:
        run_cli(project, "new", "some-run")
    assert stopped.value.code == 2
    assert "unknown command 'new'; the commands are collect, build, import, check, summary, serve" in capsys.readouterr().err
    assert not (project / "content" / "runs" / "some-run.yaml").exists() and not (project / "_site").exists()


def test_read_only_commands_do_not_say_nothing_was_written(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "content" / "runs" / "broken.yaml").write_text("hardware: [\n")
    assert run_cli(project, "check") == 1
    assert capsys.readouterr().err.splitlines()[-1] == "sitegen check: 1 problem"
    assert run_cli(project, "collect") == 1
    assert capsys.readouterr().err.splitlines()[-1] == "sitegen collect: 1 problem; nothing was written"
