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
  “…” do not count; a word with a digit is a name);
* **source**: no run of 20 Chinese characters shared with a source chapter
  (``tests/data/source_chapters/``) outside a marked quotation (“…”, 「…」, 《…》 or a ``>`` block
  quote); punctuation, digits and Latin letters between the characters are skipped, and
  the messages of a page are read as one text;
* **quotes**: a marked quotation that does share such a run names its source
  (S23-J07, S23-J13, clxstart or 原文) in the same message;
* **titles**: a ``{doc}`` link whose English text is the target page's title shows the
  target page's Chinese title;
* **values**: the message rendered with the page's stored ``{eval}`` values, as the
  Chinese edition shows them (:func:`render`), repeats no value's unit word ("32 个请求
  这样的请求", "{eval}`v.n` 个请求" where the value already reads "32 个请求") and puts no
  name after a value's measure word and noun ("8 张卡 RTX 4090": write 8 张 RTX 4090);
* **spacing**: in that rendering, no space between two Chinese characters or next to
  full-width punctuation, and no ASCII comma in Chinese prose (a stored list reads
  "RTX 4090、L40S": ``bookkit.zh_text``; the space after a value that ends in
  a Chinese character is dropped by ``bookkit.zh_glue_after``, the rule the
  build applies, so the catalogs keep writing a space after every ``{eval}``);
* **avoid** (part of **terms**): where the English uses a term, the Chinese uses none of the
  variants the term list's ``avoid`` column names (位 for bits, 下限 for a lower bound).

All read the templates that ``make book`` or ``make translations`` last built.
"""
from __future__ import annotations

import argparse
import collections
import dataclasses
import functools
import json
import os
import pathlib
import re

from bookkit.roles import split_inline
from tools.translations import LANGUAGE, LOCALE, ROOT, catalog_path, load, page_status, templates

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


# -- what a translated message must keep ----------------------------------------------
# ``{eval}`` roles are found by bookkit's one parser (:func:`bookkit.roles.split_inline`);
# these are the other roles
ROLE = re.compile(r"\{(numref|doc|ref|term|download|math|eq)\}`([^`]*)`")
# a display-math message (a `$$`/`{math}` block, a sympy output) kept as it is: LaTeX
# commands, no `$` and no Chinese; its \text{...} labels are math, not prose
LATEX_COMMAND = re.compile(r"\\[A-Za-z,;!]|[_^]\{")
MATH = re.compile(r"\$\$.+?\$\$|\$[^$\n]+?\$", re.S)
LINK = re.compile(r"\[([^\]]*)\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
AUTOLINK = re.compile(r"<((?:https?|mailto):[^>\s]+)>")
BARE_URL = re.compile(r"(?:https?|mailto):[^\s)>\]，。；）]+")
CODE = re.compile(r"(`+)(.+?)\1", re.S)
HTML_TAG = re.compile(r"</?[A-Za-z][^>]*>")
# marked quotations: Chinese quotes, corner brackets, title marks, or a `>` block quote
QUOTED = re.compile(r"“[^”]*”|「[^」]*」|『[^』]*』|《[^》]*》|^\s*>.*$", re.M)
MENTION = re.compile(r"“([^”]{1,40})”")
HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")
WORD = re.compile(r"[A-Za-z][A-Za-z0-9_'’\-]*(?:/[A-Za-z][A-Za-z0-9]*)*")


def _role_target(body: str) -> str:
    body = body.strip()
    if body.endswith(">") and "<" in body:
        return body[body.rindex("<") + 1:-1].strip()
    return body


def _role_text(name: str, body: str) -> str:
    """What a role shows in the prose that the translator writes (a link's own title)."""
    if name in ("doc", "ref", "numref", "term") and body.strip().endswith(">") and "<" in body:
        return body[:body.rindex("<")].replace("%s", " ").strip()
    return " "


def parity_items(text: str) -> collections.Counter:
    """The parts of a message its translation must keep: roles (an {eval} by its
    expression, a reference by its target), math spans and link targets."""
    items: collections.Counter = collections.Counter()
    parts = split_inline(text)
    items.update(f"{{eval}}`{e}`" for e in parts[1::2])
    text = " ".join(parts[0::2])
    for name, body in ROLE.findall(text):
        if name == "math":
            items[f"{{{name}}}`{body}`"] += 1
        else:
            items[f"{{{name}}}<{_role_target(body)}>"] += 1
    rest = ROLE.sub(" ", text)
    rest = CODE.sub(" ", rest)
    for m in MATH.finditer(rest):
        items["math " + re.sub(r"\s+", "", m.group(0).strip("$"))] += 1
    rest = MATH.sub(" ", rest)
    for _, target in LINK.findall(rest):
        items[f"link {target}"] += 1
    rest = LINK.sub(" ", rest)
    for target in AUTOLINK.findall(rest):
        items[f"link {target}"] += 1
    return items


def missing_parity(msgid: str, msgstr: str) -> list[str]:
    lost = parity_items(msgid) - parity_items(msgstr)
    return sorted(lost.elements())


def prose(text: str, *, keep_quotes: bool = True) -> str:
    """A message as a reader sees its words: roles reduced to their own text, inline
    code, math, link targets, URLs and HTML tags removed."""
    text = " ".join(split_inline(text)[0::2])
    text = ROLE.sub(lambda m: _role_text(*m.groups()), text)
    text = CODE.sub(" ", text)
    text = MATH.sub(" ", text)
    text = LINK.sub(lambda m: f" {m.group(1)} ", text)
    text = AUTOLINK.sub(" ", text)
    text = BARE_URL.sub(" ", text)
    text = HTML_TAG.sub(" ", text)
    if not keep_quotes:
        text = QUOTED.sub(" ", text)
    return text


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


def missing_terms(msgid: str, msgstr: str) -> list[str]:
    """The listed terms the English uses and the translation does not."""
    text = prose(msgstr)
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


# -- a message as the Chinese edition renders it ------------------------------------------
EMPHASIS = re.compile(r"\*{1,3}|(?<![\w\\])_{1,2}(?=\S)|(?<=\S)_{1,2}(?!\w)")


@functools.cache
def stored_values(docname: str) -> dict[str, str]:
    """``{expression: stored text}`` of a page's notebook (none for a Markdown page)."""
    from bookkit import stored_values as stored

    path = ROOT / f"{docname}.ipynb"
    return stored(path) if path.is_file() else {}


def _reader_text(piece: str) -> str:
    """Markup of a piece of a message (no ``{eval}`` in it) reduced to what a reader sees;
    code, math and roles without a title of their own become a Latin placeholder, so the
    spacing around them stays as the message writes it."""
    piece = ROLE.sub(lambda m: _role_text(*m.groups()).strip() or "R", piece)
    piece = CODE.sub("C", piece)
    piece = MATH.sub("M", piece)
    piece = LINK.sub(lambda m: m.group(1), piece)
    piece = AUTOLINK.sub("U", piece)
    piece = BARE_URL.sub("U", piece)
    piece = HTML_TAG.sub("", piece)
    return EMPHASIS.sub("", piece)


def render(msgstr: str, values: dict[str, str]) -> tuple[str, list[tuple[int, int]]]:
    """A translated message as its reader sees it in the Chinese edition: every ``{eval}``
    replaced by its stored value in Chinese (``zh_text``), the spacing rule of the build
    applied around it (``zh_glue_after``/``zh_glue_before``, as ``tools/stored_eval.py``
    does), markup removed.  Returns the text and the (start, end) of each value in it;
    an expression without a stored value renders as ``?``."""
    from bookkit import zh_glue_after, zh_glue_before, zh_text

    parts = split_inline(msgstr)     # text, expression, text, expression, ..., text
    texts = [_reader_text(t) for t in parts[0::2]]
    shown = [zh_text(values[e]) if e in values else "?" for e in parts[1::2]]
    for i, value in enumerate(shown):
        texts[i] = zh_glue_before(texts[i], value)
        texts[i + 1] = zh_glue_after(value, texts[i + 1])
    out, spans = texts[0], []
    for value, text in zip(shown, texts[1:], strict=True):
        spans.append((len(out), len(out) + len(value)))
        out += value + text
    return out, spans


def _unit_nouns() -> list[tuple[str, str, str]]:
    """(Chinese unit, measure word, noun) of every unit word of ``ZH_UNITS`` that ends in
    a noun: "个请求" -> ("个请求", "个", "请求"); "亿参数" -> ("亿参数", "亿", "参数")."""
    from bookkit import ZH_UNITS

    out = []
    for chinese, _power in sorted(set(ZH_UNITS.values()), key=lambda u: -len(u[0])):
        m = re.fullmatch(r"([个张亿万]?)\s?(.+)", chinese)
        if chinese and "/" not in chinese and m and m.group(2) not in ("亿", "万"):
            out.append((chinese, m.group(1), m.group(2)))
    return out


def unit_word_problems(text: str, spans: list[tuple[int, int]]) -> list[str]:
    """A value's unit word repeated after it, or a name put after its measure word and noun."""
    out = []
    for start, end in spans:
        value, after = text[start:end], text[end:]
        for chinese, measure, noun in _unit_nouns():
            if not value.endswith(chinese):
                continue
            rest = after.lstrip()
            if re.match(rf"(?:这样的|这么多的?|{measure or '个'})?\s*{re.escape(noun)}", rest):
                out.append(f"{value!r} is followed by its own unit word again: "
                           f"{(value + after)[:len(value) + 12]!r}")
            elif measure and HAN.search(noun) and re.match(r"[A-Za-z]", rest) and after[:1] == " ":
                name = re.match(r"[A-Za-z][\w.\-]*(?: [A-Za-z0-9][\w.\-]*)?", rest).group(0)
                out.append(f"{value!r} puts {name!r} after its noun: write {measure} {name}, "
                           f"not {value} {name}")
            break
    return out


_ZH = r"[\u3400-\u4dbf\u4e00-\u9fff]"
_FW = "，。、：；！？（）“”《》「」"
SPACING = (
    (re.compile(rf"{_ZH} +{_ZH}"), "a space between two Chinese characters"),
    (re.compile(rf"[{_FW}] +(?:{_ZH}|[{_FW}])|{_ZH} +[{_FW}]"),
     "a space next to full-width punctuation"),
    (re.compile(rf"{_ZH}[ ]?, ?|, ?{_ZH}|(?<=\S), (?=[A-Z0-9])"),
     "an ASCII comma in Chinese prose (、 between the items of a list, ， between clauses)"),
)


def spacing_problems(text: str) -> list[str]:
    """Spaces and commas of a rendered Chinese message that Chinese typesetting does not use."""
    if not HAN.search(text):
        return []
    out = []
    for pattern, what in SPACING:
        for m in pattern.finditer(text):
            a, b = max(m.start() - 8, 0), min(m.end() + 8, len(text))
            out.append(f"{what}: {text[a:b]!r}")
    return out


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


DOC_ROLE = re.compile(r"\{doc\}`([^`<]+)<([^`>]+)>`")


def wrong_titles(docname: str, msgid: str, msgstr: str) -> list[str]:
    shown = dict((t.strip(), x.strip()) for x, t in DOC_ROLE.findall(msgstr))
    out = []
    for text, target in DOC_ROLE.findall(msgid):
        doc = _resolve(docname, target.strip())
        if text.strip() != page_title(doc):
            continue
        want = translated_title(doc)
        got = shown.get(target.strip())
        if want is not None and got is not None and got != want:
            out.append(f"{{doc}}`{got} <{target.strip()}>` should read {want!r}, the title of {doc}")
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


CHECKS = ("parity", "terms", "english", "source", "quotes", "titles", "values", "spacing")


def problems(docname: str) -> dict[str, list[str]]:
    """What each check finds wrong in a page's translated messages."""
    found: dict[str, list[str]] = {k: [] for k in CHECKS}
    entries = translated_entries(docname)
    bilingual = docname in BILINGUAL_PAGES
    values = stored_values(docname)
    joined = []
    for msgid, msgstr in entries:
        short = msgid if len(msgid) < 70 else msgid[:67] + "..."
        if lost := missing_parity(msgid, msgstr):
            found["parity"].append(f"{short!r}: the translation drops {lost}")
        math_block = (msgstr == msgid and "$" not in msgid and not HAN.search(msgid)
                      and LATEX_COMMAND.search(msgid))
        verbatim = (bilingual and msgstr == msgid) or bool(math_block)
        if not verbatim and (miss := missing_terms(msgid, msgstr) + avoided_variants(msgid, msgstr)):
            found["terms"].append(f"{short!r}: {', '.join(miss)}")
        if not verbatim:
            text, spans = render(msgstr, values)
            found["values"].extend(f"{short!r}: {p}" for p in unit_word_problems(text, spans))
            found["spacing"].extend(f"{short!r}: {p}" for p in spacing_problems(text))
        if not verbatim and (words := english_words(msgstr)):
            found["english"].append(f"{short!r}: {words}")
        for quote in unattributed_quotes(msgstr):
            found["quotes"].append(f"{short!r}: the quotation {quote!r} names no source "
                                   f"({', '.join(ATTRIBUTIONS)})")
        found["titles"].extend(wrong_titles(docname, msgid, msgstr))
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
