# Quick start on a fresh machine with python3 and make:   make book   /   make test
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp
JB     := $(BIN)/jupyter-book
NOTEBOOKS = $(shell find book -name '*.ipynb' -not -path '*/.ipynb_checkpoints/*' -not -path '*/_build/*' | sort)
# OFFLINE=1 vendors MathJax 3 from the npm registry into vendor/mathjax (needs npm)
# so the built site needs no network; the browser tests run against that build.
# `make test OFFLINE=1` builds the book offline before testing.
OFFLINE ?=
# pytest: notebooks and test files spread over worker processes (pytest-xdist), one
# file per worker at a time; `--mpl` explicit so the figure comparisons always run
# (tests/conftest.py forces it too).  PYTEST_ARGS adds options, e.g. PYTEST_ARGS="-k cli".
PYTEST_JOBS ?= 2
PYTEST_ARGS ?=
PYTEST = $(BIN)/python -m pytest --mpl -n $(PYTEST_JOBS) --dist loadfile

.PHONY: all install book test check lint lab figures fit execute bench pdf clean help \
	translations translation-status translation-check

all: book

help:
	@echo "make book      build the HTML book, English in _build/html, Chinese in _build/html/zh"
	@echo "               (OFFLINE=1 for a no-network build; EDITION=en or EDITION=zh for one edition)"
	@echo "make test      run every test (library, notebooks with nbval, figures, built book)"
	@echo "make check     the loop while working: library, stored pages, changed notebooks"
	@echo "make lab       open the notebooks in JupyterLab"
	@echo "make figures   regenerate book/figures (PNG + SVG + figures.json)"
	@echo "make fit       refit the forecast's knobs (infra_calc/data/forecast_knobs.csv)"
	@echo "make execute   re-execute every notebook in place (deterministic)"
	@echo "make bench     print the speed benchmarks as ratios"
	@echo "make pdf       build PDFs of the whole book (_build/pdf/book.pdf, book-zh.pdf; needs npm + chromium)"
	@echo "make translations         after changing English pages: update locale/zh_CN/LC_MESSAGES/*.po"
	@echo "make translation-status   per page: messages, translated, fuzzy, untranslated"
	@echo "make translation-check    the translation tests' findings (PAGES=book/intro ... for some pages)"

$(STAMP): requirements.txt pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements.txt
	@touch $(STAMP)

install: $(STAMP)

# EDITION=en or EDITION=zh builds one edition only (no message templates)
EDITION ?= all
book: $(STAMP)
	$(BIN)/python -m tools.build_book $(if $(OFFLINE),--offline,) --edition $(EDITION)

# The Chinese edition: regenerate the message templates from the English pages and
# update the catalogs (sphinx-intl); a changed English message becomes fuzzy.
translations: $(STAMP)
	$(BIN)/python -m tools.translations update

translation-status: $(STAMP)
	$(BIN)/python -m tools.translations status

# what tests/book/test_translations.py would find in the translated messages (PAGES=book/intro ...)
translation-check: $(STAMP)
	$(BIN)/python -m tools.zh_checks $(PAGES)

# pytest's exit status 5 means "no tests collected" (a PYTEST_ARGS selection that matches
# nothing): reported, not a failure.
test: $(STAMP)
	$(BIN)/ruff check .
	$(MAKE) book OFFLINE=$(OFFLINE)
	@status=0; $(PYTEST) $(PYTEST_ARGS) || status=$$?; \
	if [ $$status -eq 5 ]; then echo "pytest: no tests collected (exit status 5)"; status=0; fi; \
	exit $$status

lint: $(STAMP)
	$(BIN)/ruff check .

# `make check`: the loop to run while working (about a minute on 2 cores): lint, the
# library's, the book machinery's and the tools' tests and doctests (tests/lib, infra_calc,
# tests/bookkit, bookkit, tests/tools), the checks of the stored pages
# (tests/book; the translation checks need the message templates of a `make book` or
# `make translations` and are left out without them), and nbval on the notebooks this
# change touches (changed against HEAD, or new).  Nothing is built; the built book,
# the browser, JupyterLab and the PDF are `make test`'s (tests/e2e), and so are the tests
# marked `benchmark` (a real benchmark run: pyproject.toml registers the marker).
CHANGED_NOTEBOOKS = $(shell { git diff --name-only HEAD -- 'book/*.ipynb'; \
	git ls-files --others --exclude-standard -- 'book/*.ipynb'; } 2>/dev/null | sort -u)
CHECK_SKIP = $(if $(wildcard _build/i18n/_build/gettext),,--ignore=tests/book/test_translations.py)
check: $(STAMP)
	$(BIN)/ruff check .
	$(PYTEST) tests/lib tests/bookkit tests/tools tests/book infra_calc bookkit $(CHANGED_NOTEBOOKS) $(CHECK_SKIP) \
		-m "not benchmark" --deselect tests/book/test_visible_code.py::test_visible_code_alone_reproduces_the_page $(PYTEST_ARGS)

# `make lab`: JupyterLab with jupyterlab-myst (renders the pages' MyST directives and
# stored {eval} numbers).  --allow-root only as root.  tools/lab/ adds the book's
# settings to the reader's own (tools/lab/jupyter_server_config.py): JupyterLab opens on
# book/0_start/how_to_use.ipynb, a Markdown page (index.md) opens rendered
# (tools/lab/settings/overrides.json), and a saved page keeps no live widgets.
# tests/e2e/test_lab_start.py starts JupyterLab with the same settings and checks all three.
LAB_ROOT_FLAG = $(if $(filter 0,$(shell id -u)),--allow-root,)
lab: $(STAMP)
	@$(BIN)/python -c "import jupyterlab_myst" 2>/dev/null || $(BIN)/python -m pip install --quiet "$$(grep '^jupyterlab-myst==' requirements.txt)"
	$(BIN)/jupyter labextension enable jupyterlab-myst >/dev/null
	$(BIN)/jupyter server extension enable jupyterlab_myst >/dev/null
	JUPYTER_CONFIG_PATH="$(CURDIR)/tools/lab$${JUPYTER_CONFIG_PATH:+:$$JUPYTER_CONFIG_PATH}" \
	$(BIN)/jupyter lab $(LAB_ROOT_FLAG) --ServerApp.root_dir=$(CURDIR)

figures: $(STAMP)
	$(BIN)/python -m infra_calc figures --out book/figures

# the forecast's knobs, fitted on infra_calc/data/measurements.csv (byte-stable; a test
# checks that the stored file is what a fresh fit gives)
fit: $(STAMP)
	$(BIN)/python -m infra_calc fit --out infra_calc/data/forecast_knobs.csv

execute: $(STAMP)
	$(BIN)/python -m tools.execute $(NOTEBOOKS)

bench: $(STAMP)
	PYTEST_JOBS=$(PYTEST_JOBS) $(BIN)/python -m benchmarks.run

pdf: $(STAMP)
	$(BIN)/python -m tools.build_pdf

clean:
	rm -rf _build
