"""Where the listings (the index, /capacity/, the preset views) break into pages, worked out here
from the built site's run files alone, by the rule docs/architecture.md states, with none of
sitegen's code: the models in order of their own name (their key, the base model else the model,
lower-cased, after its last "/"), then of their key;
a page ends after a model whose number (the first 8 bytes of sha256("page end\\0" + key), big-
endian, over 2**64) is below its runs ÷ the page size; a stretch longer than twice the page size
is cut every twice the page size runs, within a model if need be. The first page ends instead at
the first model end from the page size on."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path


def model_runs(site: Path) -> dict[str, list[str]]:
    """Each model key's run ids, from the built site's run JSON (runs/<id>.json)."""
    found: dict[str, list[str]] = {}
    for path in sorted((site / "runs").glob("*.json")):
        run = json.loads(path.read_text(encoding="utf-8"))["run"]
        found.setdefault((run.get("base_model") or run["model"]).lower(), []).append(path.stem)
    return dict(sorted(found.items(), key=lambda item: (item[0].rsplit("/", 1)[-1], item[0])))


def ends_a_page(key: str, count: int, size: int) -> bool:
    """Whether a model of ``count`` runs ends its page, pages of ``size`` runs on average."""
    return (
        int.from_bytes(hashlib.sha256(b"page end\0" + key.encode()).digest()[:8], "big") / 2**64
        < count / size
    )


def expected_pages(models: dict[str, int], size: int) -> list[list[tuple[str, int]]]:
    """Each page's (model key, its runs on the page), for models in order with their run counts."""
    pages: list[list[tuple[str, int]]] = [[]]
    on_page = 0
    for key, count in models.items():
        left = count
        while left:
            take = min(left, 2 * size - on_page)
            if take == 0:  # the page is full: a stretch cut at twice the page size
                pages.append([])
                on_page = 0
                continue
            pages[-1].append((key, take))
            on_page += take
            left -= take
        # The first page ends at the first model end from ``size`` runs on.
        if (on_page >= size if len(pages) == 1 else ends_a_page(key, count, size)) and on_page:
            pages.append([])
            on_page = 0
    if not pages[-1] and len(pages) > 1:
        pages.pop()
    return pages


def site_pages(site: Path, size: int) -> list[list[tuple[str, int]]]:
    """expected_pages of a built site's runs."""
    return expected_pages({key: len(ids) for key, ids in model_runs(site).items()}, size)
