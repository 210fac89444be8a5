"""Adapters turn foreign formats into canonical result documents before validation,
so that the schema stays the single contract. One module per foreign format.
"""

from __future__ import annotations

from pathlib import Path

from sitegen.errors import Problem, SitegenError
from sitegen.parse import Document


def adapt_raw(results: Document, meta: Document | None, source: str) -> Document:
    """A raw tool output document (plus its run.yaml metadata) as a canonical result document."""
    raise SitegenError(Problem(source, None, "", "raw benchmark output is not supported yet"))


def adapt_folder(folder: Path, source: str) -> Document:
    """A raw-output folder (``content/runs/<id>/``) as a canonical result document."""
    raise SitegenError(Problem(source, None, "", "raw benchmark output folders are not supported yet"))
