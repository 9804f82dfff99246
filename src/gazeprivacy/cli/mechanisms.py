# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""``gazeprivacy mechanisms [NAME] [--format table|json|csv]``: the registered mechanisms.

Without NAME: one line per mechanism (level, partition phases, summary). With NAME: its summary,
citation, partition phases, every parameter of its parameter dataclass with type, default, unit
(from the name's suffix: ``_deg``, ``_s``, ...) and description, and its presets (the parameter
class's public classmethods, e.g. ``paper``); privacy parameters without a default are marked
required.
"""

from __future__ import annotations

import csv
import dataclasses
import enum
import inspect
import json
import re
import sys
from typing import Annotated, Any

import typer
from rich.table import Table
from rich.text import Text

from gazeprivacy._text import reader_text
from gazeprivacy.cli._common import Format, echo_table, out
from gazeprivacy.exceptions import InvalidParameterError

__all__ = ["describe_mechanism", "mechanisms"]

_UNITS = {"_deg": "degrees", "_s": "seconds", "_px": "pixels", "_hz": "Hz", "_samples": "samples"}


def _param_docs(params_type: type) -> dict[str, str]:
    """Descriptions of the fields from the numpydoc "Parameters" section of the class."""
    doc = inspect.cleandoc(params_type.__doc__ or "")
    m = re.search(r"Parameters\n-+\n(.*?)(?:\n\S[^\n]*\n-+\n|\Z)", doc, re.S)
    if m is None:
        return {}
    docs: dict[str, str] = {}
    current = None
    for line in m.group(1).splitlines():
        head = re.match(r"^(\w+)\s*:", line)
        if head:
            current = head.group(1)
            docs[current] = ""
        elif current and line.strip():
            docs[current] = (docs[current] + " " + line.strip()).strip()
    return docs


def _plain(value: Any) -> Any:
    if isinstance(value, enum.Enum):
        return value.value
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return repr(value)


def _unit(name: str) -> str:
    return next((u for suffix, u in _UNITS.items() if name.endswith(suffix)), "")


def _parameters(params_type: type) -> list[dict[str, Any]]:
    docs = _param_docs(params_type)
    rows = []
    for f in dataclasses.fields(params_type):
        if f.default is not dataclasses.MISSING:
            default, required = _plain(f.default), False
        elif f.default_factory is not dataclasses.MISSING:
            default, required = _plain(f.default_factory()), False
        else:
            default, required = None, True
        rows.append({"name": f.name, "type": str(f.type), "required": required,
                     "default": default, "unit": _unit(f.name),
                     "description": reader_text(docs.get(f.name, ""))})
    return rows


def _presets(params_type: type) -> list[dict[str, str]]:
    """The parameter class's public classmethods (e.g. ``paper``): a paper's values."""
    rows = []
    for name, attr in vars(params_type).items():
        if isinstance(attr, classmethod) and not name.startswith("_"):
            fn = getattr(params_type, name)
            sig = str(inspect.signature(fn)).replace("'", "").split(" -> ")[0]
            doc = (fn.__doc__ or "").strip().splitlines()
            rows.append({"name": name, "signature": sig,
                         "summary": reader_text(doc[0]) if doc else ""})
    return rows


def describe_mechanism(name: str) -> dict[str, Any]:
    """Everything ``gazeprivacy mechanisms NAME`` shows, as plain data (JSON-serialisable)."""
    from gazeprivacy.mechanisms import MECHANISMS

    if name not in MECHANISMS:
        raise InvalidParameterError(
            f"no mechanism named {name!r}; registered: {', '.join(MECHANISMS)}")
    m = MECHANISMS[name]
    return {"name": name, "level": _plain(m.level), "summary": reader_text(m.summary),
            "citation": m.citation and reader_text(m.citation),
            "partition_phases": m.plan is not None,
            "partition_refusal": m.partition_refusal and reader_text(m.partition_refusal),
            "parameters_class": m.params_type.__name__,
            "parameters": _parameters(m.params_type),
            "presets": _presets(m.params_type)}


def _csv(rows: list[dict[str, Any]]) -> None:
    if not rows:
        return
    w = csv.DictWriter(sys.stdout, fieldnames=list(rows[0]), lineterminator="\n")
    w.writeheader()
    for r in rows:
        w.writerow({k: json.dumps(v) if isinstance(v, list | dict) else v for k, v in r.items()})


def _phases(d: dict[str, Any]) -> str:
    return "yes" if d["partition_phases"] else f"no: {d['partition_refusal'] or 'none'}"


def _required(d: dict[str, Any]) -> str:
    return ", ".join(p["name"] for p in d["parameters"] if p["required"]) or "-"


def _list(descr: list[dict[str, Any]], fmt: str) -> None:
    if fmt == "json":
        out().print_json(json.dumps(descr))
    elif fmt == "csv":
        _csv([{k: v for k, v in d.items() if k not in ("parameters", "presets")}
              | {"required": _required(d), "presets": ", ".join(p["name"] for p in d["presets"])}
              for d in descr])
    else:
        t = Table("mechanism", "level", "required parameters", "partition phases", "summary",
                  title="registered mechanisms (details: gazeprivacy mechanisms NAME)")
        for d in descr:
            t.add_row(*(Text(str(v)) for v in (d["name"], d["level"], _required(d),
                                                "yes" if d["partition_phases"] else "no",
                                                d["summary"])))
        echo_table(t)


def _detail(d: dict[str, Any], fmt: str) -> None:
    if fmt == "json":
        out().print_json(json.dumps(d))
        return
    if fmt == "csv":
        _csv([{"mechanism": d["name"], **p} for p in d["parameters"]])
        return
    con = out()
    for label, value in (("mechanism", d["name"]), ("level", d["level"]),
                         ("summary", d["summary"]), ("citation", d["citation"] or "-"),
                         ("partition phases", _phases(d)),
                         ("parameters", d["parameters_class"])):
        con.print(f"{label}: {value}", markup=False)
    t = Table("parameter", "type", "default", "unit", "description")
    for p in d["parameters"]:
        default = ("REQUIRED" if p["required"] else "none" if p["default"] is None
                   else str(p["default"]))
        t.add_row(*(Text(str(v)) for v in (p["name"], p["type"], default, p["unit"] or "-",
                                            p["description"])))
    echo_table(t)
    for p in d["presets"]:
        con.print(f"preset {p['name']}{p['signature']}: {p['summary']}", markup=False)
    con.print("Privacy parameters marked REQUIRED have no default: choose them. With "
              "`gazeprivacy protect`, give them as options (--epsilon, --k, ...) or "
              "--param NAME=VALUE.", markup=False)


def mechanisms(
    name: Annotated[str | None, typer.Argument(
        help="A mechanism's name for its parameters; omit to list all.")] = None,
    format: Annotated[Format, typer.Option("--format", help="Output format.")] = Format.table,
) -> None:
    """List the registered mechanisms, or one mechanism's parameters, defaults and citation."""
    fmt = Format(format).value
    if name is None:
        from gazeprivacy.mechanisms import MECHANISMS

        _list([describe_mechanism(n) for n in MECHANISMS], fmt)
    else:
        _detail(describe_mechanism(name), fmt)
