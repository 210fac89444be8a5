"""One rule, one implementation of record (docs/capacity.md): the picker's script, run in real
chromium on the built site's own data files, gives every shipped cell and level the verdict and
capacity /data/capacity.json has, and both agree with tests/kit/verdict_rule.py's reading of the
result files (/runs/<id>.json). Then the picker as a reader uses it: users, states, prices."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.kit import verdict_rule as rule
from tests.kit.browser import Browsing, Visit
from tests.kit.capacity_json import capacity_records
from tests.kit.run_json import published_run

pytestmark = pytest.mark.browser

NIM = "h100x2-nim-llama33-70b-fp8"

# Every configured level, every run of every picker file, judged by the page's own script.
SCRIPT_VERDICTS = r"""async () => {
  const rules = window.sitegenPoint.rules;
  const names = Array.from(document.querySelectorAll("#point-form select[name=level] option"))
    .map((o) => o.value).filter((v) => v && v !== "custom");
  const contexts = Array.from(document.querySelectorAll("#point-form select[name=context] option"))
    .map((o) => o.value);
  const load = async (url) => (await fetch(url)).json();
  const out = {records: [], cells: []};
  for (const context of contexts) {
    const listing = await load(`data/points/${context}.json`);
    for (const model of listing.models) {
      const runs = rules.merged([await load(`data/points/${context}/${model}.json`)]);
      for (const id of Object.keys(runs)) {
        const entry = runs[id];
        if (entry.context_tokens !== Number(context)) continue;  // each run at its own context once
        for (const name of names) {
          const level = rules.levelOf({level: name});
          const found = rules.capacity(entry.cells, level, entry.timing);
          out.records.push({run: id, service_level: name, context_tokens: entry.context_tokens,
            max_concurrency: found.best ? found.best.concurrency : null,
            total_tokens_per_s: found.best ? found.best.total_tokens_per_s : null,
            state: found.state, per_request_source: found.source, ttft_judged: found.ttft,
            stopped_at: found.stoppedAt, stopped_state: found.stoppedState,
            reason: found.reason || null,
            measured_concurrency: found.measured});
          for (const cell of entry.cells) {
            const state = rules.judge(cell, level, entry.timing).state;
            out.cells.push([id, name, entry.context_tokens, cell.concurrency, state]);
          }
        }
      }
    }
  }
  return out;
}"""


def published(site: Path) -> dict[tuple[str, str, int], dict[str, Any]]:
    """data/capacity.json's records, their capacity's figures put back from the run JSON."""
    return {(r["run"], r["service_level"], r["context_tokens"]): r for r in capacity_records(site)}


def documents(site: Path) -> dict[str, dict[str, Any]]:
    return {
        p.stem: {**published_run(p), "_id": p.stem} for p in sorted((site / "runs").glob("*.json"))
    }


def test_the_script_and_the_build_agree_on_every_shipped_cell_and_level(
    browse: Browsing, built_site: Path
) -> None:
    visit = browse.open("/")
    found = visit.js(SCRIPT_VERDICTS)
    records = published(built_site)
    keys = (
        "max_concurrency",
        "total_tokens_per_s",
        "state",
        "per_request_source",
        "ttft_judged",
        "stopped_at",
        "stopped_state",
        "reason",
        "measured_concurrency",
    )
    by_script = {
        (r["run"], r["service_level"], r["context_tokens"]): {k: r[k] for k in keys}
        for r in found["records"]
    }
    assert by_script == {key: {k: r[k] for k in keys} for key, r in records.items()}
    # Each cell's verdict, against the rules read from the documentation and the result files.
    runs = documents(built_site)
    levels = {
        level["name"]: level
        for level in json.loads((built_site / "data" / "capacity.json").read_text())[
            "service_levels"
        ]
    }
    expected = []
    for run_id, document in runs.items():
        for name, level in levels.items():
            for context, row in rule.own_cells(document).items():
                expected += [
                    [run_id, name, context, n, rule.verdict(document, row[n], level)]
                    for n in sorted(row)
                ]
    assert sorted(found["cells"]) == sorted(expected)
    assert {state for *_, state in expected} == {"meets", "misses", "cannot_tell"}
    visit.assert_clean()


def op_cells(visit: Visit) -> dict[str, list[str]]:
    """The operating-point columns of each row, by run id (its first link: runs/<id>/index.html)."""
    return visit.js(r"""() => Object.fromEntries(
        Array.from(document.querySelectorAll("table.runs tbody tr")).map((row) => [
          decodeURIComponent(/runs\/([^/]+)\/index\.html$/.exec(row.querySelector("th a").href)[1]),
          Array.from(row.querySelectorAll("td.op-col")).map((td) => td.innerText.trim())]))""")


def headers(visit: Visit) -> list[str]:
    return visit.js("""() => Array.from(document.querySelectorAll("table.runs thead th.op-col"))
                         .map((th) => th.innerText.trim())""")


def test_the_readers_users_read_the_smallest_measured_load_at_or_above_them(
    browse: Browsing, built_site: Path
) -> None:
    # NIM's Llama-3.3-70B at 5,000 tokens reports no per-request tok/s: its ladder is 1, 5, 25,
    # 50, 100 … and 50 requests meet the server level (835 ms, 1000 / 59.7 ms = 16.7 tok/s).
    record = published(built_site)[(NIM, "server", 5000)]
    for users, words in (
        (20, "meets at 25 requests"),
        (50, "meets at 50 requests"),
        (60, "does not meet at 100 requests"),
    ):
        assert rule.for_users(record, users)[1] == int(re.findall(r"\d+", words)[0])
        visit = browse.open(f"/?context=5000&concurrency=50&level=server&users={users}")
        visit.page.wait_for_selector("td.op-col")
        shown = op_cells(visit)[NIM]
        # 5,000 tokens in K of 1,024, to one decimal (docs/result-format.md): 4.9K.
        assert headers(visit)[4] == f"At {users} users, {5000 / 1024:.1f}K, server (derived)"
        assert shown[4].startswith(words), shown
        assert "speed from time between tokens" in shown[4]
        assert shown[1].startswith("16.7") and "from time between tokens" in shown[1]
        assert "meets server" in shown[3]
        visit.assert_clean()
    # Beyond the ladder: every measured load up to the top meets a lax level, none is that high.
    visit = browse.open("/?context=5000&concurrency=50&min_tps=1&max_ttft=1000000&users=1000")
    visit.page.wait_for_selector("td.op-col")
    assert op_cells(visit)[NIM][4].startswith("not measured that high")


def test_cannot_tell_and_does_not_meet_are_said_never_a_dash(
    browse: Browsing, built_site: Path
) -> None:
    records = published(built_site)
    # The llama-batched-bench run has neither speed nor TTFT: cannot tell; at 8K the seed run's own
    # prefill is above 450 ms, so no load meets the cold interactive level.
    batched = next(
        key
        for key, r in records.items()
        if key[0].endswith("batched") and key[2] == 8192 and key[1] == "server"
    )
    assert records[batched]["state"] == "cannot_tell"
    visit = browse.open("/?context=8192&concurrency=1&level=server")
    visit.page.wait_for_selector("td.op-col")
    shown = op_cells(visit)[batched[0]]
    assert shown[4].startswith("cannot tell") and "no TTFT" in shown[4] and "—" not in shown[4]
    seed = next(run for run, level, context in records if run.startswith("h200nvl2"))
    assert records[(seed, "interactive-cold", 8192)]["state"] == "none_meets"
    visit = browse.open("/?context=8192&concurrency=1&level=interactive-cold")
    visit.page.wait_for_selector("td.op-col")
    cold = op_cells(visit)[seed]
    assert cold[4].startswith("does not meet") and "even at 1 request" in cold[4]
    assert "cold TTFT estimate: at least the measured prefill time" in cold[4]
    visit.assert_clean()


def test_each_cost_uses_its_own_accelerators_price(browse: Browsing, built_site: Path) -> None:
    runs = documents(built_site)
    context, concurrency = 32768, 16
    at = {
        run_id: rule.own_cells(d)
        .get(next((c for c in rule.own_cells(d) if abs(c - context) <= 0.03 * context), -1), {})
        .get(concurrency)
        for run_id, d in runs.items()
    }
    measured = {run_id: c for run_id, c in at.items() if c and c["status"] == "valid"}
    accelerators = sorted({runs[r]["hardware"]["accelerator"] for r in measured})
    assert len(accelerators) >= 2  # two accelerators at this point, or the check proves nothing
    prices = {name: 1.5 + index for index, name in enumerate(accelerators[:2])}
    query = "&".join(
        f"price.{name.lower().replace(' ', '+')}={usd}" for name, usd in prices.items()
    )
    visit = browse.open(f"/?context={context}&concurrency={concurrency}&{query}")
    visit.page.wait_for_selector("td.op-col")
    shown = op_cells(visit)
    assert headers(visit)[-1].startswith("USD per million output tokens")
    for run_id, document in runs.items():
        name = document["hardware"]["accelerator"]
        cost = shown[run_id][-1]
        if run_id in measured and name in prices:
            usd = (
                prices[name]
                * document["hardware"]["count"]
                / (measured[run_id]["total_tokens_per_s"] * 3600)
                * 1e6
            )
            expected = f"${usd:,.2f}" if usd >= 0.1 else f"${usd:.4f}"
            assert (
                cost.startswith(expected) and f"at ${prices[name]:g} per accelerator-hour" in cost
            ), (run_id, cost)
            assert f"your price for {name}" in cost
        elif run_id in measured:
            assert cost.startswith(f"no price for {name}") and "$" not in cost, (run_id, cost)
    # The address keeps each price under its accelerator.
    kept = visit.js("() => new URLSearchParams(location.search)")
    assert kept is not None
    for name, usd in prices.items():
        assert (
            visit.js(
                "(key) => new URLSearchParams(location.search).get(key)", f"price.{name.lower()}"
            )
            == f"{usd:g}"
        )
    visit.assert_clean()


def test_without_a_price_no_cost_appears(browse: Browsing, built_site: Path) -> None:
    visit = browse.open("/?context=32768&concurrency=16&level=server")
    visit.page.wait_for_selector("td.op-col")
    assert not any("USD" in h for h in headers(visit))
    assert "$" not in visit.js("() => document.querySelector('table.runs').innerText")
    visit.assert_clean()


def test_the_old_single_price_is_read_as_every_accelerators_and_said_deprecated(
    browse: Browsing, built_site: Path
) -> None:
    visit = browse.open("/?context=32768&concurrency=16&price=2")
    visit.page.wait_for_selector("td.op-col")
    status = visit.js("() => document.getElementById('point-status').textContent")
    assert "price=2 (one price for every accelerator) is deprecated" in status
    params = visit.js("() => Array.from(new URLSearchParams(location.search).keys())")
    assert "price" not in params and any(key.startswith("price.") for key in params)
    visit.assert_clean()


def ladder(record: dict[str, Any]) -> str:
    """A record's measured ladder, where it stopped and how, as a /capacity/ cell carries it."""
    stop = {"misses": "m", "cannot_tell": "c"}.get(record["stopped_state"] or "", "")
    return (
        f"{','.join(map(str, record['measured_concurrency']))}|{record['stopped_at'] or ''}|{stop}"
    )


@pytest.mark.parametrize("users", [1, 20, 50, 1000])
def test_the_capacity_question_reads_for_the_readers_users(
    browse: Browsing, built_site: Path, users: int
) -> None:
    # /capacity/'s question (capacity.js) for one model at each of its contexts: each setup that
    # meets the level names the smallest measured load at or above the users that meets it, or
    # where it stops, as tests/kit/verdict_rule.py reads it off the published record.
    records = published(built_site)
    model = "qwen3-5-397b-a17b"
    visit = browse.open(f"/capacity/?model={model}&level=server&users={users}&context=0")
    page = visit.page
    contexts = page.locator("#capacity-form select[name=context] option").evaluate_all(
        "(options) => options.map((o) => o.value)"
    )
    assert len(contexts) >= 3
    checked = 0
    for context in contexts:
        page.select_option("#capacity-form select[name=context]", context)
        page.evaluate("() => { document.getElementById('capacity-status').textContent = ''; }")
        page.locator("#capacity-form button[type=submit]").click()
        page.wait_for_function(
            "() => document.querySelector('#capacity-answer table') && "
            "document.getElementById('capacity-status').textContent"
            ".includes('setup')"
        )
        rows = visit.js(r"""() => Array.from(document.querySelectorAll("#capacity-answer tbody tr"))
            .map((tr) => [
                decodeURIComponent(
                    /runs\/([^/]+)\/index\.html$/.exec(tr.querySelector("th a").href)[1]),
                tr.className,
                (tr.querySelector("td[data-label='For your users (derived)']") || {})
                    .innerText || ""])""")
        for run_id, state, said in rows:
            near = 0.03 * max(int(context), 1)
            record = next(
                r
                for (run, level, at), r in records.items()
                if run == run_id and level == "server" and abs(at - int(context)) <= near
            )
            assert state == record["state"], (run_id, context, state, record)
            if state != "meets":
                continue
            found, at = rule.for_users(record, users)
            words = {
                "meets": "meets at {}",
                "fails": "does not meet at {}",
                "cannot_tell": "cannot tell at {}",
            }
            expected = (
                "not measured that high"
                if found == "not_measured"
                else words[found].format(f"{at} request{'s' if at and at > 1 else ''}")
            )
            assert said == expected, (run_id, context, said, expected)
            checked += 1
    assert checked
    assert f"users={users}" in page.url
    visit.assert_clean()
