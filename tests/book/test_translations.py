"""The Chinese edition's catalogs (``locale/zh_CN``): complete, current and faithful.

The messages are those of the templates that ``make book`` (and ``make translations``)
builds from the current English pages into ``_build/i18n/_build/gettext``: so an English
sentence changed without ``make translations`` is an untranslated message here, and one
changed with it is a fuzzy one; both fail ``test_page_fully_translated``.  The checks
of the translated messages live in ``tools/translations.py`` (``make translation-check``
prints the same findings); the tests at the end feed them made-up messages, so each
check is seen to fail on what it guards against.
"""
from __future__ import annotations

import functools
import re

import e2e_helpers as e2e
import pytest
from conftest import ROOT

from tools import bilingual, zh_message
from tools import translations as T
from tools import zh_checks as C

PAGES = e2e.toc_pages()
CHECKS = C.CHECKS


@functools.cache
def pots() -> dict:
    assert T.POT_DIR.is_dir(), f"no message templates in {T.POT_DIR}: run `make book` first"
    return T.templates()


@functools.cache
def problems(page: str) -> dict[str, list[str]]:
    return C.problems(page)


# -- every page has a current, complete catalog ---------------------------------------------
def test_templates_cover_every_page():
    assert set(pots()) == set(PAGES), \
        f"pages without a template: {sorted(set(PAGES) - set(pots()))}; " \
        f"templates of no page: {sorted(set(pots()) - set(PAGES))}"


@pytest.mark.parametrize("page", PAGES)
def test_page_has_a_catalog(page):
    assert T.catalog_path(page).is_file(), \
        f"no catalog {T.catalog_path(page).relative_to(ROOT)}: run `make translations`"


def test_no_catalog_without_a_page():
    orphans = sorted(set(T.catalogs()) - set(PAGES))
    assert not orphans, f"catalogs of pages that no longer exist (delete them): {orphans}"


@pytest.mark.parametrize("page", PAGES)
def test_page_fully_translated(page):
    """0 untranslated and 0 fuzzy messages: `make translation-status` counts them per page."""
    st = T.page_status(page, pots()[page])
    if not st.done:
        po = T.load(T.catalog_path(page)) if st.has_catalog else None
        left = [m.id for m in T.load(pots()[page]) if m.id and (
            po is None or po.get(m.id) is None or not po.get(m.id).string or po.get(m.id).fuzzy)]
        pytest.fail(f"{page}: {st.untranslated} untranslated and {st.fuzzy} fuzzy of "
                    f"{st.messages} messages (`make translation-status`), e.g. {left[:3]}")


def test_catalogs_hold_no_obsolete_entries():
    """`make translations` drops the #~ entries of messages the pages no longer hold."""
    stale = {str(po.relative_to(ROOT)): len(T.load(po).obsolete) for po in T.catalogs().values()}
    stale = {k: n for k, n in stale.items() if n}
    assert not stale, f"obsolete entries left (run `make translations`): {stale}"


@pytest.mark.parametrize("catalog", T.CHROME_CATALOGS)
def test_chrome_catalog_complete(catalog):
    """The edition's versions of the theme's strings: every entry translated, none fuzzy."""
    path = T.PO_DIR / f"{catalog}.po"
    assert path.is_file(), path
    entries = [m for m in T.load(path) if m.id]
    assert entries
    bad = [m.id for m in entries if not m.string or m.fuzzy]
    assert not bad, f"{path.name}: untranslated or fuzzy: {bad}"


def test_edition_settings_are_chinese():
    """The Chinese title, author and copyright (locale/zh_CN/book.yml)."""
    import yaml

    cfg = yaml.safe_load(T.build_book.ZH_SETTINGS.read_text(encoding="utf-8"))
    assert cfg["sphinx"]["config"]["language"] == "zh_CN"
    for key in ("title", "author", "copyright"):
        assert zh_message.HAN.search(cfg[key]), (key, cfg[key])
        assert not C.english_words(cfg[key]), (key, C.english_words(cfg[key]))


# -- the translated messages ---------------------------------------------------------------
@pytest.mark.parametrize("check", CHECKS)
@pytest.mark.parametrize("page", PAGES)
def test_translated_messages(page, check):
    """parity / terms / english / source / quotes / titles: see tools/translations.py."""
    pots()
    found = problems(page)[check]
    assert not found, f"{page}: {len(found)} {check} problems:\n  " + "\n  ".join(found[:10])


# -- the term list ---------------------------------------------------------------------------
def test_term_list_well_formed():
    rows = C.terms()
    assert len(rows) >= 40
    seen: dict[str, str] = {}
    for t in rows:
        assert t.english and t.chinese, t
        assert t.origin in ("source", "book"), t
        for alt in t.english:
            assert alt.lower() not in seen, f"{alt!r} listed twice ({seen[alt.lower()]}, {t.chinese})"
            seen[alt.lower()] = t.chinese


def _seed_text() -> str:
    return "\n".join(p.read_text(encoding="utf-8") for p in sorted(C.SEEDS.glob("*.txt")))


def test_source_terms_are_the_sources_words():
    """A term marked `source` is written so in a source chapter."""
    text = _seed_text()
    assert text, f"no source chapters in {C.SEEDS}"
    wrong = [(t.english[0], t.chinese) for t in C.terms() if t.origin == "source" and t.chinese not in text]
    assert not wrong, f"terms marked 'source' that the source chapters do not use: {wrong}"


def glossary_rows() -> list[tuple[str, str, str]]:
    """(term, 中文, from) of every row of the glossary's tables."""
    rows = []
    for line in (ROOT / "book" / "appendix" / "glossary.md").read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and len(cells) == 5 and cells[2] in ("source", "book"):
            rows.append((cells[0], cells[1], cells[2]))
    return rows


def test_term_list_covers_the_glossary():
    """Every Chinese term of the glossary is in the term list, from the same side."""
    rows = glossary_rows()
    assert len(rows) >= 40, rows
    missing = []
    for english, chinese, origin in rows:
        for piece in re.split(r"[、/\s]+", chinese):
            if not zh_message.HAN.search(piece):
                continue
            if not any((t.chinese in piece or piece in t.chinese) and t.origin == origin
                       for t in C.terms()):
                missing.append((english, piece, origin))
    assert not missing, f"glossary terms not in {C.TERMS.name} (or not marked alike): {missing}"


def test_search_dictionary_comes_from_the_term_list():
    words = bilingual.search_words(C.TERMS)
    for word in ("算术强度", "机器分水岭", "转折点", "补零", "统一数据缓冲"):
        assert word in words


# -- each check fails on what it guards against --------------------------------------------
def test_parity_finds_what_a_translation_drops():
    en = ("Read {eval}`v.t` in {doc}`the sheet <../appendix/formulas>`, $x^2$, {numref}`fig-a`, "
          "{ref}`sec`, [text](https://a.b/c) and <https://d.e/>.")
    full = ("读 {eval}`v.t`，见{doc}`公式表 <../appendix/formulas>`、$x^2$、{numref}`fig-a`、"
            "{ref}`sec`、[文字](https://a.b/c) 和 <https://d.e/>。")
    assert zh_message.missing_parity(en, full) == []
    assert zh_message.missing_parity(en, full.replace("{eval}`v.t`", "20 ms")) == ["{eval}`v.t`"]
    assert zh_message.missing_parity(en, full.replace("$x^2$", "x 的平方")) == ["math x^2"]
    assert zh_message.missing_parity(en, full.replace("../appendix/formulas", "formulas")) == \
        ["{doc}<../appendix/formulas>"]
    assert zh_message.missing_parity(en, full.replace("(https://a.b/c)", "(https://a.b)")) == ["link https://a.b/c"]
    assert zh_message.missing_parity(en, full.replace("{numref}`fig-a`", "图 1")) == ["{numref}<fig-a>"]
    # a number shown twice in English must be shown twice in Chinese
    assert zh_message.missing_parity("{eval}`v.a` and {eval}`v.a`", "{eval}`v.a`") == ["{eval}`v.a`"]


def test_messages_cut_code_spans_as_the_page_does():
    """A code span closes only on a backtick run as long as the one that opens it (CommonMark,
    read by :data:`bookkit.roles.ROLE_OR_CODE_SPAN`): "`a`` b`" is one span, and in
    "``x` $m$ `" the two backticks open none (prose), "` $m$ `" is the span (no math)."""
    assert zh_message.render("见 `a`` b` 一节", {})[0] == zh_message.render("见 `a` 一节", {})[0]
    assert zh_message.prose("`a`` b` c").split() == ["c"]
    assert zh_message.parity_items("``x` $m$ ` 与 $n$") == {"math n": 1}
    assert C.english_words("读 ``weights` 的 $m$ `") == ["weights"]
    # a role in a code span is code, not a reference a translation must keep
    assert zh_message.parity_items("`` {numref}`fig-a` `` {ref}`sec`") == {"{ref}<sec>": 1}


def test_terms_check_wants_the_listed_chinese():
    assert C.missing_terms("The ridge point of the card", "这张卡的机器分水岭") == []
    assert C.missing_terms("The ridge point of the card", "这张卡的平衡点") == ["ridge point → 机器分水岭"]
    # a longer term claims its words first; a quoted English word is a mention
    assert C.missing_terms("the largest batch", "最大批大小") == []
    assert C.missing_terms('The source writes "decode".', "原文写作“decode”。") == []
    assert C.missing_terms("one decode step", "一个 decode 步") == ["decode step → 解码步"]


def test_english_check_allows_only_the_list():
    assert C.english_words("在 H100 上读 `weights` 需 $T$，见 [说明](https://x.y/z)。") == []
    assert C.english_words("这张卡是 memory-bound 的") == ["memory-bound"]
    assert C.english_words("原文写作“roofline”，kernel 与 Qwen3-8B 照写") == []
    assert C.english_words("the read time") == ["read", "the", "time"]


def test_source_check_finds_a_copied_sentence():
    copied = "换句话说，读权重比算矩阵慢约一百多倍，所以换更快的卡几乎没用，少读数据或分摊读取才有用。"
    assert C.shared_runs(copied), "a sentence of S23-J07 copied, with its punctuation changed"
    assert C.shared_runs("权重要读一遍，算力再高也得等它。") == []
    # marked as a quotation it is no longer prose of ours
    quoted = f"原文（S23-J07）说：“{copied}”"
    assert C.shared_runs(zh_message.prose(quoted, keep_quotes=False)) == []


def test_quotes_check_wants_an_attribution():
    quote = "“读权重比算矩阵慢约一百多倍，所以换更快的卡几乎没用，少读数据或分摊读取才有用”"
    assert C.unattributed_quotes(f"有人说：{quote}。") == [quote]
    assert C.unattributed_quotes(f"S23-J07 的结论是：{quote}。") == []


def test_titles_check_compares_with_the_target_page(monkeypatch):
    monkeypatch.setattr(C, "translated_title", lambda doc: "公式表")
    en = "see {doc}`Formula sheet <../appendix/formulas>`"
    assert C.wrong_titles("book/0_start/how_to_use", en, "见 {doc}`公式表 <../appendix/formulas>`") == []
    assert C.wrong_titles("book/0_start/how_to_use", en, "见 {doc}`公式清单 <../appendix/formulas>`")


@pytest.mark.parametrize("msgstr, found", [
    ("[一个解码步最短要多久？](02_two_lower_bounds.ipynb)一页推导这两个时间", True),
    ("这个问题会在[计算何时追上读取？](04_batch_turning_point.ipynb)一页再次出现", True),
    ("“[一个解码步最短要多久？](02_two_lower_bounds.ipynb)”一页推导这两个时间", False),
    ("（[一个解码步最短要多久？](02_two_lower_bounds.ipynb)）", False),     # in brackets alone
    ("见[下一页](02_two_lower_bounds.ipynb)", False),                     # not a title
    ("和[计时之前：估算的假设](01_the_question.ipynb)", True),               # a clause title
])
def test_link_title_in_a_sentence_stands_in_quotes(monkeypatch, msgstr, found):
    """A page title that reads as a question or a clause, run into the sentence, reads as
    a stray question (issue 25): the check asks for “…” around it."""
    monkeypatch.setattr(C, "translated_title", lambda doc: "计时之前：估算的假设"
                        if doc.endswith("01_the_question") else "一个解码步最短要多久？")
    assert bool(C.unquoted_link_titles("book/1_decode_step/03_three_fixes", msgstr)) is found


def test_an_allowed_abbreviation_beside_its_term_has_no_quotation_marks():
    allowed = frozenset({"TTFT", "all-reduce", "all", "reduce"})
    assert C.quoted_abbreviations("首 token 延迟（“TTFT”）", allowed)
    assert C.quoted_abbreviations("全归约（“all-reduce”）", allowed)
    assert C.quoted_abbreviations("首 token 延迟（TTFT）", allowed) == []
    assert C.quoted_abbreviations("原文写作（“等价于带宽翻倍”）", allowed) == []   # a quotation
    assert C.quoted_abbreviations("（“Zebra”）", allowed) == []                      # not allowed


def test_a_bold_heading_keeps_its_full_stop_outside_the_bold():
    assert C.bold_heading_stops("**本章各页。**")
    assert C.bold_heading_stops("**它的上限。** 当 $s$ 趋于无穷")
    assert C.bold_heading_stops("**本章各页**。") == []
    assert C.bold_heading_stops("**这一整句话都加了粗，而且相当长，超过了一个标题的长度。**") == []


# -- a message as the Chinese edition renders it: unit words and spacing ---------------------
VALUES = {"v.b": "32 requests", "v.c": "8 cards", "v.t": "20.90 ms", "v.n": "70 billion",
          "v.list": "RTX 4090, L40S, TPU v5e", "v.six": "6", "v.x": "8×",
          "v.q": "0.25", "v.qx": "0.25×",
          "v.tok": "2,048 tokens"}


def test_render_fills_in_the_chinese_values():
    text, spans = zh_message.render("把 {eval}`v.b` 放在一起，耗时 **{eval}`v.t`**。", VALUES)
    assert text == "把 32 个请求放在一起，耗时 20.90 ms。"
    assert [text[a:b] for a, b in spans] == ["32 个请求", "20.90 ms"]
    assert zh_message.render("共 {eval}`v.n` 个参数", VALUES)[0] == "共 700 亿个参数"
    assert zh_message.render("{eval}`v.missing`", VALUES)[0] == "?"


@pytest.mark.parametrize("msgstr, found", [
    ("把 {eval}`v.b` 这样的请求放在一起", "followed by its own unit word"),   # 32 个请求 这样的请求
    ("共 {eval}`v.b` 个请求", "followed by its own unit word"),               # 32 个请求 个请求
    ("{eval}`v.tok` 新 token 做各自的矩阵乘积", "followed by its own unit word"),  # 个 token 新 token
    ("新的 {eval}`v.tok` 做各自的矩阵乘积", None),
    ("用 {eval}`v.c` 卡", "followed by its own unit word"),
    ("{eval}`v.c` RTX 4090 解码", "puts 'RTX 4090' after its noun"),          # 8 张卡 RTX 4090
    ("把 {eval}`v.b` 放在一起", None),
    ("用 RTX 4090，{eval}`v.c` 一起解码", None),
    ("共 {eval}`v.six` 个请求", None),                                         # a bare count needs it
    ("8 张卡的卡间带宽 {eval}`v.t`", None),
    ("快了 {eval}`v.x`", "a ratio after a comparative"),                      # 快了 8 倍: 9 times?
    ("token 多了 {eval}`v.six` 倍", "a ratio after a comparative"),           # 倍 written after a count
    ("速度是原来的 {eval}`v.x`", None),
    ("变成原来的 {eval}`v.six` 倍", None),
    ("离机器分水岭差了 {eval}`v.x`", "a ratio after a comparative"),       # a difference as a ratio
    ("都差了 {eval}`v.six` 倍以上", "a ratio after a comparative"),
    ("一步缩短到 1 ms，加速 {eval}`v.x`", "a ratio after a comparative"),
    ("$S_{max}$ 外移了 {eval}`v.x`", "a ratio after a comparative"),
    ("耗时变成 **{eval}`v.x`**", "a ratio after a comparative"),
    ("区间从快端到慢端跨 {eval}`v.x`", "a ratio after a comparative"),
    ("这个倍数是 {eval}`v.x`", "a ratio after a comparative"),
    ("机器分水岭是它的 {eval}`v.x`", None),
    ("速度变为单卡的 {eval}`v.x`", None),
    ("原文写的是“差 {eval}`v.six` 倍”", None),                              # the source, quoted
    ("宽度只有 $W_Q$ 的 {eval}`v.q` 倍", "a ratio below 1"),               # 0.25 倍: a fraction
    ("宽度只有 $W_Q$ 的 {eval}`v.qx`", "a ratio below 1"),
    ("宽度与 $W_Q$ 之比只有 {eval}`v.q`", None),
])
def test_unit_word_check(msgstr, found):
    problems = zh_message.unit_word_problems(*zh_message.render(msgstr, VALUES))
    if found is None:
        assert problems == []
    else:
        assert len(problems) == 1 and found in problems[0], problems


@pytest.mark.parametrize("msgstr, found", [
    ("批大小为 {eval}`v.b` 时", None),                 # the build drops the space after 个请求
    ("读取要 {eval}`v.t` 时", None),                   # ms keeps its space
    ("在 {eval}`v.list` 上", None),                    # the list reads RTX 4090、L40S、TPU v5e
    ("批大小 为 {eval}`v.b`", "two Chinese characters"),
    ("**语言。** 笔记本是英文的", "full-width punctuation"),
    ("**语言**。笔记本是英文的", None),
    ("见练习 1.1, 练习 1.3", "ASCII comma"),
    ("见 H100, H200 两张卡", "ASCII comma"),
    ("`make book`，然后 `make test`", None),
    ("$M = 1, 2, 4$ 行", None),                         # math keeps its commas
    ("即 {numref}`ch1-1` 到 {numref}`ch1-4`", "two Chinese characters"),   # 即 练习 1.1 到 练习 1.4
    ("即{numref}`ch1-1` 到{numref}`ch1-4` 那一项", None),                  # 即练习 1.1 到练习 1.4 那一项
    ("（{numref}`fig` 中的虚线）", None),
    ("见 {numref}`图 %s <fig>`", "two Chinese characters"),               # a title of its own
])
def test_spacing_check(msgstr, found):
    problems = zh_message.spacing_problems(zh_message.render(msgstr, VALUES)[0])
    if found is None:
        assert problems == []
    else:
        assert problems and found in problems[0], problems


# -- one term per concept (issue 25) ----------------------------------------------------------
ONE_TERM = {   # concept (its English in the term list) -> the chosen Chinese, a variant to avoid
    "bits": ("比特", "8 位"), "profiler": ("性能分析工具", "性能剖析工具"),
    "per-output read time": ("每输出分摊读取时间", "每输出分摊时间"), "hit": ("命中", "碰到"),
    "LM head": ("LM head", "输出层"), "lower bound": ("下界", "下限"),
    "batching": ("组批", "加批"), "bandwidth utilisation": ("带宽利用率", "显存带宽利用率"),
    "printout": ("打印输出", "计算器输出"), "bars": ("柱形", "柱子"), "cell": ("单元格", "隐藏单元"),
    "memory-bandwidth utilisation": ("带宽利用率", "显存带宽利用率"),
    "whole request": ("整个请求", "完整的请求"), "shortcut": ("捷径", "近路"),
    "useful rows": ("有效行", "有用行"), "MLP block": ("MLP 块", "前馈网络块"),
    "long prompt": ("长提示词", "长提示"), "question of judgement": ("思考题", "判断题"),
    "FLOPs": ("FLOP", "FLOPs"),
    "accuracy": ("准确率", "精度"), "Little's law": ("利特尔定律", "利特尔法则"),
    "transfer engine": ("搬运单元", "搬运引擎"), "Tensor Cores": ("Tensor Core", "张量核心"),
    "kernel": ("kernel", "注意力内核"), "feed-forward block": ("MLP 块", "前馈块"),
    "touched": ("触及", "碰到"), "scores": ("分数", "得分"), "knob": ("旋钮", "可调参数"),
    "calculator printouts": ("计算器脚本的打印输出", "计算器输出"),
    "In-Datacenter Performance Analysis of a Tensor Processing Unit":
        ("《数据中心内张量处理单元的性能分析》", "《数据中心内张量处理器的性能分析》"),
    # the second native review (round 2)
    "attend to": ("关注", "要看"), "attends to": ("关注", "回看"),
    "active experts": ("被激活的专家", "激活的专家"), "active weights": ("激活参数中的矩阵权重", "激活权重"),
    "active matrix weights": ("激活参数中的矩阵权重", "激活矩阵权重"), "Ascend": ("昇腾", "Ascend"),
    "compute die": ("芯片", "裸片"), "share of the floor": ("占比", "几成"),
    "median share": ("占比中位数", "比例中位数"), "larger batch": ("批", "组批"),
    "serving engine": ("推理引擎", "推理服务引擎"),
}


@pytest.mark.parametrize("english", ONE_TERM)
def test_one_term_per_concept(english):
    """Each concept has one listed Chinese term, and the term check finds its variants."""
    chinese, variant = ONE_TERM[english]
    term = next((t for t in C.terms() if english in t.english), None)
    assert term is not None and term.chinese == chinese, (english, term)
    msgid = f"The {english} here."
    assert C.avoided_variants(msgid, f"这里的{chinese}。") == []
    assert C.avoided_variants(msgid, f"这里的{variant}。"), (english, variant)


def test_a_jupyter_kernel_keeps_neikernel():
    """内核 is Jupyter's kernel: the longer term claims "live kernel" before "kernel"."""
    assert C.avoided_variants("needs a live kernel", "要靠运行中的内核驱动") == []
    assert C.avoided_variants("an attention kernel", "注意力内核")


def test_avoid_column_spares_other_words():
    """位 is a bit only after a number; 单元 is a cell only where the English says cell."""
    assert C.avoided_variants("4-bit weights, two decimal places", "4 比特权重，两位小数") == []
    assert C.avoided_variants("a long prompt", "一段长提示词") == []
    # math and code keep their own words
    assert C.avoided_variants("the FLOPs", "FLOP 数与 $F\\;\\text{FLOPs}$ 的 `flops`") == []
    assert C.avoided_variants("per-output read time", "每输出分摊的时间"), "每输出分摊的时间"
    assert C.avoided_variants("the multiply-accumulate cells", "乘累加单元") == []
    assert C.avoided_variants("the compute units", "计算单元") == []


def test_round_two_variants_spare_the_right_words():
    """The avoid patterns of the round-2 terms catch the old variant only."""
    assert C.avoided_variants("each query attends to every cached token",
                              "每个查询都要关注每个缓存 token，可以看到") == []
    assert C.avoided_variants("each query attends to every cached token", "每个查询都要看每个缓存 token")
    assert C.avoided_variants("the share of the floor tends to the bandwidth fraction",
                              "占比趋于带宽比例 $\\eta_m$，算力比例也一样") == []
    assert C.avoided_variants("the share of the floor", "达到下界的比例")
    assert C.avoided_variants("The Ascend 910B is the one entry",
                              "昇腾 910B（清单中的 Ascend 910B）是唯一一个") == []
    assert C.avoided_variants("the active experts", "只读被激活的专家") == []
    assert C.avoided_variants("the active weights", "激活参数中的矩阵权重") == []
    assert C.avoided_variants("a larger batch, not batching", "更大的批") == []


def test_a_name_cell_keeps_the_catalog_key():
    """A table cell that is a name kept as it is ("Ascend 910B") is not asked for 昇腾; prose is."""
    assert C.name_kept("Ascend 910B", "Ascend 910B")
    assert not C.name_kept("Ascend 910B", "昇腾 910B")
    sentence = "The Ascend 910B is the one entry without a vendor whitepaper behind it."
    assert not C.name_kept(sentence, sentence)
    assert C.missing_terms(sentence, "Ascend 910B 是唯一一个没有白皮书的条目。") == ["Ascend → 昇腾"]


def test_abbreviations_need_no_quotation_marks():
    assert C.english_words("首 token 延迟（TTFT）与每输出 token 时间（TPOT）") == []
    assert C.english_words("全归约（all-reduce）与 LM head，算力利用率（MFU）") == []
    assert C.english_words("这个 head 很大") == ["head"]     # LM head passes only as the phrase
