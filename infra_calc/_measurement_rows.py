"""The columns of ``measurements.csv``, their vocabularies, and the check of one row.

:mod:`infra_calc.measurements` reads the file through :func:`checked_fields` (each
malformed field refused with an error naming the row id and the field) and builds its
``Measurement`` from the fields it returns; the vocabularies below are its own
(:data:`infra_calc.measurements.METRICS`, ``PRINTED_UNITS``, ``PRECISION_BYTES``, ``COLUMNS``).
"""
from __future__ import annotations

import re

from . import units

#: metric -> kind ("time": a duration per request or token; "rate": tokens/s; "bandwidth"),
#: a kind of :data:`infra_calc.units.UNITS`, which its unit must have
METRICS = {"ttft": "time", "itl": "time", "tpot": "time", "e2e_latency": "time",
           "output_throughput_per_gpu": "rate", "output_throughput": "rate",
           "mem_bandwidth": "bandwidth"}
#: unit as printed -> (the :data:`infra_calc.units.UNITS` unit it is, which gives its kind and
#: scale; what a rate is per: "card", "tp_group", "system", "" for the others)
PRINTED_UNITS = {"ns": ("ns", ""), "ms": ("ms", ""), "s": ("s", ""),
                 "out tok/s/GPU": ("tok/s", "card"), "out tok/s/TP group": ("tok/s", "tp_group"),
                 "Tokens/s": ("tokens/s", "system"), "tok/s": ("tok/s", "system"),
                 "GB/s": ("GB/s", "")}
#: bytes per element of a precision, as the loader writes it (lower case)
PRECISION_BYTES = {"fp32": 4.0, "fp16": 2.0, "bf16": 2.0, "fp8": 1.0, "int8": 1.0,
                   "fp4": 0.5, "int4": 0.5, "uint4": 0.5}
#: the columns of ``measurements.csv``, in order
COLUMNS = ("id", "group", "publisher", "source", "url", "repo", "commit", "path", "table",
           "date", "engine", "engine_version", "model_as_printed", "model",
           "hardware_as_printed", "accelerator", "vendor", "system_cards", "cards",
           "precision", "weight_precision", "math_precision", "kv_precision", "batch",
           "prompt_tokens", "output_tokens", "scenario", "metric", "value", "unit",
           "tokens_counted", "derived", "exclude", "dup_of", "sets", "note")
_REQUIRED = ("id", "group", "publisher", "source", "url", "engine", "model_as_printed",
             "model", "hardware_as_printed", "vendor", "system_cards", "metric", "value", "unit")
_VENDORS = ("NVIDIA", "AMD", "Intel", "Google", "Huawei")
#: What a derived prompt length must name as its source: a repository at a commit, or a URL.
_SOURCE = re.compile(r"[\w.-]+/[\w.-]+@[0-9a-f]{40}:\S+|https://\S+")


def unit_of(printed: str) -> units.Unit:
    """The :class:`~infra_calc.units.Unit` (kind and scale) of a unit as printed."""
    return units.UNITS[PRINTED_UNITS[printed][0]]


class MeasurementError(ValueError):
    """A malformed row of ``measurements.csv``: the message names the row id and the field."""


def derivations(text: str) -> dict[str, str]:
    out = {}
    for part in filter(None, (p.strip() for p in text.split(";"))):
        name, sep, how = part.partition(":")
        if sep and name.strip() in COLUMNS:
            out[name.strip()] = how.strip()
        elif out:                                   # a ';' inside a derivation
            last = next(reversed(out))
            out[last] += "; " + part
        else:
            out[""] = part
    return out


def row_error(rid: str, field: str, what: str) -> MeasurementError:
    return MeasurementError(f"measurements.csv row {rid!r}: field {field!r} {what}")


def _int(r: dict, field: str, *, minimum: int, optional: bool) -> int | None:
    text = (r.get(field) or "").strip()
    if not text:
        if optional:
            return None
        raise row_error(r["id"], field, "is empty; it needs a whole number")
    if not re.fullmatch(r"\d+", text) or int(text) < minimum:
        raise row_error(r["id"], field, f"is {text!r}; it needs a whole number >= {minimum}")
    return int(text)


#: The columns read as whole numbers: column -> (minimum, may be empty).
_INT_COLUMNS = {"system_cards": (1, False), "cards": (1, True), "batch": (1, True),
                "prompt_tokens": (0, True), "output_tokens": (0, True)}


def _check_present(rid: str, r: dict) -> None:
    """Every column present, the required ones filled."""
    for field in COLUMNS:
        if r.get(field) is None:
            raise row_error(rid, field, "is missing (too few columns)")
    for field in _REQUIRED:
        if not r[field].strip():
            raise row_error(rid, field, "is empty")


def _check_source(rid: str, r: dict) -> None:
    """An https address, and either a repository at a full commit or the table read."""
    if not r["url"].startswith("https://"):
        raise row_error(rid, "url", f"is {r['url']!r}; it needs an https:// address")
    if any(r[f] for f in ("repo", "commit", "path")):
        for f in ("repo", "commit", "path"):
            if not r[f]:
                raise row_error(rid, f, "is empty; a repository source needs repo, commit and path")
        if not re.fullmatch(r"[0-9a-f]{40}", r["commit"]):
            raise row_error(rid, "commit", f"is {r['commit']!r}; it needs the full 40-hex commit")
    elif not r["table"].strip():
        raise row_error(rid, "table", "is empty; a web source needs the table the row is read from")
    if r["date"] and not re.fullmatch(r"\d{4}-\d{2}-\d{2}", r["date"]):
        raise row_error(rid, "date", f"is {r['date']!r}; it needs YYYY-MM-DD or nothing")


def _check_known(rid: str, r: dict) -> None:
    """Vendor and precisions from their lists; metric and unit known and of one kind."""
    if r["vendor"] not in _VENDORS:
        raise row_error(rid, "vendor", f"is {r['vendor']!r}; known: {', '.join(_VENDORS)}")
    for f in ("weight_precision", "math_precision", "kv_precision"):
        if r[f] and r[f] not in PRECISION_BYTES:
            raise row_error(rid, f, f"is {r[f]!r}; known: {', '.join(PRECISION_BYTES)}")
    metric, unit = r["metric"], r["unit"]
    if metric not in METRICS:
        raise row_error(rid, "metric", f"is {metric!r}; known: {', '.join(METRICS)}")
    if unit not in PRINTED_UNITS:
        raise row_error(rid, "unit", f"is {unit!r}; known: {', '.join(PRINTED_UNITS)}")
    if unit_of(unit).kind != METRICS[metric]:
        raise row_error(rid, "unit", f"is {unit!r}, a {unit_of(unit).kind} unit, for the "
                                f"{METRICS[metric]} metric {metric!r}")
    if METRICS[metric] == "rate":
        if r["tokens_counted"] not in ("output", "input+output"):
            raise row_error(rid, "tokens_counted", f"is {r['tokens_counted']!r}; a throughput needs "
                                              "'output' or 'input+output'")
    elif r["tokens_counted"]:
        raise row_error(rid, "tokens_counted", f"is {r['tokens_counted']!r}; only a throughput has it")


def _value(rid: str, r: dict) -> float:
    """The printed value, a positive number."""
    try:
        value = float(r["value"])
    except ValueError:
        raise row_error(rid, "value", f"is {r['value']!r}; it needs a number") from None
    if not value > 0:
        raise row_error(rid, "value", f"is {r['value']!r}; it needs a positive number")
    return value


def _check_derived(rid: str, r: dict) -> None:
    """A field that differs from the print, or an MLPerf prompt length, names its derivation."""
    derived = derivations(r["derived"])
    if "" in derived:
        raise row_error(rid, "derived", f"has {derived['']!r}, not 'field: derivation'")
    printed = r["precision"].strip().lower()
    if r["weight_precision"] and printed and r["weight_precision"] != printed \
            and "weight_precision" not in derived:
        raise row_error(rid, "weight_precision", f"is {r['weight_precision']!r} but the source "
                   f"prints {r['precision']!r}; name the derivation in 'derived'")
    if r["prompt_tokens"].strip():
        how = derived.get("prompt_tokens")
        if how is not None and not _SOURCE.search(how):
            raise row_error(rid, "prompt_tokens", f"is derived ({how!r}) without its source; "
                       "name a repository 'owner/name@<40-hex commit>:path' or an https:// URL")
        if how is None and r["repo"].startswith("mlcommons/"):
            raise row_error(rid, "prompt_tokens", f"is {r['prompt_tokens']!r} but an MLPerf log "
                       "prints no prompt length; name its derivation and source in 'derived'")


def checked_fields(r: dict) -> dict:
    """The fields of one checked row of ``measurements.csv``: text as printed, the whole-number
    columns and the value parsed (the keyword arguments of a ``Measurement``)."""
    rid = r.get("id") or ""
    if not rid.strip():
        raise MeasurementError("measurements.csv: a row has an empty field 'id'")
    _check_present(rid, r)
    _check_source(rid, r)
    _check_known(rid, r)
    value = _value(rid, r)
    counts = {f: _int(r, f, minimum=m, optional=opt) for f, (m, opt) in _INT_COLUMNS.items()}
    if counts["cards"] and counts["cards"] > counts["system_cards"]:
        raise row_error(rid, "cards", f"is {counts['cards']}, more than the system's "
                                 f"{counts['system_cards']}")
    _check_derived(rid, r)
    return {**{f: r[f] for f in COLUMNS if f not in counts and f != "value"}, **counts, "value": value}
