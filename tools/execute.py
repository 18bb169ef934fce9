"""Execute notebooks in place and store their ``{eval}`` results (``make execute``).

For each notebook: run every code cell top to bottom in one kernel (nbclient,
``record_timing=False``), and at each markdown cell evaluate its ``{eval}``
expressions in the kernel as it stands at that point, which is what
jupyterlab-myst does on *Run All*. The results go into the cell's metadata as
``user_expressions``, where

* the web build reads them (``tools/stored_eval.py``: the book is built with
  execution off, from the outputs nbval verified), and
* JupyterLab shows them before the reader runs anything.

A page is stored exactly as JupyterLab would write it back, so that opening it
does not mark it modified and *Run All* + *Save* leaves the file as it was:

* ``metadata.language_info`` is the kernel's own (``kernel_info_reply``), which
  JupyterLab writes into the notebook when the kernel starts;
* ``user_expressions`` holds one entry per ``{eval}`` occurrence, in document
  order (code spans and code blocks excluded), as jupyterlab-myst stores them;
* the kernelspec is the one JupyterLab writes for the ``python3`` kernel;
* saved widget state and widget views are dropped (``bookkit/widget_state.py``;
  ``make lab`` drops them on every save too, ``tools/lab/jupyter_server_config.py``).

Usage: ``python -m tools.execute [-j N] NOTEBOOK ...``
"""
from __future__ import annotations

import argparse
import pathlib
from concurrent.futures import ProcessPoolExecutor

import nbformat
from nbclient import NotebookClient

from bookkit import eval_expressions
from bookkit.widget_state import main as strip_widget_state


def _evaluate(client: NotebookClient, exprs: list[str]) -> list[dict]:
    """Evaluate each distinct expression once; one stored entry per occurrence."""
    unique = list(dict.fromkeys(exprs))
    names = {f"e{i}": e for i, e in enumerate(unique)}
    msg_id = client.kc.execute("", silent=True, store_history=False, user_expressions=names)
    reply = client.wait_for_reply(msg_id)
    got = reply["content"].get("user_expressions", {})
    results = {}
    for key, expr in names.items():
        res = got.get(key, {"status": "error", "ename": "NoReply", "evalue": "", "traceback": []})
        if res.get("status") != "ok":
            raise RuntimeError(f"{{eval}}`{expr}` failed: {res.get('ename')}: {res.get('evalue')}")
        results[expr] = {"status": "ok", "data": res.get("data", {}),
                         "metadata": res.get("metadata", {})}
    return [{"expression": e, "result": results[e]} for e in exprs]


def _language_info(client: NotebookClient) -> dict:
    reply = client.wait_for_reply(client.kc.kernel_info())
    return reply["content"]["language_info"]


def merge_streams(outputs: list) -> list:
    """Consecutive stream outputs of one name as one output, as JupyterLab stores them.

    How a kernel's prints arrive in messages depends on timing (one flush or two); the
    output area JupyterLab saves joins a stream message to the stream just before it, so
    a page stored this way is written back unchanged after Run All and Save.
    """
    merged = []
    for out in outputs:
        if (out.get("output_type") == "stream" and merged
                and merged[-1].get("output_type") == "stream"
                and merged[-1].get("name") == out.get("name")):
            merged[-1]["text"] += out["text"]
        else:
            merged.append(out)
    return merged


def execute(path: str) -> str:
    p = pathlib.Path(path)
    nb = nbformat.read(p, as_version=4)
    client = NotebookClient(nb, timeout=600, record_timing=False,
                            kernel_name=nb.metadata.get("kernelspec", {}).get("name", "python3"),
                            resources={"metadata": {"path": str(p.parent)}})
    n_expr = 0
    with client.setup_kernel():
        nb.metadata["language_info"] = _language_info(client)
        for idx, cell in enumerate(nb.cells):
            if cell.cell_type == "code":
                if "check_page_values(" in cell.source:
                    nbformat.write(nb, p)     # the page check reads what is stored so far
                client.execute_cell(cell, idx)
                cell.outputs = merge_streams(cell.outputs)
            elif cell.cell_type == "markdown":
                exprs = eval_expressions(cell.source)
                if exprs:
                    cell.metadata["user_expressions"] = _evaluate(client, exprs)
                    n_expr += len(exprs)
                else:
                    cell.metadata.pop("user_expressions", None)
    # the kernelspec as JupyterLab writes it for this kernel
    nb.metadata["kernelspec"] = {"display_name": "Python 3 (ipykernel)", "language": "python",
                                 "name": "python3"}
    nbformat.write(nb, p)
    strip_widget_state([str(p)])
    return f"executed {p} ({n_expr} stored values)"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("notebooks", nargs="+")
    ap.add_argument("-j", "--jobs", type=int, default=2, help="notebooks run side by side")
    args = ap.parse_args(argv)
    if args.jobs <= 1:
        for nb in args.notebooks:
            print(execute(nb), flush=True)
        return 0
    with ProcessPoolExecutor(args.jobs) as pool:
        for line in pool.map(execute, args.notebooks):
            print(line, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
