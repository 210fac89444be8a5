"""Make vl-convert's SVG small without changing a pixel of what it draws.

vl-convert writes an SVG made for a live Vega view: ARIA roles and classes on every element,
invisible background and foreground paths, labels hidden by opacity 0, the font on every
label, each grid line and each point as an element of its own. A chart image needs none of
that, and a site has a thousand charts per thousand runs, so this removes it:

- attributes a picture in an ``<img>`` never uses (ARIA, classes, pointer events) and
  attributes equal to their default (``opacity="1"``, ``stroke-width="1"`` on lines);
- elements that draw nothing (opacity 0, ``display="none"``, unpainted background paths)
  and groups without attributes (their children take their place);
- runs of ``<line>`` elements painted alike become one ``<path>`` of segments;
- a point shape drawn more than once is defined once and placed with ``<use>``;
- neighbours painted alike share one group that carries the paint (order kept);
- the font of the labels is one rule of the SVG's own style sheet.

The result is the same drawing; a test compares both in a browser, pixel for pixel.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections import Counter
from html import escape

_SVG = "{http://www.w3.org/2000/svg}"
_XLINK_HREF = "{http://www.w3.org/1999/xlink}href"
_UNUSED = frozenset(
    {"aria-hidden", "aria-roledescription", "role", "class", "pointer-events", "version"}
)
_FONT = frozenset({"font-family", "font-size"})  # the style sheet's text rule gives these
_DEFAULTS = {
    "opacity": "1",
    "font-weight": "normal",
    "text-anchor": "start",
    "transform": "translate(0,0)",
}
_LINE_GEOMETRY = frozenset({"transform", "x1", "y1", "x2", "y2"})


def compact_svg(svg: str, style: str = "") -> str:
    """``svg`` as vl-convert wrote it, drawn the same with fewer bytes; ``style`` (CSS) goes
    into the SVG's own style sheet. ``text`` elements lose their font attributes, so
    ``style`` must give the font."""
    root = ET.fromstring(svg)
    _clean(root, stroked=False)
    for name in list(root.attrib):
        if name in _UNUSED or name.startswith("{"):
            del root.attrib[name]
    defs = _shared_shapes(root)
    _group_alike(root)
    defs = _points_as_markers(root, defs)
    parts = [f"<style>{escape(style, quote=False)}</style>" if style else "", defs]
    head = _open_tag(root, "svg", {"xmlns": "http://www.w3.org/2000/svg", **root.attrib})
    return head + "".join(parts) + "".join(_serialise(child) for child in root) + "</svg>"


def _tag(element: ET.Element) -> str:
    return element.tag.removeprefix(_SVG)


def _draws_nothing(tag: str, attrs: dict[str, str]) -> bool:
    if attrs.get("opacity") == "0" or attrs.get("display") == "none":
        return True
    # Vega's background and foreground rectangles of each group, unpainted in our charts.
    return (
        tag == "path"
        and attrs.get("class") in ("background", "foreground")
        and not ({"fill", "stroke"} & attrs.keys())
    )


def _clean(parent: ET.Element, stroked: bool) -> None:
    """Clean ``parent``'s children; ``stroked``: whether a group around them sets a stroke."""
    kept: list[ET.Element] = []
    for child in list(parent):
        tag, attrs = _tag(child), child.attrib
        if _draws_nothing(tag, attrs):
            continue
        _clean(child, stroked or "stroke" in attrs)
        if _XLINK_HREF in attrs:
            attrs["href"] = attrs.pop(_XLINK_HREF)
        for name in list(attrs):
            if (
                name in _UNUSED
                or _DEFAULTS.get(name) == attrs[name]
                or (tag == "text" and name in _FONT)
            ):
                del attrs[name]
        if tag == "line" and attrs.get("stroke-width") == "1":
            del attrs["stroke-width"]
        if tag == "path" and "stroke" not in attrs and not stroked:
            attrs.pop("stroke-width", None)  # nothing to stroke
            attrs.pop("stroke-dasharray", None)
        if tag == "g" and not attrs:
            kept.extend(child)  # a group that changes nothing: its children take its place
        elif tag != "g" or len(child):
            kept.append(child)
    parent[:] = _merge_lines(kept)


def _translation(transform: str | None) -> tuple[float, float] | None:
    """(x, y) of a transform that only translates, else None."""
    if transform is None:
        return 0.0, 0.0
    if not (transform.startswith("translate(") and transform.endswith(")")):
        return None
    values = transform[len("translate(") : -1].split(",")
    try:
        x, y = (float(v) for v in values) if len(values) == 2 else (float(values[0]), 0.0)
    except ValueError:
        return None
    return x, y


def _number(value: float) -> str:
    text = f"{value:.1f}".removesuffix(".0")
    return "0" if text == "-0" else text


def _merge_lines(children: list[ET.Element]) -> list[ET.Element]:
    """Each run of ``<line>`` siblings painted alike as one ``<path>``: a two-point subpath
    has no area, so the path draws exactly the lines."""
    merged: list[ET.Element] = []
    run: list[ET.Element] = []
    paint: dict[str, str] | None = None

    def flush() -> None:
        if len(run) == 1:
            merged.append(run[0])
        elif run:
            segments = []
            for line in run:
                x, y = _translation(line.get("transform")) or (0.0, 0.0)
                x1, y1 = x + float(line.get("x1", "0")), y + float(line.get("y1", "0"))
                dx, dy = (
                    float(line.get("x2", "0")) - float(line.get("x1", "0")),
                    float(line.get("y2", "0")) - float(line.get("y1", "0")),
                )
                segments.append(f"M{_number(x1)},{_number(y1)}l{_number(dx)},{_number(dy)}")
            path = ET.Element("path", {"d": "".join(segments), **(paint or {})})
            merged.append(path)
        run.clear()

    for child in children:
        is_line = (
            _tag(child) == "line"
            and _translation(child.get("transform")) is not None
            and not len(child)
        )
        own_paint = (
            {k: v for k, v in child.attrib.items() if k not in _LINE_GEOMETRY} if is_line else None
        )
        if is_line and own_paint == paint:
            run.append(child)
            continue
        flush()
        if is_line:
            run.append(child)
            paint = own_paint
        else:
            paint = None
            merged.append(child)
    flush()
    return merged


def _shared_shapes(root: ET.Element) -> str:
    """Point shapes drawn more than once, defined once and placed with ``<use>``; their defs."""
    placed = [
        (parent, child)
        for parent in root.iter()
        for child in parent
        if _tag(child) == "path"
        and "d" in child.attrib
        and "id" not in child.attrib
        and child.get("transform", "").startswith("translate(")
        and _translation(child.get("transform"))
    ]
    counts = Counter(child.get("d") for _, child in placed)
    ids = {
        d: f"s{n}"
        for n, d in enumerate(sorted(d for d, count in counts.items() if d and count > 1))
    }
    for _, child in placed:
        d = child.get("d")
        if d not in ids:
            continue
        x, y = _translation(child.get("transform")) or (0.0, 0.0)
        rest = {k: v for k, v in child.attrib.items() if k not in ("d", "transform")}
        child.tag = "use"
        child.attrib.clear()
        child.attrib.update({"href": f"#{ids[d]}", "x": _number(x), "y": _number(y), **rest})
    if not ids:
        return ""
    return (
        "<defs>"
        + "".join(f'<path id="{name}" d="{escape(d)}"/>' for d, name in ids.items())
        + "</defs>"
    )


# Attributes a child takes from its group when it has none of its own. Opacity is left out:
# on a group it would blend the children together, not each one.
_INHERITED = ("fill", "stroke", "stroke-width", "text-anchor")


def _group_alike(parent: ET.Element) -> None:
    """Runs of neighbouring leaf elements with the same inherited paint, in a group that
    carries it once. Neighbours only, so nothing is drawn in a different order."""
    for child in parent:
        if len(child):
            _group_alike(child)
    result: list[ET.Element] = []
    run: list[ET.Element] = []
    shared: tuple[tuple[str, str], ...] = ()

    def flush() -> None:
        if len(run) > 2 and shared:
            group = ET.Element("g", dict(shared))
            for element in run:
                for name, _ in shared:
                    del element.attrib[name]
            group.extend(run)
            result.append(group)
        else:
            result.extend(run)
        run.clear()

    for child in parent:
        paint = tuple((name, child.attrib[name]) for name in _INHERITED if name in child.attrib)
        if len(child) or "id" in child.attrib or _tag(child) not in ("use", "text", "path", "line"):
            flush()
            shared = ()
            result.append(child)
            continue
        if run and paint == shared:
            run.append(child)
            continue
        flush()
        run.append(child)
        shared = paint
    flush()
    parent[:] = result


def _points_as_markers(root: ET.Element, defs: str) -> str:
    """Each run of a group's points (``<use>`` of one shape, painted by the group's fill and
    nothing else) as one path of movetos whose every vertex carries a marker of that shape and
    fill: the same shapes at the same places, a few bytes a point instead of an element each.
    Returns the defs with those markers added."""
    markers: dict[tuple[str, str], str] = {}
    converted: set[int] = set()
    for group in list(root.iter()):
        if _tag(group) != "g" or set(group.attrib) != {"fill"} or not len(group):
            continue
        children = list(group)
        if not all(
            _tag(c) == "use" and set(c.attrib) == {"href", "x", "y"} and not len(c)
            for c in children
        ):
            continue
        kept: list[ET.Element] = []
        for child in children:
            key = (child.attrib["href"], group.attrib["fill"])
            name = markers.setdefault(key, f"m{len(markers)}")
            vertex = f"M{child.attrib['x']} {child.attrib['y']}"
            if kept and kept[-1].get("marker-mid") == f"url(#{name})":
                kept[-1].attrib["d"] += vertex
                continue
            kept.append(
                ET.Element(
                    "path",
                    {
                        "d": vertex,
                        **{f"marker-{end}": f"url(#{name})" for end in ("start", "mid", "end")},
                    },
                )
            )
        group[:] = kept
        converted.add(id(group))
    # The markers carry the fill: a converted group's paths take its place.
    for parent in root.iter():
        if any(id(child) in converted for child in parent):
            parent[:] = [
                c for child in parent for c in (list(child) if id(child) in converted else [child])
            ]
    if not markers:
        return defs
    made = "".join(
        f'<marker id="{name}" markerUnits="userSpaceOnUse" overflow="visible">'
        f'<use href="{escape(href)}" fill="{escape(fill)}"/></marker>'
        for (href, fill), name in markers.items()
    )
    return defs.removesuffix("</defs>") + made + "</defs>" if defs else f"<defs>{made}</defs>"


def _open_tag(element: ET.Element, tag: str, attrs: dict[str, str] | None = None) -> str:
    pairs = attrs if attrs is not None else element.attrib
    return f"<{tag}" + "".join(f' {name}="{escape(value)}"' for name, value in pairs.items()) + ">"


def _serialise(element: ET.Element) -> str:
    tag = _tag(element)
    inner = escape(element.text or "", quote=False) + "".join(
        _serialise(child) for child in element
    )
    start = _open_tag(element, tag)
    out = f"{start}{inner}</{tag}>" if inner else start[:-1] + "/>"
    return (
        out + escape(element.tail or "", quote=False)
        if element.tail and element.tail.strip()
        else out
    )
