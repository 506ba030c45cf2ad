# Two commands for a newcomer: `make run` (the whole site on http://127.0.0.1:8000) and `make test`.
SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
# `make run` needs DEBUG for the dev secret key and static files; production sets its own env
RUN_ENV := DEBUG=$${DEBUG:-1}
ARGS ?=

.PHONY: install run test lint setup-db clean

install: $(STAMP)

$(STAMP): requirements.txt requirements-dev.txt
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements-dev.txt
	@touch $(STAMP)

setup-db: install
	@mkdir -p var
	$(RUN_ENV) $(PY) manage.py bootstrap --demo

run: setup-db
	$(RUN_ENV) $(PY) manage.py collectstatic --noinput --verbosity 0
	$(RUN_ENV) $(VENV)/bin/honcho start -f Procfile.dev 2>&1 || true

test: install
	KGB_TESTING=1 $(PY) -m pytest -n 2 $(ARGS)

lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

clean:
	rm -rf var .pytest_cache
