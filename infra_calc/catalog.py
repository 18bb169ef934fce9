"""A catalog: entries read from a data file of the package, found by any of their names.

Both catalogs are one :class:`Catalog`: the accelerators
(:data:`infra_calc.accelerators.CATALOG`, ``infra_calc/data/accelerators.json``) and
the models (:data:`infra_calc.models.MODELS`, ``infra_calc/data/models.json``).  A
catalog is a read-only mapping of canonical name to entry.  A name is found however a
reader types it: case, spaces, dashes, underscores and dots do not matter
(:func:`name_key`), aliases work, and ``"Owner/Name"`` (a Hugging Face repo id) finds
``"Name"``.  An unknown name raises the catalog's subclass of :class:`UnknownNameError`,
whose message lists the known names.

A data file is a JSON object (or what the catalog's ``read`` makes of the file) whose
``entries`` list holds one object per entry: its
``name``, optional ``aliases`` and ``note``, and the fields of its kind, each of one JSON
type.  The file is read on first use, when every entry's fields are checked; an entry is
built (``build(record)``) the first time it is read.  A malformed entry is refused with
a :class:`ValueError` naming the file, the entry and the field.
"""
from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from functools import cached_property
from importlib import resources

__all__ = ["Catalog", "UnknownNameError", "DATA", "name_key"]

#: The package's data folder (a :class:`importlib.resources.abc.Traversable`).
DATA = resources.files(__package__).joinpath("data")

#: Fields every entry may have, beside those of its kind (``name`` is required).
_COMMON = {"name": str, "aliases": list, "note": str}
_JSON_TYPES = {str: "a string", float: "a number", int: "a whole number", bool: "true or false",
               list: "a list", dict: "an object"}


def name_key(name: str) -> str:
    """The comparison key of a name: lower case, without spaces, dashes, underscores and dots.

    >>> name_key(" H100_sxm-5.")
    'h100sxm5'
    """
    return re.sub(r"[\s\-_.]+", "", name).lower()


class UnknownNameError(ValueError, KeyError):
    """A name that is not in a catalog; each catalog raises its own subclass.

    A :class:`ValueError` (like every other bad argument in :mod:`infra_calc`) that is
    also a :class:`KeyError`, so mapping code such as ``CATALOG.get(name)`` and
    ``name in MODELS`` behaves normally.
    """

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


def _is(value, kind: type) -> bool:
    if kind is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    return isinstance(value, kind) and (kind is bool or not isinstance(value, bool))


class Catalog(Mapping):
    """Read-only mapping of canonical name to entry, read from a JSON data file on first use.

    Parameters
    ----------
    kind : str
        What an entry is, for messages: ``"accelerator"``, ``"model"``.
    path : Traversable or pathlib.Path
        The data file (see the module's docstring).
    build : callable
        ``build(record) -> entry``: the entry of one checked record (a dict).
    fields : mapping of str to type
        The fields of this kind and their types (``str``, ``float`` for any JSON number,
        ``int``, ``bool``, ``list``, ``dict``), beside ``name``, ``aliases`` and ``note``.
    required : tuple of str
        The fields of ``fields`` every entry must have.
    error : type
        The :class:`UnknownNameError` subclass raised for an unknown name.
    hint : str
        Text after the known names in that error's message.
    read : callable, optional
        ``read(path) -> object``: the file's data, an object with an ``entries`` list
        (default: the file parsed as JSON).
    """

    def __init__(self, kind: str, path, build: Callable[[dict], object], *,
                 fields: Mapping[str, type], required: tuple[str, ...] = (),
                 error: type[UnknownNameError] = UnknownNameError, hint: str = "",
                 read: Callable[[object], object] | None = None):
        self.kind, self.path, self._build = kind, path, build
        self._read = read or (lambda p: json.loads(p.read_text(encoding="utf-8")))
        self._fields, self._required = {**_COMMON, **fields}, ("name", *required)
        self._error, self._hint = error, hint
        self._built: dict[str, object] = {}

    # ------------------------------------------------------------ the file, read once
    def _refuse(self, entry, message: str) -> ValueError:
        where = f"entry {entry!r}" if isinstance(entry, str) else f"entry {entry}"
        return ValueError(f"{self.path.name}: {where}: {message}")

    @cached_property
    def _records(self) -> tuple[dict, ...]:
        data = self._read(self.path)
        if not (isinstance(data, dict) and isinstance(data.get("entries"), list)):
            raise ValueError(f"{self.path.name}: must hold a JSON object with an 'entries' list")
        for i, record in enumerate(data["entries"]):
            if not isinstance(record, dict):
                raise self._refuse(i, f"must be an object, got {record!r}")
            label = record.get("name") if isinstance(record.get("name"), str) else i
            for field in self._required:
                if field not in record:
                    raise self._refuse(label, f"missing field {field!r}")
            for field, value in record.items():
                kind = self._fields.get(field)
                if kind is None:
                    raise self._refuse(label, f"unknown field {field!r}; known fields: "
                                              f"{', '.join(self._fields)}")
                if not _is(value, kind):
                    raise self._refuse(label, f"field {field!r} must be {_JSON_TYPES[kind]}, "
                                              f"got {value!r}")
            if not record["name"].strip():
                raise self._refuse(i, "field 'name' must not be empty")
            if not all(isinstance(a, str) and a.strip() for a in record.get("aliases", ())):
                raise self._refuse(label, f"field 'aliases' must list names, got {record['aliases']!r}")
        return tuple(data["entries"])

    @cached_property
    def _index(self) -> dict[str, dict]:
        index = {}
        for record in self._records:
            for name in (record["name"], *record.get("aliases", ())):
                other = index.setdefault(name_key(name), record)
                if other is not record:
                    raise self._refuse(record["name"], f"field 'aliases': {name!r} already names "
                                                       f"entry {other['name']!r}")
        return index

    # ------------------------------------------------------------ look-ups
    def find(self, name) -> dict | None:
        """The record called ``name`` (forgivingly), or None."""
        if not isinstance(name, str):
            return None
        key = name_key(name)
        if key not in self._index and "/" in key:   # a repo id such as "Qwen/Qwen3-8B"
            key = key.rsplit("/", 1)[-1]
        return self._index.get(key)

    def unknown(self, name) -> UnknownNameError:
        """The error for ``name``, not in the catalog: it names it and lists the known names."""
        return self._error(f"unknown {self.kind} {name!r}; known names: {', '.join(self)}{self._hint}")

    def _entry(self, record: dict):
        """The entry of ``record``, built the first time it is read."""
        key = record["name"]
        if key not in self._built:
            try:
                self._built[key] = self._build(record)
            except (TypeError, ValueError) as exc:
                raise self._refuse(key, str(exc)) from exc
        return self._built[key]

    def __getitem__(self, name):
        record = self.find(name)
        if record is None:
            raise self.unknown(name)
        return self._entry(record)

    def __contains__(self, name) -> bool:
        return self.find(name) is not None

    def __iter__(self):
        return (record["name"] for record in self._records)

    def __len__(self) -> int:
        return len(self._records)

    def __repr__(self) -> str:
        return f"<Catalog of {len(self)} {self.kind}s: {', '.join(self)}>"

    def listing(self, label: Callable[[object], str] | None = None) -> list[str]:
        """One line per entry, in catalog order: ``label(entry)`` (default: the name), the
        aliases that differ from the name in more than spelling, and the note.

        Only a ``label`` builds the entries.
        """
        lines = []
        for record in self._records:
            keys, shown = {name_key(record["name"])}, []
            for alias in record.get("aliases", ()):
                if name_key(alias) not in keys:
                    keys.add(name_key(alias))
                    shown.append(alias)
            note = record.get("note", "")
            lines.append((label(self._entry(record)) if label else record["name"])
                         + (f" (also: {', '.join(shown)})" if shown else "")
                         + (f"; {note}" if note else ""))
        return lines
