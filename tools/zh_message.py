"""A translated message as its reader sees it: its markup, what its translation must keep,
and how the Chinese edition renders it (``tools/zh_checks.py`` checks on these).

* :func:`parity_items`: the roles (an ``{eval}`` by its expression, a reference by its
  target), math spans and link targets a translation must keep;
* :func:`prose`: the words a reader sees, markup removed;
* :func:`render`: the message with the page's stored ``{eval}`` values in Chinese and
  the build's spacing rule applied; :func:`unit_word_problems` and
  :func:`spacing_problems` read that rendering.

``{eval}`` roles, the other roles and code spans are found by bookkit's one parser
(:func:`bookkit.roles.split_inline`, :data:`bookkit.roles.ROLE_OR_CODE_SPAN`,
:func:`bookkit.roles.role_target`); this module knows no MyST inline syntax of its own.
"""
from __future__ import annotations

import collections
import re

from bookkit.roles import LINK, ROLE_OR_CODE_SPAN, role_target, split_inline
from bookkit.zh import HAN as HAN_CHARS

# -- what a translated message must keep ----------------------------------------------
MATH = re.compile(r"\$\$.+?\$\$|\$[^$\n]+?\$", re.S)
AUTOLINK = re.compile(r"<((?:https?|mailto):[^>\s]+)>")
BARE_URL = re.compile(r"(?:https?|mailto):[^\s)>\]，。；）]+")
HTML_TAG = re.compile(r"</?[A-Za-z][^>]*>")
# marked quotations: Chinese quotes, corner brackets, title marks, or a `>` block quote
QUOTED = re.compile(r"“[^”]*”|「[^」]*」|『[^』]*』|《[^》]*》|^\s*>.*$", re.M)
MENTION = re.compile(r"“([^”]{1,40})”")
HAN = re.compile(rf"[{HAN_CHARS}]")


def _role_text(name: str | None, body: str) -> str:
    """What a role shows in the prose that the translator writes (a link's own title); a
    code span (``name`` None) shows none."""
    title = role_target(body)[0]
    if name in ("doc", "ref", "numref", "term") and title is not None:
        return title.replace("%s", " ").strip()
    return " "


def parity_items(text: str) -> collections.Counter:
    """The parts of a message its translation must keep: roles (an {eval} by its
    expression, a reference by its target), math spans and link targets."""
    items: collections.Counter = collections.Counter()
    parts = split_inline(text)
    items.update(f"{{eval}}`{e}`" for e in parts[1::2])
    text = " ".join(parts[0::2])
    for m in ROLE_OR_CODE_SPAN.finditer(text):
        name, body = m.group("role", "code")
        if name == "math":
            items[f"{{{name}}}`{body}`"] += 1
        elif name:
            items[f"{{{name}}}<{role_target(body)[1]}>"] += 1
    rest = ROLE_OR_CODE_SPAN.sub(" ", text)
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
    text = ROLE_OR_CODE_SPAN.sub(lambda m: _role_text(*m.group("role", "code")), text)
    text = MATH.sub(" ", text)
    text = LINK.sub(lambda m: f" {m.group(1)} ", text)
    text = AUTOLINK.sub(" ", text)
    text = BARE_URL.sub(" ", text)
    text = HTML_TAG.sub(" ", text)
    if not keep_quotes:
        text = QUOTED.sub(" ", text)
    return text


# -- a message as the Chinese edition renders it ------------------------------------------
EMPHASIS = re.compile(r"\*{1,3}|(?<![\w\\])_{1,2}(?=\S)|(?<=\S)_{1,2}(?!\w)")


def _reader_text(piece: str) -> str:
    """Markup of a piece of a message (no ``{eval}`` in it) reduced to what a reader sees;
    code, math and roles without a title of their own become a Latin placeholder, so the
    spacing around them stays as the message writes it; but a ``{numref}`` without a title
    of its own shows its number in a Chinese word (练习 1.1, 图 2.1: Sphinx's and
    sphinx-exercise's zh_CN formats), so it reads "图 1": no space before it after Chinese
    text (即练习 1.1), a space after its number."""
    def shown(m: re.Match) -> str:
        name = m.group("role")
        if not name:
            return "C"
        return _role_text(name, m.group("code")).strip() or ("图 1" if name == "numref" else "R")

    piece = ROLE_OR_CODE_SPAN.sub(shown, piece)
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


#: A comparative right before a ratio ("多了 8 倍", "高出 4.8 倍", "小了 295 倍"): Chinese
#: readers take 多了/高出 N 倍 as N + 1 times, and 小了 N 倍 has no clear meaning.
#: So is a difference or a change written as a ratio ("差了 295 倍", "加速 4.30 倍",
#: "外移了 7.2 倍", "耗时变成 2.00 倍", "跨 1.80 倍", "这个倍数是 295 倍"): write what
#: is N times what (机器分水岭是它的 295 倍, 速度变为单卡的 4.30 倍).
AMBIGUOUS_RATIO = re.compile(
    r"(?:[多高大快慢长小低少短]|增长|增加|提高|提升|降低|减少|缩小|乐观|悲观)[了出]?\s*$"
    r"|(?:差|加速|外移|内移|跨|变成|变为|变|倍数是|倍数为)了?\s*$")
#: A ratio below 1 with 倍 ("只有 W_Q 的 0.25 倍"): write the fraction or the inverse.
FRACTION_TIMES = re.compile(r"0\.\d+\s*$")


def unit_word_problems(text: str, spans: list[tuple[int, int]]) -> list[str]:
    """A value's unit word repeated after it, a name put after its measure word and noun,
    or a ratio after a comparative (write the relation: 是…的 N 倍, 只有…的 1/N)."""
    from bookkit import ZH_TIMES

    out = []
    for start, end in spans:
        value, after = text[start:end], text[end:]
        # a stored ratio ("8×" shows as "8 倍") or a bare number the message follows with 倍
        times = re.match(rf"\s*{ZH_TIMES}", after) if not value.endswith(ZH_TIMES) else None
        before = text[:start]
        quoting = before.count("“") > before.count("”")   # the source's own words, quoted
        if ((value.endswith(ZH_TIMES) or times) and not quoting
                and AMBIGUOUS_RATIO.search(text[max(start - 6, 0):start])):
            shown = text[max(start - 6, 0):end + (times.end() if times else 0)]
            out.append(f"a ratio after a comparative or a difference reads as N + 1 times or "
                       f"has no clear meaning: {shown!r} (write 是…的 N 倍, "
                       f"变成原来的 N 倍, 只有…的 1/N)")
        if (value.endswith(ZH_TIMES) and FRACTION_TIMES.search(value[:-len(ZH_TIMES)])) or (
                times and FRACTION_TIMES.search(value)):
            out.append(f"a ratio below 1 written with 倍: {value + after[:times.end() if times else 0]!r} "
                       f"(write the fraction, 1/4 or 四分之一, or the inverse ratio)")
        for chinese, measure, noun in _unit_nouns():
            if not value.endswith(chinese):
                continue
            rest = after.lstrip()
            if re.match(rf"(?:这样的|这么多的?|新的?|{measure or '个'})?\s*{re.escape(noun)}", rest):
                out.append(f"{value!r} is followed by its own unit word again: "
                           f"{(value + after)[:len(value) + 12]!r}")
            elif measure and HAN.search(noun) and re.match(r"[A-Za-z]", rest) and after[:1] == " ":
                name = re.match(r"[A-Za-z][\w.\-]*(?: [A-Za-z0-9][\w.\-]*)?", rest).group(0)
                out.append(f"{value!r} puts {name!r} after its noun: write {measure} {name}, "
                           f"not {value} {name}")
            break
    return out


_ZH = rf"[{HAN_CHARS}]"
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


