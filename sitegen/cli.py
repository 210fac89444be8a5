"""The command line: ``sitegen collect``, ``build``, ``import``, ``check``, ``summary``, ``serve``, ``new``.

The only place that prints errors and chooses exit codes. It catches SitegenError,
prints one line per problem and returns 1; anything else is a bug and keeps its
traceback.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import NoReturn

from sitegen import __version__, progress
from sitegen.config import CONFIG_NAME, Config, load_config, with_site_url
from sitegen.errors import Problem, SitegenError, shown
from sitegen.github import Level, annotation
from sitegen.lifetime import end_process, ends_with_command


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="sitegen", description="Static site of LLM inference benchmark results.")
    parser.add_argument("--version", action="version", version=f"sitegen {__version__}")
    parser.add_argument("--config", "-c", type=Path, default=Path(CONFIG_NAME),
                        help=f"the site's config file (default: ./{CONFIG_NAME})")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    collect = commands.add_parser("collect", help="gather and check every run into .sitegen/collected.json")
    collect.add_argument("--offline", action="store_true",
                         help="use only the cached copies of remote sources; never touch the network")
    _add_format_argument(collect)
    build = commands.add_parser("build", help="render the collected runs into the output folder (_site/)")
    build.add_argument("--site-url", metavar="URL",
                       help="the site's absolute address for the feed, sitemap and canonical links, instead of "
                            "sitegen.yaml's site_url, e.g. https://<owner>.github.io/<repo>/")
    # The option of sitegen 0.x before links became relative; kept so old workflows get a clear message.
    build.add_argument("--base-url", help=argparse.SUPPRESS)
    build.add_argument("--force-output", action="store_true",
                       help="replace the output folder even if it holds files sitegen did not make "
                            "(never one of the project's own folders)")
    _add_import_parser(commands)
    _add_contributor_parsers(commands)
    _add_quiet_argument(parser, commands)
    return parser


def _add_quiet_argument(parser: argparse.ArgumentParser,
                        commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """``--quiet`` before or after the command (the command's own default left unset, so that
    it does not undo the option given before it)."""
    quiet_help = ("no progress and no table of times for collect and build; problems and "
                  "warnings still shown")
    parser.add_argument("--quiet", "-q", action="store_true", help=quiet_help)
    for command in commands.choices.values():
        command.add_argument("--quiet", "-q", action="store_true", default=argparse.SUPPRESS,
                             help=quiet_help)


def _add_format_argument(command: argparse.ArgumentParser) -> None:
    command.add_argument("--format", choices=("text", "github"), default="text",
                         help="github: print problems as GitHub Actions annotations on their file and line")


def _add_contributor_parsers(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    check = commands.add_parser("check", help="check result files (default: all of content/runs/); writes nothing")
    check.add_argument("files", nargs="*", type=Path, metavar="FILE",
                       help="result files, raw-output folders or files inside one")
    _add_format_argument(check)
    summary = commands.add_parser("summary", help="Markdown for a pull request's job summary: the runs it changes")
    summary.add_argument("--changed", type=Path, required=True, metavar="FILE",
                         help="the output of `git diff --name-status BASE...HEAD` ('-' for standard input)")
    summary.add_argument("--preview-url", metavar="URL", help="where reviewers download the built site")
    serve = commands.add_parser("serve", help="build and serve the site on 127.0.0.1, rebuilding on changes")
    serve.add_argument("--port", type=_port, default=8000, help="the port on 127.0.0.1 (default: 8000; 0 picks a free one)")
    serve.add_argument("--no-watch", dest="watch", action="store_false", help="build once; do not rebuild on changes")
    serve.add_argument("--offline", action="store_true", help="use only the cached copies of remote sources")
    new = commands.add_parser("new", help="start content/runs/<id>.yaml from an annotated template")
    new.add_argument("run_id", metavar="ID", help="the run id: file name and permalink, e.g. h100x2-vllm-llama33-70b")


def _port(text: str) -> int:
    if not text.isdigit() or int(text) > 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number (0 to 65535)")
    return int(text)


def _add_import_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    command = commands.add_parser("import", help="turn raw benchmark output into content/runs/<id>.yaml")
    command.add_argument("paths", nargs="+", type=Path, metavar="PATH",
                         help="the raw files of one run, or folders holding them (a sweep becomes one run): "
                              "llm-inference-bench, lil-bench, vLLM, SGLang, llama-bench, GuideLLM, GenAI-Perf, AIPerf")
    command.add_argument("--meta", type=Path, metavar="RUN_YAML",
                         help="run.yaml with the hardware/engine/run facts the raw file lacks")
    command.add_argument("--id", dest="run_id", metavar="ID",
                         help="the run id (file name and permalink); default: <accelerator><count>-<engine>-<model>")
    command.add_argument("--force", action="store_true", help="replace content/runs/<id>.yaml if it exists")


def _print_problems(problems: Sequence[Problem], output: str = "text", level: Level = "error") -> None:
    for problem in problems:
        if output == "github":
            # Workflow commands are read from standard output.
            print(annotation(problem, level), flush=True)
        else:
            print(str(problem), file=sys.stderr)


def _progress(message: str) -> None:
    # Progress names URLs, which may carry credentials: shown like any problem.
    progress.say(shown(message))


def _collect(config: Config, args: argparse.Namespace) -> int:
    from sitegen.collect import collect

    report = collect(config, offline=args.offline, progress=_progress)
    progress.done()
    _print_problems(report.warnings, args.format, "warning")
    print(f"collected {len(report.runs)} run{'s' if len(report.runs) != 1 else ''} into .sitegen/collected.json")
    return 0


def _import(config: Config, args: argparse.Namespace) -> int:
    from sitegen.collect.importer import import_run

    report = import_run(config, args.paths, meta_path=args.meta, run_id=args.run_id, force=args.force)
    for skipped, why in report.skipped:
        print(f"{skipped}: note: {why}; skipped", file=sys.stderr)
    for pointer in report.redacted:
        print(f"{args.paths[0]}: {pointer}: note: redacted a secret", file=sys.stderr)
    verb = "replaced" if report.replaced else "wrote"
    print(f"{verb} {config.display(report.path)}: {report.summary()}")
    return 0


def _build(config: Config, args: argparse.Namespace) -> int:
    from sitegen.site.build import build

    if args.base_url is not None:
        if args.site_url is not None or not args.base_url.startswith(("http://", "https://")):
            _progress("--base-url: deprecated and ignored: links are relative now; pass --site-url URL for absolute "
                      "feed, sitemap and canonical addresses")
        else:
            _progress(f"--base-url: deprecated: pass --site-url {args.base_url} instead (read as --site-url for now)")
            config = with_site_url(config, args.base_url, "--base-url")
    if args.site_url is not None:
        config = with_site_url(config, args.site_url)
    summary = build(config, force_output=args.force_output)
    progress.done()
    for note in summary.notes:
        _progress(f"note: {note}")
    print(f"built {summary.pages} pages ({summary.pages_built} rendered, {summary.charts_rendered} new charts) "
          f"into {config.display(config.output_dir)}/")
    return 0


def _check(config: Config, args: argparse.Namespace) -> int:
    from sitegen.commands.check import check_files

    report = check_files(config, args.files)
    _print_problems(report.warnings, args.format, "warning")
    if report.problems:
        raise SitegenError(report.problems)
    count = len(report.checked)
    print(f"checked {count} run{'s' if count != 1 else ''}: no problems")
    return 0


def _summary(config: Config, args: argparse.Namespace) -> int:
    from sitegen.commands.summary import pr_summary

    try:
        changed = sys.stdin.read() if str(args.changed) == "-" else args.changed.read_text(encoding="utf-8")
    except OSError as exc:
        raise SitegenError(Problem(str(args.changed), None, "", f"cannot read: {exc.strerror}")) from None
    print(pr_summary(config, changed, preview_url=args.preview_url))
    return 0


def _serve(config: Config, args: argparse.Namespace) -> int:
    from sitegen.commands.serve import serve

    try:
        serve(config, args.config, port=args.port, watch_files=args.watch, offline=args.offline,
              say=lambda message: print(shown(message), flush=True))
    except KeyboardInterrupt:
        print("stopped")  # Ctrl-C before the server was up; serve() handles it from then on
    return 0


def _new(config: Config, args: argparse.Namespace) -> int:
    from sitegen.commands.new import new_run

    path = config.display(new_run(config, args.run_id))
    print(f"wrote {path}: replace every <fill in: …> value, then run `sitegen check {path}`")
    print("have raw benchmark output (llm-inference-bench, vLLM, SGLang, llama-bench, GuideLLM, AIPerf)? "
          "`sitegen import` fills most of it in for you (docs/importing.md)")
    return 0


@dataclass(frozen=True)
class Command:
    """How main runs a command: its function, whether it writes (a failure then says
    "nothing was written"), and whether it takes the project lock (sitegen/lock.py), so that
    only one collect or build runs at a time per project."""

    run: Callable[[Config, argparse.Namespace], int]
    writes: bool = True
    locked: bool = False


COMMANDS = {
    "collect": Command(_collect, locked=True),
    "build": Command(_build, locked=True),
    "import": Command(_import),
    "check": Command(_check, writes=False),
    "summary": Command(_summary, writes=False),
    "serve": Command(_serve),
    "new": Command(_new),
}


def run() -> NoReturn:
    """The ``sitegen`` command and ``python -m sitegen``: main(), then the process ends at once
    (lifetime.end_process). Tests and tools call main(), which returns."""
    end_process(main(process_ends=True))


def main(argv: Sequence[str] | None = None, process_ends: bool = False) -> int:
    """Run one command; ``process_ends``: the process ends when it returns (run)."""
    parser = _parser()
    args = parser.parse_args(argv)
    command = COMMANDS.get(args.command)
    if command is None:  # a parser entry without a handler: refuse rather than guess
        parser.error(f"unknown command {args.command!r}; the commands are {', '.join(COMMANDS)}")
    if process_ends and command.locked:
        ends_with_command()  # collect and build: see lifetime.ends_with_command
    try:
        if command.locked:  # collect and build write .sitegen/ anyway: keep compiled schema checks there
            from sitegen.validate import keep_compiled_checks

            keep_compiled_checks(args.config.resolve().parent / ".sitegen" / "cache" / "validators")
        config = load_config(args.config)
        _print_problems(config.warnings, getattr(args, "format", "text"), "warning")
        if not command.locked:
            return command.run(config, args)
        from sitegen.lock import project_lock

        with project_lock(config.state_dir, args.command), \
                progress.reporting(args.command, quiet=args.quiet, state_dir=config.state_dir):
            return command.run(config, args)
    except SitegenError as error:
        _print_problems(error.problems, getattr(args, "format", "text"))
        count = len(error.problems)
        written = "; nothing was written" if command.writes else ""
        print(f"sitegen {args.command}: {count} problem{'s' if count != 1 else ''}{written}", file=sys.stderr)
        return 1
