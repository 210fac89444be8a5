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

    # A value is walked with its container's pointer and its key there: its own pointer is
    # made only for a redaction to report (a document has thousands of figures and no secret).
    def scalar(value: Any, container: str, key: str | int | None, whole: str | None) -> Any:
        if isinstance(value, bool) or value is None:
            return value
        if whole is not None and isinstance(value, (str, int, float)):
            if isinstance(value, str) and is_placeholder(value):
                return value
            redactions.append(
                Redaction(_pointer(container, key), (f"value of {secret_label(whole)}",))
            )
            return REDACTED
        if isinstance(value, str):
            text, kinds = find_and_redact(value)
            if kinds:
                redactions.append(Redaction(_pointer(container, key), tuple(kinds)))
            return text
        return value

    def walk(value: Any, container: str, key: str | int | None, whole: str | None) -> Any:
        if not isinstance(value, dict | list):
            return scalar(value, container, key, whole)
        pointer = _pointer(container, key)
        if isinstance(value, dict):
            result: dict[str, Any] = {}
            for name, item in value.items():
                _, key_kinds = find_and_redact(name)
                if key_kinds:
                    refused.append(
                        Problem(
                            document.source,
                            document.lines.get(pointer_join(pointer, name)),
                            pointer or "/",
                            f"a field name holds a secret ({', '.join(key_kinds)}); field names "
                            f"are published "
                            "as written, so remove it (and revoke the secret: the pull request "
                            "made it public)",
                        )
                    )
                secret = whole if whole is not None else (name if is_secret_key(name) else None)
                result[name] = walk(item, pointer, name, secret)
            return result
        items: list[Any] = []
        after_option: str | None = None
        for index, item in enumerate(value):
            items.append(walk(item, pointer, index, whole or after_option))
            # A command kept as an argv list: ["--api-key", "sk-…"].
            after_option = None
            if isinstance(item, str) and OPTION.fullmatch(item) and is_secret_name(item):
                following = value[index + 1] if index + 1 < len(value) else None
                if isinstance(following, str) and not following.startswith("-"):
                    after_option = item
        return items

    data = walk(document.data, "", None, None)
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


def _pointer(container: str, key: str | int | None) -> str:
    return container if key is None else pointer_join(container, key)
