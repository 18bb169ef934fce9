"""The Chinese edition's catalogs: update them after English changes, and count what is left.

``python -m tools.translations update`` (``make translations``):

1. builds the message templates from the current pages, one ``.pot`` per page
   (``jupyter-book build --builder gettext`` into ``_build/i18n/_build/gettext``, with
   a fresh ``.doctrees``: one left by the html builder would hide messages);
2. runs ``sphinx-intl update -p <templates> -d locale -l zh_CN``: a new page gets a
   new catalog, a new English message an empty entry, and a *changed* English message
   a fuzzy entry that keeps the old translation as a suggestion.  The build never
   uses a fuzzy or empty entry (the page then shows the English sentence) and
   ``tests/book/test_translations.py`` fails on each one.  Obsolete entries (``#~``)
   are dropped (``--no-obsolete``).  Every reader of a catalog is babel's
   (:func:`load`): a message holding a newline is written over several quoted lines,
   as the PO format allows.

``python -m tools.translations status`` (``make translation-status``) prints, per page,
how many messages its template has, how many carry ``{eval}``, and how many are
translated, fuzzy or untranslated; ``--check`` exits 1 unless all are translated.

``python -m tools.zh_checks [PAGE ...]`` (``make translation-check``) prints what the
translation tests find wrong in the translated messages (:mod:`tools.zh_checks`).
"""
from __future__ import annotations

import argparse
import dataclasses
import pathlib
import subprocess
import sys

from bookkit.roles import split_inline
from tools import build_book

ROOT = build_book.ROOT
POT_DIR = build_book.POT_DIR
LANGUAGE = "zh_CN"
LOCALE = ROOT / "locale"
PO_DIR = LOCALE / LANGUAGE / "LC_MESSAGES"
# The edition's own versions of the theme's and extensions' catalogs (not pages).
CHROME_CATALOGS = ("sphinx", "booktheme")


def load(path: pathlib.Path):
    """A ``.po``/``.pot`` file as a babel Catalog."""
    from babel.messages.pofile import read_po

    with open(path, "rb") as f:
        return read_po(f, charset="utf-8")


def templates(pot_dir: pathlib.Path = POT_DIR) -> dict[str, pathlib.Path]:
    """``{docname: .pot}`` for every page with messages."""
    return {p.relative_to(pot_dir).with_suffix("").as_posix(): p
            for p in sorted(pot_dir.rglob("*.pot"))}


def catalogs(po_dir: pathlib.Path = PO_DIR) -> dict[str, pathlib.Path]:
    """``{docname: .po}`` for every page catalog kept in the repository."""
    return {doc: p for p in sorted(po_dir.rglob("*.po"))
            if (doc := p.relative_to(po_dir).with_suffix("").as_posix()) not in CHROME_CATALOGS}


def catalog_path(docname: str) -> pathlib.Path:
    return PO_DIR / f"{docname}.po"


@dataclasses.dataclass
class PageStatus:
    docname: str
    messages: int
    evals: int
    translated: int
    fuzzy: int
    untranslated: int
    has_catalog: bool

    @property
    def done(self) -> bool:
        return self.translated == self.messages


def page_status(docname: str, pot: pathlib.Path) -> PageStatus:
    ids = [m.id for m in load(pot) if m.id]
    po_path = catalog_path(docname)
    po = load(po_path) if po_path.is_file() else None
    translated = fuzzy = 0
    for msgid in ids:
        entry = po.get(msgid) if po is not None else None
        if entry is not None and entry.string and entry.fuzzy:
            fuzzy += 1
        elif entry is not None and entry.string:
            translated += 1
    return PageStatus(docname, len(ids), sum(len(split_inline(i)) > 1 for i in ids), translated, fuzzy,
                      len(ids) - translated - fuzzy, po is not None)


def status(pot_dir: pathlib.Path = POT_DIR) -> list[PageStatus]:
    pots = templates(pot_dir)
    if not pots:
        raise SystemExit(f"no message templates in {pot_dir}: run `make translations` "
                         "(or `make book`) first")
    return [page_status(doc, pot) for doc, pot in pots.items()]


def print_status(rows: list[PageStatus]) -> None:
    width = max(len(r.docname) for r in rows) + 2
    print(f"{'page':<{width}}{'messages':>9}{'{eval}':>8}{'translated':>12}{'fuzzy':>7}"
          f"{'untranslated':>14}")
    for r in rows:
        note = "" if r.has_catalog else "   (no catalog: run `make translations`)"
        print(f"{r.docname:<{width}}{r.messages:>9}{r.evals:>8}{r.translated:>12}{r.fuzzy:>7}"
              f"{r.untranslated:>14}{note}")
    tot = [sum(getattr(r, k) for r in rows)
           for k in ("messages", "evals", "translated", "fuzzy", "untranslated")]
    print(f"{'total (' + str(len(rows)) + ' pages)':<{width}}{tot[0]:>9}{tot[1]:>8}{tot[2]:>12}"
          f"{tot[3]:>7}{tot[4]:>14}")
    done = [r.docname for r in rows if r.done]
    print(f"{len(done)} of {len(rows)} pages fully translated")
    orphans = sorted(set(catalogs()) - {r.docname for r in rows})
    if orphans:
        print(f"catalogs with no page (delete them): {', '.join(orphans)}")


def update() -> int:
    rc = build_book.build_templates()
    if rc != 0:
        print(f"translations: the template build failed (exit {rc})", file=sys.stderr)
        return rc
    intl = pathlib.Path(sys.executable).with_name("sphinx-intl")
    # no wrapping (-w 0), and no obsolete (#~) entries: a message the pages no longer hold
    # is history, which git keeps
    rc = subprocess.call([str(intl), "update", "-p", str(POT_DIR), "-d", str(LOCALE),
                          "-l", LANGUAGE, "-j", "1", "-w", "0", "--no-obsolete"], cwd=ROOT)
    if rc == 0:
        drop_obsolete()
        print_status(status())
    return rc


def drop_obsolete() -> int:
    """Write every catalog that still holds ``#~`` entries again without them.

    ``sphinx-intl update --no-obsolete`` leaves a catalog alone when none of its
    messages changed, so an old obsolete entry would stay; this writes such a catalog
    with sphinx-intl's own writer and settings.  Returns the entries dropped.
    """
    from sphinx_intl.catalog import dump_po

    dropped = 0
    for po in catalogs().values():
        cat = load(po)
        if cat.obsolete:
            dropped += len(cat.obsolete)
            dump_po(str(po), cat, width=0, ignore_obsolete=True)
    return dropped


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="command", required=True)
    sub.add_parser("update", help="rebuild the templates and update locale/zh_CN from them")
    st = sub.add_parser("status", help="per page: messages, translated, fuzzy, untranslated")
    st.add_argument("--check", action="store_true", help="exit 1 unless every page is translated")
    args = p.parse_args(argv)
    if args.command == "update":
        return update()
    rows = status()
    print_status(rows)
    return 1 if args.check and not all(r.done for r in rows) else 0


if __name__ == "__main__":
    raise SystemExit(main())
