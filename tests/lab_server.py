"""A real JupyterLab server and a Chromium page driving it (tests/lab_pages.py,
benchmarks/lab_latency.py).

:func:`lab_server` starts ``jupyter lab`` on 127.0.0.1 at a free port with a
random token (``--allow-root`` only when running as root), isolated settings,
workspaces and notebook signatures, the book's server settings
(``tools/lab/jupyter_server_config.py``, as ``make lab`` loads them), and
``expose_app_in_browser`` so a test can call JupyterLab's own commands
(``notebook:run-all-cells``, ``docmanager:save``).  :func:`open_notebook` opens
one notebook in a Playwright page and waits until its kernel is idle.  Every
wait is on a condition, with generous timeouts for a loaded 2-core machine.
"""
from __future__ import annotations

import contextlib
import os
import pathlib
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

ROOT = pathlib.Path(__file__).resolve().parents[1]
#: the book's JupyterLab server settings (``make lab`` puts this folder on JUPYTER_CONFIG_PATH)
LAB_CONFIG = ROOT / "tools" / "lab"
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update",
                  "--disable-sync"]
START_TIMEOUT_S = 600
#: how often a wait re-evaluates its condition in the page (ms): a cheap check, so often
#: (every page run waits on several conditions; a coarse interval adds up over the pages)
POLL_MS = 50
CELL_TIMEOUT_MS = 240_000


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def lab_command(port: int, token: str, root: pathlib.Path, state: pathlib.Path) -> list[str]:
    cmd = [sys.executable, "-m", "jupyterlab", "--no-browser",
           "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={port}",
           "--ServerApp.port_retries=0", f"--IdentityProvider.token={token}",
           f"--ServerApp.root_dir={root}",
           f"--LabApp.user_settings_dir={state / 'settings'}",
           f"--LabApp.workspaces_dir={state / 'workspaces'}",
           # checkpoints go to the temporary folder, not .ipynb_checkpoints/ in book/
           f"--FileCheckpoints.checkpoint_dir={state / 'checkpoints'}",
           # trusting a run page must not write the user's signature database
           "--NotebookNotary.db_file=:memory:",
           "--LabApp.expose_app_in_browser=True",
           "--LabServerApp.open_browser=False",
           # no "build recommended" or news pop-ups over the notebook
           "--LabApp.news_url=", "--ServerApp.terminals_enabled=False"]
    if hasattr(os, "getuid") and os.getuid() == 0:
        cmd.append("--allow-root")
    return cmd


# JupyterLab settings for a test run: render every cell (no windowing, so text of
# cells out of view is in the DOM), no news pop-up over the notebook, no autosave.
LAB_SETTINGS = {
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"},
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {"fetchNews": "false"},
    # a test run must never write the notebooks back (Run All would autosave them)
    "@jupyterlab/docmanager-extension/plugin.jupyterlab-settings": {"autosave": False},
}


def _write_settings(folder: pathlib.Path) -> None:
    import json

    for rel, value in LAB_SETTINGS.items():
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(value), encoding="utf-8")


@contextlib.contextmanager
def lab_server(root: pathlib.Path = ROOT):
    """Yield ``(base_url, token)`` of a JupyterLab serving ``root``; stopped on exit."""
    port, token = _free_port(), secrets.token_hex(16)
    with tempfile.TemporaryDirectory(prefix="lab-e2e-") as tmp:
        state = pathlib.Path(tmp)
        env = dict(os.environ)
        # this checkout's infra_calc first, whatever the server's root folder is
        paths = [str(ROOT), str(root)] + env.get("PYTHONPATH", "").split(os.pathsep)
        env["PYTHONPATH"] = os.pathsep.join(dict.fromkeys(p for p in paths if p))
        env["JUPYTER_CONFIG_DIR"] = str(state / "config")   # no user config leaks in
        env["JUPYTER_CONFIG_PATH"] = str(LAB_CONFIG)          # the book's, as `make lab`
        env["JUPYTER_RUNTIME_DIR"] = str(state / "runtime")
        # kernels show figures as `make lab` does (the inline backend): no MPLBACKEND
        env.pop("MPLBACKEND", None)
        _write_settings(state / "settings")
        log = open(state / "lab.log", "w+")
        proc = subprocess.Popen(lab_command(port, token, root, state), cwd=root, env=env,
                                stdout=log, stderr=subprocess.STDOUT)
        base = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + START_TIMEOUT_S
            while True:
                if proc.poll() is not None:
                    log.seek(0)
                    raise RuntimeError(f"jupyter lab exited ({proc.returncode}):\n{log.read()[-3000:]}")
                try:
                    with urllib.request.urlopen(f"{base}/api/status?token={token}", timeout=5):
                        break
                except OSError:
                    if time.monotonic() > deadline:
                        raise RuntimeError("jupyter lab did not answer in time") from None
                    time.sleep(0.25)
            yield base, token
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            log.close()


@contextlib.contextmanager
def book_copy(prefix: str, book: pathlib.Path = ROOT / "book"):
    """Yield a temporary folder holding a copy of ``book`` as ``book/`` (what a JupyterLab
    test serves: Run All and Save then write to the copy, never to the checkout)."""
    with tempfile.TemporaryDirectory(prefix=prefix) as tmp:
        root = pathlib.Path(tmp)
        shutil.copytree(book, root / "book",
                        ignore=shutil.ignore_patterns(".ipynb_checkpoints", "_build"))
        yield root


@contextlib.contextmanager
def browser():
    from tools.playwright_once import playwright

    b = playwright().chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_FLAGS)
    try:
        yield b
    finally:
        b.close()


KERNEL_IDLE_JS = """() => {
  const app = window.jupyterapp; if (!app) return false;
  const w = app.shell.currentWidget;
  if (!w || !w.sessionContext || !w.content || !w.content.widgets) return false;
  const k = w.sessionContext.session && w.sessionContext.session.kernel;
  return !!k && k.status === 'idle' && w.context.isReady;
}"""

RUN_ALL_JS = """async () => {
  const app = window.jupyterapp;
  // clear first, so "every code cell has an execution count" means this run finished
  await app.commands.execute('notebook:clear-all-cell-outputs');
  await app.commands.execute('notebook:run-all-cells');
}"""

RUN_DONE_JS = """() => {
  const w = window.jupyterapp.shell.currentWidget;
  const k = w.sessionContext.session.kernel;
  if (!k || k.status !== 'idle') return false;
  const code = w.content.widgets.filter(c => c.model.type === 'code');
  // a cell that raised stops the run: the cells after it stay unrun, so the run is over
  if (code.some(c => c.model.outputs.toJSON().some(o => o.output_type === 'error'))) return true;
  // every code cell has an execution count (nothing queued, nothing running)
  return code.every(c => c.model.executionCount !== null && c.model.executionState !== 'running');
}"""


def open_notebook(context, base: str, token: str, relpath: str, *, dpr: float = 1):
    """Open ``relpath`` (relative to the server root) in a new page; wait for an idle kernel."""
    page = context.new_page()
    page.goto(f"{base}/lab/tree/{relpath}?token={token}&reset", wait_until="domcontentloaded",
              timeout=CELL_TIMEOUT_MS)
    page.wait_for_function(KERNEL_IDLE_JS, timeout=CELL_TIMEOUT_MS, polling=POLL_MS)
    return page


def run_all(page) -> None:
    page.evaluate(RUN_ALL_JS)
    page.wait_for_function(RUN_DONE_JS, timeout=CELL_TIMEOUT_MS * 2, polling=POLL_MS)


# JupyterLab writes the kernel's language_info into the notebook once the kernel's
# info has arrived: ask for that same promise, then read the flag on the next turn.
DIRTY_AFTER_KERNEL_INFO_JS = """async () => {
  const w = window.jupyterapp.shell.currentWidget;
  await w.sessionContext.session.kernel.info;
  await new Promise(r => setTimeout(r, 0));
  return w.context.model.dirty;
}"""

SAVE_JS = """async () => {
  const w = window.jupyterapp.shell.currentWidget;
  await w.context.save();
  return w.context.model.dirty;
}"""


def is_dirty_after_opening(page) -> bool:
    """Whether the page opened in ``page`` is marked modified once its kernel is up."""
    return page.evaluate(DIRTY_AFTER_KERNEL_INFO_JS)


def save(page) -> None:
    """Save the current notebook (what Ctrl+S does); returns once the file is written."""
    assert page.evaluate(SAVE_JS) is False, "still modified after saving"


# -- one browser page for many notebooks (tests/lab_pages.py) -----------------------------
SHUTDOWN_JS = "async () => { await window.jupyterapp.shell.currentWidget.sessionContext.shutdown(); }"

# The plain pages share one browser page (one JupyterLab front end, started once): each is
# opened there as a file-browser click would, checked, and closed before the next opens.
OPEN_IN_TAB_JS = """async (path) => {
  const app = window.jupyterapp;
  const w = await app.commands.execute('docmanager:open', {path});
  app.shell.activateById(w.id);
  return true;
}"""
OPENED_JS = """(path) => { const w = window.jupyterapp.shell.currentWidget;
  return !!w && !!w.context && w.context.path === path && (""" + KERNEL_IDLE_JS + """)(); }"""
CLOSE_JS = """() => {
  window.jupyterapp.shell.currentWidget.dispose();
  return document.querySelectorAll('.jp-Notebook').length === 0;
}"""
NO_NOTEBOOK_JS = "() => document.querySelectorAll('.jp-Notebook').length === 0"
# the page a click opened is current, and its kernel's session exists (none for a .md)
OPENED_WITH_SESSION_JS = """(path) => { const w = window.jupyterapp.shell.currentWidget;
  return !!w && !!w.context && w.context.path === path && (!w.sessionContext ||
      !!(w.sessionContext.session && w.sessionContext.session.kernel)); }"""
# every tab but the page ``path``'s closed, and that one current again
BACK_TO_JS = """(path) => { const app = window.jupyterapp, mine = (w) => w.context && w.context.path === path;
  for (const w of Array.from(app.shell.widgets('main'))) if (!mine(w)) w.dispose();
  app.shell.activateById(Array.from(app.shell.widgets('main')).find(mine).id); return true; }"""
