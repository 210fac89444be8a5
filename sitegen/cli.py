"""The command line: ``sitegen collect``, ``sitegen build``.

The only place that prints errors and chooses exit codes. It catches SitegenError,
prints one line per problem and returns 1; anything else is a bug and keeps its
traceback.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from sitegen import __version__
from sitegen.config import CONFIG_NAME, Config, load_config
from sitegen.errors import Problem, SitegenError


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="sitegen", description="Static site of LLM inference benchmark results.")
    parser.add_argument("--version", action="version", version=f"sitegen {__version__}")
    parser.add_argument("--config", "-c", type=Path, default=Path(CONFIG_NAME),
                        help=f"the site's config file (default: ./{CONFIG_NAME})")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    collect = commands.add_parser("collect", help="gather and check every run into .sitegen/collected.json")
    collect.add_argument("--offline", action="store_true",
                         help="use only the cached copies of remote sources; never touch the network")
    commands.add_parser("build", help="render the collected runs into the output folder (_site/)")
    _add_import_parser(commands)
    return parser


def _add_import_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    command = commands.add_parser("import", help="turn raw benchmark output into content/runs/<id>.yaml")
    command.add_argument("path", type=Path, metavar="PATH",
                         help="benchmark_results.json, a lil-bench .json(.gz), or a folder holding one and run.yaml")
    command.add_argument("--meta", type=Path, metavar="RUN_YAML",
                         help="run.yaml with the hardware/engine/run facts the raw file lacks")
    command.add_argument("--id", dest="run_id", metavar="ID",
                         help="the run id (file name and permalink); default: <accelerator><count>-<engine>-<model>")
    command.add_argument("--force", action="store_true", help="replace content/runs/<id>.yaml if it exists")


def _print_problems(problems: Sequence[Problem]) -> None:
    for problem in problems:
        print(str(problem), file=sys.stderr)


def _progress(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def _collect(config: Config, offline: bool = False) -> int:
    from sitegen.collect import collect

    report = collect(config, offline=offline, progress=_progress)
    _print_problems(report.warnings)
    print(f"collected {len(report.runs)} run{'s' if len(report.runs) != 1 else ''} into .sitegen/collected.json")
    return 0


def _import(config: Config, args: argparse.Namespace) -> int:
    from sitegen.collect.importer import import_run

    report = import_run(config, args.path, meta_path=args.meta, run_id=args.run_id, force=args.force)
    for pointer in report.redacted:
        print(f"{args.path}: {pointer}: note: redacted a secret", file=sys.stderr)
    verb = "replaced" if report.replaced else "wrote"
    print(f"{verb} {config.display(report.path)}: {report.summary()}")
    return 0


def _build(config: Config) -> int:
    from sitegen.site.build import build

    summary = build(config)
    print(f"built {summary.pages} pages into {config.display(config.output_dir)}/")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        config = load_config(args.config)
        if args.command == "collect":
            return _collect(config, offline=args.offline)
        if args.command == "import":
            return _import(config, args)
        return _build(config)
    except SitegenError as error:
        _print_problems(error.problems)
        count = len(error.problems)
        print(f"sitegen {args.command}: {count} problem{'s' if count != 1 else ''}; nothing was written", file=sys.stderr)
        return 1
