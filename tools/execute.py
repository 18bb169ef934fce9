"""Execute notebooks in place and store their ``{eval}`` results (``make execute``).

For each notebook: run every code cell top to bottom in one kernel (nbclient,
``record_timing=False``), and at each markdown cell evaluate its ``{eval}``
expressions in the kernel as it stands at that point, which is what
jupyterlab-myst does on *Run All*. The results go into the cell's metadata as
``user_expressions`` (jupyterlab-myst's own format), where

* the web build reads them (``tools/stored_eval.py``: the book is built with
  execution off, from the outputs nbval verified), and
* JupyterLab shows them before the reader runs anything.

Saved widget state is dropped afterwards (``tools/strip_widget_state.py``).

Usage: ``python tools/execute.py [-j N] NOTEBOOK ...``
"""
from __future__ import annotations

import argparse
import os
import pathlib
import sys
from concurrent.futures import ProcessPoolExecutor

import nbformat
from nbclient import NotebookClient

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from strip_widget_state import main as strip_widget_state  # noqa: E402

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
from infra_calc.display import eval_expressions  # noqa: E402


def _evaluate(client: NotebookClient, exprs: list[str]) -> list[dict]:
    names = {f"e{i}": e for i, e in enumerate(exprs)}
    msg_id = client.kc.execute("", silent=True, store_history=False, user_expressions=names)
    reply = client.wait_for_reply(msg_id)
    got = reply["content"].get("user_expressions", {})
    out = []
    for key, expr in names.items():
        res = got.get(key, {"status": "error", "ename": "NoReply", "evalue": "", "traceback": []})
        if res.get("status") != "ok":
            raise RuntimeError(f"{{eval}}`{expr}` failed: {res.get('ename')}: {res.get('evalue')}")
        out.append({"expression": expr,
                    "result": {"status": "ok", "data": res.get("data", {}),
                               "metadata": res.get("metadata", {})}})
    return out


def execute(path: str) -> str:
    p = pathlib.Path(path)
    nb = nbformat.read(p, as_version=4)
    client = NotebookClient(nb, timeout=600, record_timing=False,
                            kernel_name=nb.metadata.get("kernelspec", {}).get("name", "python3"),
                            resources={"metadata": {"path": str(p.parent)}})
    n_expr = 0
    with client.setup_kernel():
        for idx, cell in enumerate(nb.cells):
            if cell.cell_type == "code":
                client.execute_cell(cell, idx)
            elif cell.cell_type == "markdown":
                exprs = eval_expressions(cell.source)
                if exprs:
                    cell.metadata["user_expressions"] = _evaluate(client, exprs)
                    n_expr += len(exprs)
                else:
                    cell.metadata.pop("user_expressions", None)
    # store the metadata as JupyterLab writes it, so that opening a page in
    # `make lab` leaves the file unchanged
    nb.metadata["kernelspec"] = {"display_name": "Python 3 (ipykernel)", "language": "python",
                                 "name": "python3"}
    nbformat.write(nb, p)
    strip_widget_state([str(p)])
    return f"executed {p} ({n_expr} stored values)"


def main(argv=None) -> int:
    # the kernels inherit this: a page's check_page_values() cell then only
    # evaluates its expressions, since the results are being stored right now
    os.environ["INFRA_CALC_STORING"] = "1"
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
