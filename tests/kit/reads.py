"""Which files a piece of sitegen opens: every open() below a folder counted by name."""

from __future__ import annotations

import builtins
import io
import os
from collections import Counter
from pathlib import Path
from typing import Any

import pytest


def count_opens(monkeypatch: pytest.MonkeyPatch, folder: Path) -> Counter[str]:
    """Count every open() of a file below ``folder`` (Path.read_bytes and read_text open too, and
    os.open, through which sitegen.files.read_bounded reads files someone else controls)."""
    opened: Counter[str] = Counter()
    real_open = io.open
    real_os_open = os.open

    def counting_open(file: Any, *args: Any, **kwargs: Any) -> Any:
        if isinstance(file, (str, os.PathLike)) and Path(file).resolve().is_relative_to(folder):
            opened[Path(file).name] += 1
        return real_open(file, *args, **kwargs)

    def counting_os_open(file: Any, *args: Any, **kwargs: Any) -> Any:
        if (
            isinstance(file, (str, os.PathLike))
            and Path(file).resolve().is_relative_to(folder)
            and not Path(file).is_dir()
        ):
            opened[Path(file).name] += 1
        return real_os_open(file, *args, **kwargs)

    monkeypatch.setattr(io, "open", counting_open)
    monkeypatch.setattr(os, "open", counting_os_open)
    monkeypatch.setattr(builtins, "open", counting_open)
    return opened
