"""sitegen.yaml → a frozen Config. Paths are resolved against the config file's folder."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path
from urllib.parse import urlsplit

from sitegen.errors import Problem, SitegenError
from sitegen.parse import parse_yaml
from sitegen.resources import load_schema
from sitegen.validate import check_schema

CONFIG_NAME = "sitegen.yaml"


@dataclass(frozen=True)
class RemoteSource:
    url: str
    meta: str | None = None
    id: str | None = None


@dataclass(frozen=True)
class Config:
    root: Path
    title: str
    description: str
    base_url: str
    content_dir: Path
    output_dir: Path
    sources: tuple[RemoteSource, ...] = ()

    @property
    def state_dir(self) -> Path:
        """Where collect keeps its output and caches (``.sitegen/``)."""
        return self.root / ".sitegen"

    @property
    def runs_dir(self) -> Path:
        return self.content_dir / "runs"

    @property
    def base_path(self) -> str:
        """The path part of base_url, always starting and ending with '/'."""
        return urlsplit(self.base_url).path or "/"

    def display(self, path: Path) -> str:
        """A path as the user should see it: relative to the site root when inside it."""
        try:
            return path.resolve().relative_to(self.root).as_posix()
        except ValueError:
            return str(path)


def load_config(path: Path) -> Config:
    """Read and check sitegen.yaml; every problem is reported at once."""
    path = path.resolve()
    source = path.name
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        message = f"no {CONFIG_NAME} here; run sitegen in a site folder or pass --config"
        raise SitegenError(Problem(str(path), None, "", message)) from None
    except OSError as exc:
        raise SitegenError(Problem(str(path), None, "", f"cannot read: {exc.strerror}")) from None
    document = parse_yaml(source, raw)
    if not isinstance(document.data, dict):
        raise SitegenError(Problem(source, 1, "", "expected a mapping of settings (title: …, base_url: …)"))
    problems = check_schema(document, "config")
    if problems:
        raise SitegenError(problems)
    data = document.data
    root = path.parent
    sources = tuple(
        RemoteSource(url=item) if isinstance(item, str) else RemoteSource(**item)
        for item in data.get("sources", [])
    )
    return Config(
        root=root,
        title=data["title"],
        description=data.get("description", ""),
        base_url=data["base_url"],
        content_dir=_inside(root, data.get("content_dir", "content"), source, "/content_dir"),
        output_dir=_inside(root, data.get("output_dir", "_site"), source, "/output_dir"),
        sources=sources,
    )


def _inside(root: Path, relative: str, source: str, pointer: str) -> Path:
    # A config from a pull request must not point sitegen at folders outside the site.
    resolved = (root / relative).resolve()
    if resolved == root or root not in resolved.parents:
        raise SitegenError(Problem(source, None, pointer, f"{relative!r} must be a folder inside the site folder"))
    return resolved


def with_base_url(config: Config, base_url: str, source: str = "--base-url") -> Config:
    """``config`` served from another address, e.g. a GitHub Pages project site that only the
    deploy workflow knows (``https://<owner>.github.io/<repo>/``); checked like sitegen.yaml's."""
    rule = load_schema("config")["properties"]["base_url"]
    if not re.fullmatch(rule["pattern"], base_url):
        raise SitegenError(Problem(source, None, "", f"{base_url!r} is not a base URL: {rule['description']}"))
    return replace(config, base_url=base_url)
