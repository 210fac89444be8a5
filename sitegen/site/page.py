"""What every page shares: the site, labelled fields, the Page itself, and how runs are named."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field, replace
from typing import Any
from urllib.parse import urlsplit

from sitegen.model import Run
from sitegen.site.draw.chart_specs import ChartSpec
from sitegen.site.figures import numbers


@dataclass(frozen=True)
class Site:
    """What every page knows about the site, placed at the page being rendered.

    Every internal link is relative to that page (``url``), so the built site works opened
    from disk (file://) and served under any path with no setting. Links name the file
    (``runs/x/index.html``, not ``runs/x/``): over file:// a folder opens a directory listing.
    ``site_url``, the site's absolute address when one is configured, is used only where a
    standard wants absolute URLs: the feed, the sitemap and the canonical and og: tags.
    """

    title: str
    description: str
    site_url: str | None = None  # e.g. "https://owner.github.io/repo/"; always ends with "/"
    page: str = "index.html"  # the output path of the page whose links these are
    # An absolute path of the site root ("/repo/"), for the one page a host serves at any
    # address (404.html), where a relative link would resolve against the wrong folder.
    root_path: str | None = None

    def __post_init__(self) -> None:
        if self.site_url is not None and not re.match(r"^https?://[^/]+/(.*/)?$", self.site_url):
            raise ValueError(
                f"site_url must be an absolute http(s) URL ending with '/', not {self.site_url!r}"
            )

    def at(self, page: str) -> Site:
        """This site as seen from the page at output path ``page`` (e.g. "runs/x/index.html")."""
        return replace(self, page=page, root_path=None)

    def served_anywhere(self, page: str) -> Site:
        """This site as seen from ``page`` served at any address (404.html): links from the root
        path of ``site_url``, or from "/" without one."""
        return replace(
            self, page=page, root_path=urlsplit(self.site_url).path if self.site_url else "/"
        )

    @property
    def root(self) -> str:
        """The site root as seen from the page: "", "../../" or, for 404.html, "/repo/"."""
        if self.root_path is not None:
            return self.root_path
        return "../" * self.page.count("/")

    def url(self, path: str = "") -> str:
        """A link from this page to ``path`` (relative to the site root; "" is the home page)."""
        path = path.lstrip("/")
        if self.root_path is not None:
            return self.root_path + path  # served over HTTP only: folder addresses work
        end = len(path)
        for mark in "?#":
            if mark in path:
                end = min(end, path.index(mark))
        target, rest = path[:end], path[end:]
        if target == "" or target.endswith("/"):
            target += "index.html"
        return self.root + target + rest

    def absolute(self, path: str = "") -> str | None:
        """The absolute address of ``path`` (folder form: "runs/x/"), when site_url is known."""
        return None if self.site_url is None else self.site_url + path.lstrip("/")

    @property
    def canonical(self) -> str | None:
        """This page's absolute address for the canonical and og:url tags, when site_url is
        known."""
        if self.root_path is not None or not self.page.endswith(".html"):
            return None
        return self.absolute(self.page.removesuffix("index.html"))


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
    if not with_memory or hw.memory_per_device_gb is None or hw.type != "discrete-gpu":
        return f"{hw.accelerator} ×{hw.count}"
    return f"{_with_memory(hw.accelerator, hw.memory_per_device_gb)} ×{hw.count}"


@functools.lru_cache(maxsize=4096, typed=True)
def _with_memory(accelerator: str, memory_gb: float) -> str:
    """The accelerator's name with its memory, unless it names it already: worked out once for
    each of a site's few accelerators (a build names every run's hardware several times)."""
    memory = numbers.gigabytes(memory_gb).replace(" ", "")
    # A name that says its memory already (some vendors name it so) is not given it again.
    said = rf"(?<![\d.]){re.escape(memory.removesuffix('GB'))}\s*G"
    if re.search(said, accelerator, re.IGNORECASE):
        return accelerator
    return f"{accelerator} {memory}"


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
