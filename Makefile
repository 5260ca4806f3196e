# Two user-facing targets:
#   make run   install, start the app's own PostgreSQL (no DATABASE_URL), migrate, seed the
#              demo floor, serve on http://$(HOST):$(PORT) (127.0.0.1:8000); Ctrl-C stops both
#   make test  install the test dependencies and run pytest (extra arguments: ARGS="...")
# `make run` serves with DEBUG off, as production does: the site's own error pages, each
# 500 with a reference its log line carries. For developers only (not a set-up command):
#   make dev   `make run` with DEBUG on (Django's debug pages, with tracebacks)
# Each creates .venv with python3 if it is missing. An install is skipped while a stamp in
# .venv matches the requirements files' contents (sha256), so repeated runs start at once.

SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
ARGS ?=
HOST ?= 127.0.0.1
PORT ?= 8000
PIP_INSTALL := $(PY) -m pip install --disable-pip-version-check --quiet

req_hash = $(firstword $(shell cat $(1) 2>/dev/null | sha256sum))
RUNTIME_STAMP := $(VENV)/.installed-runtime-$(call req_hash,requirements.txt)
DEV_STAMP := $(VENV)/.installed-dev-$(call req_hash,requirements.txt requirements-dev.txt)

.DEFAULT_GOAL := run
.PHONY: run dev test

run: $(RUNTIME_STAMP)
	DJANGO_DEBUG=0 $(PY) manage.py serve --host $(HOST) --port $(PORT)

dev: $(RUNTIME_STAMP)
	DJANGO_DEBUG=1 $(PY) manage.py serve --host $(HOST) --port $(PORT)

test: $(DEV_STAMP)
	$(PY) -m pytest $(ARGS)

$(PY):
	$(PYTHON) -m venv --clear $(VENV)

$(RUNTIME_STAMP): | $(PY)
	$(PIP_INSTALL) -r requirements.txt
	rm -f $(VENV)/.installed-runtime-*
	touch $@

$(DEV_STAMP): | $(PY)
	$(PIP_INSTALL) -r requirements-dev.txt
	rm -f $(VENV)/.installed-dev-*
	touch $@
