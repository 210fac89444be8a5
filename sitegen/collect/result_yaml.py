"""Write a canonical result document as the YAML a contributor would review.

Block style, the sections in reading order (schema_version, source, hardware, engine, run,
provenance, measurements), the fields of each in the schema's order, long text folded and
multi-line text literal, and a leading comment that points at the schema. The output is
parsed back and compared, so a quirk of the emitter can never change a value on disk.

The first line can be the YAML language server's modeline (``# yaml-language-server:
$schema=…``), so editors check the file against its schema as people type (see
``schema_modeline``).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import yaml

from sitegen.config import Config
from sitegen.errors import Problem, SitegenError
from sitegen.parse import parse_yaml
from sitegen.resources import load_schema
from sitegen.validate import LATEST_RESULT_VERSION, RESULT_SCHEMAS, result_schema_name

MODELINE = "# yaml-language-server: $schema="


def schema_modeline(config: Config, target: Path, data: Any) -> str:
    """The modeline for a result file written to ``target``: its schema (the one its
    schema_version declares) by a relative path when the site keeps the schemas in
    ``schema/`` (this repository does), else at the site's published address
    (``<site_url>schema/…``); "" when neither is known, rather than a pointer to nowhere."""
    name = f"{result_schema_name(data)}.schema.json"
    local = config.root / "schema" / name
    if local.is_file():
        return MODELINE + Path(os.path.relpath(local, target.parent)).as_posix() + "\n"
    if config.site_url:
        return f"{MODELINE}{config.site_url}schema/{name}\n"
    return ""


HEADER = (
    "# A sitegen result file: one benchmark run. "
    f"Format: schema/{RESULT_SCHEMAS[LATEST_RESULT_VERSION]}.schema.json\n"
    "# (fields and units are documented in docs/result-format.md). Check it with `sitegen "
    "collect`.\n"
)
TOP_LEVEL = ("schema_version", "source", "hardware", "engine", "run", "provenance", "measurements")
# Which $defs entry describes the items at each place, for the field order.
_SECTION_DEFS = {
    "source": "source",
    "hardware": "hardware",
    "engine": "engine",
    "run": "run",
    "provenance": "provenance",
    "measurements": "measurements",
}
_ITEM_DEFS = {"prefill": "prefill_point", "decode": "decode_cell", "load_points": "load_point"}
_FOLD_AFTER = 80
_WIDTH = 100


class _Dumper(yaml.SafeDumper):
    """Indents lists under their key (``prefill:`` / ``    - context_tokens: …``), as the seed file
    does."""

    def increase_indent(self, flow: bool = False, indentless: bool = False) -> None:
        super().increase_indent(flow, False)


def _represent_text(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style: str | None = None
    if "\n" in value:
        style = "|"
    elif len(value) > _FOLD_AFTER and (value != value.strip() or "  " in value):
        # Folded, a space at the start, the end or beside another cannot be kept, and PyYAML's
        # single-quoted fallback then writes a fold that reads back as a line break.
        style = '"'
    elif len(value) > _FOLD_AFTER:
        style = ">"
    elif value[:1].isdigit():
        # Versions and dates: plain 0.5.16 is text but 0.5 would be a number; quoting all of
        # them keeps a reviewer's edit from silently changing the type.
        style = '"'
    # The emitter falls back to quotes where a block style cannot hold the text exactly.
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _represent_text)


class _Inline(dict[str, Any]):
    """A mapping written on one line: ``ttft_ms: {mean: 140.2, p50: 67.1, p90: 301.0}``."""


def _represent_inline(dumper: yaml.SafeDumper, value: _Inline) -> yaml.MappingNode:
    return dumper.represent_mapping("tag:yaml.org,2002:map", value.items(), flow_style=True)


_Dumper.add_representer(_Inline, _represent_inline)


def _inline_statistics(item: dict[str, Any]) -> dict[str, Any]:
    # A cell's statistics would take a dozen lines each written in block style.
    statistics = item.get("statistics")
    if isinstance(statistics, dict):
        item = {
            **item,
            "statistics": {
                name: _Inline(values) if isinstance(values, dict) else values
                for name, values in statistics.items()
            },
        }
    return item


def _field_order(def_name: str) -> list[str]:
    definition = load_schema(RESULT_SCHEMAS[LATEST_RESULT_VERSION])["$defs"][def_name]
    order = list(definition.get("properties", {}))
    if def_name == "hardware" and "vendor" in order:
        # "NVIDIA" then "H200 NVL" reads as the product's name, as in the shipped seed file.
        order.remove("vendor")
        order.insert(order.index("accelerator"), "vendor")
    return order


def _ordered(mapping: dict[str, Any], order: list[str]) -> dict[str, Any]:
    known = [key for key in order if key in mapping]
    return {key: mapping[key] for key in known + [key for key in mapping if key not in order]}


def ordered_result(data: dict[str, Any]) -> dict[str, Any]:
    """``data`` with sections and fields in reading order (values unchanged)."""
    result = _ordered(data, list(TOP_LEVEL))
    for section, def_name in _SECTION_DEFS.items():
        if isinstance(result.get(section), dict):
            result[section] = _ordered(result[section], _field_order(def_name))
    measurements = result.get("measurements")
    if isinstance(measurements, dict):
        for kind, def_name in _ITEM_DEFS.items():
            items = measurements.get(kind)
            if isinstance(items, list):
                order = _field_order(def_name)
                measurements[kind] = [
                    _inline_statistics(_ordered(item, order)) if isinstance(item, dict) else item
                    for item in items
                ]
    return result


def dump_result(data: dict[str, Any], source: str = "result", modeline: str = "") -> bytes:
    """The result file's bytes: the modeline, the header comment, then ``data`` as block YAML."""
    body = yaml.dump(
        ordered_result(data),
        Dumper=_Dumper,
        sort_keys=False,
        allow_unicode=True,
        default_flow_style=False,
        width=_WIDTH,
        indent=2,
    )
    text = modeline + HEADER + body
    # Parse back with sitegen's own (strict) reader: what is written must be what was meant.
    if parse_yaml(source, text.encode()).data != data:
        raise SitegenError(
            Problem(
                source,
                None,
                "",
                "internal error: the YAML written does not read back the "
                "same; please report this with the input file",
            )
        )
    return text.encode()
