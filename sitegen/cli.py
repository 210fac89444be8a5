"""The command line: ``sitegen collect``, ``build``, ``import``, ``check``, ``summary``,
``serve``, ``new``, ``clean``, ``export``, ``verify``.

The only place that prints errors and chooses exit codes. It catches SitegenError,
prints one line per problem and returns 1; anything else is a bug and keeps its
traceback.
"""

from __future__ import annotations

import argparse
import difflib
import functools
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import NoReturn

from sitegen import __version__, progress
from sitegen.config import CONFIG_NAME, Config, find_config, load_config, with_site_url
from sitegen.errors import Problem, SitegenError, shown
from sitegen.gc_and_exit import end_process, ends_with_command
from sitegen.github import Level, annotation


@functools.cache
def _parser() -> argparse.ArgumentParser:
    """The command line's parser, made once a process: parsing leaves it as it was, and main()
    runs many times in one process where tools and tests call it."""
    parser = argparse.ArgumentParser(
        prog="sitegen",
        description="Static site of LLM inference benchmark results.",
        epilog="run `sitegen COMMAND --help` for a command's options and an example",
    )
    parser.add_argument("--version", action="version", version=f"sitegen {__version__}")
    parser.add_argument("--config", "-c", type=Path, default=None, help=_CONFIG_HELP)
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    collect = _command(
        commands,
        "collect",
        "gather and check every run into .sitegen/collected.json",
        "sitegen collect --offline",
    )
    collect.add_argument(
        "--offline",
        action="store_true",
        help="use only the cached copies of remote sources; never touch the network",
    )
    _add_format_argument(collect)
    build = _command(
        commands,
        "build",
        "render the collected runs into the output folder (_site/)",
        "sitegen build --site-url https://owner.github.io/repo/",
    )
    build.add_argument(
        "--site-url",
        metavar="URL",
        help="the site's absolute address for the feed, sitemap and canonical links, instead of "
        "sitegen.yaml's site_url, e.g. https://<owner>.github.io/<repo>/",
    )
    # The option of sitegen 0.x before links became relative; kept so old workflows get a clear
    # message.
    build.add_argument("--base-url", help=argparse.SUPPRESS)
    build.add_argument(
        "--force-output",
        action="store_true",
        help="replace the output folder even if it holds files sitegen did not make "
        "(never one of the project's own folders)",
    )
    _add_import_parser(commands)
    _add_contributor_parsers(commands)
    _add_quiet_argument(parser, commands)
    return parser


_CONFIG_HELP = (
    f"the site's config file (default: ./{CONFIG_NAME}, else the nearest one in a "
    "parent folder, up to the repository's root)"
)


def _command(
    commands: argparse._SubParsersAction[argparse.ArgumentParser],
    name: str,
    summary: str,
    example: str,
) -> argparse.ArgumentParser:
    """A verb's parser: its one-line summary, an example, and --config, which works after the
    verb too."""
    command = commands.add_parser(
        name,
        help=summary,
        description=summary[0].upper() + summary[1:] + ".",
        epilog=f"example:\n  {example}",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    # SUPPRESS: absent after the verb, the value given before it (or the default) stands.
    command.add_argument("--config", "-c", type=Path, default=argparse.SUPPRESS, help=_CONFIG_HELP)
    return command


def _add_quiet_argument(
    parser: argparse.ArgumentParser, commands: argparse._SubParsersAction[argparse.ArgumentParser]
) -> None:
    """``--quiet`` before or after the command (the command's own default left unset, so that
    it does not undo the option given before it)."""
    quiet_help = (
        "no progress and no table of times for collect and build; problems and warnings still shown"
    )
    parser.add_argument("--quiet", "-q", action="store_true", help=quiet_help)
    for command in commands.choices.values():
        command.add_argument(
            "--quiet", "-q", action="store_true", default=argparse.SUPPRESS, help=quiet_help
        )


def _add_format_argument(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "--format",
        choices=("text", "github"),
        default="text",
        help="github: print problems as GitHub Actions annotations on their file and line",
    )


def _add_contributor_parsers(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    _add_check(commands)
    _add_summary(commands)
    _add_serve(commands)
    _add_verify(commands)
    _add_clean(commands)
    _add_new(commands)
    _add_export(commands)


def _add_check(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    check = _command(
        commands,
        "check",
        "check result files (default: all of content/runs/); writes nothing",
        "sitegen check content/runs/h200nvl2-sglang-qwen3-8b.yaml",
    )
    check.add_argument(
        "files",
        nargs="*",
        type=Path,
        metavar="FILE",
        help="result files, raw-output folders or files inside one",
    )
    _add_format_argument(check)


def _add_summary(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    summary = _command(
        commands,
        "summary",
        "Markdown for a pull request's job summary: the runs it changes",
        "git diff --name-status origin/main...HEAD | sitegen summary --changed -",
    )
    summary.add_argument(
        "--changed",
        type=Path,
        required=True,
        metavar="FILE",
        help="the output of `git diff --name-status BASE...HEAD` ('-' for standard input)",
    )
    summary.add_argument(
        "--preview-url", metavar="URL", help="where reviewers download the built site"
    )
    summary.add_argument(
        "--annotate",
        action="store_true",
        help="also write each regression and improvement of an added run as a "
        "GitHub annotation on its file (to standard error)",
    )
    summary.add_argument(
        "--fail-on-regression",
        action="store_true",
        help="exit 1 when an added run regressed against the previous run of its setup",
    )


def _add_serve(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    serve = _command(
        commands,
        "serve",
        "build and serve the site on 127.0.0.1, rebuilding on changes",
        "sitegen serve --port 8080",
    )
    serve.add_argument(
        "--port",
        type=_port,
        default=8000,
        help="the port on 127.0.0.1 (default: 8000; 0 picks a free one)",
    )
    serve.add_argument(
        "--no-watch",
        dest="watch",
        action="store_false",
        help="build once; do not rebuild on changes",
    )
    serve.add_argument(
        "--offline", action="store_true", help="use only the cached copies of remote sources"
    )


def _add_verify(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    verify = _command(
        commands,
        "verify",
        "check runs against their raw files and the published site, figure by "
        "figure; writes nothing",
        "sitegen verify h200nvl2-sglang-deepseek-v4-flash-dspark",
    )
    verify.add_argument(
        "runs", nargs="*", metavar="RUN", help="run ids or their files (default: every run)"
    )
    verify.add_argument(
        "--raw",
        type=Path,
        action="append",
        default=[],
        metavar="FOLDER",
        help="a folder holding raw files the receipts name (besides the project's folder)",
    )
    verify.add_argument(
        "--site",
        metavar="URL_OR_FOLDER",
        help="the published site to check (default: the output folder, when built)",
    )
    _add_format_argument(verify)


def _add_clean(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    _command(
        commands,
        "clean",
        "empty sitegen's caches in .sitegen/ (charts, remote copies, build records)",
        "sitegen clean",
    )


def _add_new(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    new = _command(
        commands,
        "new",
        "start content/runs/<id>.yaml from an annotated template",
        "sitegen new h100x2-vllm-llama33-70b",
    )
    new.add_argument(
        "run_id",
        metavar="ID",
        help="the run id: file name and permalink, e.g. h100x2-vllm-llama33-70b",
    )


def _add_export(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    export = _command(
        commands,
        "export",
        "write runs in another format: llm-d Benchmark Reports v0.2",
        "sitegen export h100x2-nim-llama33-70b-fp8 --format benchmark-report",
    )
    export.add_argument(
        "runs", nargs="+", metavar="RUN", help="run ids of content/runs/, or result files"
    )
    export.add_argument(
        "--format",
        dest="export_format",
        choices=("benchmark-report",),
        required=True,
        help="benchmark-report: a folder per run, a report per measured decode cell",
    )
    export.add_argument(
        "--output",
        type=Path,
        default=Path("benchmark-reports"),
        metavar="DIR",
        help="where the run folders go (default: ./benchmark-reports)",
    )


def _port(text: str) -> int:
    if not text.isdigit() or int(text) > 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number (0 to 65535)")
    return int(text)


def _add_import_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    command = _command(
        commands,
        "import",
        "turn raw benchmark output into content/runs/<id>.yaml",
        "sitegen import benchmark_results.json --meta run.yaml",
    )
    command.add_argument(
        "paths",
        nargs="+",
        type=Path,
        metavar="PATH",
        help="the raw files of one run, or folders holding them (a sweep becomes one run): "
        "llm-inference-bench, lil-bench, vLLM, SGLang, llama-bench, GuideLLM, GenAI-Perf, AIPerf",
    )
    command.add_argument(
        "--meta",
        type=Path,
        metavar="RUN_YAML",
        help="run.yaml with the hardware/engine/run facts the raw file lacks",
    )
    command.add_argument(
        "--id",
        dest="run_id",
        metavar="ID",
        help="the run id (file name and permalink); default: <accelerator><count>-<engine>-<model>",
    )
    command.add_argument(
        "--force", action="store_true", help="replace content/runs/<id>.yaml if it exists"
    )


def _print_problems(
    problems: Sequence[Problem], output: str = "text", level: Level = "error"
) -> None:
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
    print(
        f"collected {len(report.runs)} run{'s' if len(report.runs) != 1 else ''} into "
        f".sitegen/collected.json"
    )
    return 0


def _import(config: Config, args: argparse.Namespace) -> int:
    from sitegen.collect.importer import import_run

    report = import_run(
        config, args.paths, meta_path=args.meta, run_id=args.run_id, force=args.force
    )
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
            _progress(
                "--base-url: deprecated and ignored: links are relative now; pass --site-url URL "
                "for absolute "
                "feed, sitemap and canonical addresses"
            )
        else:
            _progress(
                f"--base-url: deprecated: pass --site-url {args.base_url} instead (read as "
                f"--site-url for now)"
            )
            config = with_site_url(config, args.base_url, "--base-url")
    if args.site_url is not None:
        config = with_site_url(config, args.site_url)
    summary = build(config, force_output=args.force_output)
    progress.done()
    for note in summary.notes:
        _progress(f"note: {note}")
    print(
        f"built {summary.pages} pages ({summary.pages_built} rendered, {summary.charts_rendered} "
        f"new charts) "
        f"into {config.display(config.output_dir)}/"
    )
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
    from sitegen.commands.summary import finding_annotations, pr_summary, setup_findings

    try:
        changed = (
            sys.stdin.read()
            if str(args.changed) == "-"
            else args.changed.read_text(encoding="utf-8")
        )
    except OSError as exc:
        raise SitegenError(
            Problem(str(args.changed), None, "", f"cannot read: {exc.strerror}")
        ) from None
    findings = setup_findings(config, changed)
    print(pr_summary(config, changed, preview_url=args.preview_url, findings=findings))
    if args.annotate:
        for line in finding_annotations(config, findings or []):
            print(line, file=sys.stderr)
    regressions = [item for item in findings or [] if item.change.verdict == "regression"]
    if args.fail_on_regression and regressions:
        noun = "regression" if len(regressions) == 1 else "regressions"
        _progress(
            f"{len(regressions)} {noun} against the previous run of a setup (--fail-on-regression)"
        )
        return 1
    return 0


def _serve(config: Config, args: argparse.Namespace) -> int:
    from sitegen.commands.serve import serve

    try:
        serve(
            config,
            args.config,
            port=args.port,
            watch_files=args.watch,
            offline=args.offline,
            say=lambda message: print(shown(message), flush=True),
        )
    except KeyboardInterrupt:
        print("stopped")  # Ctrl-C before the server was up; serve() handles it from then on
    return 0


def _verify(config: Config, args: argparse.Namespace) -> int:
    from sitegen.verify import run_id_of, verify

    report = verify(config, [run_id_of(name) for name in args.runs], args.raw, args.site)
    for note in report.notes:
        _progress(f"note: {note}")
    if report.problems:
        _print_problems(report.problems, args.format)
        count = len(report.problems)
        plural = "s" if count != 1 else ""
        print(f"sitegen verify: {count} difference{plural} or problem{plural}", file=sys.stderr)
        return 1
    count = len(report.checked)
    print(
        f"verified {count} run{'s' if count != 1 else ''}: every figure agrees with the files it "
        "came from"
    )
    return 0


def _new(config: Config, args: argparse.Namespace) -> int:
    from sitegen.commands.new import new_run

    path = config.display(new_run(config, args.run_id))
    print(f"wrote {path}: replace every <fill in: …> value, then run `sitegen check {path}`")
    print(
        "have raw benchmark output (llm-inference-bench, vLLM, SGLang, llama-bench, GuideLLM, "
        "AIPerf)? "
        "`sitegen import` fills most of it in for you (docs/importing.md)"
    )
    return 0


def _clean(config: Config, args: argparse.Namespace) -> int:
    from sitegen.commands.clean import clean

    cleaned = clean(config)
    if not cleaned.folders:
        print("nothing to clean")
        return 0
    folders = " and ".join(f"{config.display(folder)}/" for folder in cleaned.folders)
    print(
        f"removed {folders}: {cleaned.files} files, {cleaned.size / 1e6:.1f} MB; "
        "the collected runs are kept"
    )
    return 0


def _export(config: Config, args: argparse.Namespace) -> int:
    from sitegen.commands.export import export_runs

    for folder in export_runs(config, args.runs, args.output):
        print(f"wrote {folder}/ ({len(list(folder.glob('*.json')))} Benchmark Reports v0.2)")
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
    "clean": Command(_clean, locked=True),
    "export": Command(_export),
    "verify": Command(_verify, writes=False),
}


def _refuse_unknown_verb(parser: argparse.ArgumentParser, arguments: list[str]) -> None:
    """Refuse a mistyped verb with the closest one (argparse names only all the choices)."""
    verb = _first_positional(arguments)
    if verb is None or verb in COMMANDS:
        return
    close = difflib.get_close_matches(verb, COMMANDS, n=1, cutoff=0.5)
    hint = f"did you mean {close[0]!r}? " if close else ""
    parser.error(f"unknown command {verb!r}; {hint}the commands are {', '.join(COMMANDS)}")


def _first_positional(arguments: list[str]) -> str | None:
    # The verb is the first word that is neither an option nor the value of --config / -c.
    words = iter(arguments)
    for word in words:
        if word in ("--config", "-c"):
            next(words, None)
        elif word == "--":
            return next(words, None)
        elif not word.startswith("-"):
            return word
    return None


def _config_path(given: Path | None) -> Path:
    """--config as given, else the nearest sitegen.yaml (config.find_config), named on stderr
    when it is not the current folder's, so a user knows which site the command works on."""
    if given is not None:
        return given
    found = find_config(Path.cwd())
    if found.parent != Path.cwd().resolve() and found.is_file():
        print(f"sitegen: using {os.path.relpath(found)}", file=sys.stderr)
    return found


def run() -> NoReturn:
    """The ``sitegen`` command and ``python -m sitegen``: main(), then the process ends at once
    (gc_and_exit.end_process). Tests and tools call main(), which returns."""
    end_process(main(process_ends=True))


def main(argv: Sequence[str] | None = None, process_ends: bool = False) -> int:
    """Run one command; ``process_ends``: the process ends when it returns (run)."""
    parser = _parser()
    arguments = list(sys.argv[1:] if argv is None else argv)
    _refuse_unknown_verb(parser, arguments)
    args = parser.parse_args(arguments)
    args.config = _config_path(args.config)
    command = COMMANDS.get(args.command)
    if command is None:  # a parser entry without a handler: refuse rather than guess
        parser.error(f"unknown command {args.command!r}; the commands are {', '.join(COMMANDS)}")
    if process_ends and command.locked:
        ends_with_command()  # collect and build: see gc_and_exit.ends_with_command
    try:
        # collect and build write .sitegen/ anyway: keep compiled schema checks there
        # (not clean, which empties it)
        if command.locked and args.command != "clean":
            from sitegen.validate import keep_compiled_checks

            keep_compiled_checks(args.config.resolve().parent / ".sitegen" / "cache" / "validators")
        config = load_config(args.config)
        _print_problems(config.warnings, getattr(args, "format", "text"), "warning")
        if not command.locked:
            return command.run(config, args)
        from sitegen.lock import project_lock

        with (
            project_lock(config.state_dir, args.command),
            progress.reporting(args.command, quiet=args.quiet, state_dir=config.state_dir),
        ):
            return command.run(config, args)
    except SitegenError as error:
        _print_problems(error.problems, getattr(args, "format", "text"))
        count = len(error.problems)
        written = "; nothing was written" if command.writes else ""
        print(
            f"sitegen {args.command}: {count} problem{'s' if count != 1 else ''}{written}",
            file=sys.stderr,
        )
        return 1
