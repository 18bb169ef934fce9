"""The accelerator catalog: the cards of ``infra_calc/data/accelerators.json``, found by name.

Each entry of the file gives a card's numbers beside the document they come from (the
fields of :class:`~infra_calc.hardware.Accelerator`; the capacity as
``mem_capacity_gib``, the ``N`` of a card sold as "N GB", which holds N GiB, and each
entry of ``peaks`` as an object with its ``precision``, ``flops`` and ``source``).
:data:`CATALOG` is a :class:`~infra_calc.catalog.Catalog`: names forgive case, spaces,
dashes, underscores and dots, and an unknown one raises
:class:`UnknownAcceleratorError`.  :func:`capacity_reading` and :func:`decimal_reading`
read a card's "N GB" label in binary or decimal bytes.

>>> accelerator("h100-sxm").name, accelerator("h100_sxm").name
('H100 SXM', 'H100 SXM')
"""
from __future__ import annotations

import dataclasses
import typing

from .catalog import DATA, Catalog, UnknownNameError
from .hardware import READINGS, Accelerator
from .units import GB, GiB

__all__ = ["CATALOG", "UnknownAcceleratorError", "accelerator", "capacity_reading",
           "decimal_reading"]


class UnknownAcceleratorError(UnknownNameError):
    """An accelerator name that is not in :data:`CATALOG` (a ``ValueError`` and ``KeyError``)."""


_PEAK = ("precision", "flops", "source")
#: Fields of :class:`Accelerator` the file writes another way: name -> (the file's name, JSON type)
_WRITTEN_AS = {"mem_capacity": ("mem_capacity_gib", float), "peaks": ("peaks", list)}
#: Fields of :class:`Accelerator` the file has no field of its own for: ``name`` and ``note``
#: (every catalog's), ``capacity_reading`` (the file is the physical reading)
_NOT_IN_FILE = ("name", "note", "capacity_reading")


def _file_fields() -> tuple[dict[str, type], tuple[str, ...]]:
    """The data file's fields with their JSON types, and the required ones: the fields of
    :class:`Accelerator` (their annotated types, or :data:`_WRITTEN_AS`) less
    :data:`_NOT_IN_FILE`; required are those without a default, and ``source``."""
    types = typing.get_type_hints(Accelerator)
    fields, required = {}, []
    for field in dataclasses.fields(Accelerator):
        if field.name in _NOT_IN_FILE:
            continue
        name, kind = _WRITTEN_AS.get(field.name, (field.name, types[field.name]))
        fields[name] = kind
        if field.default is dataclasses.MISSING:
            required.append(name)
    return fields, (*required, "source")


def _card(record: dict) -> Accelerator:
    """The :class:`Accelerator` of one entry of the data file."""
    peaks = record.get("peaks", [])
    for peak in peaks:
        if not (isinstance(peak, dict) and set(peak) == set(_PEAK)):
            raise ValueError(f"field 'peaks' must hold objects with the keys {', '.join(_PEAK)}, "
                             f"got {peak!r}")
    fields = {k: v for k, v in record.items() if k not in ("aliases", "mem_capacity_gib", "peaks")}
    return Accelerator(**fields, mem_capacity=record["mem_capacity_gib"] * GiB,
                       peaks=tuple(tuple(peak[k] for k in _PEAK) for peak in peaks))


_FIELDS, _REQUIRED = _file_fields()
CATALOG = Catalog("accelerator", DATA.joinpath("accelerators.json"), _card,
                  fields=_FIELDS, required=_REQUIRED, error=UnknownAcceleratorError)
"""Read-only mapping of canonical name to :class:`Accelerator`, read on first use (it iterates
over the canonical names, in the file's order)."""


def accelerator(hw: str | Accelerator) -> Accelerator:
    """The one way a card is named: an :class:`Accelerator` (returned as it is, so a
    changed copy keeps its figures) or a catalog name, found forgivingly.

    Raises
    ------
    UnknownAcceleratorError
        (a :class:`ValueError` and :class:`KeyError`) for an unknown name; the message
        lists the known names.
    TypeError
        ``hw`` is neither.
    """
    if isinstance(hw, Accelerator):
        return hw
    if not isinstance(hw, str):
        raise TypeError(f"hw must be an Accelerator or a catalog name (str), got {type(hw).__name__}")
    return CATALOG[hw]


# ------------------------------------------------------------------ two readings of "N GB"
_READING_UNIT = {"physical GiB": GiB, "decimal GB": GB}
_DECIMAL_NOTE = ("the source reads a card sold as 'N GB' as N x 10^9 bytes; the physical "
                 "memory is N GiB = N x 2^30 bytes")


def capacity_reading(hw, *, reading: str = "physical GiB") -> float:
    """Capacity ``C`` in bytes of accelerator ``hw`` under one reading.

    A card's label says "N GB".  ``"physical GiB"`` reads it as ``N × 2^30``
    bytes (memory is built in binary sizes: a card sold as 24 GB holds 24
    GiB); ``"decimal GB"`` reads the same label as ``N × 10^9`` bytes, as the
    source does.  Under the card's own reading (:attr:`Accelerator.capacity_reading`)
    the answer is ``hw.mem_capacity`` itself, so a card changed with
    ``with_(mem_capacity=...)`` keeps exactly that capacity; under the other
    reading it is the same label ``N = mem_capacity / unit`` (not rounded) in
    the other unit, so the catalog entry and its :func:`decimal_reading` give
    the same answer.

    >>> capacity_reading("RTX 4090", reading="decimal GB")
    24000000000.0
    >>> capacity_reading(decimal_reading("RTX 4090"), reading="physical GiB") / GiB
    24.0
    """
    acc = accelerator(hw)
    if reading not in _READING_UNIT:
        raise ValueError(f"reading must be one of {READINGS}, got {reading!r}")
    if reading == acc.capacity_reading:
        return float(acc.mem_capacity)
    label = acc.mem_capacity / _READING_UNIT[acc.capacity_reading]
    return float(label * _READING_UNIT[reading])


def decimal_reading(hw) -> Accelerator:
    """A copy of ``hw`` whose capacity is its label read as 10^9 bytes (80 GiB -> 80e9 B),
    :func:`capacity_reading` under ``"decimal GB"``."""
    acc = accelerator(hw)
    return acc.with_(mem_capacity=capacity_reading(acc, reading="decimal GB"), note=_DECIMAL_NOTE,
                     capacity_reading="decimal GB")
