"""The pages without widgets of chapters 0 to 2, in a real JupyterLab: the checks of
every page (``tests/lab_pages.py``).  The pages are split over two files so that
``--dist loadfile`` runs them on two workers; the widget pages are checked with their
widgets (``test_lab_checkers.py``, ``test_lab_explorers.py``).
"""
from lab_pages import EARLY, NEEDS_CHROMIUM, PLAIN_NOTEBOOKS, PageChecks

pytestmark = [NEEDS_CHROMIUM]


class TestPages(PageChecks):
    PAGES = [n for n in PLAIN_NOTEBOOKS if n.split("/")[1].startswith(EARLY)]
