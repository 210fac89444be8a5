"""Data files of many like records, written small but readable: the field names once, then
one record per line as an array in that order (as CSV would, with JSON's types and nulls).

A data file shows every run, so one added run changes it, while each run's lines are made from
that run alone: the build keeps them as pieces (fragments.Fragments, see ``run_piece``) and a
data file is the join of its runs' pieces, made again only for the runs that changed."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from sitegen.model import Run
from sitegen.site.incremental.fragments import Fragments, Piece
from sitegen.site.incremental.joined import Joined


def dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def row(values: Sequence[Any]) -> str:
    """One record's line (without the comma that follows it)."""
    return dumps(list(values))


def json_rows(
    head: dict[str, Any], fields: Sequence[str], rows: Iterable[Sequence[Any]], key: str
) -> bytes:
    """``head``'s keys, then ``"fields"`` and ``key``: every row on its own line. Parses as one
    JSON document; ``grep`` and ``diff`` read it a record at a time."""
    return json_lines(head, fields, (row(values).encode() for values in rows), key)


def json_lines(
    head: dict[str, Any], fields: Sequence[str], pieces: Iterable[Piece], key: str
) -> bytes:
    """json_rows of rows already written: each piece is the UTF-8 lines of some records (``row``
    joined by ",\\n"), and an empty piece holds none."""
    start, end = _lines_ends(head, fields, key)
    return start + LINES_SEPARATOR.join(piece for piece in pieces if piece) + end


LINES_SEPARATOR = b",\n"


def _lines_ends(head: dict[str, Any], fields: Sequence[str], key: str) -> tuple[bytes, bytes]:
    """What json_lines writes before its pieces and after them."""
    document = dumps({**head, "fields": list(fields)})[:-1]
    return f'{document},"{key}":[\n'.encode(), b"\n]}\n"


def joined_lines(
    head: dict[str, Any], fields: Sequence[str], key: str, pieces: RunPieces
) -> Joined:
    """``json_lines`` of ``pieces`` as a file a build splices from its last one (joined.Joined):
    ``Joined.join`` gives json_lines' bytes."""
    start, end = _lines_ends(head, fields, key)
    return Joined(start, LINES_SEPARATOR, end, pieces.keys, pieces.piece, pieces.scope)


class RunPieces:
    """Each run's piece of a data file (``run_piece`` of ``make``, ``runs`` in the file's order,
    ``inputs``: each run's further inputs, in the same order), known by the key the kept pieces
    keep it under (Fragments.run_key), and made or read back only when asked for (``piece``)."""

    def __init__(
        self,
        fragments: Fragments | None,
        make: Callable[..., str],
        runs: Sequence[Run],
        inputs: Sequence[tuple[object, ...]] | None = None,
        build: object = None,
    ) -> None:
        self.fragments, self.make, self.runs, self.build = fragments, make, runs, build
        self.inputs = inputs if inputs is not None else [()] * len(runs)
        run_key = Fragments.run_key
        self.keys = [
            run_key(make, run, *shown) for run, shown in zip(runs, self.inputs, strict=True)
        ]
        self.scope = fragments.scope if fragments is not None else ""

    def piece(self, at: int) -> Piece:
        """The piece of the ``at``-th run."""
        return run_piece(
            self.fragments, self.make, self.runs[at], *self.inputs[at], build=self.build
        )


def run_piece(
    fragments: Fragments | None,
    make: Callable[..., str],
    run: Run,
    *inputs: object,
    build: object = None,
) -> Piece:
    """``make(run, *inputs)`` (``make(build, run, *inputs)`` with ``build``): one run's records
    as UTF-8, kept between builds under a key made from ``make``'s name, the run's id and digest
    (its whole content) and ``inputs`` (what else the piece shows: a label made from other
    runs). ``make`` is a plain function of its module (Fragments.cached), so nothing it is made
    from can be missing from the key; ``build`` is what every piece shares, in the fragments'
    scope with the code, the settings and the site. A run without a digest (made by hand, not
    collected) has nothing to be known by: made each time."""
    if fragments is None or not run.digest:
        if build is not None:
            return make(build, run, *inputs).encode()
        return make(run, *inputs).encode()
    return fragments.cached_run_bytes(make, run, *inputs, build=build)
