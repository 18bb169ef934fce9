"""Forgiving lookup of catalog entries by name or alias.

Both catalogs (:mod:`infra_calc.hardware` and :mod:`infra_calc.models`)
accept a name however a reader types it: case, spaces, dashes, underscores
and dots do not matter, aliases work, and ``"Owner/Name"`` (a Hugging Face
repo id) finds ``"Name"``.
"""
from __future__ import annotations

import re

__all__ = ["name_key", "NameIndex", "listed"]


def name_key(name: str) -> str:
    """The comparison key of a name: lower case, without spaces, dashes, underscores and dots.

    >>> name_key(" H100_sxm-5.")
    'h100sxm5'
    """
    return re.sub(r"[\s\-_.]+", "", name).lower()


def listed(entry) -> str:
    """``entry``'s name with the aliases that differ from it in more than spelling, and its note.

    >>> from types import SimpleNamespace as E
    >>> listed(E(name="Qwen3-8B", aliases=("qwen-3-8b", "Qwen/Qwen3-8B", "q8")))
    'Qwen3-8B (also: Qwen/Qwen3-8B, q8)'
    """
    keys, shown = {name_key(entry.name)}, []
    for alias in entry.aliases:
        if name_key(alias) not in keys:
            keys.add(name_key(alias))
            shown.append(alias)
    note = getattr(entry, "note", "")
    return (entry.name + (f" (also: {', '.join(shown)})" if shown else "")
            + (f"; {note}" if note else ""))


class NameIndex:
    """Entries (objects with ``name`` and ``aliases``) found by any of their names.

    >>> from types import SimpleNamespace as E
    >>> idx = NameIndex([E(name="Qwen3-8B", aliases=("qwen-3-8b",))])
    >>> idx.find("Qwen/qwen3 8b").name, idx.find("gpt-9")
    ('Qwen3-8B', None)
    """

    def __init__(self, entries):
        self.entries = tuple(entries)
        self._index = {}
        for entry in self.entries:
            for n in (entry.name, *entry.aliases):
                self._index[name_key(n)] = entry

    def names(self) -> list[str]:
        """Canonical names, in catalog order."""
        return [entry.name for entry in self.entries]

    def find(self, name: str):
        """The entry called ``name`` (forgivingly), or None."""
        key = name_key(name)
        if key in self._index:
            return self._index[key]
        if "/" in key:  # a repo id such as "Qwen/Qwen3-8B"
            return self._index.get(key.rsplit("/", 1)[-1])
        return None
