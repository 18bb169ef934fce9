"""Sphinx extension: the two editions of the book (English, Chinese) as one site.

``tools/build_book.py`` builds the English edition into ``_build/html`` and the
Chinese one (``language: zh_CN``, translations from ``locale/zh_CN``) into
``_build/html/zh``.  This extension, loaded by both builds:

* puts at the top of every page a link to the same page in the other edition
  (``div.lang-switch``; relative, so it works from a file, a server or the offline
  build), and a ``<link rel="alternate" hreflang=...>`` in the head of every page;
* reads the edition's own version of an extension's catalog before the extension's
  (``LC_MESSAGES/booktheme.po``: the theme's zh_CN says 列印成 PDF, in traditional
  Chinese); the ``sphinx`` domain (``LC_MESSAGES/sphinx.po``) Sphinx reads first itself;
* translates the captions of the toctrees from ``_toc.yml`` (see TranslateTocCaptions);
* lets an edition set theme options of its own (``bilingual_theme_options``: the
  search box's placeholder, which the theme takes from a setting, not a catalog);
* for the Chinese edition, gives Sphinx's Chinese search (which splits words with
  jieba) the book's terms as a user dictionary, read from the Chinese column of
  ``locale/zh_CN/terms.tsv``: so a search for 算术强度 or 机器分水岭 finds the
  pages that use the term, rather than only its pieces.

Config values: ``bilingual_editions`` (language -> folder of its site, relative to
the English site), ``bilingual_labels`` (language -> the link's text) and
``bilingual_terms`` (the term list, relative to the source folder).
"""
from __future__ import annotations

import gettext
import html
import pathlib
import re

from sphinx import addnodes
from sphinx.transforms import SphinxTransform
from sphinx.util import logging

from bookkit.zh import HAN

LOGGER = logging.getLogger(__name__)
EDITIONS = {"en": "", "zh_CN": "zh/"}
LABELS = {"en": "English", "zh_CN": "中文"}
HREFLANG = {"en": "en", "zh_CN": "zh-CN"}
TERMS = "locale/zh_CN/terms.tsv"
_HAN_WORD = re.compile(rf"^[{HAN}]{{2,}}$")


def other_editions(language: str, editions: dict[str, str]) -> dict[str, str]:
    """``{lang: prefix from this site's root to that site's root}`` for the other editions.

    >>> other_editions("en", EDITIONS)
    {'zh_CN': 'zh/'}
    >>> other_editions("zh_CN", EDITIONS)
    {'en': '../'}
    """
    here = editions.get(language, "")
    up = "../" * here.count("/")
    return {lang: up + folder for lang, folder in editions.items() if lang != language}


def switch_links(pagename: str, language: str, editions: dict[str, str] = EDITIONS) -> dict[str, str]:
    """Relative URL of ``pagename`` in every other edition, from ``pagename`` itself.

    >>> switch_links("book/1_decode_step/index", "en")
    {'zh_CN': '../../zh/book/1_decode_step/index.html'}
    >>> switch_links("book/1_decode_step/index", "zh_CN")
    {'en': '../../../book/1_decode_step/index.html'}
    """
    to_root = "../" * pagename.count("/")
    return {lang: f"{to_root}{prefix}{pagename}.html"
            for lang, prefix in other_editions(language, editions).items()}


def _language(app) -> str:
    return app.config.language or "en"


def add_switch(app, pagename, templatename, context, doctree) -> None:
    if app.builder.name != "html":  # the PDF (singlehtml) has no other edition to link
        return
    links = switch_links(pagename, _language(app), app.config.bilingual_editions)
    if not links:
        return
    labels = app.config.bilingual_labels
    anchors = " · ".join(
        f'<a class="reference external lang-switch-link" href="{html.escape(url)}" '
        f'hreflang="{HREFLANG.get(lang, lang)}" lang="{HREFLANG.get(lang, lang)}">'
        f"{html.escape(labels.get(lang, lang))}</a>"
        for lang, url in links.items())
    if "body" in context:
        context["body"] = (f'<div class="lang-switch" style="text-align:right;font-size:0.9em">'
                           f"{anchors}</div>\n" + context["body"])
    context["metatags"] = context.get("metatags", "") + "".join(
        f'\n<link rel="alternate" hreflang="{HREFLANG.get(lang, lang)}" href="{html.escape(url)}" />'
        for lang, url in links.items())


def search_words(terms_tsv: pathlib.Path) -> list[str]:
    """The Chinese terms of the term list that are single words of Han characters."""
    words: list[str] = []
    if not terms_tsv.is_file():
        return words
    lines = terms_tsv.read_text(encoding="utf-8").splitlines()
    header = lines[0].split("\t") if lines else []
    if "chinese" not in header:
        return words
    col = header.index("chinese")
    for line in lines[1:]:
        cells = line.split("\t")
        if len(cells) > col:
            for word in re.split(r"[、/ ]+", cells[col].strip()):
                if _HAN_WORD.match(word) and word not in words:
                    words.append(word)
    return words


def chinese_search_dictionary(app, config) -> None:
    if not (config.language or "").startswith("zh"):
        return
    words = search_words(pathlib.Path(app.srcdir) / config.bilingual_terms)
    if not words:
        LOGGER.warning(f"bilingual: no Chinese terms in {config.bilingual_terms} for the search")
        return
    path = pathlib.Path(app.doctreedir).parent / "jieba_terms.txt"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(f"{w}\n" for w in words), encoding="utf-8")
    config.html_search_options = {**(config.html_search_options or {}), "dict": str(path)}


def theme_options(app, config) -> None:
    """Theme options an edition sets for itself (the search box's placeholder text)."""
    if config.bilingual_theme_options:
        config.html_theme_options = {**(config.html_theme_options or {}),
                                     **config.bilingual_theme_options}


class TranslateTocCaptions(SphinxTransform):
    """Translate the captions of the toctrees that sphinx-external-toc inserts.

    Sphinx translates a toctree's caption in its Locale transform (priority 20), but
    sphinx-external-toc inserts the toctrees from ``_toc.yml`` later (priority 100):
    their captions ("Getting started", "Chapters") are extracted into the root page's
    catalog and would stay English.  This looks them up in the same catalog.
    """

    default_priority = 101

    def apply(self, **kwargs) -> None:
        from sphinx.locale import init as init_locale
        from sphinx.util.i18n import docname_to_domain

        if (self.config.language or "en") == "en":
            return
        domain = docname_to_domain(self.env.docname, self.config.gettext_compact)
        dirs = [str(pathlib.Path(self.env.srcdir) / d) for d in self.config.locale_dirs]
        catalog, has_catalog = init_locale(dirs, self.config.language, domain)
        if not has_catalog:
            return
        for node in self.document.findall(addnodes.toctree):
            raw = node.get("rawcaption") or node.get("caption")
            if raw:
                node["caption"] = catalog.gettext(raw)


class _Ours(gettext.NullTranslations):
    """A message table consulted before the translations it wraps."""

    def __init__(self, table: dict[str, str], fallback: gettext.NullTranslations | None):
        super().__init__()
        self._table = table
        if fallback is not None:
            self.add_fallback(fallback)

    def gettext(self, message):
        return self._table.get(message) or super().gettext(message)

    def ngettext(self, msgid1, msgid2, n):
        return (self._table.get(msgid1) if n == 1 else None) or super().ngettext(msgid1, msgid2, n)


def chrome_catalogs(app) -> None:
    """Read ``<locale_dir>/<language>/LC_MESSAGES/<domain>.po`` for the extensions'
    own catalogs (``bilingual_chrome_catalogs``, e.g. the book theme's) before theirs.
    (Sphinx itself already reads the ``sphinx`` domain from ``locale_dirs`` first.)"""
    from babel.messages.pofile import read_po
    from sphinx import locale

    language = app.config.language or "en"
    for folder in app.config.locale_dirs:
        for domain in app.config.bilingual_chrome_catalogs:
            po = pathlib.Path(app.srcdir) / folder / language / "LC_MESSAGES" / f"{domain}.po"
            if not po.is_file():
                continue
            with open(po, "rb") as f:
                table = {m.id: m.string for m in read_po(f) if m.id and m.string and not m.fuzzy}
            key = ("general", domain)
            locale.translators[key] = _Ours(table, locale.translators.get(key))


def setup(app):
    app.add_transform(TranslateTocCaptions)
    app.add_config_value("bilingual_chrome_catalogs", ["booktheme"], "html")
    app.connect("builder-inited", chrome_catalogs)
    app.add_config_value("bilingual_theme_options", {}, "html")
    app.connect("config-inited", theme_options)
    app.add_config_value("bilingual_editions", dict(EDITIONS), "html")
    app.add_config_value("bilingual_labels", dict(LABELS), "html")
    app.add_config_value("bilingual_terms", TERMS, "html")
    app.connect("config-inited", chinese_search_dictionary)
    app.connect("html-page-context", add_switch)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "version": "1"}
