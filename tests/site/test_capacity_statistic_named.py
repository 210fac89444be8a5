"""Issue 41 item 5: every capacity answer says which statistic of the cells it judged — the
level's percentile where the level sets one, else the mean or median the run's file reports its
latencies as — so that runs with different statistics side by side each say their own."""

from __future__ import annotations

import re
from pathlib import Path

from tests.kit.project import REPO, load_yaml

# A level page's row: its setup (the run's link heads it), then a cell a context.
ROW = re.compile(r'<tr><th><a href="(?:\.\./)*runs/([^/"]+)/index\.html">(.*?)\n')


def _expected(run_id: str, percentile: str | None) -> str:
    """The statistic judged, from the result file and the level as the config states them."""
    if percentile:
        return f"{percentile} latencies"
    path = REPO / "content" / "runs" / f"{run_id}.yaml"
    statistic = load_yaml(path.read_text(encoding="utf-8"))["run"].get("latency_statistic")
    return f"{statistic} latencies" if statistic in ("mean", "median") else "latencies as reported"


def test_each_ranked_answer_names_the_statistic_it_judged(built_site: Path) -> None:
    """Each cell of a level page says it, or the table's caption does, once for cells that all
    judged the same."""
    config = load_yaml((REPO / "sitegen.yaml").read_text(encoding="utf-8"))
    levels = {level["name"]: level.get("percentile") for level in config["service_levels"]}
    kinds: set[str] = set()
    checked = 0
    for page in sorted((built_site / "capacity").glob("*/*/index.html")):
        level = page.parent.parent.name
        html = page.read_text(encoding="utf-8")
        shared = re.search(r"every cell judged on: ([^<]*?) · rows are setups", html)
        for run_id, rest in ROW.findall(html):
            expected = _expected(run_id, levels[level])
            for cell in rest.split("<td")[1:]:
                if cell == ">—":
                    continue  # not measured at this context
                labels = re.findall(r"<small>([^<]*)</small>", cell)
                if shared:
                    labels.append(shared[1])
                assert any(label.startswith(expected + " · ") for label in labels), (page, cell)
                checked += 1
            kinds.add(expected)
    assert checked > 50
    # The shipped runs include files that report means and files that do not say.
    assert {"mean latencies", "latencies as reported"} <= kinds


def test_a_run_pages_capacity_names_the_statistic(built_site: Path) -> None:
    run_id = "h200nvl2-sglang-deepseek-v4-flash-dspark"
    html = (built_site / "runs" / run_id / "index.html").read_text(encoding="utf-8")
    capacity = html.split("<section id=capacity", 1)[1].split("</section>", 1)[0]
    assert _expected(run_id, None) == "mean latencies"
    assert capacity.count("mean latencies · ") >= 3
