"""``sitegen new <id>``: start ``content/runs/<id>.yaml`` from an annotated template.

Every field of the result format is in the template, with a comment saying what it holds;
the required ones carry a ``<fill in: …>`` placeholder that ``sitegen check`` reports, by
line, with what belongs there, until the contributor has replaced it. For raw benchmark
output the template points to ``sitegen import``, which fills it in instead.
"""

from __future__ import annotations

from pathlib import Path

from sitegen.collect.local import RESULT_SUFFIXES, check_id
from sitegen.collect.result_yaml import schema_modeline
from sitegen.config import Config
from sitegen.errors import Problem, SitegenError
from sitegen.parse import parse_yaml
from sitegen.store import write_atomic

TEMPLATE = Path(__file__).with_name("run_template.yaml")


def template(display_path: str, modeline: str = "") -> str:
    """The template for a file shown as ``display_path``, after the schema modeline, if any."""
    return modeline + TEMPLATE.read_text(encoding="utf-8").replace("@PATH@", display_path)


def new_run(config: Config, run_id: str) -> Path:
    """Write the template as ``content/runs/<run_id>.yaml``; never replaces anything."""
    problem = check_id(run_id, "sitegen new")
    if problem:
        raise SitegenError(problem)
    # Any file or folder with this id would clash in collect; refuse rather than overwrite work.
    for other in [config.runs_dir / f"{run_id}{suffix}" for suffix in RESULT_SUFFIXES] + [
        config.runs_dir / run_id
    ]:
        if other.exists():
            raise SitegenError(
                Problem(
                    config.display(other),
                    None,
                    "",
                    f"already has the run id {run_id!r}; edit it, or choose another id",
                )
            )
    target = config.runs_dir / f"{run_id}.yaml"
    try:
        # The schema the template declares (its schema_version).
        modeline = schema_modeline(
            config, target, parse_yaml(TEMPLATE.name, TEMPLATE.read_bytes()).data
        )
        write_atomic(target, template(config.display(target), modeline).encode("utf-8"))
    except OSError as exc:
        raise SitegenError(
            Problem(config.display(target), None, "", f"cannot write: {exc.strerror}")
        ) from None
    return target
