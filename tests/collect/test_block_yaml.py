"""block_yaml reads the block YAML of result files line by line: whatever it reads must be what
PyYAML's reading (parse's walk over PyYAML's nodes) gives, value for value with its type and
line for line; whatever it cannot read that way it leaves to PyYAML (None), which also gives
every refusal its message. Checked on every YAML file of the repository, on documents PyYAML
itself writes from random data, and on the forms at the edge of what it reads."""

from __future__ import annotations

import random
import subprocess
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from sitegen import parse
from sitegen.block_yaml import read_block_yaml
from tests.kit.project import REPO


def _pyyaml(text: str) -> tuple[Any, Any]:
    """What parse_yaml gives without block_yaml: its walk over the nodes PyYAML composed."""
    loader = parse._Loader(text)
    try:
        node = loader.get_single_node()
        return parse._Walk(loader, "x.yaml", False).value(node, 0, 1)  # type: ignore[no-any-return]
    finally:
        loader.dispose()


def _typed(value: Any) -> Any:
    """``value`` with every scalar's type beside it: 1 and 1.0 and True differ."""
    if isinstance(value, dict):
        return {key: _typed(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_typed(item) for item in value]
    return (type(value).__name__, value)


def _agrees(text: str) -> bool:
    """Whether block_yaml read ``text`` (and then as PyYAML reads it)."""
    read = read_block_yaml(text, parse.MAX_DEPTH, parse.MAX_NODES)
    if read is None:
        return False
    data, tree = _pyyaml(text)  # raises where PyYAML refuses what block_yaml read: a failure
    assert _typed(read[0]) == _typed(data)
    assert read[1] == tree
    return True


def _repository_yaml() -> list[str]:
    listed = subprocess.run(
        ["git", "ls-files", "-z", "*.yaml", "*.yml"], cwd=REPO, capture_output=True, check=True
    ).stdout.split(b"\0")
    return [name.decode() for name in listed if name]


def test_every_yaml_file_of_the_repository_reads_as_pyyaml_reads_it() -> None:
    read = 0
    for name in _repository_yaml():
        raw = (REPO / name).read_bytes()
        try:
            text = parse._decode(name, raw)
        except Exception:  # not UTF-8, empty: parse_yaml refuses it before either reader
            continue
        read += _agrees(text)
    assert read >= 70


def test_every_shipped_result_file_is_read_by_block_yaml() -> None:
    """The speed holds for real files: every shipped result file is of the block form."""
    shipped = sorted((REPO / "content" / "runs").glob("*.yaml"))
    assert len(shipped) >= 20
    for path in shipped:
        assert _agrees(parse._decode(path.name, path.read_bytes())), path.name


# Text of every kind, and text of the characters result files are written in (which PyYAML
# writes in the forms block_yaml reads, rather than escaped in double quotes).
_text = st.text(
    st.characters(codec="utf-8", exclude_categories=("Cs",)) | st.sampled_from("'\"#:- \n|>"),
    max_size=40,
) | st.text(st.sampled_from("abcXYZ019 .,-_/:#'\"()%@\né×"), max_size=60)
_keys = st.from_regex(r"[A-Za-z_][A-Za-z0-9_.\-]{0,12}", fullmatch=True) | _text
_scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**20), max_value=10**20)
    | st.floats(allow_nan=False, allow_infinity=False)
    | _text
    | st.sampled_from(["yes", "No", "on", "~", "null", "2026-07-09", "1_000", "0x1F", "017", "-"])
)
_documents = st.dictionaries(
    _keys,
    st.recursive(
        _scalars,
        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_keys, inner, max_size=4),
        max_leaves=25,
    ),
    min_size=1,
    max_size=6,
)


@settings(max_examples=150, deadline=None)
@given(
    document=_documents,
    width=st.sampled_from([20, 40, 80, 1000]),
    indent=st.sampled_from([2, 4]),
    flow=st.sampled_from([False, None]),  # None: the innermost collections in flow style
)
def test_what_pyyaml_writes_reads_as_pyyaml_reads_it(
    document: dict[str, Any], width: int, indent: int, flow: bool | None
) -> None:
    text = yaml.safe_dump(
        document, default_flow_style=flow, allow_unicode=True, width=width, indent=indent
    )
    _agrees(text)


def test_most_documents_pyyaml_writes_are_read() -> None:
    """The agreement above is not only of documents left to PyYAML: of documents of plain text,
    numbers and nesting as result files have, written by PyYAML, most are read here."""
    rng = random.Random(7)
    words = ["valid", "it's", "a: b", "#1", "- x", "2026-07-09", "yes", "", "é ×", "x" * 90]

    def value(depth: int) -> Any:
        kind = rng.randrange(6 if depth < 3 else 3)
        if kind == 0:
            return rng.choice([rng.randint(-(10**6), 10**6), round(rng.uniform(-1e4, 1e4), 6)])
        if kind == 1:
            return " ".join(rng.choice(words) for _ in range(rng.randint(1, 12)))
        if kind == 2:
            return rng.choice([None, True, False])
        if kind == 3:
            return [value(depth + 1) for _ in range(rng.randint(0, 4))]
        return {f"k{i}_{rng.randint(0, 9)}": value(depth + 1) for i in range(rng.randint(0, 4))}

    read = 0
    for index in range(200):
        document = {f"key{i}": value(0) for i in range(rng.randint(1, 6))}
        flow = None if index % 2 else False
        read += _agrees(yaml.safe_dump(document, default_flow_style=flow, allow_unicode=True))
    assert read >= 100


def test_the_forms_result_files_use_are_read() -> None:
    """Not only agreement: the forms written by people and by `sitegen import` are read here."""
    for text in [
        "# a comment\nrun:\n  model: org/Model-7B  # trailing comment\n  count: 2\n",
        "a:\n- 1\n- two\n-   three: 3\n    four: 4.5\nb: ok\n",
        "a:\n  - x: 1\n    y:\n    - 2\n  - z\n",
        "notes: |\n  line one\n\n  line two\n    indented\nnext: 1\n",
        "notes: |-\n  kept\nurl: >-\n  https://example.com/a\n  folded\n\n  para\nx: 1\n",
        "power: 'it''s summed over\n  every GPU,\n\n  averaged'\nnext: yes\n",
        'name: "plain double"\nempty: []\nnone: {}\nurls: [https://a.b/c, http://d.e]\n',
        "a: x\n  continued plain\n\n  and a line\nb:\n- long item\n  text\n",
        "when: 2026-07-09\nnothing: ~\nflag: off\nbig: -12345678901234567890\nf: 1.0e+3\n",
    ]:
        assert _agrees(text), text


@pytest.mark.parametrize(
    "text",
    [
        "a: -\n",  # a sequence entry where a value is: PyYAML refuses it
        "a: 'x'#y\n",  # no space before the comment
        "a: 1\na: 2\n",  # a duplicate key: PyYAML's walk says where
        "a: &x 1\nb: *x\n",
        "a: !tag 1\n",
        "a: b: c\n",
        "a: |+\n  kept\n\nb: 1\n",
        "a: >\n\n  leading empty line\n",
        "a:\n\tb: 1\n",
        "---\na: 1\n",
        "a: 1\n...\n",
        "a:\nb: 1\n",  # an empty value
        "- 1\n- 2\n",  # not a mapping
        "a: 1\u2028b: 2\n",  # a line break YAML 1.1 knows
        "a: \x07\n",  # not printable: PyYAML refuses it
        "a: .inf\n",
        '"quoted key": 1\n',
        "a: [1, [2]]\n",
        "a: 'unclosed\n",
    ],
)
def test_what_it_does_not_read_is_left_to_pyyaml(text: str) -> None:
    assert read_block_yaml(text, parse.MAX_DEPTH, parse.MAX_NODES) is None


def test_limits_are_left_to_pyyaml_to_refuse() -> None:
    deep = (
        "a:\n"
        + "".join("  " * level + f"k{level}:\n" for level in range(1, 70))
        + "  " * 70
        + "v: 1\n"
    )
    assert read_block_yaml(deep, parse.MAX_DEPTH, parse.MAX_NODES) is None
    many = "a: [" + ", ".join("1" for _ in range(50)) + "]\n"
    assert read_block_yaml(many, parse.MAX_DEPTH, 20) is None
