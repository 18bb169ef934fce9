"""bookkit.zh: the one table that makes stored values read as Chinese, and its glue rule
(the build applies it: tools/stored_eval.py)."""
from __future__ import annotations

import re
from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bookkit import ZH_UNITS, ZH_WORDS, zh_glue_after, zh_glue_before, zh_text
from infra_calc.display import shown
from infra_calc.units import UNITS

# units of UNITS written as words (the rest are symbols: ms, GB, TFLOP/s, ×, %)
WORD_UNITS = sorted(u for u in UNITS if re.match(r"[a-z]{3}", u) or " " in u)


def test_every_unit_word_has_a_chinese_form():
    """A unit word added to UNITS fails here until ZH_UNITS says how Chinese writes it."""
    assert "requests" in WORD_UNITS and "billion" in WORD_UNITS
    missing = [u for u in WORD_UNITS if u not in ZH_UNITS]
    assert not missing, f"unit words of UNITS with no entry in ZH_UNITS: {missing}"


@pytest.mark.parametrize("text, zh", [
    ("295.3 requests", "295.3 个请求"),
    ("1 request", "1 个请求"),
    ("1,458 tokens", "1,458 个 token"),
    ("47.9 tokens/s", "47.9 token/s"),
    ("8 cards", "8 张卡"),
    ("8 experts", "8 个专家"),
    ("345.1 rows", "345.1 行"),
    ("80 layers", "80 层"),
    ("327,680 bytes", "327,680 字节"),
    ("8.03 billion", "80.3 亿"),
    ("70 billion", "700 亿"),
    ("1,234.5 billion", "12,345 亿"),
    ("2.50 million", "250 万"),
    ("12.5 thousand", "12,500"),
    ("70.0 B params", "700 亿参数"),
    ("−3.5 billion", "−35 亿"),
    ("yes", "是"),
    ("no", "否"),
    ("1,024 and 2,048", "1,024 和 2,048"),
    # symbols and names stay
    ("20.90 ms", "20.90 ms"), ("73.73 GB", "73.73 GB"), ("989.4 TFLOP/s", "989.4 TFLOP/s"),
    ("99.3%", "99.3%"), ("591 FLOP/byte", "591 FLOP/byte"),
    # a ratio reads N 倍 (ZH_TIMES)
    ("147.7×", "147.7 倍"),
    # a stored list reads with the Chinese list separator
    ("A100 80GB, RTX 4090, Ascend 910B", "A100 80GB、RTX 4090、昇腾 910B"),
    ("AMD EPYC, 2 CPUs, numpy 2.4.6", "AMD EPYC、2 个 CPU、numpy 2.4.6"),
    ("1,024, 2,048 and 4,096", "1,024、2,048 和 4,096"),
    ("8192 token context", "8192 个 token context"),
])
def test_zh_text(text, zh):
    assert zh_text(text) == zh


def test_words_are_whole_words():
    assert zh_text("nothing and nobody") == "nothing 和 nobody"
    assert {"yes", "no", "and"} <= set(ZH_WORDS)


def test_phrases_come_before_their_words():
    """A stored option such as "twice the bandwidth" reads as one Chinese phrase."""
    assert zh_text("twice the bandwidth") == "带宽翻倍"
    assert zh_text("4-bit weights") == "4 比特权重"
    assert zh_text("bandwidth and weights") == "bandwidth 和 weights"
    assert zh_text("beyond both") == "比两者都晚"
    assert zh_text("Exercise 1.1, Exercise 2.3") == "练习 1.1、练习 2.3"
    assert zh_text("six") == "6" and zh_text("none") == "none"


@given(st.integers(min_value=0, max_value=10**14), st.integers(min_value=0, max_value=3),
       st.sampled_from(["billion", "million", "thousand", "B params"]))
def test_rescaling_keeps_every_digit(n, digits, unit):
    """The decimal point moves; the number shown in Chinese is the same number."""
    text = shown(n, unit, digits).text
    zh = zh_text(text)
    chinese, power = ZH_UNITS[unit]
    number = zh[: -len(chinese) - 1] if chinese else zh
    before = Decimal(text.split(" ")[0].replace(",", ""))
    assert Decimal(number.replace(",", "")) == before.scaleb(power)
    assert zh.endswith(chinese)


# -- the space around a filled-in value (one rule: zh_glue_after / zh_glue_before) ----------
@pytest.mark.parametrize("value, after, shown_after", [
    ("8 个请求", " 时，", "时，"),          # a value ending in Chinese: no space before Chinese
    ("700 亿", " 个参数", "个参数"),
    ("8 张卡", " 一起", "一起"),
    ("8 个请求", " ，", "，"),             # nor before full-width punctuation
    ("8 个请求", "时", "时"),              # nothing to drop
    ("20.90 ms", " 时", " 时"),            # a value ending in a symbol keeps its space
    ("1,458 个 token", " 的", " 的"),      # ... and one ending in a Latin word
    ("8 张卡", " H100", " H100"),          # Latin text after a Chinese end keeps it
])
def test_glue_after(value, after, shown_after):
    assert zh_glue_after(value, after) == shown_after


def test_glue_before():
    assert zh_glue_before("答案 ", "是") == "答案"
    assert zh_glue_before("见 ", "练习 1.1") == "见"
    assert zh_glue_before("批大小为 ", "8 个请求") == "批大小为 "
    assert zh_glue_before("on ", "是") == "on "


def _paragraph(*parts):
    """A docutils paragraph of text and stored values (("value", text) for a value)."""
    from docutils import nodes
    from docutils.frontend import get_default_settings
    from docutils.parsers.rst import Parser
    from docutils.utils import new_document

    doc = new_document("test", get_default_settings(Parser))
    para = nodes.paragraph()
    for part in parts:
        if isinstance(part, tuple) and part[0] == "value":
            para += nodes.inline(part[1], part[1], classes=["stored-eval"])
        elif isinstance(part, tuple) and part[0] == "strong":
            strong = nodes.strong()
            strong += nodes.inline(part[1], part[1], classes=["stored-eval"])
            para += strong
        else:
            para += nodes.Text(part)
    doc += para
    return doc


def test_the_build_drops_the_space_after_a_chinese_value():
    """tools/stored_eval.py applies the rule to the built page's nodes, inside bold too."""
    from tools import stored_eval

    doc = _paragraph("批大小为 ", ("value", "8 个请求"), " 时，读取为 ", ("value", "20.90 ms"),
                     " 时；", ("strong", "700 亿"), " 个参数，见 ", ("value", "练习 1.1"), "。")
    assert stored_eval.glue_values(doc) == 3
    assert doc.astext() == "批大小为 8 个请求时，读取为 20.90 ms 时；700 亿个参数，见练习 1.1。"
    # English text around the same values is left alone
    doc = _paragraph("with ", ("value", "8 个请求"), " at once")
    assert stored_eval.glue_values(doc) == 0
