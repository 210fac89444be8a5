"""Which folder a build may replace: the output folder is deleted and rewritten by every
build, so a mistaken ``output_dir`` must never name a folder the project owns.

Refused always: the site folder itself, its content, templates, schema, state
(``.sitegen``) and version-control folders, and any folder inside or around one of them.
Refused unless told (``output_replace: true`` or ``--force-output``): an existing folder
that holds files but was not made by sitegen. A folder sitegen made holds ``MARKER``.
"""

from __future__ import annotations

import os
from pathlib import Path

from sitegen.config import CONFIG_NAME, Config
from sitegen.errors import Problem, SitegenError
from sitegen.site.output.staging import MARKER

# Folders of the project besides content/ and .sitegen/ that a build must never replace.
_OWNED_NAMES = ("templates", "schema", ".git", ".hg", ".svn", ".github")


def owned_folders(config: Config) -> list[tuple[Path, str]]:
    """The project's own folders, resolved, with how a message names them."""
    folders = [
        (config.root, "the site folder (where sitegen.yaml is)"),
        (config.content_dir, "the content folder"),
        (config.state_dir, "sitegen's state folder (.sitegen)"),
    ]
    folders += [(config.root / name, f"the project's {name} folder") for name in _OWNED_NAMES]
    resolved = []
    for folder, what in folders:
        try:
            resolved.append((folder.resolve(), what))
        except (OSError, RuntimeError):  # a link loop: it cannot be the output's parent anyway
            resolved.append((folder.absolute(), what))
    return resolved


def check_output_folder(config: Config, replace: bool = False) -> None:
    """Raise SitegenError when a build must not replace ``config.output_dir``."""
    source = f"{CONFIG_NAME}: output_dir"
    try:
        output = config.output_dir.resolve()
    except (OSError, RuntimeError):
        raise SitegenError(
            Problem(
                source,
                None,
                "",
                f"{config.display(config.output_dir)} is a link loop; "
                "set output_dir to a plain folder such as _site",
            )
        ) from None
    for folder, what in owned_folders(config):
        # The output lives inside the site folder (config.load_config insists); any other
        # owned folder may neither be it, nor hold it, nor sit inside it.
        inside = folder in output.parents and folder != config.root.resolve()
        if output == folder or inside or output in folder.parents:
            relation = "is" if output == folder else "lies inside" if inside else "contains"
            raise SitegenError(
                Problem(
                    source,
                    None,
                    "",
                    f"{config.display(output)} {relation} {what}, which a build "
                    "would replace; set output_dir to a folder of its own, such as _site",
                )
            )
    if replace or config.output_replace or not os.path.isdir(output):
        return
    if os.path.isfile(os.path.join(output, MARKER)):
        return
    try:
        with os.scandir(output) as entries:
            empty = next(entries, None) is None
    except OSError as exc:
        raise SitegenError(
            Problem(str(config.display(output)), None, "", f"cannot read: {exc.strerror}")
        ) from None
    if not empty:
        raise SitegenError(
            Problem(
                config.display(output),
                None,
                "",
                "holds files that sitegen did not make, which a build "
                f"would delete; move them away, set output_dir to another folder, or let sitegen "
                f"replace them with `sitegen build --force-output` (or output_replace: true in "
                f"{CONFIG_NAME})",
            )
        )
