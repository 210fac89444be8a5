"""Read tables and text back out of built pages, the way a reader sees them."""

from __future__ import annotations

from html.parser import HTMLParser
from typing import Any

from markupsafe import escape as _escape


class _Tables(HTMLParser):
    """Rows of cell texts as the HTML table model has them: a cell with ``rowspan`` is in each of
    the rows it spans, at its column (as a screen reader announces it), so a table that says a
    phase or context once for the rows it heads reads back row by row as one that repeats it."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tables: list[tuple[str, list[list[str]]]] = []
        self._stack: list[tuple[str, list[list[str]]]] = []
        self._spans: list[
            dict[int, list[Any]]
        ] = []  # per open table: column → [rows still to fill, text]
        self._cell: list[str] | None = None
        self._rowspan = 1

    def _fill_spans(self) -> None:
        # The cells of rows above that reach down into this row, at this row's next column.
        row, spans = self._stack[-1][1][-1], self._spans[-1]
        while len(row) in spans:
            span = spans[len(row)]
            row.append(span[1])
            span[0] -= 1
            if span[0] == 0:
                del spans[len(row) - 1]

    # As a browser reads it: a cell's end tag is optional, the next cell, row or section ends it.
    def _end_cell(self) -> None:
        if self._cell is not None and self._stack and self._stack[-1][1]:
            self._fill_spans()
            text = "".join(self._cell).strip()
            row = self._stack[-1][1][-1]
            if self._rowspan > 1:
                self._spans[-1][len(row)] = [self._rowspan - 1, text]
            row.append(text)
        self._cell = None

    def _end_row(self) -> None:
        if self._stack and self._stack[-1][1]:
            self._fill_spans()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("td", "th", "tr", "tbody", "thead", "tfoot"):
            self._end_cell()
        if tag in ("tr", "tbody", "thead", "tfoot"):
            self._end_row()
        if tag in ("tbody", "thead", "tfoot") and self._spans:
            self._spans[-1].clear()  # spans end with their row group
        if tag == "table":
            self._stack.append((dict(attrs).get("class") or "", []))
            self._spans.append({})
        elif tag == "tr" and self._stack:
            self._stack[-1][1].append([])
        elif tag in ("td", "th") and self._stack:
            self._cell = []
            self._rowspan = int(dict(attrs).get("rowspan") or 1)

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th", "tr", "tbody", "thead", "tfoot", "table"):
            self._end_cell()
        if tag in ("tr", "tbody", "thead", "tfoot", "table"):
            self._end_row()
        if tag == "table" and self._stack:
            self.tables.append(self._stack.pop())
            self._spans.pop()

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data.strip())


def tables(html: str) -> dict[str, list[list[str]]]:
    """Every table of a page by its class attribute: rows of cell texts, header row first."""
    parser = _Tables()
    parser.feed(html)
    return {css: rows for css, rows in parser.tables}


def seed_table(text: str, first_header: str) -> list[list[str]]:
    """A markdown-style table of the seed page, header first, without the |---| line."""
    rows: list[list[str]] = []
    inside = False
    for line in text.splitlines():
        start = line.find("|")
        if start >= 0 and line[start:].startswith("| " + first_header + " |"):
            inside = True
            line = line[start:]
        elif not line.startswith("|"):
            inside = False
        if inside and not line.startswith("|---"):
            rows.append([cell.strip() for cell in line.strip().strip("|").split("|")])
    return rows


class _Fields(HTMLParser):
    """``<dt>``/``<dd>`` pairs as a browser reads them: a dt's or dd's end tag is optional, the
    next dt or dd, or the end of its list or wrapper, ends it."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.pairs: list[tuple[str, str]] = []
        self._label: list[str] | None = None
        self._value: list[str] | None = None
        self._target: list[str] | None = None

    def _end(self) -> None:
        if self._label is not None and self._value is not None:
            self.pairs.append(("".join(self._label).strip(), "".join(self._value).strip()))
            self._label = self._value = None
        self._target = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "dt":
            self._end()
            self._label, self._value = [], None
            self._target = self._label
        elif tag == "dd" and self._label is not None:
            self._value = []
            self._target = self._value
        elif tag in ("div", "dl"):
            self._end()

    def handle_endtag(self, tag: str) -> None:
        if tag in ("dd", "div", "dl"):
            self._end()

    def handle_data(self, data: str) -> None:
        if self._target is not None:
            self._target.append(data)


def fields(html: str) -> dict[str, str]:
    """Every label and value of a page's definition lists (the run page's metadata blocks), as
    text."""
    parser = _Fields()
    parser.feed(html)
    return dict(parser.pairs)


# Python's parser lowercases names; a browser's gives SVG's mixed-case ones back (HTML's
# "adjust SVG attributes"): the ones the site writes.
_SVG_CASE = {
    name.lower(): name
    for name in (
        "viewBox",
        "markerUnits",
        "markerWidth",
        "markerHeight",
        "refX",
        "refY",
        "preserveAspectRatio",
        "clipPath",
        "linearGradient",
        "gradientUnits",
        "patternUnits",
        "foreignObject",
    )
}


class _Quoted(HTMLParser):
    """Markup written back with every attribute value in double quotes, as a browser's parser
    reads it (unquoted ``class=df`` and quoted ``class="df"`` are the same attribute)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=False)
        self.out: list[str] = []

    def _tag(self, tag: str, attrs: list[tuple[str, str | None]], end: str) -> str:
        written = "".join(
            f' {_SVG_CASE.get(name, name)}="{_escape(value)}"' if value is not None else f" {name}"
            for name, value in attrs
        )
        return f"<{_SVG_CASE.get(tag, tag)}{written}{end}"

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.out.append(self._tag(tag, attrs, ">"))

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.out.append(self._tag(tag, attrs, "/>"))

    def handle_endtag(self, tag: str) -> None:
        self.out.append(f"</{tag}>")

    def handle_data(self, data: str) -> None:
        self.out.append(data)

    def handle_entityref(self, name: str) -> None:
        self.out.append(f"&{name};")

    def handle_charref(self, name: str) -> None:
        self.out.append(f"&#{name};")

    def handle_decl(self, decl: str) -> None:
        self.out.append(f"<!{decl}>")

    def handle_comment(self, data: str) -> None:
        self.out.append(f"<!--{data}-->")


def quoted(html: str) -> str:
    """``html`` with every attribute quoted (values escaped as jinja writes them), so a test can
    look for an element by its attributes however densely the page writes them."""
    parser = _Quoted()
    parser.feed(html)
    parser.close()
    return "".join(parser.out)
