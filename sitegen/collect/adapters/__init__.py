"""Adapters turn foreign formats into canonical result documents before validation,
so that the schema stays the single contract. One module per foreign format.
"""

from __future__ import annotations

from pathlib import Path

from sitegen.parse import Document
from sitegen.errors import Problem, SitegenError


def adapt_folder(folder: Path, source: str) -> Document:
    """A raw-output folder (``content/runs/<id>/``) as a canonical result document."""
    raise SitegenError(Problem(source, None, "", "raw benchmark output folders are not supported yet"))
