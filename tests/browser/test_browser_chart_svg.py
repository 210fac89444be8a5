"""The compacted chart SVG draws exactly what vl-convert drew, pixel for pixel, in a real
browser: in the light scheme as vl-convert's own file, and on a dark screen as that file with
the theme's colours swapped by hand (the test's own reading of THEMES, not the style sheet)."""

from __future__ import annotations

import base64
import json
from typing import TYPE_CHECKING

import pytest

from sitegen.model import run_from_dict
from sitegen.parse import parse_yaml
from sitegen.site.draw.chart_render import (
    CHART_STYLE,
    ChartRenderer,
    ChartTemplates,
    _short_numbers,
    _stable_ids,
)
from sitegen.site.draw.chart_specs import Series, decode_overlay, pareto, prefill_overlay
from sitegen.site.draw.svg import compact_svg
from tests.kit.project import REPO, SEED_RUN_ID

if TYPE_CHECKING:
    from pathlib import Path

    from playwright.sync_api import Browser

pytestmark = pytest.mark.browser

# The theme's colours (docs/architecture.md): light ink → dark ink.
LIGHT_TO_DARK = {"#1f2430": "#e6e9ef", "#5b6472": "#a3abb8", "#e3e6eb": "#343a46"}

PIXELS_JS = """
async ([a, b]) => {
  const load = (src) => new Promise((ok, bad) => {
    const i = new Image(); i.onload = () => ok(i); i.onerror = bad; i.src = src;
  });
  const pixels = (img) => {
    const canvas = document.createElement("canvas");
    canvas.width = img.naturalWidth; canvas.height = img.naturalHeight;
    const context = canvas.getContext("2d");
    context.drawImage(img, 0, 0);
    return context.getImageData(0, 0, canvas.width, canvas.height).data;
  };
  const [x, y] = [pixels(await load(a)), pixels(await load(b))];
  let differing = 0;
  for (let i = 0; i < Math.max(x.length, y.length); i++) { if (x[i] !== y[i]) differing++; }
  return { size: x.length, differing };
}
"""


def _data_url(svg: str) -> str:
    return "data:image/svg+xml;base64," + base64.b64encode(svg.encode()).decode()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_compacted_chart_draws_what_vl_convert_drew(
    browser: Browser, tmp_path: Path, scheme: str
) -> None:
    import vl_convert

    seed = parse_yaml(
        "seed.yaml", (REPO / "content" / "runs" / f"{SEED_RUN_ID}.yaml").read_bytes()
    ).data
    other = json.loads(json.dumps(seed))
    other["hardware"]["count"] = 4
    series = [Series("A", run_from_dict("a", seed)), Series("B", run_from_dict("b", other))]
    charts = [
        decode_overlay(series, [8192, 65536]),
        prefill_overlay(series),
        pareto(series, per_device=True),
    ]
    renderer = ChartRenderer(tmp_path / "charts", workers=1, templates=ChartTemplates(tmp_path))
    page = browser.new_page(color_scheme=scheme)
    try:
        for chart in charts:
            assert chart is not None
            raw = _short_numbers(
                _stable_ids(vl_convert.vega_to_svg(json.loads(renderer._vega(chart))))
            )
            compact = compact_svg(raw, CHART_STYLE)
            assert len(compact) < 0.6 * len(raw), (chart.kind, len(compact), len(raw))
            expected = raw
            if scheme == "dark":
                for light, dark in LIGHT_TO_DARK.items():
                    expected = expected.replace(f'"{light}"', f'"{dark}"')
            result = page.evaluate(PIXELS_JS, [_data_url(expected), _data_url(compact)])
            assert result["size"] > 100_000 and result["differing"] == 0, (
                chart.kind,
                scheme,
                result,
            )
    finally:
        page.close()
