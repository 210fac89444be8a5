"""An entry of an Atom feed, as /feed.xml and /changes.xml write it."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class FeedEntry:
    """One run in the Atom feed."""

    id: str
    title: str
    link: str
    updated: str
    summary: str
