"""One Playwright driver per process, for everything that drives Chromium.

``sync_playwright()`` refuses to start while another one is running in the same process
("using Playwright Sync API inside the asyncio loop"), and a pytest-xdist worker runs the
PDF build, the browser tests and the JupyterLab tests one after another with their
fixtures still open.  So the PDF build (:mod:`tools.build_pdf`) and the tests' browsers
(``tests/lab_server.py``, ``tests/e2e_helpers.py``) start it here, once, and launch their
own Chromium from it; the driver stops when the process exits.
"""
from __future__ import annotations

import atexit

__all__ = ["playwright"]

_DRIVER = None


def playwright():
    """The process's running ``playwright.sync_api.Playwright`` (started on first use)."""
    global _DRIVER
    if _DRIVER is None:
        from playwright.sync_api import sync_playwright

        _DRIVER = sync_playwright().start()
        atexit.register(_DRIVER.stop)
    return _DRIVER
