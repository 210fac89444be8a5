"""SVG path data read back the way a browser draws it, for the plot tests."""

from __future__ import annotations

import re


def vertices(d: str) -> list[tuple[float, float]]:
    """Every vertex of SVG path data made of M/m/L/l (implicit repeats too), in absolute units."""
    points: list[tuple[float, float]] = []
    x = y = 0.0
    for command, args in re.findall(r"([MmLl])([^MmLl]*)", d):
        numbers = [float(n) for n in re.findall(r"-?\d+(?:\.\d+)?", args)]
        assert numbers and len(numbers) % 2 == 0, d
        for i in range(0, len(numbers), 2):
            dx, dy = numbers[i], numbers[i + 1]
            x, y = (x + dx, y + dy) if command.islower() else (dx, dy)
            points.append((x, y))
    return points
