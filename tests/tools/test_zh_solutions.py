"""The Chinese edition titles a solution 「练习 1 的解答」, not 「解答 练习 1」 (tools/zh_solutions.py)."""
from __future__ import annotations

import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
PAGE = """\
Page
====

.. exercise::
   :label: ex-one

   How many?

.. solution:: ex-one

   Eight.

.. exercise::
   :label: ex-two
   :nonumber:

   Why?

.. solution:: ex-two

   Because.

.. exercise:: A question
   :label: ex-three

   Which?

.. solution:: ex-three

   This one.
"""


def _build(tmp_path: pathlib.Path, language: str, extensions: list[str]) -> str:
    src = tmp_path / "src"
    src.mkdir()
    (src / "conf.py").write_text(
        f"import sys\nsys.path.insert(0, {str(ROOT / 'tools')!r})\n"
        f"extensions = {extensions!r}\nlanguage = {language!r}\nnumfig = True\n",
        encoding="utf-8")
    (src / "index.rst").write_text(PAGE, encoding="utf-8")
    out = tmp_path / "out"
    # a process of its own: Sphinx keeps the translations of the first language it loads
    subprocess.run([sys.executable, "-m", "sphinx", "-q", "-b", "html", str(src), str(out)],
                   check=True, cwd=tmp_path)
    html = (out / "index.html").read_text(encoding="utf-8")
    titles = re.findall(r'<p class="admonition-title">(.*?)</p>', html, re.S)
    return " | ".join(re.sub(r"<[^>]+>", "", t).strip() for t in titles)


def test_chinese_solution_title_reads_exercise_first(tmp_path):
    titles = _build(tmp_path, "zh_CN", ["sphinx_exercise", "zh_solutions"])
    assert "练习 1 的解答" in titles, titles
    assert "练习的解答" in titles, titles          # the unnumbered exercise
    assert "练习 2（A question）的解答" in titles, titles
    assert "解答 练习" not in titles, titles


def test_without_the_extension_the_order_is_english(tmp_path):
    """What the extension fixes: sphinx-exercise alone puts the word first."""
    titles = _build(tmp_path, "zh_CN", ["sphinx_exercise"])
    assert "解答 练习 1" in titles, titles


def test_english_edition_unchanged(tmp_path):
    titles = _build(tmp_path, "en", ["sphinx_exercise", "zh_solutions"])
    assert "Solution to Exercise 1" in titles, titles


def test_only_the_chinese_build_loads_it(tmp_path):
    import yaml

    from tools.build_book import write_config

    zh = yaml.safe_load(write_config(tmp_path / "zh.yml", offline=False, lang="zh").read_text())
    en = yaml.safe_load(write_config(tmp_path / "en.yml", offline=False).read_text())
    assert "zh_solutions" in zh["sphinx"]["local_extensions"]
    assert "zh_solutions" not in en["sphinx"]["local_extensions"]
