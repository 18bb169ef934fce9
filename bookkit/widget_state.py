"""Drop saved widget state from notebooks (``metadata.widgets``) and widget views.

Widget cells are removed from the web pages, so the saved state is dead weight
that would make the HTML load widget JavaScript for nothing.  (nbclient's own
``store_widget_state=False`` crashes on Output widgets, hence this step.)

Without its state a stored widget *view* points at a model that no longer
exists: JupyterLab shows "Error displaying widget: model not found" for it in a
trusted notebook.  So the view is dropped too, and the cell keeps only its
``text/plain``, which the book's widgets write as "... run this cell to show ...".

:func:`strip` does it to a notebook in memory; ``make lab`` calls it on every
save (``tools/lab/jupyter_server_config.py``), so a page saved after *Run All*
keeps no live widget either.
"""
import json
import pathlib
import sys

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def strip(nb: dict) -> int:
    """Remove widget views from the outputs and ``metadata.widgets``; what was removed."""
    views = 0
    for cell in nb.get("cells", []):
        for out in cell.get("outputs", []) or []:
            if out.get("data", {}).pop(WIDGET_VIEW, None) is not None:
                views += 1
    state = nb.get("metadata", {}).pop("widgets", None) is not None
    return views + state


def main(paths) -> int:
    for name in paths:
        path = pathlib.Path(name)
        nb = json.loads(path.read_text(encoding="utf-8"))
        if strip(nb):
            # as nbformat writes it: sorted keys, one-space indent, a final newline
            path.write_text(json.dumps(nb, sort_keys=True, indent=1, ensure_ascii=False) + "\n",
                            encoding="utf-8")
            print(f"stripped widget state: {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
