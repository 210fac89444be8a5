"""Reading an inline plot's axes (sitegen/site/draw/plots.py, style.css): where the stylesheet
puts each y tick label, and a plot's tick labels as numbers, so that a test can work out the
pixel a figure belongs at."""

from __future__ import annotations

import re

from tests.kit.project import REPO

LEFT, RIGHT_EDGE, TOP, BOTTOM_EDGE = 52, 346, 10, 172  # the plot area in the 360 × 210 viewBox


def axis(ticks: list[tuple[float, str]]) -> list[tuple[float, float]]:
    return [(at, float(label.replace(",", "").replace("K", "e3"))) for at, label in ticks]


def y_label_heights() -> list[float]:
    """Where the stylesheet puts the y tick labels, from 0 up, as the height of the grid line
    each stands for: the frame's 0 (its 4th child), then a plot's labels in order (.yl
    :nth-child(n)),
    less the 4 units .yl moves them down to centre them on their line."""
    css = (REPO / "templates" / "static" / "style.css").read_text()
    shift = float(re.search(r"\.yl \{ transform: translate\(46px, ([\d.]+)px\); \}", css)[1])  # type: ignore[index]
    zero = float(
        re.search(
            r"\.frame > :nth-child\(4\) \{ transform: translate\(46px, ([\d.]+)px\); \}", css
        )[1]
    )  # type: ignore[index]
    up = dict(
        re.findall(r"\.yl :nth-child\((\d)\) \{ transform: translateY\(([\d.]+)px\); \}", css)
    )
    assert sorted(up) == ["1", "2", "3", "4"]
    return [zero - shift] + [float(up[str(n)]) for n in range(1, 5)]
