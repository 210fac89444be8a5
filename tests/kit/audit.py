"""Live markup in a built site: a reading of its HTML, SVG, XML and JSON files that finds
anything hostile input could have made run (scripts, handlers, javascript: links)."""

from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path
from xml.etree import ElementTree

PWNED = "window.__pwned"


class _Audit(HTMLParser):
    """Finds markup that could run script: on* attributes, script-ish URLs, script bodies with
    data."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.findings: list[str] = []
        self.in_script = False
        self.tags = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags += 1
        if tag in ("iframe", "object", "embed", "base"):
            self.findings.append(f"<{tag}>")
        for name, value in attrs:
            if name.startswith("on"):
                self.findings.append(f"<{tag} {name}=…>")
            if (
                name in ("href", "src", "action", "formaction", "xlink:href", "srcset")
                and value
                and value.strip().lower().startswith(("javascript:", "data:", "vbscript:"))
            ):
                self.findings.append(f"<{tag} {name}={value[:40]!r}>")
            if tag == "meta" and name == "content" and value and "url=" in value.lower():
                self.findings.append("<meta refresh>")
        if tag == "script":
            self.in_script = True
            if dict(attrs).get("src") is None:
                self.findings.append("<script> without src (inline script)")

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self.in_script = False

    def handle_data(self, data: str) -> None:
        if self.in_script and PWNED in data:
            self.findings.append("data inside <script>")


def audit_html(text: str) -> list[str]:
    parser = _Audit()
    parser.feed(text)
    parser.close()
    return parser.findings


def audit_site(output: Path) -> list[str]:
    """Every way the built site could carry live hostile markup, as 'file: finding' lines."""
    findings: list[str] = []
    for path in sorted(output.rglob("*")):
        if not path.is_file():
            continue
        name = path.relative_to(output).as_posix()
        if path.suffix == ".html":
            findings += [f"{name}: {f}" for f in audit_html(path.read_text(encoding="utf-8"))]
        elif path.suffix == ".svg":
            text = path.read_text(encoding="utf-8")
            ElementTree.fromstring(text)  # well-formed
            findings += [f"{name}: {f}" for f in audit_html(text)]
        elif path.suffix == ".xml":
            root = ElementTree.fromstring(path.read_bytes())
            findings += [
                f"{name}: <script>" for element in root.iter() if element.tag.endswith("script")
            ]
        elif path.suffix == ".json":
            json.loads(path.read_bytes())
    return findings
