"""sitegen.yaml → a frozen Config. Paths are resolved against the config file's folder."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path
from urllib.parse import urlsplit

from sitegen.errors import Problem, SitegenError
from sitegen.files import read_bounded
from sitegen.parse import MAX_FILE_BYTES, Document, parse_yaml
from sitegen.resources import load_schema
from sitegen.validate import check_schema

CONFIG_NAME = "sitegen.yaml"
BUDGET_SETTING = "sources_budget_s"
DEFAULT_BUDGET_S = 120.0  # the time all remote sources of one collect may take together


@dataclass(frozen=True)
class RemoteSource:
    url: str
    meta: str | None = None
    id: str | None = None


@dataclass(frozen=True)
class ServiceLevel:
    """What a reader needs of each request: the rules are in docs/capacity.md."""

    name: str
    min_tokens_per_s_per_request: float
    max_ttft_ms: float
    max_time_between_tokens_ms: float | None = None
    percentile: str | None = None  # e.g. "p99": judge the cell's statistics at this percentile
    label: str = ""
    ttft: str | None = None  # "cold": a warm TTFT must also have its prefill time within the limit

    @property
    def title(self) -> str:
        return self.label or self.name


@dataclass(frozen=True)
class Price:
    """What one accelerator costs per hour, and where that figure was published."""

    usd_per_hour: float
    source: str
    date: str


@dataclass(frozen=True)
class Preset:
    """A named operating point: a static view at /at/<name>/ and a choice in the index's picker."""

    name: str
    context: int
    concurrency: int
    service_level: str | None = None


# MLPerf Inference's two Llama-2-70B latency limits, as per-request speed (1000 / ms per
# output token) and time to first token. MLPerf applies them at p99; ours apply to the
# statistic each file reports unless a percentile is set (docs/capacity.md).
DEFAULT_SERVICE_LEVELS = (
    ServiceLevel("server", 5.0, 2000.0, label="Server: TTFT ≤ 2 s, ≥ 5 tok/s per request"),
    ServiceLevel(
        "interactive", 25.0, 450.0, label="Interactive: TTFT ≤ 450 ms, ≥ 25 tok/s per request"
    ),
    ServiceLevel(
        "interactive-cold",
        25.0,
        450.0,
        ttft="cold",
        label="Interactive, cold prompt: TTFT ≤ 450 ms, ≥ 25 tok/s per request",
    ),
)
DEFAULT_PRESETS = (
    Preset("8k-1", 8192, 1),
    Preset("32k-16", 32768, 16, "server"),
    Preset("128k-8", 131072, 8, "server"),
)


DEFAULT_CHANGE_THRESHOLD = 0.05


@dataclass(frozen=True)
class Config:
    root: Path
    title: str
    description: str
    site_url: (
        str | None
    )  # absolute, ending with "/"; only for the feed, sitemap, canonical and og: tags
    content_dir: Path
    output_dir: Path
    sources: tuple[RemoteSource, ...] = ()
    # Things worth telling the user that do not stop the command (a deprecated setting).
    warnings: tuple[Problem, ...] = ()
    service_levels: tuple[ServiceLevel, ...] = DEFAULT_SERVICE_LEVELS
    prices: tuple[tuple[str, Price], ...] = ()  # accelerator name, lower-cased → price
    presets: tuple[Preset, ...] = DEFAULT_PRESETS
    # Replace an output folder that has files but no sitegen marker (output_replace /
    # --force-output).
    output_replace: bool = False
    sources_budget_s: float = DEFAULT_BUDGET_S
    # More names of one accelerator, grouped as one: (alias in lower case, name), sorted.
    accelerator_aliases: tuple[tuple[str, str], ...] = ()
    # A figure changed when it moved by more than this share of its previous value (changes:
    # threshold_percent; docs/comparisons.md#changes).
    change_threshold: float = DEFAULT_CHANGE_THRESHOLD

    @property
    def state_dir(self) -> Path:
        """Where collect keeps its output and caches (``.sitegen/``)."""
        return self.root / ".sitegen"

    @property
    def runs_dir(self) -> Path:
        return self.content_dir / "runs"

    @property
    def base_path(self) -> str:
        """The path part of site_url ("/" without one), where `sitegen serve` serves the site and
        where 404.html links from: it starts and ends with '/'."""
        return urlsplit(self.site_url).path if self.site_url else "/"

    def display(self, path: Path) -> str:
        """A path as the user should see it: relative to the site root when inside it."""
        try:
            return path.resolve().relative_to(self.root).as_posix()
        except (ValueError, OSError, RuntimeError):  # outside, or a link loop (RuntimeError)
            return str(path)


def find_config(folder: Path) -> Path:
    """The sitegen.yaml of ``folder`` or, as git does, of the nearest parent folder that has one,
    looking no further up than a repository root (a folder with ``.git``) or the filesystem's
    root; ``folder/sitegen.yaml`` when there is none, so the error names where it was expected."""
    start = folder.resolve()
    for candidate in (start, *start.parents):
        if (candidate / CONFIG_NAME).is_file():
            return candidate / CONFIG_NAME
        if (candidate / ".git").exists():
            break
    return start / CONFIG_NAME


def load_config(path: Path) -> Config:
    """Read and check sitegen.yaml; every problem is reported at once."""
    path = path.resolve()
    source = path.name
    try:
        raw = read_bounded(path, MAX_FILE_BYTES, str(path), CONFIG_NAME)
    except FileNotFoundError:
        message = f"no {CONFIG_NAME} here; run sitegen in a site folder or pass --config"
        raise SitegenError(Problem(str(path), None, "", message)) from None
    except OSError as exc:
        raise SitegenError(Problem(str(path), None, "", f"cannot read: {exc.strerror}")) from None
    document = parse_yaml(source, raw)
    if not isinstance(document.data, dict):
        raise SitegenError(
            Problem(source, 1, "", "expected a mapping of settings (title: …, site_url: …)")
        )
    problems = check_schema(document, "config")
    if problems:
        raise SitegenError(problems)
    data = document.data
    root = path.parent
    sources = tuple(
        RemoteSource(url=item) if isinstance(item, str) else RemoteSource(**item)
        for item in data.get("sources", [])
    )
    site_url, warnings = _site_url(document)
    levels = (
        tuple(ServiceLevel(**item) for item in data["service_levels"])
        if "service_levels" in data
        else DEFAULT_SERVICE_LEVELS
    )
    presets = (
        tuple(Preset(**item) for item in data["presets"]) if "presets" in data else DEFAULT_PRESETS
    )
    _check_names(document, levels, presets)
    prices = tuple(
        sorted((name.lower(), Price(**item)) for name, item in data.get("prices", {}).items())
    )
    return Config(
        root=root,
        title=data["title"],
        description=data.get("description", ""),
        site_url=site_url,
        warnings=warnings,
        content_dir=_inside(root, data.get("content_dir", "content"), source, "/content_dir"),
        output_dir=_inside(root, data.get("output_dir", "_site"), source, "/output_dir"),
        sources=sources,
        service_levels=levels,
        prices=prices,
        presets=presets,
        output_replace=bool(data.get("output_replace", False)),
        sources_budget_s=float(data.get(BUDGET_SETTING, DEFAULT_BUDGET_S)),
        accelerator_aliases=_accelerator_aliases(document),
        change_threshold=data.get("changes", {}).get(
            "threshold_percent", DEFAULT_CHANGE_THRESHOLD * 100
        )
        / 100,
    )


def _check_names(
    document: Document, levels: tuple[ServiceLevel, ...], presets: tuple[Preset, ...]
) -> None:
    # Names are addresses and keys of /data/capacity.json: each must mean one thing.
    source = document.source
    problems = []
    for kind, names in (
        ("service_levels", [level.name for level in levels]),
        ("presets", [preset.name for preset in presets]),
    ):
        for index, name in enumerate(names):
            if name in names[:index]:
                pointer = f"/{kind}/{index}/name"
                problems.append(
                    Problem(
                        source,
                        document.line_of(pointer),
                        pointer,
                        f"{name!r} is used twice; names must be unique",
                    )
                )
    known = {level.name for level in levels}
    for index, preset in enumerate(presets):
        if preset.service_level is not None and preset.service_level not in known:
            pointer = f"/presets/{index}/service_level"
            problems.append(
                Problem(
                    source,
                    document.line_of(pointer),
                    pointer,
                    f"no service level is named {preset.service_level!r}; "
                    f"choose one of {sorted(known)} or add it under service_levels",
                )
            )
    if problems:
        raise SitegenError(problems)


def _accelerator_aliases(document: Document) -> tuple[tuple[str, str], ...]:
    """``accelerator_aliases: {name: [alias, …]}`` as (alias in lower case, name) pairs; an
    alias given for two names is an error at its line."""
    owner: dict[str, tuple[str, str]] = {}
    problems = []
    for name, aliases in document.data.get("accelerator_aliases", {}).items():
        for index, alias in enumerate(aliases):
            key = " ".join(alias.lower().split())
            pointer = f"/accelerator_aliases/{name}/{index}"
            if key in owner and owner[key][0] != name:
                problems.append(
                    Problem(
                        document.source,
                        document.line_of(pointer),
                        pointer,
                        f"{alias!r} is already an alias of {owner[key][0]!r}; "
                        "an alias names one accelerator",
                    )
                )
            owner.setdefault(key, (name, pointer))
    if problems:
        raise SitegenError(problems)
    return tuple(sorted((key, name) for key, (name, _) in owner.items()))


def _inside(root: Path, relative: str, source: str, pointer: str) -> Path:
    # A config from a pull request must not point sitegen at folders outside the site.
    resolved = (root / relative).resolve()
    if resolved == root or root not in resolved.parents:
        raise SitegenError(
            Problem(source, None, pointer, f"{relative!r} must be a folder inside the site folder")
        )
    return resolved


def _site_url(document: Document) -> tuple[str | None, tuple[Problem, ...]]:
    """site_url, normalised, and a deprecation warning for the old base_url setting.

    Links became relative, so a base path is no longer needed. An old sitegen.yaml keeps
    working: a full base_url is read as site_url, a path-only one is ignored, and either way
    the user is told what to write instead.
    """
    data = document.data
    site_url = data.get("site_url")
    if "base_url" not in data:
        return _normalised(site_url), ()
    old = data["base_url"]
    line = document.line_of("/base_url")
    if site_url is not None:
        message = "base_url is deprecated and ignored (site_url is set): remove it"
    elif urlsplit(old).netloc:
        site_url = old
        message = (
            f"base_url is deprecated: write 'site_url: {old}' instead (read as site_url for now)"
        )
    else:
        message = (
            "base_url is deprecated and ignored: links are relative now, so the site works under "
            "any path; "
            "remove it, and set 'site_url: https://…/' for absolute feed, sitemap and canonical "
            "addresses"
        )
    return _normalised(site_url), (Problem(document.source, line, "/base_url", message),)


def _normalised(site_url: str | None) -> str | None:
    # As MkDocs does: the address of a folder, so relative paths join onto it.
    return None if site_url is None else site_url.rstrip("/") + "/"


def with_site_url(config: Config, site_url: str, source: str = "--site-url") -> Config:
    """``config`` published at another address, e.g. a GitHub Pages project site that only the
    deploy workflow knows (``https://<owner>.github.io/<repo>/``); checked like sitegen.yaml's."""
    rule = load_schema("config")["properties"]["site_url"]
    if not re.fullmatch(rule["pattern"], site_url):
        raise SitegenError(
            Problem(
                source,
                None,
                "",
                f"{site_url!r} is not an absolute http(s) address: {rule['description']}",
            )
        )
    return replace(config, site_url=_normalised(site_url))
