"""Watching across processes and hand edits; interop with the Swift implementation; the adapter."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from swift_preferences import Domain, bplist

DOMAIN = "com.example.watch"


class Recorder:
    """Collects watch callbacks and waits for them."""

    def __init__(self) -> None:
        self.changes: list[tuple[str, Any, Any]] = []
        self.threads: set[str] = set()
        self.condition = threading.Condition()

    def __call__(self, key: str, old: Any, new: Any) -> None:
        with self.condition:
            self.changes.append((key, old, new))
            self.threads.add(threading.current_thread().name)
            self.condition.notify_all()

    def wait_for(self, predicate: Any, timeout: float = 5.0) -> bool:
        with self.condition:
            return self.condition.wait_for(lambda: predicate(self.changes), timeout)


def test_watch_hears_another_process_and_a_hand_edit(env: dict[str, Path]) -> None:
    d = Domain(DOMAIN)
    d.set("start", 1)
    recorder = Recorder()
    with d.watch(recorder):
        subprocess.run([sys.executable, "-c", f"from swift_preferences import Domain; Domain({DOMAIN!r}).set('other', 'process')"], check=True)
        assert recorder.wait_for(lambda c: ("other", None, "process") in c)
        path = env["PREFERENCES_HOME"] / f"{DOMAIN}.plist"
        values = bplist.decode(path.read_bytes())
        values["hand"] = "edit"
        path.write_bytes(bplist.encode(values))  # in place, as an editor does
        assert recorder.wait_for(lambda c: ("hand", None, "edit") in c)
        d.delete("start")
        assert recorder.wait_for(lambda c: ("start", 1, None) in c)
        assert recorder.threads == {"swift-preferences-watcher"}
    # Nothing after close: a second watch hears a later sentinel, and the process's one watcher
    # thread delivers in commit order, so a change the closed watch would hear comes first.
    count = len(recorder.changes)
    sentinel = Recorder()
    with d.watch(sentinel):
        d.set("after", "close")
        d.set("sentinel", True)
        assert sentinel.wait_for(lambda c: ("sentinel", None, True) in c)
    assert len(recorder.changes) == count


def test_watch_hears_every_commit_and_other_layers(env: dict[str, Path]) -> None:
    d = Domain(DOMAIN)
    d.set("k", 0)
    recorder = Recorder()
    with d.watch(recorder):
        for i in range(1, 11):
            d.set("k", i)
            assert recorder.wait_for(lambda c, i=i: ("k", i - 1, i) in c)
        # How soon is a figure (Benchmarks/mixed-language-latency.sh), not asserted here.
        # A system-layer change and a global change reach the domain's watch too.
        system = env["PREFERENCES_SYSTEM_DIR"] / f"{DOMAIN}.plist"
        system.write_bytes(bplist.encode({"sys": True}))
        assert recorder.wait_for(lambda c: ("sys", None, True) in c)
        Domain("NSGlobalDomain").set("g", 1)
        assert recorder.wait_for(lambda c: ("g", None, 1) in c)
        # Shadowed keys do not change the resolved value.
        system.write_bytes(bplist.encode({"sys": True, "k": "shadowed"}))
        # A later sentinel is heard after anything that change caused (one watcher thread, in order).
        d.set("sentinel", 1)
        assert recorder.wait_for(lambda c: ("sentinel", None, 1) in c)
        assert not any(change[0] == "k" and change[2] == "shadowed" for change in recorder.changes)


def test_watch_of_a_domain_whose_directory_appears_later(env: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PREFERENCES_HOME", str(tmp_path / "later" / "prefs"))
    recorder = Recorder()
    with Domain(DOMAIN).watch(recorder):
        Domain(DOMAIN).set("k", "v")
        assert recorder.wait_for(lambda c: ("k", None, "v") in c)


# MARK: The Swift implementation

WORKER = os.environ.get("SWIFT_PREFERENCES_WORKER") or str(Path(__file__).resolve().parents[2] / ".build" / "debug" / "PreferencesWorker")
needs_worker = pytest.mark.skipif(not (os.path.isfile(WORKER) and os.access(WORKER, os.X_OK)),
                                  reason=f"the Swift PreferencesWorker is not built at {WORKER} (set SWIFT_PREFERENCES_WORKER)")


@needs_worker
def test_swift_writes_python_reads_and_vice_versa(env: dict[str, Path]) -> None:
    subprocess.run([WORKER, "set-keys", DOMAIN, "swift", "3"], check=True, capture_output=True, timeout=60)
    d = Domain(DOMAIN)
    assert d.own() == {"swift0": 0, "swift1": 1, "swift2": 2}
    path = env["PREFERENCES_HOME"] / f"{DOMAIN}.plist"
    swift_bytes = path.read_bytes()
    assert bplist.encode(bplist.decode(swift_bytes)) == swift_bytes, "the Python encoder must match the Swift encoder byte for byte"
    d.set("python", "héllo ✓")
    read = subprocess.run([WORKER, "read", DOMAIN, "python"], check=True, capture_output=True, text=True, timeout=60)
    assert read.stdout.strip() == "héllo ✓"
    # Interleaved increments by both implementations lose nothing, and the history numbering continues.
    subprocess.run([WORKER, "increment", DOMAIN, "n", "20"], check=True, capture_output=True, timeout=60)
    for _ in range(20):
        with d.transaction() as t:
            t["n"] = t.get("n", 0) + 1
    subprocess.run([WORKER, "increment", DOMAIN, "n", "20"], check=True, capture_output=True, timeout=60)
    assert d.get("n") == 60
    history = sorted(int(p.name.split(".")[0]) for p in (env["PREFERENCES_HOME"] / f".{DOMAIN}.plist.history").iterdir())
    assert history == list(range(history[0], history[-1] + 1))


@needs_worker
def test_python_watch_hears_swift_commits(env: dict[str, Path]) -> None:
    d = Domain(DOMAIN)
    d.set("n", 0)
    recorder = Recorder()
    with d.watch(recorder):
        subprocess.run([WORKER, "increment", DOMAIN, "n", "3"], check=True, capture_output=True, timeout=60)
        assert recorder.wait_for(lambda c: any(change[2] == 3 for change in c))


# MARK: The adapter


def test_adapter_speaks_the_contract(env: dict[str, Path]) -> None:
    requests = [
        {"op": "hello", "id": 1},
        {"op": "set", "domain": DOMAIN, "key": "k", "value": {"dict": {"r": {"real": "nan"}, "d": {"date": 1.5}, "b": {"data": "AAE="}}}, "id": 2},
        {"op": "get", "domain": DOMAIN, "key": "k", "id": 3},
        {"op": "transaction", "domain": DOMAIN, "set": {"x": {"integer": 1}}, "delete": ["k"], "hold_ms": 1, "id": 4},
        {"op": "increment", "domain": DOMAIN, "key": "x", "by": 2, "count": 2, "id": 5},
        {"op": "own", "domain": DOMAIN, "id": 6},
        {"op": "set", "domain": "../x", "key": "k", "value": {"string": "v"}, "id": 7},
        {"op": "nonsense", "id": 8},
        {"op": "quit", "id": 9},
    ]
    run = subprocess.run([sys.executable, "-m", "swift_preferences.adapter"], input="\n".join(map(json.dumps, requests)) + "\n",
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    lines = [json.loads(line) for line in run.stdout.splitlines()]
    answers = {line["id"]: line for line in lines if "ok" in line}
    assert answers[1]["protocol"] == 1 and "renamed" in answers[1]["crash_points"]
    assert answers[3]["value"] == {"dict": {"b": {"data": "AAE="}, "d": {"date": 1.5}, "r": {"real": "nan"}}}
    assert {"event": "locked", "id": 4} in lines
    assert lines.index({"event": "locked", "id": 4}) < lines.index(answers[4])
    assert answers[5]["value"] == 5
    assert answers[6]["value"] == {"dict": {"x": {"integer": 5}}}
    assert answers[7]["error"]["kind"] == "invalid-domain-name"
    assert answers[8]["error"]["kind"] == "invalid-request"


def test_adapter_crash_exits_137_at_the_point(env: dict[str, Path]) -> None:
    request = {"op": "crash", "domain": DOMAIN, "key": "k", "value": {"string": "new"}, "at": "generation-kept", "id": 1}
    Domain(DOMAIN).set("k", "old")
    run = subprocess.run([sys.executable, "-m", "swift_preferences.adapter"], input=json.dumps(request) + "\n",
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 137 and run.stdout == ""
    assert Domain(DOMAIN).get("k") == "old"
    assert (env["PREFERENCES_HOME"] / f".{DOMAIN}.plist.history" / "1.plist").exists()
