"""The Chinese edition's value forms: stored ``{eval}`` values read as Chinese.

A value is stored once, in English (``infra_calc.display.shown``: "295.3 requests",
"8.03 billion", "RTX 4090, L40S").  The Chinese build (``tools/stored_eval.py``)
and the catalog checks (``tools/zh_checks.py``, through ``tools/zh_message.py``'s
``render``) rewrite it with :func:`zh_text`
and glue it to the Chinese text around it with :func:`zh_glue_after` and
:func:`zh_glue_before`: one table, one rule.

Why the English text and not the number: the stored text is the one formatted form of a
value (written by :func:`infra_calc.display.shown`, verified by nbval, shown by
jupyterlab-myst).  Rewriting its unit words moves a decimal point and swaps a word, and
adds or drops no digit (``tests/bookkit/test_zh.py``), so the two editions cannot show
different numbers.  Storing value and unit instead would need a second formatter, in
Chinese, that could round differently from the first.
"""
from __future__ import annotations

import math
import re

from infra_calc.units import UNITS

__all__ = ["HAN", "ZH_UNITS", "ZH_WORDS", "ZH_LIST_SEP", "ZH_TIMES",
           "zh_text", "zh_glue_after", "zh_glue_before"]

#: The Chinese edition's words for the English unit words a stored value may end in (those of
#: :data:`infra_calc.units.UNITS`, and "CPUs" of a machine's description):
#: unit -> (Chinese, power of ten).  :func:`zh_text` writes a number followed by
#: one of them as the number times ``10**power`` (its decimal point moved: no digit is
#: added or lost) followed by the Chinese, e.g. "8.03 billion" -> "80.3 亿".
#: Units written as symbols (ms, GB, TFLOP/s, FLOP/byte, %) are not listed: they
#: stay as they are; a ratio ("147.7×") reads "147.7 倍" (:data:`ZH_TIMES`).
#: ``tools/stored_eval.py`` applies this to every stored ``{eval}``
#: value when the book is built with ``language: zh_CN``; ``tests/bookkit/test_zh.py``
#: fails when a unit word of UNITS has no entry here.  A scale word's power is
#: derived: its scale in UNITS over the Chinese word's (万 = 10⁴, 亿 = 10⁸).
_ZH_MAGNITUDES = {"": 0, "万": 4, "亿": 8}
_ZH_SCALE_WORDS = {"thousand": ("", ""), "million": ("万", "万"), "billion": ("亿", "亿"),
                   "B params": ("亿参数", "亿")}   # unit -> (Chinese, its magnitude word)
ZH_UNITS: dict[str, tuple[str, int]] = {
    "tokens": ("个 token", 0), "token": ("个 token", 0),
    "tokens/s": ("token/s", 0), "token/s": ("token/s", 0), "tok/s": ("token/s", 0),
    "requests": ("个请求", 0), "request": ("个请求", 0),
    "rows": ("行", 0), "cards": ("张卡", 0), "experts": ("个专家", 0), "layers": ("层", 0),
    "elements": ("个元素", 0),
    "bytes": ("字节", 0), "CPUs": ("个 CPU", 0), "years": ("年", 0),
    **{unit: (zh, round(math.log10(UNITS[unit].scale)) - _ZH_MAGNITUDES[magnitude])
       for unit, (zh, magnitude) in _ZH_SCALE_WORDS.items()},
}
#: Whole words a stored value may hold besides numbers (a yes/no column, "1,024 and 2,048").
ZH_WORDS: dict[str, str] = {
    # phrases first (the pattern tries them in this order): the options of exercise ch1-n3
    "4-bit weights": "4 比特权重", "twice the bandwidth": "带宽翻倍",
    # where a measured bend lies against the two models (the lab page)
    "beyond both": "比两者都晚", "between the two": "介于两者之间", "before both": "比两者都早",
    # a card whose Chinese name the prose uses (a stored list of cards: "…、昇腾 910B")
    "Ascend 910B": "昇腾 910B",
    # a goal's verdict (chapter 4's goals table), the longer phrase first
    "not met": "未达到", "met": "达到",
    "yes": "是", "no": "否", "and": "和", "Exercise": "练习",
    # counts the English prose spells out ("the six notes"): digits in Chinese
    **{w: str(i) for i, w in enumerate("zero one two three four five six seven eight nine "
                                        "ten".split())},
}
#: A ratio as Chinese prose writes it: "147.7×" -> "147.7 倍" (× stays between two
#: operands, as in "4 × 4096").
ZH_TIMES = "倍"
#: The separator of a stored list in Chinese prose: "RTX 4090, L40S" reads "RTX 4090、L40S"
#: (a comma followed by a space; the thousands comma of "1,024" has none).
ZH_LIST_SEP = "、"


_ZH_NUMBER_UNIT = re.compile(
    r"(?P<num>[−-]?\d[\d,]*(?:\.\d+)?) (?P<unit>"
    + "|".join(re.escape(u) for u in sorted(ZH_UNITS, key=len, reverse=True))
    + r")(?![\w/])")
_ZH_RATIO = re.compile(r"(?P<num>\d[\d,]*(?:\.\d+)?)×(?![\w.])")
_ZH_WORD = re.compile(r"\b(" + "|".join(ZH_WORDS) + r")\b")


def _shift(num: str, power: int) -> str:
    """``num`` (as :func:`shown` writes it) times ``10**power``, written the same way."""
    from decimal import Decimal

    sign = "−" if num[:1] in "−-" else ""
    digits = num.lstrip("−-")
    whole = digits.split(".")[0]
    sep = "," in whole or len(whole) < 4
    decimals = len(digits.split(".")[1]) if "." in digits else 0
    value = Decimal(digits.replace(",", "")).scaleb(power)
    return sign + f"{value:{',' if sep else ''}.{max(decimals - power, 0)}f}"


def zh_text(text: str) -> str:
    """A stored value as the Chinese edition shows it: unit words in Chinese.

    A number followed by a unit of :data:`ZH_UNITS` becomes the rescaled number and
    its Chinese unit; a word of :data:`ZH_WORDS` becomes its Chinese; the items of a
    list are separated by :data:`ZH_LIST_SEP`.  Everything else (symbols such as ms,
    GB, %; names such as H100 SXM) is left as it is; a ratio "N×" becomes "N 倍"
    (:data:`ZH_TIMES`).

    >>> zh_text("295.3 requests"), zh_text("1,458 tokens"), zh_text("8 cards")
    ('295.3 个请求', '1,458 个 token', '8 张卡')
    >>> zh_text("8.03 billion"), zh_text("2.50 million"), zh_text("12.5 thousand")
    ('80.3 亿', '250 万', '12,500')
    >>> zh_text("20.90 ms"), zh_text("1,024 and 2,048"), zh_text("yes")
    ('20.90 ms', '1,024 和 2,048', '是')
    >>> zh_text("RTX 4090, L40S, TPU v5e"), zh_text("Exercise 1.1, Exercise 1.3")
    ('RTX 4090、L40S、TPU v5e', '练习 1.1、练习 1.3')
    >>> zh_text("TPU v5e, Ascend 910B")
    'TPU v5e、昇腾 910B'
    >>> zh_text("147.7×"), zh_text("4.30×"), zh_text("4 × 4096")
    ('147.7 倍', '4.30 倍', '4 × 4096')
    """
    def unit(m: re.Match) -> str:
        chinese, power = ZH_UNITS[m["unit"]]
        number = _shift(m["num"], power) if power else m["num"]
        return f"{number} {chinese}" if chinese else number

    text = _ZH_RATIO.sub(lambda m: f"{m['num']} {ZH_TIMES}", _ZH_NUMBER_UNIT.sub(unit, text))
    text = _ZH_WORD.sub(lambda m: ZH_WORDS[m[1]], text)
    return _LIST_COMMA.sub(ZH_LIST_SEP, text)


_LIST_COMMA = re.compile(r"(?<=\S), +(?=\S)")
# Chinese characters and the full-width punctuation of Chinese prose: no space between two
# of them (a space separates Chinese from Latin letters and digits only)
#: the Han characters of Chinese text, a character-class body (``[{HAN}]``): the CJK unified
#: ideographs and their extension A
HAN = "\u3400-\u4dbf\u4e00-\u9fff"
_ZH_PUNCT = "，。、：；！？（）“”‘’《》「」『』…—"
_ENDS_ZH = re.compile(rf"[{HAN}{_ZH_PUNCT}]$")
_STARTS_ZH = re.compile(rf"^[{HAN}{_ZH_PUNCT}]")


def zh_glue_after(value: str, after: str) -> str:
    """The text that follows a filled-in value, as the Chinese edition shows it.

    A translator writes a space after ``{eval}`...``` since most values end in a
    digit or a symbol ("20.90 ms 时").  A value that ends in a Chinese character
    ("8 个请求", "700 亿") takes no space before Chinese text, so the space is dropped
    there (and only there): one rule for every page, applied by ``tools/stored_eval.py``.

    >>> zh_glue_after("8 个请求", " 时，"), zh_glue_after("20.90 ms", " 时，")
    ('时，', ' 时，')
    >>> zh_glue_after("700 亿", " 个参数"), zh_glue_after("8 张卡", " H100")
    ('个参数', ' H100')
    """
    stripped = after.lstrip(" ")
    if stripped != after and _ENDS_ZH.search(value) and _STARTS_ZH.search(stripped):
        return stripped
    return after


def zh_glue_before(before: str, value: str) -> str:
    """The text before a filled-in value that starts with a Chinese character ("是",
    "练习 1.1"): its trailing space is dropped after Chinese text.

    >>> zh_glue_before("答案 ", "是"), zh_glue_before("批大小为 ", "8 个请求")
    ('答案', '批大小为 ')
    """
    stripped = before.rstrip(" ")
    if stripped != before and _STARTS_ZH.search(value) and _ENDS_ZH.search(stripped):
        return stripped
    return before


