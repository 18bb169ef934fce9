"""Rewrite links between pages to the one syntax both readers follow.

A MyST ``{doc}`` role (``{doc}`Formula sheet <../appendix/formulas>```) builds in
Sphinx, but jupyterlab-myst renders it as a link to ``/files/book/.../formulas``
with no suffix, which JupyterLab answers with a 404.  A plain Markdown link to the
file, with its suffix, works in both:

* Sphinx (MyST-Parser) resolves ``[Formula sheet](../appendix/formulas.ipynb)``
  to the page (``formulas.html``) and warns under ``-W`` when the file is no
  page of the book;
* JupyterLab (jupyterlab-myst) opens the notebook in a new tab when the link is
  clicked.

Every ``{doc}`` role in the markdown cells of the notebooks and in the ``.md``
pages given is rewritten to ``[title](relative/path.ipynb)`` (or ``.md``); a role
without a title gets the target page's first heading.  Nothing else changes in
the files (the JSON is written back byte for byte as ``nbformat`` writes it).

Usage: ``python tools/convert_links.py [--check] [PATH ...]`` (paths: notebooks,
``.md`` files or folders; ``book/`` by default).  ``--check`` changes nothing and
exits 1 when a link of the old kind is left.
"""
from __future__ import annotations

import argparse
import json
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
DOC_ROLE = re.compile(r"\{doc\}`([^`]*)`")
TITLED = re.compile(r"^(.*?)\s*<([^<>]+)>\s*$", re.S)
SUFFIXES = (".ipynb", ".md")


class LinkError(ValueError):
    """A ``{doc}`` target that is no file of the book."""


def _target_file(page: pathlib.Path, target: str, srcdir: pathlib.Path) -> pathlib.Path:
    base = srcdir if target.startswith("/") else page.parent
    stem = (base / target.lstrip("/")).resolve()
    candidates = [stem] if stem.suffix in SUFFIXES else [stem.with_name(stem.name + s)
                                                         for s in SUFFIXES]
    for c in candidates:
        if c.is_file():
            return c
    raise LinkError(f"{page}: {{doc}} target {target!r} is no page (looked for "
                    f"{', '.join(str(c) for c in candidates)})")


def page_title(path: pathlib.Path) -> str:
    """The first ``# heading`` of a notebook's markdown cells or of a ``.md`` page."""
    if path.suffix == ".ipynb":
        nb = json.loads(path.read_text(encoding="utf-8"))
        texts = ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown"]
    else:
        texts = [path.read_text(encoding="utf-8")]
    for text in texts:
        m = re.search(r"^#\s+(.+?)\s*#*\s*$", text, re.M)
        if m:
            return m.group(1)
    raise LinkError(f"{path}: no '# title' to name a link with")


def _escape(title: str) -> str:
    return title.replace("\\", "\\\\").replace("[", "\\[").replace("]", "\\]")


def _relative(from_dir: pathlib.Path, to: pathlib.Path) -> str:
    import os

    return pathlib.Path(os.path.relpath(to, from_dir)).as_posix()


def convert_text(text: str, page: pathlib.Path, srcdir: pathlib.Path = ROOT) -> tuple[str, int]:
    """``text`` with every ``{doc}`` role as a Markdown link; and how many were rewritten."""
    count = 0

    def repl(m):
        nonlocal count
        body = m.group(1).strip()
        titled = TITLED.match(body)
        title, target = (titled.group(1).strip(), titled.group(2).strip()) if titled \
            else (None, body)
        anchor = ""
        if "#" in target:
            target, anchor = target.split("#", 1)
            anchor = "#" + anchor
        path = _target_file(page, target, srcdir)
        if not title:
            title = page_title(path)
        count += 1
        href = _relative(page.parent.resolve(), path) + anchor
        if " " in href:
            href = f"<{href}>"
        return f"[{_escape(title)}]({href})"

    return DOC_ROLE.sub(repl, text), count


def _dump(nb: dict) -> str:
    return json.dumps(nb, sort_keys=True, indent=1, ensure_ascii=False) + "\n"


def convert_file(path: pathlib.Path, srcdir: pathlib.Path = ROOT, write: bool = True) -> int:
    """Rewrite the ``{doc}`` roles of one notebook or ``.md`` page; the number rewritten."""
    raw = path.read_text(encoding="utf-8")
    if path.suffix == ".md":
        new, n = convert_text(raw, path, srcdir)
        if n and write:
            path.write_text(new, encoding="utf-8")
        return n
    nb = json.loads(raw)
    total = 0
    for cell in nb["cells"]:
        if cell["cell_type"] != "markdown":
            continue
        src = cell["source"]
        text = "".join(src) if isinstance(src, list) else src
        new, n = convert_text(text, path, srcdir)
        if n:
            cell["source"] = new.splitlines(keepends=True) if isinstance(src, list) else new
            total += n
    if total and write:
        # nbformat writes sorted keys, one-space indent, UTF-8 as is, a final newline
        path.write_text(_dump(nb), encoding="utf-8")
    return total


def pages(paths) -> list[pathlib.Path]:
    out = []
    for p in map(pathlib.Path, paths):
        if p.is_dir():
            out += sorted(q for q in p.rglob("*") if q.suffix in SUFFIXES and q.is_file()
                          and ".ipynb_checkpoints" not in q.parts and "_build" not in q.parts)
        else:
            out.append(p)
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("paths", nargs="*", default=[str(ROOT / "book")])
    ap.add_argument("--check", action="store_true", help="change nothing; exit 1 if any is left")
    ap.add_argument("--srcdir", default=str(ROOT), help="the book's root (absolute targets)")
    args = ap.parse_args(argv)
    total, files = 0, 0
    try:
        for p in pages(args.paths):
            n = convert_file(p, pathlib.Path(args.srcdir), write=not args.check)
            if n:
                total, files = total + n, files + 1
                print(f"{p}: {n} link(s) {'to rewrite' if args.check else 'rewritten'}")
    except LinkError as exc:
        print(f"convert_links: {exc}", file=sys.stderr)
        return 2
    print(f"{total} {{doc}} link(s) in {files} file(s) "
          f"{'left to rewrite' if args.check else 'rewritten'}")
    return 1 if args.check and total else 0


if __name__ == "__main__":
    raise SystemExit(main())
