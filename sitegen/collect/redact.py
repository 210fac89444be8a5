"""Redact secrets from result documents before anything is stored or shown: every string
value goes through sitegen.secret_text (where the rules are documented); a value whose key is
a secret name is redacted whole, and a key that itself holds a secret is refused."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from sitegen.errors import Problem, SitegenError
from sitegen.parse import Document, pointer_join
from sitegen.secret_text import (
    OPTION,
    REDACTED,
    find_and_redact,
    is_placeholder,
    is_secret_key,
    is_secret_name,
    redact_text,
    secret_label,
)

__all__ = [
    "REDACTED",
    "Redaction",
    "find_and_redact",
    "is_secret_name",
    "redact_document",
    "redact_document_detailed",
    "redact_text",
    "redaction_warnings",
]


# --- documents ------------------------------------------------------------------------


@dataclass(frozen=True)
class Redaction:
    """One changed value: where it is, and what kinds of secret it held."""

    pointer: str
    kinds: tuple[str, ...]


def redact_document_detailed(document: Document) -> tuple[Document, list[Redaction]]:
    """Like :func:`redact_document`, with the kinds of secret found at each pointer.

    Raises SitegenError if a mapping key holds a secret: keys are published as written.
    """
    redactions: list[Redaction] = []
    refused: list[Problem] = []

    def scalar(value: Any, pointer: str, whole: str | None) -> Any:
        if isinstance(value, bool) or value is None:
            return value
        if whole is not None and isinstance(value, (str, int, float)):
            if isinstance(value, str) and is_placeholder(value):
                return value
            redactions.append(Redaction(pointer, (f"value of {secret_label(whole)}",)))
            return REDACTED
        if isinstance(value, str):
            text, kinds = find_and_redact(value)
            if kinds:
                redactions.append(Redaction(pointer, tuple(kinds)))
            return text
        return value

    def walk(value: Any, pointer: str, whole: str | None) -> Any:
        if isinstance(value, dict):
            result: dict[str, Any] = {}
            for key, item in value.items():
                _, key_kinds = find_and_redact(key)
                if key_kinds:
                    refused.append(
                        Problem(
                            document.source,
                            document.lines.get(pointer_join(pointer, key)),
                            pointer or "/",
                            f"a field name holds a secret ({', '.join(key_kinds)}); field names "
                            f"are published "
                            "as written, so remove it (and revoke the secret: the pull request "
                            "made it public)",
                        )
                    )
                secret = whole if whole is not None else (key if is_secret_key(key) else None)
                result[key] = walk(item, pointer_join(pointer, key), secret)
            return result
        if isinstance(value, list):
            items: list[Any] = []
            after_option: str | None = None
            for index, item in enumerate(value):
                items.append(walk(item, pointer_join(pointer, index), whole or after_option))
                # A command kept as an argv list: ["--api-key", "sk-…"].
                after_option = None
                if isinstance(item, str) and OPTION.fullmatch(item) and is_secret_name(item):
                    following = value[index + 1] if index + 1 < len(value) else None
                    if isinstance(following, str) and not following.startswith("-"):
                        after_option = item
            return items
        return scalar(value, pointer, whole)

    data = walk(document.data, "", None)
    if refused:
        raise SitegenError(refused)
    return Document(document.source, data, document.lines), redactions


def redact_document(document: Document) -> tuple[Document, list[str]]:
    """Return the document with secrets replaced by ``<redacted>``, and the JSON pointers
    changed."""
    redacted, redactions = redact_document_detailed(document)
    return redacted, [redaction.pointer for redaction in redactions]


def redaction_warnings(document: Document, redactions: Iterable[Redaction]) -> list[Problem]:
    """One informational Problem per redacted value, for ``CollectReport.warnings``."""
    return [
        Problem(
            document.source,
            document.line_of(redaction.pointer),
            redaction.pointer,
            f"note: redacted a secret ({', '.join(redaction.kinds)}); the published site shows "
            f"{REDACTED} "
            "(informational: nothing to fix, but revoke the secret if it was real)",
        )
        for redaction in redactions
    ]
