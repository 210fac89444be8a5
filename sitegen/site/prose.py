"""Markdown prose from result files, rendered with raw HTML off.

This is the one place where text from a result file becomes markup: markdown-it-py
escapes everything, refuses raw HTML, and its link validator drops javascript:,
vbscript:, file: and data: links. Links also get rel="nofollow noopener".
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

from markupsafe import Markup

if TYPE_CHECKING:
    from markdown_it import MarkdownIt

_ALLOWED_SCHEMES = ("http://", "https://", "mailto:", "#", "/")


@cache
def _renderer() -> MarkdownIt:
    # Imported on first use: a build renders prose only for the run pages it makes, and
    # markdown-it is a large part of the build's import time.
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
    md.enable("table")
    md.disable("image")  # remote images would make readers' browsers call other hosts
    default_validate = md.validateLink

    def validate(url: str) -> bool:
        return default_validate(url) and url.strip().lower().startswith(_ALLOWED_SCHEMES)

    md.validateLink = validate  # type: ignore[method-assign]

    def link_open(self, tokens, idx, options, env):  # type: ignore[no-untyped-def]
        tokens[idx].attrSet("rel", "nofollow noopener")
        return self.renderToken(tokens, idx, options, env)

    md.add_render_rule("link_open", link_open)
    return md


def markdown(text: str | None) -> Markup | None:
    """Render ``text`` as safe HTML, or None when there is nothing to show."""
    if not text:
        return None
    return Markup(_renderer().render(text))
