"""Jinja2, configured once: autoescape everywhere, undefined names are errors."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from jinja2 import Environment, FileSystemLoader, StrictUndefined, pass_context
from jinja2.runtime import Context

from sitegen.site import plots
from sitegen.site.charts import PALETTE, SHAPES
from sitegen.site.common import Page, Site


def environment(templates_dir: Path) -> Environment:
    env = Environment(
        loader=FileSystemLoader(templates_dir),
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
        # Relative to the page being rendered, like every link (common.Site.url). The content
        # hash in the query string lets browsers cache assets until they change.
        site: Site = context["page"].site
        return f"{site.url('assets/' + name)}?v={versions[name]}"

    env.globals["asset"] = asset
    env.globals["plot_sheet"] = plots.sheet  # a page's shared plot definitions (templates/_macros.html)
    env.globals["palette"], env.globals["shapes"] = PALETTE, SHAPES  # the legend keys' places
    return env


# What XML 1.0 does not allow in a document, even escaped: one such character makes a feed
# reader drop the whole feed. Result files are refused for them (validate.check_text), but
# sitegen.yaml's title and description are not result files.
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def render(env: Environment, page: Page) -> bytes:
    text = env.get_template(page.template).render(page=page.context)
    if page.path.endswith(".xml"):
        text = _NOT_XML.sub("", text)
    return text.encode()
