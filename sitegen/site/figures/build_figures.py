"""What one build works out about its runs and keeps while it plans pages: headline figures
and decode-cell grids, each made once per run, plus the settings the derived figures follow.
It lives as long as one build, so nothing outlives the runs it was made for."""

from __future__ import annotations

from dataclasses import dataclass, field

from sitegen.config import (
    DEFAULT_CHANGE_THRESHOLD,
    DEFAULT_PRESETS,
    DEFAULT_SERVICE_LEVELS,
    Config,
    Preset,
    Price,
    ServiceLevel,
)
from sitegen.model import Run
from sitegen.site.figures.capacity import (
    CellGrid,
    GridFacts,
    Outline,
    Remembered,
    outline_of,
    price_for,
)
from sitegen.site.figures.headlines import HeadlineBook
from sitegen.site.incremental.figure_cache import StoredFigures
from sitegen.site.incremental.fragments import Fragments


@dataclass(frozen=True)
class Settings:
    """The parts of sitegen.yaml that derived figures follow (part of every page key)."""

    service_levels: tuple[ServiceLevel, ...] = DEFAULT_SERVICE_LEVELS
    prices: tuple[tuple[str, Price], ...] = ()
    presets: tuple[Preset, ...] = DEFAULT_PRESETS
    # Not a figure's rule, but what runs are grouped by (groups.use_accelerator_aliases).
    accelerator_aliases: tuple[tuple[str, str], ...] = ()
    change_threshold: float = DEFAULT_CHANGE_THRESHOLD  # the changes rule (history.Rule)

    @classmethod
    def of(cls, config: Config) -> Settings:
        return cls(
            config.service_levels,
            config.prices,
            config.presets,
            accelerator_aliases=config.accelerator_aliases,
            change_threshold=config.change_threshold,
        )

    def level(self, name: str | None) -> ServiceLevel | None:
        return next((level for level in self.service_levels if level.name == name), None)


# How many runs' cell grids a build holds at once (see Analysis.grid); as store.DECODED_RUNS.
GRIDS_KEPT = 4000


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
    # The grids made, oldest first; at most GRIDS_KEPT of them (each holds its run's decoded
    # cells), the others let go with what they worked out kept in _released.
    _grids: dict[str, CellGrid] = field(default_factory=dict)
    _released: dict[str, Remembered] = field(default_factory=dict)
    _outlines: dict[str, Outline] = field(default_factory=dict)
    # What each grid made this build answers without its cells (capacity.GridFacts), by run id.
    _facts: dict[str, GridFacts] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.stored is not None:
            self.headlines.stored = self.stored.headlines

    def grid(self, run: Run) -> CellGrid:
        found = self._grids.get(run.id)
        if found is not None:
            return found
        facts = self._facts.get(run.id)
        found = self._grids[run.id] = CellGrid(run, facts)
        if self.stored is not None and run.digest:
            found.remember(self.stored.capacities(run.digest, found.accelerators))
        earlier = self._released.pop(run.id, None)
        if earlier is not None:  # made and let go before in this build: what it worked out stands
            found.remember(earlier.capacities)
            found.worked_out += earlier.worked_out
        if facts is None:
            # The run's first grid this build, whose cells are read now: what later listings, data
            # files and pages ask of them is worked out now too, so that a grid made again after
            # this one is let go answers them without reading the cells again.
            found.facts = self._facts[run.id] = found.facts_at(
                {(preset.context, preset.concurrency) for preset in self.settings.presets}
            )
            for context in found.contexts:
                for level in self.settings.service_levels:
                    found.capacity_at(context, level)
            self.outline(run)
            self.headlines(run)
        while len(self._grids) > GRIDS_KEPT:  # as model.DecodedRuns bounds the runs' own cells
            oldest = next(iter(self._grids))
            grid = self._grids.pop(oldest)
            self._released[oldest] = Remembered(grid.known(), grid.worked_out)
        return found

    def outline(self, run: Run) -> Outline:
        """Where the run's decode matrix has figures (capacity.Outline): read back from an earlier
        build for a run of unchanged content, so that its cells need not be decoded."""
        found = self._outlines.get(run.id)
        if found is None:
            if self.stored is not None and run.digest:
                found = self.stored.outline(run.digest)
            if found is None:
                found = outline_of(run, self.grid(run))
            self._outlines[run.id] = found
        return found

    def keep_figures(self, runs: list[Run]) -> None:
        """Store this build's figures of ``runs`` for the next build (see figure_cache)."""
        if self.stored is not None:
            self.stored.keep(
                (
                    run.digest,
                    self._grids.get(run.id) or self._released.get(run.id),
                    self.headlines.known(run),
                    self._outlines.get(run.id),
                )
                for run in runs
                if run.digest
            )

    def price(self, run: Run) -> Price | None:
        return price_for(run, self.settings.prices)
