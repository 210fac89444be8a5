"""Render chart specs to SVG with vl-convert, cached on disk by the hash of the spec.

Rendering is most of a cold build, so charts missing from the cache are rendered in
parallel processes, one per core.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from sitegen.site.charts import THEMES
from sitegen.store import write_atomic
from sitegen.workers import worker_context

_CLIP_ID = re.compile(r"\bclip(\d+)\b")
# A theme differs from the other only in colours, so the dark SVG is the light one recoloured:
# half the rendering work, and the two can never drift apart.
_LIGHT_TO_DARK = {light: THEMES["dark"][role] for role, light in THEMES["light"].items()}
_COLOUR = re.compile("|".join(re.escape(colour) for colour in _LIGHT_TO_DARK))
# Below this many charts to render, starting worker processes costs more than it saves.
PARALLEL_THRESHOLD = 16


def dark_svg(light_svg: bytes) -> bytes:
    return _COLOUR.sub(lambda m: _LIGHT_TO_DARK[m.group(0)], light_svg.decode()).encode()


def _stable_ids(svg: str) -> str:
    """Number clip-path ids from 1 in each file: vl-convert counts them across the process,
    so the same chart would otherwise differ from build to build."""
    numbering: dict[str, str] = {}

    def renumber(match: re.Match[str]) -> str:
        return "clip" + numbering.setdefault(match.group(1), str(len(numbering) + 1))

    return _CLIP_ID.sub(renumber, svg)


_GEOMETRY = re.compile(r'(\s(?:d|transform|x|y|x1|x2|y1|y2|width|height)=")([^"]*)"')
_LONG_NUMBER = re.compile(r"(-?\d+\.\d)\d+")


def _short_numbers(svg: str) -> str:
    """Coordinates to a tenth of a pixel: invisible on screen, a third of the file."""
    return _GEOMETRY.sub(lambda m: m.group(1) + _LONG_NUMBER.sub(r"\1", m.group(2)) + '"', svg)


def render_svg(spec_json: str) -> bytes:
    import vl_convert

    return _short_numbers(_stable_ids(vl_convert.vegalite_to_svg(json.loads(spec_json)))).encode()


class ChartRenderer:
    """Turns Vega-Lite specs into SVG; an unchanged spec is never rendered twice."""

    def __init__(self, cache_dir: Path, workers: int | None = None) -> None:
        self.cache_dir = cache_dir
        self.workers = workers or os.cpu_count() or 1
        self.rendered = 0

    def _path(self, spec_json: str) -> Path:
        return self.cache_dir / f"{hashlib.sha256(spec_json.encode()).hexdigest()}.svg"

    def _store(self, path: Path, data: bytes) -> None:
        with contextlib.suppress(OSError):  # a cache that cannot be written only costs time
            write_atomic(path, data)

    def svgs(self, specs: list[str]) -> list[bytes]:
        """The SVG of every spec, in order: from the cache, or rendered (in parallel when many)."""
        results: list[bytes | None] = []
        missing: list[int] = []
        for index, spec in enumerate(specs):
            try:
                results.append(self._path(spec).read_bytes())
            except FileNotFoundError:
                results.append(None)
                missing.append(index)
        todo = [specs[i] for i in missing]
        if len(todo) >= PARALLEL_THRESHOLD and self.workers > 1:
            with ProcessPoolExecutor(max_workers=self.workers, mp_context=worker_context()) as pool:
                rendered = list(pool.map(render_svg, todo, chunksize=max(1, len(todo) // (self.workers * 8))))
        else:
            rendered = [render_svg(spec) for spec in todo]
        for index, svg in zip(missing, rendered, strict=True):
            results[index] = svg
            self._store(self._path(specs[index]), svg)
        self.rendered += len(todo)
        return [svg for svg in results if svg is not None]

    def svg(self, spec_json: str) -> bytes:
        return self.svgs([spec_json])[0]

    def javascript_bundle(self) -> bytes:
        """Vega, Vega-Lite and vega-embed in one file, so interactive charts need no CDN."""
        import vl_convert

        path = self.cache_dir.parent / f"vega-{vl_convert.get_vega_version()}-{getattr(vl_convert, '__version__', 'x')}.js"
        try:
            return path.read_bytes()
        except FileNotFoundError:
            bundle: bytes = vl_convert.javascript_bundle().encode()  # type: ignore[call-arg]
            self._store(path, bundle)
            return bundle
