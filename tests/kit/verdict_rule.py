"""The capacity rules of docs/capacity.md, written again for the tests from the documentation
alone (never importing sitegen's capacity module): what /data/capacity.json, the pages and the
picker must agree with, worked out straight from a published result file (/runs/<id>.json)."""

from __future__ import annotations

from typing import Any

Cell = dict[str, Any]


def own_cells(document: dict[str, Any]) -> dict[int, dict[int, Cell]]:
    """Each position's cell; where the output length varies, the run's own (else the shortest)."""
    default = document["run"].get("output_tokens_per_request")
    rows: dict[int, dict[int, Cell]] = {}
    for c in document["measurements"]["decode"]:
        row = rows.setdefault(c["context_tokens"], {})
        held = row.get(c["concurrency"])
        mine = c.get("output_tokens_per_request") in (None, default)
        held_mine = held is not None and held.get("output_tokens_per_request") in (None, default)
        if (
            held is None
            or (mine and not held_mine)
            or (
                mine == held_mine
                and (c.get("output_tokens_per_request") or 0)
                < (held.get("output_tokens_per_request") or 0)
            )
        ):
            row[c["concurrency"]] = c
    return rows


def _stat(c: Cell, name: str, key: str) -> float | None:
    value = (c.get("statistics") or {}).get(name, {}).get(key)
    return float(value) if isinstance(value, int | float) else None


def _low(percentile: str) -> str:
    # The slow tail of a speed: p99 → p1, p90 → p10, p50 → p50.
    return "p" + f"{100 - float(percentile[1:]):g}"


def speed(c: Cell, percentile: str | None) -> tuple[float | None, str | None]:
    """Per-request tok/s and where it came from ("reported" or "time_between_tokens")."""
    if percentile is None:
        reported, gap = c.get("per_request_tokens_per_s"), c.get("time_between_tokens_ms")
    else:
        reported, gap = (
            _stat(c, "per_request_tokens_per_s", _low(percentile)),
            _stat(c, "time_between_tokens_ms", percentile),
        )
    if reported is not None:
        return float(reported), "reported"
    if gap:
        return 1000 / gap, "time_between_tokens"
    return None, None


def latency(c: Cell, name: str, percentile: str | None) -> float | None:
    return c.get(name) if percentile is None else _stat(c, name, percentile)


def prefill_ms(document: dict[str, Any], context: int) -> float | None:
    """The single-request prefill time at the prefill point nearest ``context`` within 3 %."""
    if document["run"].get("prefill_mode") == "at-depth":
        return None
    times = {}
    for p in document["measurements"].get("prefill", []):
        if "prompt_chunk_tokens" not in p and p.get("ttft_ms") is not None:
            times.setdefault(p["context_tokens"], p["ttft_ms"])
    near = sorted((abs(k - context), k) for k in times if abs(k - context) <= 0.03 * context)
    return times[near[0][1]] if near else None


def ttft_judged(document: dict[str, Any], level: dict[str, Any]) -> str:
    cache = document["run"].get("ttft_prompt_cache")
    if level.get("ttft") == "cold" and cache != "cold":
        return "cold_estimate"
    return cache or "unknown"


def verdict(document: dict[str, Any], c: Cell, level: dict[str, Any]) -> str:
    """ "meets", "misses" or "cannot_tell"."""
    if c["status"] == "not_run":
        return "cannot_tell"
    if c["status"] != "valid":
        return "misses"
    pct = level.get("percentile")
    checks: list[bool | None] = []  # True within, False outside, None missing
    value, _ = speed(c, pct)
    checks.append(None if value is None else value >= level["min_tokens_per_s_per_request"])
    ttft = latency(c, "ttft_ms", pct)
    checks.append(None if ttft is None else ttft <= level["max_ttft_ms"])
    if ttft_judged(document, level) == "cold_estimate":
        prefill = prefill_ms(document, c["context_tokens"])
        checks.append(None if prefill is None else prefill <= level["max_ttft_ms"])
    if level.get("max_time_between_tokens_ms") is not None:
        gap = latency(c, "time_between_tokens_ms", pct)
        checks.append(None if gap is None else gap <= level["max_time_between_tokens_ms"])
    if False in checks:
        return "misses"
    return "cannot_tell" if None in checks else "meets"


def record(document: dict[str, Any], context: int, level: dict[str, Any]) -> dict[str, Any]:
    """One /data/capacity.json record (without its reason) for a run's own context."""
    row = own_cells(document)[context]
    count = document["hardware"]["count"]
    ladder = sorted(row)
    best = stop = None
    for n in ladder:
        if verdict(document, row[n], level) != "meets":
            stop = n
            break
        best = n
    resting = row[best if best is not None else ladder[0]]
    first = verdict(document, row[ladder[0]], level)
    state = (
        "meets" if best is not None else ("cannot_tell" if first == "cannot_tell" else "none_meets")
    )
    total = row[best].get("total_tokens_per_s") if best is not None else None
    return {
        "run": document["_id"],
        "service_level": level["name"],
        "context_tokens": context,
        "max_concurrency": best,
        "total_tokens_per_s": total,
        "tokens_per_s_per_accelerator": total / count if total is not None else None,
        "users_per_accelerator": best / count if best is not None else None,
        "state": state,
        "per_request_source": speed(resting, level.get("percentile"))[1],
        "ttft_judged": ttft_judged(document, level),
        "stopped_at": stop,
        "stopped_state": verdict(document, row[stop], level) if stop is not None else None,
        "measured_concurrency": ladder,
    }


def for_users(rec: dict[str, Any], users: int) -> tuple[str, int | None]:
    """The answer to "does it hold ``users``?" read off a record: meets at the smallest measured
    concurrency ≥ users, fails or cannot tell where the ladder stopped at or below it, or not
    measured that high."""
    rung = next((n for n in rec["measured_concurrency"] if n >= users), None)
    stop = rec["stopped_at"]
    if stop is not None and (rung is None or stop <= rung):
        return ("cannot_tell" if rec["stopped_state"] == "cannot_tell" else "fails"), stop
    if rung is None:
        return "not_measured", None
    return "meets", rung
