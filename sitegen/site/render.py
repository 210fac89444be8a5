"""Jinja2, configured once: autoescape everywhere, undefined names are errors."""

from __future__ import annotations

import base64
import contextlib
import functools
import hashlib
import re
from pathlib import Path

from jinja2 import BytecodeCache, Environment, FileSystemLoader, StrictUndefined, pass_context
from jinja2.bccache import Bucket
from jinja2.runtime import Context
from markupsafe import Markup

from sitegen.site.draw import plots
from sitegen.site.draw.chart_specs import PALETTE, SHAPES
from sitegen.site.figures import numbers
from sitegen.site.page import Page, Site
from sitegen.store import read_cache, write_cache


class CompiledTemplates(BytecodeCache):
    """Templates compiled to Python code, kept in ``.sitegen/cache/templates/`` between builds.

    Compiling the templates costs more than rendering the few pages an added run changes
    (docs/performance-log.md). Jinja names each entry by
    the template and checks it against the template's source and the Python version, so an
    edited template or a new Python is compiled again. The files are read as every cache file is
    (store.read_cache: no link, no pipe, a checksum), so a file cut short is compiled again.
    Like Python's own ``__pycache__``, the entries are code run by the build: the project
    folder, templates included, is trusted as a whole, and the Pages workflow's cache is
    written only by builds of the main branch.
    """

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def _path(self, bucket: Bucket) -> Path:
        return self.folder / f"{bucket.key}.bytecode"

    def load_bytecode(self, bucket: Bucket) -> None:
        data = read_cache(self._path(bucket))
        if data is not None:
            bucket.bytecode_from_string(data)  # a wrong magic or source checksum leaves it empty

    def dump_bytecode(self, bucket: Bucket) -> None:
        with contextlib.suppress(OSError):  # without the entry, the next build compiles again
            write_cache(self._path(bucket), bucket.bytecode_to_string())


def environment(templates_dir: Path, cache_dir: Path | None = None) -> Environment:
    """The templates' environment; with ``cache_dir``, compiled templates are kept there."""
    env = Environment(
        loader=FileSystemLoader(templates_dir),
        bytecode_cache=CompiledTemplates(cache_dir) if cache_dir is not None else None,
        autoescape=True,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    static = templates_dir / "static"
    versions = {
        path.relative_to(static).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()[:10]
        for path in sorted(static.rglob("*"))
        if path.is_file()
    }

    @pass_context
    def asset(context: Context, name: str) -> str:
        # Relative to the page being rendered, like every link (page.Site.url). The content
        # hash in the query string lets browsers cache assets until they change.
        site: Site = context["page"].site
        return f"{site.url('assets/' + name)}?v={versions[name]}"

    env.globals["asset"] = asset

    @functools.cache
    def inlined(name: str) -> str:
        # Read when the 404 page is rendered, not at every build.
        if name not in _INLINED:
            raise ValueError(f"{name} is not an asset pages may carry inline")
        return (static / name).read_text(encoding="utf-8")

    # Our own files, never data: marked safe here, and allowed by the CSP by their hashes.
    env.globals["inline_asset"] = lambda name: Markup(inlined(name))
    env.globals["csp_hash"] = lambda name: Markup(_csp_hash(inlined(name)))
    env.globals["context_zero"] = numbers.CONTEXT_ZERO  # what a context of 0 is, where shown
    env.globals["plot_sheet"] = (
        plots.sheet
    )  # a page's shared plot definitions (templates/_macros.html)
    env.globals["palette"], env.globals["shapes"] = PALETTE, SHAPES  # the legend keys' places
    return env


# Assets the 404 page carries inside itself: it cannot know where the site's files are.
_INLINED = ("style.css",)


def _csp_hash(text: str) -> str:
    """A Content-Security-Policy source that allows exactly ``text`` as an inline element."""
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


# What XML 1.0 does not allow in a document, even escaped: one such character makes a feed
# reader drop the whole feed. Result files are refused for them (validate.check_text), but
# sitegen.yaml's title and description are not result files. Written as the few ranges left out
# of XML's Char production, not as its complement, which is slow to compile at every build.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def render(env: Environment, page: Page) -> bytes:
    text = env.get_template(page.template).render(page=page.context)
    if page.path.endswith(".xml"):
        text = _NOT_XML.sub("", text)
    return text.encode()
