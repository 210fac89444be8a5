"""Where sitegen's own files live: the schemas and the default templates.

In a source checkout (or an editable install) they are the top-level ``schema/`` and
``templates/`` folders; a wheel carries copies inside the package under ``_data/``.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

_PACKAGE = Path(__file__).resolve().parent


def resource_dir(name: str) -> Path:
    for candidate in (_PACKAGE.parent / name, _PACKAGE / "_data" / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"sitegen is installed without its {name}/ folder")


@cache
def load_schema(name: str) -> dict[str, Any]:
    """Load ``schema/<name>.schema.json``."""
    path = resource_dir("schema") / f"{name}.schema.json"
    schema: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return schema
