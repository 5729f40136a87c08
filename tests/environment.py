"""Loaded with `-p tests.environment` before pytest-django reads the settings.

EVALSITE_TEST_DATABASE=postgres starts a PostgreSQL server here, before Django picks its
database backend, and points DATABASE_URL at it for this process and the worker processes.
"""

import atexit
import contextlib
import os
import shutil
import tempfile

os.environ.setdefault("SECRET_KEY", "test-only-secret-key")
# A fixed Fernet key for the tests' stored provider keys (never used outside the tests).
TEST_SECRETS_KEY = "xaZWRjk0tbVY5e95JmP28f6agQri45Wb7Pkq2ku0LSo="
os.environ.setdefault("EVALSITE_SECRETS_KEY", TEST_SECRETS_KEY)
# Tests never write into the developer's var/ folder.
if "EVALSITE_DATA_DIR" not in os.environ:
    _data_dir = tempfile.mkdtemp(prefix="evalsite-test-")
    os.environ["EVALSITE_DATA_DIR"] = _data_dir
    atexit.register(shutil.rmtree, _data_dir, ignore_errors=True)
# The de-quantised causal LM is cached for the session, in the tests' own data folder.
os.environ.setdefault("EVALSITE_MODEL_CACHE", os.path.join(os.environ["EVALSITE_DATA_DIR"], "models"))
# Test workers start without importing the model libraries first (seconds per worker); the test of
# that import turns it on.
os.environ.setdefault("EVALSITE_WORKER_IMPORT_MODELS", "0")
# Nor do their pool processes load the projects' models as they start; the test of that turns it on.
os.environ.setdefault("EVALSITE_WORKER_LOAD_MODELS", "0")
# Test scorers loaded as plugins by dotted path, in this process and in worker processes.
os.environ.setdefault(
    "EVALSITE_SCORERS", "tests.plugins.SlowWordCount,tests.plugins.FailsOnBoom,tests.plugins.WordCountOnModels"
)

if os.environ.get("EVALSITE_TEST_DATABASE") == "postgres":
    from tests import servers

    _missing = servers.binary_missing("initdb")
    if _missing:
        if os.environ.get("CI") == "true":
            raise RuntimeError(_missing)
        print(f"EVALSITE_TEST_DATABASE=postgres ignored: {_missing}")
    else:
        _stack = contextlib.ExitStack()
        os.environ["DATABASE_URL"] = _stack.enter_context(servers.postgres_server())
        atexit.register(_stack.close)
