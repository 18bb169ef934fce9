"""bookkit: the book's machinery, apart from the numeric library.

How a computed number reaches a page and is held there: the page's values
(:class:`~bookkit.pagevalues.PageValues`), the ``{eval}`` roles of a page and their
stored results (:mod:`bookkit.roles`), the check each page runs last
(:mod:`bookkit.pagecheck`), and the Chinese edition's value forms (:mod:`bookkit.zh`).
The self-test exercises, their registry, grading and answer checker are
:mod:`bookkit.exercises`.  Used by the pages' hidden cells, ``tools/`` and ``tests/``;
:mod:`infra_calc` never imports it.
"""
from .pagecheck import check_page_values
from .pagevalues import PageValues
from .roles import eval_expressions, plain_result, stored_expressions, stored_values
from .zh import ZH_LIST_SEP, ZH_TIMES, ZH_UNITS, ZH_WORDS, zh_glue_after, zh_glue_before, zh_text

__all__ = ["check_page_values", "PageValues", "eval_expressions", "plain_result",
           "stored_expressions", "stored_values", "ZH_LIST_SEP", "ZH_TIMES", "ZH_UNITS", "ZH_WORDS",
           "zh_glue_after", "zh_glue_before", "zh_text"]
