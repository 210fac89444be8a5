"""What every page shares: the site, labelled fields, the Page itself, and how runs are named."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from sitegen.model import Run
from sitegen.site import numbers
from sitegen.site.charts import ChartSpec


@dataclass(frozen=True)
class Site:
    """What every page knows about the site."""

    title: str
    description: str
    base_path: str

    def url(self, path: str = "") -> str:
        """A link to ``path`` (relative to the site root) that works under any base path."""
        return self.base_path + path.lstrip("/")


@dataclass(frozen=True)
class Field:
    """One labelled value in a metadata block."""

    label: str
    value: str
    href: str | None = None


@dataclass(frozen=True)
class Page:
    """One file of the site: where it goes, which template draws it, and with what."""

    path: str  # relative to the output folder, e.g. "runs/x/index.html"
    template: str
    context: Any
    charts: tuple[ChartSpec, ...] = field(default=())


def model_name(run: Run) -> str:
    """The model without its organisation: 'DeepSeek-V4-Flash-DSpark'."""
    return run.info.model.rstrip("/").rsplit("/", 1)[-1]


def hardware_name(run: Run, with_memory: bool = True) -> str:
    """'H200 NVL 141GB ×2', as the page heading names the hardware."""
    hw = run.hardware
    name = hw.accelerator
    if with_memory and hw.memory_per_device_gb is not None and hw.type == "discrete-gpu":
        name += f" {numbers.gigabytes(hw.memory_per_device_gb).replace(' ', '')}"
    return f"{name} ×{hw.count}"


def engine_summary(run: Run) -> str:
    parts = [run.engine.name, run.engine.version, run.engine.quantization]
    return " · ".join(p for p in parts if p)


def repository_link(value: str) -> str | None:
    # Only http(s) links: a value like 'javascript:…' stays plain text.
    if value.startswith("https://") or value.startswith("http://"):
        return value
    if re.match(r"^[a-z0-9.-]+\.[a-z]{2,}/\S+$", value, re.IGNORECASE):
        return "https://" + value
    return None


def fields(*pairs: tuple[str, str | None]) -> tuple[Field, ...]:
    return tuple(Field(label, value) for label, value in pairs if value)
