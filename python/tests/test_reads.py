"""Reads as the Swift store's: lenient about bad files, declared rules, snapshots keyed by file identity."""

from __future__ import annotations

import json
import logging
import os
import plistlib
import subprocess
import sys
import time
from pathlib import Path

import pytest

from swift_preferences import Corrupt, Domain, InvalidValue, RefusedFile, bplist

DOMAIN = "com.example.reads"
WORKER = os.environ.get("SWIFT_PREFERENCES_WORKER") or str(Path(__file__).resolve().parents[2] / ".build" / "debug" / "PreferencesWorker")
needs_worker = pytest.mark.skipif(not (os.path.isfile(WORKER) and os.access(WORKER, os.X_OK)),
                                  reason=f"the Swift PreferencesWorker is not built at {WORKER} (set SWIFT_PREFERENCES_WORKER)")


def _age(path: Path, seconds: float = 5) -> None:
    """Makes a planted file look settled (its last change well past a clock tick)."""
    old = time.time() - seconds
    os.utime(path, (old, old), follow_symlinks=False)


def _warnings(caplog: pytest.LogCaptureFixture, text: str) -> list[str]:
    return [r.getMessage() for r in caplog.records
            if r.name == "swift_preferences" and r.levelno == logging.WARNING and text in r.getMessage()]


def _corrupt_with_history(env: dict[str, Path]) -> tuple[Path, bytes]:
    """a=v1, a=v2, a=v3 committed (generations 1 and 2 kept), generation 2 and the file then damaged."""
    d = Domain(DOMAIN)
    for value in ("v1", "v2", "v3"):
        d.set("a", value)
    history = env["PREFERENCES_HOME"] / f".{DOMAIN}.plist.history"
    assert sorted(p.name for p in history.iterdir()) == ["1.plist", "2.plist"]
    (history / "2.plist").write_bytes(b"bplist00 torn")
    path = env["PREFERENCES_HOME"] / f"{DOMAIN}.plist"
    damaged = b"not a property list"
    path.write_bytes(damaged)
    _age(path)
    return path, damaged


def test_corrupt_own_file_reads_as_its_newest_good_generation(env: dict[str, Path], caplog: pytest.LogCaptureFixture) -> None:
    path, damaged = _corrupt_with_history(env)
    caplog.set_level(logging.WARNING, logger="swift_preferences")
    d = Domain(DOMAIN)
    for _ in range(3):
        assert d.get("a") == "v1"  # generation 2 does not decode: generation 1 does
    assert Domain(DOMAIN).to_dict() == {"a": "v1"}
    assert path.read_bytes() == damaged
    logged = _warnings(caplog, str(path))
    assert len(logged) == 1 and "generation 1" in logged[0], logged
    problems = d.problems()
    assert len(problems) == 1 and isinstance(problems[0], Corrupt)
    assert problems[0].path == str(path) and problems[0].generation == 1
    assert problems[0].generation_path.endswith(f".{DOMAIN}.plist.history/1.plist")
    # The strict path still reports it; the lenient one serves the generation.
    with pytest.raises(Corrupt):
        d.own()
    assert d.own(strict=False) == {"a": "v1"}
    # A write commits on top of what reads served, and keeps the damaged file aside.
    d.set("b", 2)
    assert d.own() == {"a": "v1", "b": 2} and d.problems() == []
    aside = [p for p in env["PREFERENCES_HOME"].iterdir() if p.name.startswith(f"{DOMAIN}.plist.corrupt-")]
    assert len(aside) == 1 and aside[0].read_bytes() == damaged


def test_corrupt_file_without_history_reads_as_empty(env: dict[str, Path]) -> None:
    path = env["PREFERENCES_HOME"] / f"{DOMAIN}.plist"
    path.write_bytes(bplist.encode([1, 2]))
    os.chmod(path, 0o600)
    _age(path)
    d = Domain(DOMAIN)
    assert d.get("a", "none") == "none" and d.to_dict() == {}
    [problem] = d.problems()
    assert isinstance(problem, Corrupt) and problem.generation is None


def test_symlinked_global_file_reads_as_absent(env: dict[str, Path], tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="swift_preferences")
    target = tmp_path / "planted.plist"
    target.write_bytes(bplist.encode({"planted": "value", "a": "global"}))
    os.chmod(target, 0o600)
    link = env["PREFERENCES_HOME"] / ".GlobalPreferences.plist"
    link.symlink_to(target)
    _age(link)
    d = Domain(DOMAIN)
    d.set("own", 1)
    assert d.get("planted") is None and d.get("own") == 1
    assert d.to_dict() == {"own": 1}
    [problem] = d.problems()
    assert isinstance(problem, RefusedFile) and problem.path == str(link) and "symbolic link" in str(problem)
    assert len(_warnings(caplog, str(link))) == 1
    d.get("planted")
    assert len(_warnings(caplog, str(link))) == 1
    # A watch starts and hears changes in spite of it.
    with d.watch(lambda *change: None):
        pass
    assert Domain(DOMAIN).own() == {"own": 1}


def test_watch_of_a_corrupt_file_hears_its_generation(env: dict[str, Path]) -> None:
    import threading
    d = Domain(DOMAIN)
    d.set("a", 1)
    d.set("a", 2)
    path = env["PREFERENCES_HOME"] / f"{DOMAIN}.plist"
    heard: list[tuple[str, object, object]] = []
    event = threading.Event()

    def changed(key: str, old: object, new: object) -> None:
        heard.append((key, old, new))
        event.set()

    with d.watch(changed):  # the directories are watched when watch() returns
        path.write_bytes(b"garbage")  # in place: the watch reads generation 1 (a=1)
        assert event.wait(5)
    assert heard[0] == ("a", 2, 1)


def _schema(env: dict[str, Path], keys: dict) -> None:
    (env["PREFERENCES_SCHEMA_PATH"] / f"{DOMAIN}.plist").write_bytes(plistlib.dumps({"Keys": keys}))


def _plant(path: Path, values: dict) -> None:
    path.write_bytes(bplist.encode(values))
    os.chmod(path, 0o600)


def test_invalid_stored_value_reads_as_the_declared_default(env: dict[str, Path], caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="swift_preferences")
    _schema(env, {"Size": {"Type": "integer", "Minimum": 1, "Maximum": 10, "Default": 5},
                  "Mode": {"Type": "string", "Choices": ["a", "b"], "Default": "a"},
                  "Token": {"Type": "string", "Minimum": 0, "Choices": ["x"], "Private": True}})
    d = Domain(DOMAIN)
    assert d.get("Size") == 5 and d.get("Mode") == "a" and d.get("Token") is None
    path = env["PREFERENCES_HOME"] / f"{DOMAIN}.plist"
    stored = {"Size": 11, "Mode": "c", "Token": "s3cret-value", "Other": True}
    _plant(path, stored)
    assert d.get("Size") == 5 and d.get("Mode") == "a" and d.get("Token") is None and d.get("Other") is True
    assert d.to_dict() == {"Size": 5, "Mode": "a", "Other": True}
    assert bplist.decode(path.read_bytes()) == stored
    assert sorted(type(p).__name__ for p in d.problems()) == ["InvalidValue"] * 3
    logged = _warnings(caplog, "stored value of")
    assert len(logged) == 3 and not any("s3cret" in line for line in logged)
    d.get("Size")
    assert len(_warnings(caplog, "stored value of")) == 3
    # Passed over, not hidden: a lower layer's valid value wins over the default.
    Domain("NSGlobalDomain").set("Size", 7)
    assert d.get("Size") == 7
    # The own file keeps the bad value until it is written; a valid write replaces it.
    d.set("Size", 9)
    assert d.get("Size") == 9 and bplist.decode(path.read_bytes())["Mode"] == "c"


def test_cached_get_sees_another_process_commit(env: dict[str, Path]) -> None:
    d = Domain(DOMAIN)
    d.set("n", 100)
    assert d.get("n") == 100
    adapter = subprocess.Popen([sys.executable, "-m", "swift_preferences.adapter"], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, text=True)
    try:
        for i in range(101, 131):  # same size every time, many within one clock tick
            adapter.stdin.write(json.dumps({"op": "set", "domain": DOMAIN, "key": "n", "value": {"integer": i}, "id": i}) + "\n")
            adapter.stdin.flush()
            assert json.loads(adapter.stdout.readline())["ok"]
            assert d.get("n") == i
    finally:
        adapter.stdin.close()
        adapter.wait(10)


def test_in_place_rewrite_within_a_tick_is_seen(env: dict[str, Path]) -> None:
    path = env["PREFERENCES_HOME"] / f"{DOMAIN}.plist"
    d = Domain(DOMAIN)
    for i in range(10, 40):
        before = path.stat() if path.exists() else None
        _plant(path, {"n": i})  # same size, same inode after the first
        if before is not None:
            os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
        assert d.get("n") == i


def test_snapshot_values_are_not_shared_with_callers(env: dict[str, Path]) -> None:
    d = Domain(DOMAIN)
    d.set("list", [1, {"k": 2}])
    d.get("list").append(3)
    d.to_dict()["list"][1]["k"] = 9
    assert d.get("list") == [1, {"k": 2}]


@needs_worker
def test_swift_reads_bad_files_as_python_does(env: dict[str, Path], tmp_path: Path) -> None:
    def swift(key: str) -> str:
        run = subprocess.run([WORKER, "read", DOMAIN, key], check=True, capture_output=True, text=True, timeout=60)
        return run.stdout.strip()

    _corrupt_with_history(env)
    Domain("NSGlobalDomain").set("g", "global")
    _schema(env, {"Mode": {"Type": "string", "Choices": ["a", "b"], "Default": "a"}})
    system = env["PREFERENCES_SYSTEM_DIR"] / f"{DOMAIN}.plist"
    _plant(system, {"Mode": "c", "s": "system"})
    d = Domain(DOMAIN)
    assert (d.get("a"), d.get("Mode"), d.get("s"), d.get("g")) == ("v1", "a", "system", "global")
    assert (swift("a"), swift("Mode"), swift("s"), swift("g")) == ("v1", "a", "system", "global")
    target = tmp_path / "planted.plist"
    _plant(target, {"g": "planted"})
    link = env["PREFERENCES_HOME"] / ".GlobalPreferences.plist"
    link.unlink()
    link.symlink_to(target)
    assert d.get("g") is None and swift("g") == "(nil)"


def test_unsettled_version_is_confirmed_by_its_bytes(env: dict[str, Path]) -> None:
    """A same-size rewrite in place within a clock tick can keep the whole identity (a coarse
    clock): an unsettled version is then told apart by its bytes' digest, never trusted."""
    from dataclasses import replace

    from swift_preferences.files import FilePolicy
    from swift_preferences.snapshot import identity_of, read_layer

    d = Domain(DOMAIN)
    path = env["PREFERENCES_HOME"] / f"{DOMAIN}.plist"
    _plant(path, {"n": 1})
    known = read_layer(d.file, FilePolicy())
    assert known.values == {"n": 1} and not known.settled
    _plant(path, {"n": 2})
    # As if the clock had not ticked: the rewritten file has exactly the identity read.
    forged = replace(known, identity=identity_of(os.lstat(path)))
    assert read_layer(d.file, FilePolicy(), forged).values == {"n": 2}
    # The same bytes are confirmed without a decode: the very same values object comes back.
    again = read_layer(d.file, FilePolicy())
    assert read_layer(d.file, FilePolicy(), replace(again, settled=False)).values is again.values
