"""What the Chinese edition's messages must keep and avoid: the checks of the catalogs.

``python -m tools.zh_checks [PAGE ...]`` (``make translation-check``) prints
what ``tests/book/test_translations.py`` would find wrong in the translated messages of
those pages (all pages without PAGE):

* **parity**: every ``{eval}``, ``{numref}``, ``{doc}``, ``{ref}`` role (by its
  expression or target), math span and link target of the English is in the Chinese
  (a dropped role renders nothing and warns nowhere);
* **terms**: where the English uses a term of ``locale/zh_CN/terms.tsv``, the Chinese
  uses its Chinese term (or names the English word in quotes, “decode”);
* **english**: no English word in the Chinese prose but those of
  ``locale/zh_CN/english_allowed.txt`` (code, math, link targets and words quoted in
  “…” do not count; a word with a digit is a name), and an allowed abbreviation beside
  its Chinese term stands in the brackets without quotation marks (首 token 延迟（TTFT）,
  not （“TTFT”）);
* **source**: no run of 20 Chinese characters shared with a source chapter
  (``tests/data/source_chapters/``) outside a marked quotation (“…”, 「…」, 《…》 or a ``>`` block
  quote); punctuation, digits and Latin letters between the characters are skipped, and
  the messages of a page are read as one text;
* **quotes**: a marked quotation that does share such a run names its source
  (S23-J07, S23-J13, clxstart or 原文) in the same message;
* **titles**: a ``{doc}`` link whose English text is the target page's title shows the
  target page's Chinese title, and a link whose text is a page's title (or ends in ？)
  stands in “…” where Chinese text runs into it (“[标题](…)”一页: a bare title ending
  in ？ reads as a stray question);
* **values**: the message rendered with the page's stored ``{eval}`` values, as the
  Chinese edition shows them (:func:`render`), repeats no value's unit word ("32 个请求
  这样的请求", "{eval}`v.n` 个请求" where the value already reads "32 个请求") and puts no
  name after a value's measure word and noun ("8 张卡 RTX 4090": write 8 张 RTX 4090);
* **spacing**: in that rendering, no space between two Chinese characters or next to
  full-width punctuation (a ``{numref}`` reads 练习 1.1: 即练习 1.1, not
  即 练习 1.1), and no ASCII comma in Chinese prose (a stored list reads
  "RTX 4090、L40S": ``bookkit.zh_text``; the space after a value that ends in
  a Chinese character is dropped by ``bookkit.zh_glue_after``, the rule the
  build applies, so the catalogs keep writing a space after every ``{eval}``);
* **avoid** (part of **terms**): where the English uses a term, the Chinese uses none of the
  variants the term list's ``avoid`` column names (位 for bits, 下限 for a lower bound).

All read the templates that ``make book`` or ``make translations`` last built.
"""
from __future__ import annotations

import argparse
import dataclasses
import functools
import json
import os
import pathlib
import re

from bookkit import stored_values
from bookkit.roles import LINK, ROLE_OR_CODE_SPAN, role_target
from tools.translations import LANGUAGE, LOCALE, ROOT, catalog_path, load, page_status, templates
from tools.zh_message import (
    HAN,
    MENTION,
    QUOTED,
    missing_parity,
    prose,
    render,
    spacing_problems,
    unit_word_problems,
)

TERMS = LOCALE / LANGUAGE / "terms.tsv"
TERM_COLUMNS = ["english", "chinese", "from", "note", "avoid"]
ALLOWED_ENGLISH = LOCALE / LANGUAGE / "english_allowed.txt"
# Pages that list English terms on purpose: a message kept verbatim there (an English
# term in the glossary's first column) is not checked for English words or terms.
BILINGUAL_PAGES = ("book/appendix/glossary",)
# the source chapters: the copy kept in tests/data (CC BY-NC-SA 4.0, unchanged), or
# BOOK_SEEDS_DIR
SEEDS = pathlib.Path(os.environ.get("BOOK_SEEDS_DIR")
                     or ROOT / "tests" / "data" / "source_chapters")
SHARED_RUN = 20            # Chinese characters in a row that may not be shared with the source
ATTRIBUTIONS = ("S23-J07", "S23-J13", "clxstart", "原文")
# a display-math message (a `$$`/`{math}` block, a sympy output) kept as it is: LaTeX
# commands, no `$` and no Chinese; its \text{...} labels are math, not prose
LATEX_COMMAND = re.compile(r"\\[A-Za-z,;!]|[_^]\{")
WORD = re.compile(r"[A-Za-z][A-Za-z0-9_'’\-]*(?:/[A-Za-z][A-Za-z0-9]*)*")


@functools.cache
def allowed_english() -> frozenset[str]:
    words = set()
    for line in ALLOWED_ENGLISH.read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            words.add(line)
    return frozenset(words)


def _word_allowed(word: str, allowed: frozenset[str]) -> bool:
    if len(word) == 1 or re.search(r"[0-9_]", word) or word in allowed:
        return True
    parts = [p for p in re.split(r"[/-]", word) if p]
    return len(parts) > 1 and all(_word_allowed(p, allowed) for p in parts)


def english_words(msgstr: str, allowed: frozenset[str] | None = None) -> list[str]:
    """English words of a translation that the allow-list does not name (an entry of
    several words, "LM head", passes only as that phrase)."""
    allowed = allowed_english() if allowed is None else allowed
    text = MENTION.sub(" ", prose(msgstr))
    for phrase in sorted((a for a in allowed if " " in a), key=len, reverse=True):
        text = re.sub(rf"(?<![\w-]){re.escape(phrase)}(?![\w-])", " ", text)
    words = [w.strip("'’-") for w in WORD.findall(text)]
    return sorted({w for w in words if w and not _word_allowed(w, allowed)})


#: a bold run-in heading with its full stop inside the bold: **本章各页。** (the pages
#: write **本章各页**。, the punctuation after the bold)
BOLD_HEADING_STOP = re.compile(r"^\*\*([^*\n]{1,24}?[。：])\*\*")


def bold_heading_stops(msgstr: str) -> list[str]:
    return [f"**{m.group(1)}**: put the punctuation after the bold, **{m.group(1)[:-1]}**{m.group(1)[-1]}"
            for m in BOLD_HEADING_STOP.finditer(msgstr)]


QUOTED_ABBREVIATION = re.compile(r"（“([^”]{1,40})”）")


def quoted_abbreviations(msgstr: str, allowed: frozenset[str] | None = None) -> list[str]:
    """An allowed abbreviation put in “…” in the brackets after its Chinese term:
    首 token 延迟（“TTFT”） reads as a quoted foreign word; a Chinese engineer writes
    首 token 延迟（TTFT）."""
    allowed = allowed_english() if allowed is None else allowed
    out = []
    for word in QUOTED_ABBREVIATION.findall(prose(msgstr)):
        if word in allowed or (WORD.fullmatch(word) and _word_allowed(word, allowed)):
            out.append(f"（“{word}”）: write （{word}） without quotation marks")
    return out


@dataclasses.dataclass(frozen=True)
class Term:
    english: tuple[str, ...]
    chinese: str
    origin: str
    note: str
    avoid: str = ""   # a regular expression: the variants the Chinese must not use

    @property
    def avoid_pattern(self) -> re.Pattern | None:
        return re.compile(self.avoid) if self.avoid else None


@functools.cache
def terms(path: pathlib.Path = TERMS) -> tuple[Term, ...]:
    lines = path.read_text(encoding="utf-8").splitlines()
    header = lines[0].split("\t")
    if header != TERM_COLUMNS:
        raise ValueError(f"{path}: the header must be {', '.join(TERM_COLUMNS)}; got {header}")
    rows = []
    for n, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        cells = line.split("\t")
        if len(cells) != len(TERM_COLUMNS):
            raise ValueError(f"{path}:{n}: {len(TERM_COLUMNS)} tab-separated cells expected, "
                             f"got {len(cells)}")
        english = tuple(e.strip() for e in cells[0].split("|") if e.strip())
        avoid = cells[4].strip()
        try:
            re.compile(avoid)
        except re.error as exc:
            raise ValueError(f"{path}:{n}: the avoid column is not a regular expression: {exc}") from None
        rows.append(Term(english, cells[1].strip(), cells[2].strip(), cells[3].strip(), avoid))
    return tuple(rows)


@functools.cache
def _term_patterns() -> tuple[tuple[re.Pattern, Term, str], ...]:
    pairs = [(alt, t) for t in terms() for alt in t.english]
    pairs.sort(key=lambda p: -len(p[0]))
    return tuple((re.compile(rf"(?<![\w-]){re.escape(alt)}(?:s|es)?(?![\w-])", re.I), t, alt)
                 for alt, t in pairs)


def terms_used(msgid: str) -> list[tuple[str, Term]]:
    """(English words, term) of every listed term the English uses; a longer term
    claims its words first ("largest batch" before "batch")."""
    text = prose(msgid)
    taken: list[tuple[int, int]] = []
    used: list[tuple[str, Term]] = []
    for pattern, term, _alt in _term_patterns():
        for m in pattern.finditer(text):
            if any(m.start() < b and a < m.end() for a, b in taken):
                continue
            taken.append(m.span())
            if term not in [t for _, t in used]:
                used.append((m.group(0), term))
    return used


def missing_terms(msgid: str, msgstr: str, shown: str = "") -> list[str]:
    """The listed terms the English uses and the translation does not (``shown``: the
    message as rendered with its values, whose unit words count: 新的 2,048 个 token)."""
    text = prose(msgstr) + " " + shown
    mentions = {m.lower() for m in MENTION.findall(text)}
    out = []
    for word, term in terms_used(msgid):
        if term.chinese in text or any(alt.lower() in mentions for alt in term.english):
            continue
        out.append(f"{word} → {term.chinese}")
    return out


def avoided_variants(msgid: str, msgstr: str) -> list[str]:
    """Variants the term list's ``avoid`` column names, used where the English uses the term."""
    text = MENTION.sub(" ", prose(msgstr))
    out = []
    for word, term in terms_used(msgid):
        pattern = term.avoid_pattern
        if pattern is not None and (m := pattern.search(text)):
            out.append(f"{word}: {m.group(0)!r} → {term.chinese}")
    return out


@functools.cache
def _seed_grams(n: int = SHARED_RUN) -> frozenset[str]:
    texts = sorted(SEEDS.glob("*.txt"))
    if not texts:
        raise FileNotFoundError(f"no source chapters (*.txt) in {SEEDS}: the check of shared "
                                "text needs tests/data/source_chapters (or set BOOK_SEEDS_DIR)")
    grams = set()
    for path in texts:
        han = "".join(HAN.findall(path.read_text(encoding="utf-8")))
        grams.update(han[i:i + n] for i in range(len(han) - n + 1))
    return frozenset(grams)


def shared_runs(text: str, n: int = SHARED_RUN) -> list[str]:
    """Runs of ``n`` or more Chinese characters (other characters skipped) that a source
    chapter also has."""
    grams = _seed_grams(n)
    han = "".join(HAN.findall(text))
    runs, i = [], 0
    while i <= len(han) - n:
        if han[i:i + n] in grams:
            j = i + n
            while j < len(han) and han[i:j + 1][-n:] in grams:
                j += 1
            runs.append(han[i:j])
            i = j
        else:
            i += 1
    return runs


def unattributed_quotes(msgstr: str) -> list[str]:
    """Marked quotations that share a run with a source chapter in a message that names
    no source (S23-J07, S23-J13, clxstart, 原文)."""
    if any(a in msgstr for a in ATTRIBUTIONS):
        return []
    return [q for q in QUOTED.findall(msgstr) if shared_runs(q)]


def page_title(docname: str) -> str | None:
    """The English H1 of a page, markup stripped."""
    for suffix in (".md", ".ipynb"):
        path = ROOT / f"{docname}{suffix}"
        if not path.is_file():
            continue
        if suffix == ".md":
            text = path.read_text(encoding="utf-8")
        else:
            cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
            text = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
        for line in text.splitlines():
            if line.startswith("# "):
                return line[2:].strip()
    return None


def _resolve(docname: str, target: str) -> str:
    if target.startswith("/"):
        return target.lstrip("/")
    parts = docname.split("/")[:-1]
    for piece in target.split("/"):
        if piece == "..":
            parts = parts[:-1]
        elif piece and piece != ".":
            parts.append(piece)
    return "/".join(parts)


def translated_title(docname: str) -> str | None:
    title = page_title(docname)
    po = catalog_path(docname)
    if title is None or not po.is_file():
        return None
    entry = load(po).get(title)
    return entry.string if entry is not None and entry.string and not entry.fuzzy else None


def _doc_links(text: str) -> list[tuple[int, int, str, str]]:
    """``(start, end, title, target)`` of each ``{doc}`title <target>``` role of a message
    (found by :data:`bookkit.roles.ROLE_OR_CODE_SPAN`: none in a code span)."""
    docs = [(m, *role_target(m.group("code")))
            for m in ROLE_OR_CODE_SPAN.finditer(text) if m.group("role") == "doc"]
    return [(m.start(), m.end(), title, target) for m, title, target in docs if title]


def wrong_titles(docname: str, msgid: str, msgstr: str) -> list[str]:
    shown = {target: title for _, _, title, target in _doc_links(msgstr)}
    out = []
    for _, _, text, target in _doc_links(msgid):
        doc = _resolve(docname, target)
        if text != page_title(doc):
            continue
        want = translated_title(doc)
        got = shown.get(target)
        if want is not None and got is not None and got != want:
            out.append(f"{{doc}}`{got} <{target}>` should read {want!r}, the title of {doc}")
    return out


def _link_doc(docname: str, target: str) -> str | None:
    """The docname a relative link to a page points to (none for a URL or an anchor)."""
    if re.match(r"[a-z]+:", target) or target.startswith("#"):
        return None
    path = target.split("#", 1)[0]
    path = re.sub(r"\.(ipynb|md)$", "", path)
    return _resolve(docname, path) if path else None


def unquoted_link_titles(docname: str, msgstr: str) -> list[str]:
    """A link whose text is a page's title that reads as a clause (it ends in ？, or has
    ，：（ in it) run into Chinese text without “…” around it: 「[一个解码步最短要多久？](…)一页推导」
    reads as a stray question; write 「“[一个解码步最短要多久？](…)”一页推导」."""
    out = []
    links = [(m.start(), m.end(), m.group(1), m.group(2)) for m in LINK.finditer(msgstr)]
    links += _doc_links(msgstr)
    for start, end, text, target in links:
        text = text.strip()
        doc = _link_doc(docname, target.strip())
        title = translated_title(doc) if doc else None
        # a title that reads as a clause (a question, or one with ，：（) ; a noun title
        # (公式表, 术语表) reads as a noun in the sentence
        clause = text.endswith(("？", "?")) or (title is not None and text == title.strip()
                                                and re.search(r"[？，：；（]", text))
        if not clause:
            continue
        before, after = msgstr[start - 1:start], msgstr[end:end + 1]
        if before == "“" and after == "”":
            continue
        if HAN.match(before or " ") or HAN.match(after or " "):
            out.append(f"the page title {text!r} runs into the sentence: write "
                       f"“[{text}](…)”一页 (in “…”)")
    return out


def translated_entries(docname: str) -> list[tuple[str, str]]:
    """(English, Chinese) of every translated, non-fuzzy message of a page that its
    current template still has, in the template's order."""
    pots = templates()
    po_path = catalog_path(docname)
    if docname not in pots or not po_path.is_file():
        return []
    po = load(po_path)
    out = []
    for m in load(pots[docname]):
        if not m.id:
            continue
        entry = po.get(m.id)
        if entry is not None and entry.string and not entry.fuzzy:
            out.append((m.id, entry.string))
    return out


#: a short name in Latin letters and digits, without a sentence: a table cell such as the
#: catalog key "Ascend 910B" (the prose writes 昇腾 910B)
NAME = re.compile(r"[A-Za-z][A-Za-z0-9.\- ]{0,30}")


def name_kept(msgid: str, msgstr: str) -> bool:
    """A name kept as it is (msgstr == msgid, a short name such as a catalog key in a table
    cell): the term check does not ask it for the Chinese term of a word in it."""
    return msgstr == msgid and bool(NAME.fullmatch(msgid))


CHECKS = ("parity", "terms", "english", "source", "quotes", "titles", "values", "spacing")


def problems(docname: str) -> dict[str, list[str]]:
    """What each check finds wrong in a page's translated messages."""
    found: dict[str, list[str]] = {k: [] for k in CHECKS}
    entries = translated_entries(docname)
    bilingual = docname in BILINGUAL_PAGES
    notebook = ROOT / f"{docname}.ipynb"
    values = stored_values(notebook) if notebook.is_file() else {}   # a Markdown page stores none
    joined = []
    for msgid, msgstr in entries:
        short = msgid if len(msgid) < 70 else msgid[:67] + "..."
        if lost := missing_parity(msgid, msgstr):
            found["parity"].append(f"{short!r}: the translation drops {lost}")
        math_block = (msgstr == msgid and "$" not in msgid and not HAN.search(msgid)
                      and LATEX_COMMAND.search(msgid))
        verbatim = (bilingual and msgstr == msgid) or bool(math_block)
        text, spans = render(msgstr, values)
        if not verbatim and not name_kept(msgid, msgstr) and (miss := missing_terms(msgid, msgstr, text)
                             + avoided_variants(msgid, msgstr)):
            found["terms"].append(f"{short!r}: {', '.join(miss)}")
        if not verbatim:
            found["values"].extend(f"{short!r}: {p}" for p in unit_word_problems(text, spans))
            found["spacing"].extend(f"{short!r}: {p}" for p in spacing_problems(text))
        if not verbatim and (words := english_words(msgstr)):
            found["english"].append(f"{short!r}: {words}")
        if not verbatim:
            found["english"].extend(f"{short!r}: {p}" for p in quoted_abbreviations(msgstr))
            found["spacing"].extend(f"{short!r}: {p}" for p in bold_heading_stops(msgstr))
        for quote in unattributed_quotes(msgstr):
            found["quotes"].append(f"{short!r}: the quotation {quote!r} names no source "
                                   f"({', '.join(ATTRIBUTIONS)})")
        found["titles"].extend(wrong_titles(docname, msgid, msgstr))
        if not verbatim:
            found["titles"].extend(f"{short!r}: {p}" for p in unquoted_link_titles(docname, msgstr))
        joined.append(prose(msgstr, keep_quotes=False))
    for run in shared_runs("".join(joined)):
        found["source"].append(f"{len(run)} characters shared with a source chapter outside a "
                               f"marked quotation: {run}")
    return found


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("pages", nargs="*", help="docnames (book/intro); all pages without any")
    args = p.parse_args(argv)
    bad = 0
    for doc in args.pages or list(templates()):
        row = page_status(doc, templates()[doc])
        found = problems(doc)
        n = sum(len(v) for v in found.values())
        bad += n + row.untranslated + row.fuzzy
        print(f"{doc}: {row.translated}/{row.messages} translated, {row.fuzzy} fuzzy, {n} problems")
        for kind, items in found.items():
            for item in items:
                print(f"  {kind}: {item}")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
