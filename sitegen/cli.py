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
    commands.add_parser("collect", help="gather and check every run into .sitegen/collected.json")
    commands.add_parser("build", help="render the collected runs into the output folder (_site/)")
    return parser


def _print_problems(problems: Sequence[Problem], stream: object = None) -> None:
    out = stream or sys.stderr
    for problem in problems:
        print(str(problem), file=out)  # type: ignore[call-overload]


def _collect(config: Config) -> int:
    from sitegen.collect import collect

    report = collect(config)
    _print_problems(report.warnings)
    print(f"collected {len(report.runs)} run{'s' if len(report.runs) != 1 else ''} into .sitegen/collected.json")
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
            return _collect(config)
        return _build(config)
    except SitegenError as error:
        _print_problems(error.problems)
        count = len(error.problems)
        print(f"sitegen {args.command}: {count} problem{'s' if count != 1 else ''}; nothing was written", file=sys.stderr)
        return 1
