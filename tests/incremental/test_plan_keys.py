"""Page keys are what an earlier build's manifest is compared with: a faster way to work one out
must give the same key, or every page of every site would be built again once."""

from __future__ import annotations

from sitegen.site.figures.build_figures import Settings
from sitegen.site.page import Site
from sitegen.site.plan import _key, _Verbatim


def test_a_repr_worked_out_once_gives_the_same_key() -> None:
    site, settings = Site("T", "D", "https://example.org/x/"), Settings()
    parts = ("runs/a/index.html", ("a", "d1", "models/m/", "M", None), [("a", "b")])
    assert _key(_Verbatim(site), _Verbatim(settings), *parts) == _key(site, settings, *parts)
    assert _key(_Verbatim(site), *parts) != _key(_Verbatim(Site("T", "D", None)), *parts)
