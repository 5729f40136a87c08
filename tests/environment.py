"""Loaded with `-p tests.environment` before pytest-django reads the settings."""

import os
import tempfile

os.environ.setdefault("SECRET_KEY", "test-only-secret-key")
# Tests never write into the developer's var/ folder.
os.environ.setdefault("EVALSITE_DATA_DIR", tempfile.mkdtemp(prefix="evalsite-test-"))
