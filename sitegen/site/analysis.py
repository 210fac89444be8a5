"""What one build works out about its runs and keeps while it plans pages: headline figures
and decode-cell grids, each made once per run, plus the settings the derived figures follow.
It lives as long as one build, so nothing outlives the runs it was made for."""

from __future__ import annotations

from dataclasses import dataclass, field

from sitegen.config import DEFAULT_PRESETS, DEFAULT_SERVICE_LEVELS, Config, Preset, Price, ServiceLevel
from sitegen.model import Run
from sitegen.site.capacity import CellGrid, price_for
from sitegen.site.figure_cache import StoredFigures
from sitegen.site.fragments import Fragments
from sitegen.site.headlines import HeadlineBook


@dataclass(frozen=True)
class Settings:
    """The parts of sitegen.yaml that derived figures follow (part of every page key)."""

    service_levels: tuple[ServiceLevel, ...] = DEFAULT_SERVICE_LEVELS
    prices: tuple[tuple[str, Price], ...] = ()
    presets: tuple[Preset, ...] = DEFAULT_PRESETS

    @classmethod
    def of(cls, config: Config) -> Settings:
        return cls(config.service_levels, config.prices, config.presets)

    def level(self, name: str | None) -> ServiceLevel | None:
        return next((level for level in self.service_levels if level.name == name), None)


@dataclass
class Analysis:
    """Per-build figures of runs, each worked out on first use."""

    settings: Settings = field(default_factory=Settings)
    headlines: HeadlineBook = field(default_factory=HeadlineBook)
    # The previous builds' figures by run digest (the build's .sitegen/cache/figures.json): a
    # run whose content is unchanged has its capacities and headlines read, not worked out.
    stored: StoredFigures | None = None
    # Pieces of listings and data files kept by a key of their inputs (see fragments); without
    # a cache file (tests, tools) a piece is still made once per build.
    fragments: Fragments = field(default_factory=lambda: Fragments(None, ""))
    _grids: dict[str, CellGrid] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.stored is not None:
            self.headlines.stored = self.stored.headlines

    def grid(self, run: Run) -> CellGrid:
        found = self._grids.get(run.id)
        if found is None:
            found = self._grids[run.id] = CellGrid(run)
            if self.stored is not None and run.digest:
                found.remember(self.stored.capacities(run.digest, found.accelerators))
        return found

    def keep_figures(self, runs: list[Run]) -> None:
        """Store this build's figures of ``runs`` for the next build (see figure_cache)."""
        if self.stored is not None:
            self.stored.keep((run.digest, self._grids.get(run.id), self.headlines.known(run))
                             for run in runs if run.digest)

    def price(self, run: Run) -> Price | None:
        return price_for(run, self.settings.prices)
