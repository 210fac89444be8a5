"""Find and redact secrets (API keys, tokens, passwords) in text: the rules every value of a
result document (sitegen.collect.redact) and every message (sitegen.errors) go through.

A leaf module (it imports nothing of sitegen), so errors can redact what they show without
an import cycle.

Result files come from strangers' pull requests, and launch commands, notes and raw tool
output routinely carry an ``--api-key``, an ``HF_TOKEN=…`` or a pasted ``curl`` header.
Every string value of a document goes through :func:`redact_text`, which replaces each
secret with ``<redacted>`` in these passes (order matters: earlier passes keep the
context later ones would otherwise cut up):

1. private key blocks (``-----BEGIN … PRIVATE KEY-----``);
2. URL credentials (``https://user:pass@host`` → ``https://<redacted>@host``);
3. URL query parameters with secret names (``?token=…``, ``&sig=…``);
4. ``Authorization`` / ``Cookie`` headers (the scheme word, e.g. ``Bearer``, is kept);
5. ``Bearer <token>`` on its own;
6. command-line options with secret names (``--api-key X``, ``--hf-token=X``, …);
7. assignments with secret names (``HF_TOKEN=X``, ``X-API-Key: X``, ``"api_key": "X"``);
8. well-known token shapes anywhere (``sk-…``, ``hf_…``, ``ghp_…``, JWTs, ``AKIA…``, …).

A *secret name* is one whose words (split at ``-``, ``_``, ``.`` and camelCase) include
token, secret, password, passwd, passphrase, apikey, key(s) or credential(s) — the rule
lil-bench uses for environments — except where the neighbouring word shows the name is
about tokenizer tokens or a non-secret key (``bos_token``, ``max-token``, ``sort_key``)
or where the last word says the value only points at a secret (``--api-key-file``,
``HF_TOKEN_PATH``). ``tokens``, ``tokenizer`` and friends are different words, so
``--max-num-batched-tokens`` and ``--tokenizer-mode`` are never touched.

Values that are already placeholders are left alone, which makes redaction idempotent:
``<redacted>``, ``***`` and shell references such as ``$HF_TOKEN``, ``${KEY}`` or
``$(cat /run/secrets/key)`` (the secret is not in the file).

Mapping keys are not rewritten: they are field names the schema checks, and a renamed key
would only produce a confusing schema error. A value whose *key* is a secret name is
redacted whole (``env: {VLLM_API_KEY: …}``, ``settings: {hf_token: …}``), and a key that
itself contains a secret is refused with an error that does not repeat it.

Every pattern is written to run in linear time (no nested quantifiers over the same
characters, candidate starts only at the beginning of a word), so a hostile string cannot make
a check take long (tests/collect/test_redact.py, a megabyte of hostile text). These are
heuristics: see docs/security.md.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from functools import lru_cache

REDACTED = "<redacted>"

# --- secret names ---------------------------------------------------------------------

_WORD_SPLIT = re.compile(r"[^A-Za-z0-9]+|(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_SECRET_WORDS = frozenset(
    {
        "token",
        "secret",
        "secrets",
        "password",
        "passwd",
        "passphrase",
        "apikey",
        "apikeys",
        "key",
        "keys",
        "credential",
        "credentials",
        "privkey",
    }
)
# A secret word right after one of these is about something else.
_TOKENIZER_WORDS = frozenset(
    {
        "bos",
        "eos",
        "pad",
        "unk",
        "sep",
        "cls",
        "mask",
        "special",
        "stop",
        "start",
        "end",
        "image",
        "video",
        "audio",
        "max",
        "min",
        "num",
        "total",
        "first",
        "last",
        "per",
        "prompt",
        "input",
        "output",
        "context",
        "new",
        "added",
    }
)
_NON_SECRET_KEY_WORDS = frozenset(
    {
        "public",
        "sort",
        "primary",
        "foreign",
        "hash",
        "cache",
        "partition",
        "group",
        "dict",
        "map",
        "lookup",
        "index",
        "row",
        "column",
        "shard",
        "routing",
        "num",
        "max",
        "min",
    }
)
_NOT_SECRET_AFTER: dict[str, frozenset[str]] = {
    "token": _TOKENIZER_WORDS,
    "key": _NON_SECRET_KEY_WORDS,
    "keys": _NON_SECRET_KEY_WORDS,
}
# A last word that says the value points at a secret, or describes it, rather than being it.
_REFERENCE_WORDS = frozenset(
    {
        "file",
        "files",
        "path",
        "paths",
        "dir",
        "directory",
        "filename",
        "env",
        "var",
        "name",
        "header",
        "url",
        "uri",
        "endpoint",
        "type",
        "mode",
        "format",
        "length",
        "len",
        "size",
        "count",
        "limit",
        "budget",
        "enabled",
        "enable",
        "disabled",
        "required",
        "prefix",
        "source",
        "location",
        "provider",
        "field",
        "usage",
        "ttl",
        "expiry",
        "expires",
    }
)
# Alone and unquoted before a colon these are ordinary prose ("Key: the figures are …").
_PROSE_WORDS = frozenset({"key", "keys", "token", "secret", "secrets"})
# Mapping keys whose whole value is a credential even though no secret word is in the name.
_SECRET_MAPPING_KEYS = frozenset({"authorization", "proxy-authorization", "cookie", "set-cookie"})
# Query parameter names that carry credentials in signed URLs.
_SECRET_QUERY_WORDS = frozenset({"sig", "signature", "auth", "pass", "pwd"})


_SECRET_HINT = re.compile(r"key|token|secret|pass|credential|privkey", re.IGNORECASE)


def _words(name: str) -> list[str]:
    if not _SECRET_HINT.search(name):
        return []  # the common case, decided without splitting
    return [word.lower() for word in _WORD_SPLIT.split(name) if word]


def _has_secret_word(words: list[str]) -> bool:
    if not words or words[-1] in _REFERENCE_WORDS:
        return False
    for index, word in enumerate(words):
        if word not in _SECRET_WORDS:
            continue
        before = words[index - 1] if index else ""
        if before in _NOT_SECRET_AFTER.get(word, frozenset()):
            continue
        return True
    return False


@lru_cache(maxsize=4096)
def is_secret_name(name: str) -> bool:
    """Whether a variable, option, header or field called ``name`` holds a secret."""
    return _has_secret_word(_words(name))


def is_secret_key(key: str) -> bool:
    return key.lower() in _SECRET_MAPPING_KEYS or is_secret_name(key)


def _is_secret_query_name(name: str) -> bool:
    words = [word.lower() for word in _WORD_SPLIT.split(name) if word]
    return _has_secret_word(words) or any(word in _SECRET_QUERY_WORDS for word in words)


# --- values ---------------------------------------------------------------------------

# One value: a quoted string (an unterminated quote takes the rest of its line), or a shell
# word of plain characters, escapes, $(…) and quoted parts without spaces. Quoted parts
# may not span white space because the value may itself sit inside quotes
# (-H 'Authorization: Bearer x' -H '…'), where the next quote closes rather than opens.
# Each loop alternative starts with a different character and nothing follows the value,
# so matching never backtracks.
_VALUE = re.compile(
    r"""
    <[^\s<>]*>
  | "(?:[^"\\\n]|\\.)*"?
  | '[^'\n]*'?
  | (?: \$\([^()\n]*\)
      | [^\s'"&;|<>()`\\]
      | \\[^\s]
      | "[^"\s]*"
      | '[^'\s]*'
    )+
""",
    re.VERBOSE,
)
# A value that only points at a secret: shell expansions joined by punctuation.
_REFERENCE_VALUE = re.compile(r"(?:\$[A-Za-z_]\w*|\$\{[A-Za-z_]\w*\}|\$\([^()\n]*\)|[:/@.-])+")
_MASKED_VALUE = re.compile(r"\*{3,}|x{3,}|X{3,}")
_PLAIN_INTEGER = re.compile(r"\d+(?::\d+)?")


def _unquote(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return value[1:-1]
    return value


def is_placeholder(value: str) -> bool:
    if value == REDACTED:
        return True
    inner = _unquote(value).strip()
    return (
        not inner
        or inner.lower() == REDACTED
        or _MASKED_VALUE.fullmatch(inner) is not None
        or _REFERENCE_VALUE.fullmatch(inner) is not None
    )


def _masked(value: str) -> str:
    """``value`` replaced by the placeholder, keeping its quotes so commands stay readable."""
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return f"{value[0]}{REDACTED}{value[0]}"
    return REDACTED


@lru_cache(maxsize=4096)
def secret_label(name: str) -> str:
    """A name fit for a message: short, and never itself a secret (``ghp_…Token=x``)."""
    if _SHAPE.search(name.lstrip("-")):
        return "a name that holds a secret"
    return name if len(name) <= 40 else name[:39] + "…"


# An edit: replace text[start:end] with replacement, found as a secret of this kind.
_Edit = tuple[int, int, str, str]


def _value_edit(text: str, position: int, name: str, *, no_dash: bool = False) -> _Edit | None:
    if no_dash and text.startswith("-", position):
        return None  # the next option, not a value
    match = _VALUE.match(text, position)
    if match is None:
        return None
    value = match.group()
    if is_placeholder(value):
        return None
    return match.start(), match.end(), _masked(value), f"value of {secret_label(name)}"


# --- the passes -----------------------------------------------------------------------

_PRIVATE_KEY = re.compile(
    r"-----BEGIN[A-Z ]{0,40}PRIVATE KEY-----(?:[^-]|-(?!----))*(?:-----END[A-Z ]{0,40}-----)?"
)


def _private_keys(text: str) -> Iterator[_Edit]:
    if "PRIVATE KEY" not in text:
        return
    for match in _PRIVATE_KEY.finditer(text):
        yield match.start(), match.end(), REDACTED, "private key block"


# The user-info part runs to the last '@' before the host (a password may hold an '@').
_URL_CREDENTIALS = re.compile(
    r"(?<![\w+.-])(?P<scheme>[A-Za-z][A-Za-z0-9+.-]{0,30})://(?P<userinfo>[^\s/?#'\"<>]+)@"
)
_WEB_SCHEMES = frozenset({"http", "https", "ws", "wss"})


def _url_credentials(text: str) -> Iterator[_Edit]:
    if "://" not in text:
        return
    for match in _URL_CREDENTIALS.finditer(text):
        userinfo = match.group("userinfo")
        # ssh://git@host names a user, not a secret; a lone long "user" on the web is a token.
        if ":" not in userinfo and not (
            match.group("scheme").lower() in _WEB_SCHEMES and len(userinfo) >= 16
        ):
            continue
        yield match.start("userinfo"), match.end("userinfo"), REDACTED, "credentials in a URL"


_QUERY_PARAMETER = re.compile(r"[?&;](?P<name>[A-Za-z0-9_.-]{1,100})=(?P<value>[^&#\s'\"<>]+)")


def _query_parameters(text: str) -> Iterator[_Edit]:
    for match in _QUERY_PARAMETER.finditer(text):
        name, value = match.group("name"), match.group("value")
        if _is_secret_query_name(name) and not is_placeholder(value):
            yield (
                match.start("value"),
                match.end("value"),
                REDACTED,
                f"URL parameter {secret_label(name)}",
            )


_HEADER = re.compile(
    r"(?P<name>a(?<![\w-]a)uthorization|p(?<![\w-]p)roxy-authorization"
    r"|c(?<![\w-]c)ookie|s(?<![\w-]s)et-cookie)"
    r"[\"']?[ \t]*[:=][ \t]*"
    r"(?P<scheme>(?:bearer|basic|token|digest|negotiate|ntlm|oauth|apikey|api-key|key|jwt|hawk|"
    r"aws4-hmac-sha256|ssws|splunk|geniekey)[ \t]+)?",
    re.IGNORECASE,
)
_COOKIE_VALUE = re.compile(r"[^\r\n'\"<>]*[^\s'\"<>]")


def _headers(text: str) -> Iterator[_Edit]:
    lower = text.lower()
    if "authorization" not in lower and "cookie" not in lower:
        return
    covered = 0
    for match in _HEADER.finditer(text):
        if match.start() < covered:
            continue
        name = match.group("name")
        if "cookie" in name.lower():
            value = _COOKIE_VALUE.match(text, match.end())
            edit = (
                None
                if value is None or is_placeholder(value.group())
                else (value.start(), value.end(), REDACTED, "")
            )
        else:
            edit = _value_edit(text, match.end(), name)
        if edit is not None:
            covered = edit[1]
            yield edit[0], edit[1], edit[2], f"{name} header"


_BEARER = re.compile(r"b(?<![\w-]b)earer[ \t]+(?P<token>[A-Za-z0-9._~+/-]+=*)", re.IGNORECASE)


def _bearer_tokens(text: str) -> Iterator[_Edit]:
    for match in _BEARER.finditer(text):
        token = match.group("token")
        # "Bearer tokens are …" is prose; a credential is long or has digits.
        if len(token) >= 24 or (len(token) >= 8 and any(c.isdigit() for c in token)):
            yield match.start("token"), match.end("token"), REDACTED, "bearer token"


# Option names start a word; their value follows '=', white space (or a line
# continuation), or — in a printed argv list — a quote, comma and quote.
OPTION = re.compile(r"(?P<name>-(?<![\w.-]-)-?[A-Za-z][\w.-]*)")
_OPTION_SEPARATOR = re.compile(r"(?P<equals>=)|(?:\s|\\(?=\s))+|[\"'][ \t]*,[ \t]*")
_USER_OPTIONS = frozenset({"-u", "--user", "--proxy-user"})


def _options(text: str) -> Iterator[_Edit]:
    # Values already taken (or scanned) are not searched again for options: that keeps the
    # pass linear on input such as "--api-key=--api-key=--api-key=…".
    covered = 0
    for match in OPTION.finditer(text):
        if match.start() < covered:
            continue
        name = match.group("name")
        user_option = name.lower() in _USER_OPTIONS
        if not user_option and not is_secret_name(name):
            continue
        separator = _OPTION_SEPARATOR.match(text, match.end())
        if separator is None:
            continue
        edit = _value_edit(text, separator.end(), name, no_dash=separator.group("equals") is None)
        if edit is None:
            continue
        covered = edit[1]
        if user_option:
            # curl -u user:password; not python -u script.py, not docker --user 1000:1000.
            value = _unquote(text[edit[0] : edit[1]])
            if ":" not in value or _PLAIN_INTEGER.fullmatch(value):
                continue
        yield edit


_ASSIGNMENT = re.compile(
    r"(?<![\w.$/{-])(?P<name>[A-Za-z_][\w.-]*)(?P<quote>[\"'])?[ "
    r"\t]*(?:(?P<colon>:)(?![:/])|=(?![=~>]))[ \t]*"
)


def _assignments(text: str) -> Iterator[_Edit]:
    if not _SECRET_HINT.search(text):
        return  # no secret name anywhere: skip the per-name work
    covered = 0
    for match in _ASSIGNMENT.finditer(text):
        if match.start() < covered:
            continue
        name = match.group("name")
        words = _words(name)
        if not _has_secret_word(words):
            continue
        if (
            match.group("colon")
            and not match.group("quote")
            and len(words) == 1
            and words[0] in _PROSE_WORDS
        ):
            continue  # "Key: the figures are …"; a quoted "token": … is data
        edit = _value_edit(text, match.end(), name)
        if edit is not None:
            covered = edit[1]
            yield edit


# (kind, pattern); every pattern starts with a literal character and the secret must start
# a word (no letter, digit, '_' or '-' before it).
_SHAPES: tuple[tuple[str, str], ...] = (
    ("JSON Web Token", r"eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*"),
    ("OpenAI-style API key (sk-…)", r"sk-[A-Za-z0-9_-]{16,}"),
    ("Stripe key", r"sk_(?:live|test)_[A-Za-z0-9]{16,}"),
    ("Stripe key", r"rk_(?:live|test)_[A-Za-z0-9]{16,}"),
    ("Hugging Face token (hf_…)", r"hf_[A-Za-z0-9]{20,}"),
    ("GitHub token", r"gh[pousr]_[A-Za-z0-9]{20,}"),
    ("GitHub token", r"github_pat_[A-Za-z0-9_]{20,}"),
    ("GitLab token (glpat-…)", r"glpat-[A-Za-z0-9_-]{20,}"),
    ("lil-bench token (lilb_…)", r"lilb_[A-Za-z0-9_-]{12,}"),
    ("Slack token", r"xox[abposr]-[A-Za-z0-9-]{10,}"),
    ("AWS access key id", r"AKIA[A-Z0-9]{16}(?![A-Za-z0-9])"),
    ("AWS access key id", r"ASIA[A-Z0-9]{16}(?![A-Za-z0-9])"),
    ("Google API key", r"AIza[A-Za-z0-9_-]{35}"),
    ("NVIDIA API key (nvapi-…)", r"nvapi-[A-Za-z0-9_-]{20,}"),
    ("Groq API key (gsk_…)", r"gsk_[A-Za-z0-9]{20,}"),
    ("Replicate token (r8_…)", r"r8_[A-Za-z0-9]{20,}"),
    ("PyPI token", r"pypi-[A-Za-z0-9_-]{50,}"),
    ("npm token", r"npm_[A-Za-z0-9]{30,}"),
)


def _word_start(pattern: str) -> str:
    # "sk-…" becomes "s(?<![\w-]s)k-…": the word-start check sits after the first literal, so
    # the whole alternation begins with literals and the regex engine skips ahead to them
    # instead of testing every position of a long text.
    first = re.escape(pattern[0])
    return f"{first}(?<![\\w-]{first}){pattern[1:]}"


_SHAPE = re.compile("|".join(_word_start(pattern) for _, pattern in _SHAPES))
_SHAPE_KINDS = tuple((re.compile(pattern), kind) for kind, pattern in _SHAPES)


def _shapes(text: str) -> Iterator[_Edit]:
    for match in _SHAPE.finditer(text):
        found = match.group()
        kind = next((kind for pattern, kind in _SHAPE_KINDS if pattern.fullmatch(found)), "token")
        yield match.start(), match.end(), REDACTED, kind


_PASSES = (
    _private_keys,
    _url_credentials,
    _query_parameters,
    _headers,
    _bearer_tokens,
    _options,
    _assignments,
    _shapes,
)


def _splice(text: str, edits: Iterable[_Edit], kinds: list[str]) -> str:
    parts: list[str] = []
    last = 0
    for start, end, replacement, kind in edits:
        if start < last:
            continue  # inside a value this pass has already replaced
        parts.append(text[last:start])
        parts.append(replacement)
        kinds.append(kind)
        last = end
    if not parts:
        return text
    parts.append(text[last:])
    return "".join(parts)


def find_and_redact(text: str) -> tuple[str, list[str]]:
    """``text`` with every secret replaced by ``<redacted>``, and the kinds of secret found."""
    if len(text) <= _MEMO_LENGTH:
        redacted, kinds = _find_and_redact_short(text)
        return redacted, list(kinds)
    return _find_and_redact(text)


# Field names and statuses repeat thousands of times in a collect: remember short texts.
_MEMO_LENGTH = 128


@lru_cache(maxsize=8192)
def _find_and_redact_short(text: str) -> tuple[str, tuple[str, ...]]:
    redacted, kinds = _find_and_redact(text)
    return redacted, tuple(kinds)


def _find_and_redact(text: str) -> tuple[str, list[str]]:
    kinds: list[str] = []
    # A second round catches anything a replacement brought together; it normally finds nothing.
    for _ in range(3):
        before = len(kinds)
        for find in _PASSES:
            text = _splice(text, find(text), kinds)
        if len(kinds) == before:
            break
    return text, list(dict.fromkeys(kinds))


def redact_text(text: str) -> str:
    """``text`` with every secret replaced by ``<redacted>``; safe to apply again."""
    return find_and_redact(text)[0]
