"""Fixtures: every test runs with its own preferences, system, runtime and schema directories."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

SOURCE = Path(__file__).resolve().parent.parent / "src"
if str(SOURCE) not in sys.path:
    sys.path.insert(0, str(SOURCE))


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
    monkeypatch.setenv("PYTHONPATH", str(SOURCE) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return paths
