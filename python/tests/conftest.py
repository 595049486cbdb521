"""Fixtures: every test runs with its own preferences, system, runtime and schema directories."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

SOURCE = Path(__file__).resolve().parent.parent / "src"
# The tests run against the source folder, unless SWIFT_PREFERENCES_TEST_INSTALLED=1 says to test
# the package as `pip install` put it (Tests/Scripts/python-tests.sh): then the source folder
# must not be what is imported.
if os.environ.get("SWIFT_PREFERENCES_TEST_INSTALLED") != "1" and str(SOURCE) not in sys.path:
    sys.path.insert(0, str(SOURCE))
import swift_preferences  # noqa: E402

#: Where the package under test is imported from; the processes the tests start import it there too.
PACKAGE_ROOT = Path(swift_preferences.__file__).resolve().parent.parent
if os.environ.get("SWIFT_PREFERENCES_TEST_INSTALLED") == "1":
    assert PACKAGE_ROOT != SOURCE.resolve(), f"the installed package was to be tested, but {PACKAGE_ROOT} is the source folder"


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    """Points every variable the package reads at fresh directories under tmp_path (never the real HOME)."""
    paths = {
        "HOME": tmp_path / "home",
        "PREFERENCES_HOME": tmp_path / "prefs",
        "PREFERENCES_SYSTEM_DIR": tmp_path / "system",
        "XDG_RUNTIME_DIR": tmp_path / "run",
        "PREFERENCES_SCHEMA_PATH": tmp_path / "schemas",
    }
    for name, path in paths.items():
        path.mkdir(mode=0o700)
        monkeypatch.setenv(name, str(path))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.setenv("PYTHONPATH", str(PACKAGE_ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return paths
