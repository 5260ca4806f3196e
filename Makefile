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
.PHONY: run dev test guide

run: $(RUNTIME_STAMP)
	DJANGO_DEBUG=0 $(PY) manage.py serve --host $(HOST) --port $(PORT)

dev: $(RUNTIME_STAMP)
	DJANGO_DEBUG=1 $(PY) manage.py serve --host $(HOST) --port $(PORT)

# Prints how long the suite took (wall clock), and keeps pytest's exit status. The tests run
# in TEST_WORKERS processes (pytest-xdist; tests/plugins/services.py keeps them apart);
# TEST_WORKERS=0 runs them in this one process.
TEST_WORKERS ?= 2
test: $(DEV_STAMP)
	@start=$$(date +%s); $(PY) -m pytest -n $(TEST_WORKERS) --dist worksteal --durations=25 $(ARGS); status=$$?; took=$$(( $$(date +%s) - start )); \
	echo "make test: $$(( took / 60 )) min $$(( took % 60 )) s"; exit $$status

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

# The user's guide's pictures (docs/guide.md): the browser tests that take them, run again,
# and the pictures copied into docs/guide/ (commit them).
GUIDE_TESTS := tests/live/test_browser.py tests/live/test_screens.py tests/live/test_table_setup_browser.py \
	tests/live/test_patrons_browser.py tests/counts/test_layout_browser.py
GUIDE_SHOTS := tablet-showdown tablet-table-rules table-setup queue-config approvals-queue floor-approval-waiting \
	patrons-tablet-panel
guide: $(DEV_STAMP)
	$(PY) -m pytest -q $(GUIDE_TESTS)
	for shot in $(GUIDE_SHOTS); do cp test-artifacts/$$shot.png docs/guide/; done
	cp test-artifacts/settlement-7-players-1280x800.png docs/guide/tablet-settlement.png
	cp "$$(ls test-artifacts/count-compliance-count-*-day-1280x800.png | head -1)" docs/guide/count-sheet.png
