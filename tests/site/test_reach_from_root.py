"""Issue 41: a reader's question is answered on a page reached from ``/`` by following at most
three links, without JavaScript: every model's ranked capacity answer at every shipped level
(``/capacity/<level>/<model>/``) and every operating-point view (``/at/<preset>/``). The walk
follows the links of the built pages as a browser without JavaScript would (every ``<a href>``,
relative to the page), breadth first, so the depth found is the fewest clicks."""

from __future__ import annotations

import posixpath
import re
from collections import deque
from pathlib import Path

import yaml

from tests.kit.project import REPO

HREF = re.compile(r'<a\b[^>]*\bhref="?([^" >#?]+)')


def _clicks_from_root(site: Path, limit: int) -> dict[str, int]:
    """The fewest links from index.html to each page reached within ``limit`` links."""
    depth = {"index.html": 0}
    queue = deque(["index.html"])
    while queue:
        page = queue.popleft()
        if depth[page] == limit:
            continue
        html = (site / page).read_text(encoding="utf-8")
        for href in HREF.findall(html):
            if "://" in href or href.startswith(("mailto:", "/")):
                continue
            target = posixpath.normpath(posixpath.join(posixpath.dirname(page), href))
            if target.endswith("/") or (site / target).is_dir():
                target = posixpath.join(target, "index.html")
            if target.endswith(".html") and target not in depth and (site / target).is_file():
                depth[target] = depth[page] + 1
                queue.append(target)
    return depth


def test_every_capacity_answer_and_operating_point_is_within_three_links(built_site: Path) -> None:
    config = yaml.safe_load((REPO / "sitegen.yaml").read_text(encoding="utf-8"))
    levels = [level["name"] for level in config["service_levels"]]
    presets = [preset["name"] for preset in config["presets"]]
    answers = sorted(
        str(page.relative_to(built_site))
        for level in levels
        for page in (built_site / "capacity" / level).glob("*/index.html")
    )
    # One answer page per model and level: as many as the models the /models/ index lists.
    models = (built_site / "models" / "index.html").read_text(encoding="utf-8")
    model_count = len(set(re.findall(r'href="\.\./models/([^"/]+)/index\.html"', models)))
    assert model_count > 5 and len(answers) == model_count * len(levels)
    reached = _clicks_from_root(built_site, 3)
    far = [page for page in answers if page not in reached]
    assert not far, f"more than three links from /: {far[:5]}"
    for name in presets:
        assert f"at/{name}/index.html" in reached


def test_the_models_index_lists_every_model_on_one_page(built_site: Path) -> None:
    """What keeps the walk short as runs grow: / links /models/, which is never paged, and each
    model page links its own answers; so any model is three links away however long the index
    and /capacity/ listings become."""
    root = (built_site / "index.html").read_text(encoding="utf-8")
    assert 'href="models/index.html"' in root
    models = (built_site / "models" / "index.html").read_text(encoding="utf-8")
    assert "page/2" not in models and not (built_site / "models" / "page").exists()
    for page in (built_site / "models").glob("*/index.html"):
        html = page.read_text(encoding="utf-8")
        for level in ("server", "interactive"):
            if (built_site / "capacity" / level / page.parent.name).is_dir():
                assert f"capacity/{level}/{page.parent.name}/index.html" in html, page
