"""JupyterLab server settings for the book (``make lab``, tests/lab_server.py).

Loaded through ``JUPYTER_CONFIG_PATH=tools/lab``, next to (not instead of) the
reader's own Jupyter configuration.

Where the reader starts: JupyterLab opens on the book's first page
(``book/0_start/how_to_use.ipynb``), and a Markdown file (a chapter's
``index.md``, ``book/intro.md``, the glossary) opens as a rendered page, not as
its MyST source: ``tools/lab/settings/overrides.json`` makes "Markdown Preview"
(rendered by jupyterlab-myst, which registers the ``text/markdown`` renderer)
the default viewer of Markdown files.  *Open With > Editor* still edits them.

Saving a page keeps it as ``make execute`` stored it: the live widgets of a run
(the checkers, the explorers) are not written into the file.  Their views would
point at widget models that are gone once the kernel stops ("Error displaying
widget: model not found" on the next opening), and their state would grow the
file.  The cell keeps its ``text/plain`` ("... run this cell to ...").
"""
import pathlib
import warnings

from bookkit.widget_state import strip


def keep_live_widgets_out(model, **kwargs):
    """Pre-save hook: drop widget views and widget state from a notebook being saved."""
    if model.get("type") == "notebook" and isinstance(model.get("content"), dict):
        strip(model["content"])


c = get_config()  # noqa: F821  (provided by the Jupyter config loader)
HERE = pathlib.Path(__file__).resolve().parent
#: the first page a reader sees, relative to the server's root folder (the checkout)
FRONT_PAGE = "book/0_start/how_to_use.ipynb"
c.LabApp.default_url = f"/lab/tree/{FRONT_PAGE}"
# JupyterLab reads settings overrides (new defaults) from overrides.json in this folder
c.LabApp.app_settings_dir = str(HERE / "settings")
c.FileContentsManager.pre_save_hook = keep_live_widgets_out
# JupyterLab applies the server's configuration twice (once more when its extension
# config is merged), so the hook is "overridden" by itself: not worth a warning
warnings.filterwarnings("ignore", message=r"Overriding existing pre_save_hook "
                        r"\(keep_live_widgets_out\) with a new one \(keep_live_widgets_out\)")
