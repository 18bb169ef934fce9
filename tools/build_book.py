"""Build the HTML book, both editions: ``jupyter-book build . --all -W --keep-going``.

One site, two editions built from the same notebooks:

1. the message templates (``--builder gettext``, one ``.pot`` per page) into
   ``_build/i18n/_build/gettext``, with a fresh ``.doctrees`` of their own: the
   translation tests compare them with the catalogs in ``locale/zh_CN``
   (``make translations`` updates those from these templates);
2. the English edition into ``_build/html``;
3. the Chinese edition (``language: zh_CN``, the settings of
   ``locale/zh_CN/book.yml`` merged over ``_config.yml``, the translations of
   ``locale/zh_CN/LC_MESSAGES``) into ``_build/zh/_build/html``, then moved to
   ``_build/html/zh``.  Every page links to the same page of the other edition
   (``tools/bilingual.py``).

``--edition en`` or ``--edition zh`` builds one edition only (and skips the
templates).

``--offline`` also vendors MathJax 3 from the npm registry into ``vendor/mathjax``
(not ``_static``; ``/vendor/`` is git-ignored) and points the build at it, so the
site renders with no network:

* ``npm pack mathjax@<MATHJAX_VERSION>`` (checked against the pinned integrity)
  is unpacked once; its ``es5/`` folder (``tex-mml-chtml.js``, the CHTML woff
  fonts, the lazily loaded TeX extensions) becomes ``vendor/mathjax``.
* ``_build/offline_config.yml`` = ``_config.yml`` plus, under ``sphinx.config``:
  ``html_extra_path: [vendor]`` (the build copies ``vendor/mathjax`` to
  ``<html>/mathjax``), ``mathjax_path: ../mathjax/tex-mml-chtml.js`` (Sphinx reads
  a relative mathjax_path against ``_static/``) and ``nb_ipywidgets_js: {}`` (no
  CDN widget renderer: widget cells are removed from the web pages anyway).
* ``jupyter-book build . --config _build/offline_config.yml ...``; on success it
  writes ``_build/html/.offline-build``, the marker tests/e2e/test_browser.py looks
  for (any build removes it first).

Needs npm only while ``vendor/mathjax`` is absent; without npm it stops with one
line saying to install Node.js/npm.

The Chinese edition of the offline site uses the English edition's copy of
MathJax (``mathjax_path: ../../mathjax/tex-mml-chtml.js``).

``--builder singlehtml`` is used by ``tools/build_pdf.py``.  ``--path-output``
builds into another folder (``<folder>/_build/<builder>``) as jupyter-book does.
``make book`` without OFFLINE keeps the CDN MathJax.
"""
from __future__ import annotations

import argparse
import base64
import hashlib
import json
import os
import pathlib
import resource
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time

# BOOK_SOURCE_DIR: build another copy of the book (used when testing the tools).
ROOT = pathlib.Path(os.environ.get("BOOK_SOURCE_DIR") or pathlib.Path(__file__).resolve().parents[1])
VENDOR = ROOT / "vendor"
MATHJAX_DIR = VENDOR / "mathjax"
MATHJAX_VERSION = "3.2.2"
# `npm view mathjax@3.2.2 dist.integrity`
MATHJAX_INTEGRITY = (
    "sha512-Bt+SSVU8eBG27zChVewOicYs7Xsdt40qm4+UpHyX7k0/O9NliPc+x77k1/FEsPsjKPZGJvtRZM1vO+geW0OhGw=="
)
MATHJAX_COMPONENT = "tex-mml-chtml.js"
# Relative mathjax_path values are read against `_static/` by Sphinx; the
# vendored tree is copied to `<html>/mathjax` through html_extra_path.
MATHJAX_PATH = f"../mathjax/{MATHJAX_COMPONENT}"
OFFLINE_CONFIG = ROOT / "_build" / "offline_config.yml"
# -- the Chinese edition --------------------------------------------------------------
ZH_SETTINGS = ROOT / "locale" / "zh_CN" / "book.yml"   # merged over _config.yml
ZH_CONFIG = ROOT / "_build" / "zh_config.yml"
ZH_SITE = "zh"                                       # _build/html/zh
ZH_WORK = ROOT / "_build" / "zh"                     # --path-output of the Chinese build
I18N_WORK = ROOT / "_build" / "i18n"                 # --path-output of the templates
POT_DIR = I18N_WORK / "_build" / "gettext"


def _npm() -> str:
    npm = shutil.which("npm")
    if npm is None:
        raise SystemExit(
            "offline build: npm not found - install Node.js and npm "
            "(e.g. `apt-get install -y nodejs npm`) and run `make book OFFLINE=1` again"
        )
    return npm


def _sri(path: pathlib.Path) -> str:
    return "sha512-" + base64.b64encode(hashlib.sha512(path.read_bytes()).digest()).decode()


def vendor_mathjax(force: bool = False) -> pathlib.Path:
    """Make sure ``vendor/mathjax`` holds MathJax MATHJAX_VERSION; return the folder."""
    stamp = MATHJAX_DIR / ".version"
    if (
        not force
        and (MATHJAX_DIR / MATHJAX_COMPONENT).is_file()
        and stamp.is_file()
        and stamp.read_text().strip() == MATHJAX_VERSION
    ):
        return MATHJAX_DIR
    npm = _npm()
    with tempfile.TemporaryDirectory(prefix="mathjax-") as tmp:
        tmp = pathlib.Path(tmp)
        print(f"offline build: npm pack mathjax@{MATHJAX_VERSION}", flush=True)
        out = subprocess.run(
            [npm, "pack", f"mathjax@{MATHJAX_VERSION}", "--json", "--silent",
             "--pack-destination", str(tmp)],
            cwd=tmp, check=True, capture_output=True, text=True,
        )
        tarballs = sorted(tmp.glob("mathjax-*.tgz"))
        if not tarballs:
            raise SystemExit(f"offline build: npm pack produced no tarball:\n{out.stdout}{out.stderr}")
        tgz = tarballs[0]
        got = _sri(tgz)
        if got != MATHJAX_INTEGRITY:
            raise SystemExit(
                f"offline build: mathjax@{MATHJAX_VERSION} integrity mismatch: {got}"
            )
        with tarfile.open(tgz) as tf:
            members = [m for m in tf.getmembers() if m.name.startswith("package/es5/")]
            tf.extractall(tmp, members=members, filter="data")
        if MATHJAX_DIR.exists():
            shutil.rmtree(MATHJAX_DIR)
        MATHJAX_DIR.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(str(tmp / "package" / "es5"), str(MATHJAX_DIR))
    stamp.write_text(MATHJAX_VERSION + "\n")
    print(f"offline build: vendored MathJax {MATHJAX_VERSION} into {MATHJAX_DIR.relative_to(ROOT)}",
          flush=True)
    return MATHJAX_DIR


def _merge(base: dict, over: dict) -> dict:
    """``base`` with ``over`` merged in, nested mappings merged key by key."""
    out = dict(base)
    for key, value in over.items():
        out[key] = _merge(out[key], value) if isinstance(value, dict) and isinstance(
            out.get(key), dict) else value
    return out


def write_config(path: pathlib.Path, *, offline: bool, lang: str = "en",
                 extra_extensions: tuple[str, ...] = (), shared_mathjax: bool = False) -> pathlib.Path:
    """Write ``_config.yml`` (+ the Chinese settings for ``lang="zh"``, + the offline
    MathJax settings) to ``path``.  ``shared_mathjax``: the site sits in a folder of
    the English site and uses its ``mathjax/`` instead of a copy of its own."""
    import yaml  # PyYAML comes with jupyter-book

    cfg = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8")) or {}
    if lang == "zh":
        cfg = _merge(cfg, yaml.safe_load(ZH_SETTINGS.read_text(encoding="utf-8")) or {})
    exts = cfg.setdefault("sphinx", {}).setdefault("extra_extensions", []) or []
    cfg["sphinx"]["extra_extensions"] = exts + [e for e in extra_extensions if e not in exts]
    # local extension folders are read relative to the config file, which now lives in _build/
    local = cfg["sphinx"].get("local_extensions") or {}
    cfg["sphinx"]["local_extensions"] = {name: str((ROOT / folder).resolve())
                                         for name, folder in local.items()}
    sphinx_cfg = cfg.setdefault("sphinx", {}).setdefault("config", {})
    if offline:
        if shared_mathjax:
            sphinx_cfg["mathjax_path"] = "../" + MATHJAX_PATH
        else:
            extra = list(sphinx_cfg.get("html_extra_path", []))
            if "vendor" not in extra:
                extra.append("vendor")
            sphinx_cfg["html_extra_path"] = extra
            sphinx_cfg["mathjax_path"] = MATHJAX_PATH
        sphinx_cfg["nb_ipywidgets_js"] = {}
    path.parent.mkdir(parents=True, exist_ok=True)
    header = "# Generated by tools/build_book.py from _config.yml; do not edit.\n"
    path.write_text(header + yaml.safe_dump(cfg, sort_keys=False, allow_unicode=True),
                    encoding="utf-8")
    return path


def write_offline_config(path: pathlib.Path = OFFLINE_CONFIG,
                         extra_extensions: tuple[str, ...] = (), lang: str = "en") -> pathlib.Path:
    """Write ``_config.yml`` + the offline MathJax settings to ``path``."""
    return write_config(path, offline=True, lang=lang, extra_extensions=extra_extensions)


def build_command(*, offline: bool, builder: str = "html", path_output: str | None = None,
                  all_: bool = True, config: pathlib.Path | None = None,
                  strict: bool = True, lang: str = "en") -> list[str]:
    jb = pathlib.Path(sys.executable).with_name("jupyter-book")
    if builder == "gettext":
        cmd = [str(jb), "build", str(ROOT), "--builder", "custom", "--custom-builder", "gettext"]
    else:
        cmd = [str(jb), "build", str(ROOT), "--builder", builder]
    if strict:
        cmd += ["-W", "--keep-going"]
    if all_:
        cmd.append("--all")
    if path_output:
        cmd += ["--path-output", str(path_output)]
    if config is not None:
        cmd += ["--config", str(config)]
    elif lang == "zh":
        cmd += ["--config", str(write_config(ZH_CONFIG, offline=offline, lang="zh",
                                             shared_mathjax=offline and builder == "html"))]
    elif offline:
        cmd += ["--config", str(write_offline_config())]
    return cmd


def build_templates() -> int:
    """The gettext templates (one ``.pot`` per page) into POT_DIR, from a fresh
    ``.doctrees`` (one left by the html builder would be reused and miss messages)."""
    shutil.rmtree(I18N_WORK, ignore_errors=True)
    cmd = build_command(offline=False, builder="gettext", path_output=str(I18N_WORK))
    return subprocess.call(cmd, cwd=ROOT)


def build_zh(out: pathlib.Path, *, offline: bool, all_: bool = True,
             work: pathlib.Path = ZH_WORK) -> int:
    """The Chinese edition, built in ``work`` and moved to ``out/zh``."""
    site = out / ZH_SITE
    shutil.rmtree(site, ignore_errors=True)
    cmd = build_command(offline=offline, path_output=str(work), all_=all_, lang="zh")
    rc = subprocess.call(cmd, cwd=ROOT)
    built = work / "_build" / "html"
    if built.is_dir():
        out.mkdir(parents=True, exist_ok=True)
        shutil.move(str(built), str(site))
    return rc


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--offline", action="store_true",
                   help="vendor MathJax from npm and build a site that needs no network")
    p.add_argument("--builder", default="html", help="jupyter-book builder (html, singlehtml)")
    p.add_argument("--path-output", default=None,
                   help="build into PATH/_build/<builder> instead of ./_build/<builder>")
    p.add_argument("--no-all", action="store_true",
                   help="incremental build (omit --all): only changed pages are rewritten")
    p.add_argument("--edition", choices=("all", "en", "zh"), default="all",
                   help="build both editions (default, with the message templates) or one")
    args = p.parse_args(argv)
    path_output = pathlib.Path(args.path_output).resolve() if args.path_output else None
    out = (path_output or ROOT) / "_build" / args.builder
    # The browser tests look for this marker: an offline site, built successfully.
    marker = out / ".offline-build"
    marker.unlink(missing_ok=True)
    if args.offline:
        vendor_mathjax()
    editions = ("en", "zh") if args.edition == "all" else (args.edition,)
    if args.builder != "html" and args.edition == "all":
        editions = ("en",)
    times: dict[str, tuple[float, float]] = {}
    rc = 0

    def timed(name, step) -> int:
        """Run a step; keep its wall time and its CPU time (the child processes')."""
        t0, c0 = time.perf_counter(), resource.getrusage(resource.RUSAGE_CHILDREN)
        status = step()
        c1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        times[name] = (time.perf_counter() - t0,
                       c1.ru_utime + c1.ru_stime - c0.ru_utime - c0.ru_stime)
        return status

    if args.edition == "all" and args.builder == "html" and path_output is None:
        rc = timed("templates", build_templates) or rc
    if "en" in editions:
        cmd = build_command(offline=args.offline, builder=args.builder,
                            path_output=path_output, all_=not args.no_all)
        rc = timed("English", lambda: subprocess.call(cmd, cwd=ROOT)) or rc
    if "zh" in editions:
        work = (path_output / "_build" / "zh") if path_output else ZH_WORK
        rc = timed("Chinese", lambda: build_zh(out, offline=args.offline, all_=not args.no_all,
                                               work=work)) or rc
    print("book: " + ", ".join(f"{k} {w:.0f} s (CPU {c:.0f} s)" for k, (w, c) in times.items())
          + ("" if rc == 0 else f" (failed, exit {rc})"), flush=True)
    if rc == 0 and args.offline:
        if not (out / "mathjax" / MATHJAX_COMPONENT).is_file():
            print(f"offline build: {out}/mathjax/{MATHJAX_COMPONENT} missing after the build",
                  file=sys.stderr)
            return 1
        marker.write_text(json.dumps({"mathjax": MATHJAX_VERSION,
                                      "editions": list(editions)}) + "\n")
    return rc


if __name__ == "__main__":
    raise SystemExit(main())
