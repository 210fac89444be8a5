"""Render chart specs to SVG with vl-convert, cached on disk by the hash of the spec."""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
from collections.abc import Callable
from pathlib import Path

from sitegen.site.charts import THEMES
from sitegen.store import write_atomic

_CLIP_ID = re.compile(r"\bclip(\d+)\b")
# A theme differs from the other only in colours, so the dark SVG is the light one recoloured:
# half the rendering work, and the two can never drift apart.
_LIGHT_TO_DARK = {light: THEMES["dark"][role] for role, light in THEMES["light"].items()}
_COLOUR = re.compile("|".join(re.escape(colour) for colour in _LIGHT_TO_DARK))


def dark_svg(light_svg: bytes) -> bytes:
    return _COLOUR.sub(lambda m: _LIGHT_TO_DARK[m.group(0)], light_svg.decode()).encode()


def _stable_ids(svg: str) -> str:
    """Number clip-path ids from 1 in each file: vl-convert counts them across the process,
    so the same chart would otherwise differ from build to build."""
    numbering: dict[str, str] = {}

    def renumber(match: re.Match[str]) -> str:
        return "clip" + numbering.setdefault(match.group(1), str(len(numbering) + 1))

    return _CLIP_ID.sub(renumber, svg)


class ChartRenderer:
    """Turns Vega-Lite specs into SVG; an unchanged spec is never rendered twice."""

    def __init__(self, cache_dir: Path) -> None:
        self.cache_dir = cache_dir
        self.rendered = 0

    def _cached(self, path: Path, make: Callable[[], bytes]) -> bytes:
        try:
            return path.read_bytes()
        except FileNotFoundError:
            pass
        data = make()
        with contextlib.suppress(OSError):  # a cache that cannot be written only costs time
            write_atomic(path, data)
        return data

    def svg(self, spec_json: str) -> bytes:
        digest = hashlib.sha256(spec_json.encode()).hexdigest()

        def render() -> bytes:
            import vl_convert

            self.rendered += 1
            return _stable_ids(vl_convert.vegalite_to_svg(json.loads(spec_json))).encode()

        return self._cached(self.cache_dir / f"{digest}.svg", render)

    def javascript_bundle(self) -> bytes:
        """Vega, Vega-Lite and vega-embed in one file, so interactive charts need no CDN."""
        import vl_convert

        name = f"vega-{vl_convert.get_vega_version()}-{getattr(vl_convert, '__version__', 'x')}.js"
        return self._cached(self.cache_dir.parent / name,
                            lambda: vl_convert.javascript_bundle().encode())  # type: ignore[call-arg]

