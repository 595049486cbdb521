"""Swift and Python processes sharing one domain (issue 39, item 5): writers of both languages
incrementing shared keys through transactions lose no increment, and a watcher of either
language hears the other's commits.

Run by Tests/Scripts/run-all.sh:

    SWIFT_PREFERENCES_WORKER=$(swift build --show-bin-path)/PreferencesWorker \\
        PYTHONPATH=python/src python3 -m pytest -q Tests/Mixed

The Swift side is the test worker (`PreferencesWorker transact-increment`, `write-on-request`,
`observe-key`); the Python side is `mixed_peer.py` beside this file, which has the same
commands over the `swift_preferences` package. Every directory the protocol names is under the
test's temporary directory, never the real HOME. The tests assert behaviour only: a bound on
how long a peer may stay silent only keeps a broken run from hanging, it is not what they test.
"""

import json
import os
import re
import select
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
PEER = os.path.join(HERE, "mixed_peer.py")
REPOSITORY = os.path.dirname(os.path.dirname(HERE))
DOMAIN = "com.example.mixed"
# How long a peer may stay silent before the test calls it stuck (a hang guard, not a measure).
SILENCE = 120.0


def python_path():
    """Where the children find `swift_preferences`: the repository's package, then PYTHONPATH."""
    parts = [os.path.join(REPOSITORY, "python", "src")]
    parts += [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    return os.pathsep.join(p for p in parts if os.path.isdir(p))


@pytest.fixture
def worker():
    path = os.environ.get("SWIFT_PREFERENCES_WORKER")
    if not path:
        pytest.skip("SWIFT_PREFERENCES_WORKER is not set: give it the PreferencesWorker of a debug build "
                    "($(swift build --show-bin-path)/PreferencesWorker)")
    if not os.access(path, os.X_OK):
        pytest.fail("SWIFT_PREFERENCES_WORKER=%s is not an executable" % path)
    return path


@pytest.fixture
def environment(tmp_path):
    """A private home: every directory the protocol reads or writes is under tmp_path."""
    home = tmp_path / "home"
    runtime = tmp_path / "runtime"
    for directory in (home, runtime, tmp_path / "schemas"):
        directory.mkdir(mode=0o700)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PREFERENCES_", "XDG_"))}
    env.update(
        HOME=str(home),
        PREFERENCES_HOME=str(home / ".config" / "preferences"),
        PREFERENCES_SYSTEM_DIR=str(tmp_path / "system"),
        PREFERENCES_SCHEMA_PATH=str(tmp_path / "schemas"),
        XDG_RUNTIME_DIR=str(runtime),
        XDG_CONFIG_HOME=str(home / ".config"),
        XDG_DATA_HOME=str(home / ".local" / "share"),
        XDG_DATA_DIRS=str(tmp_path / "data"),
        PYTHONPATH=python_path(),
        # A starved writer must not give up: what is tested is that nothing is lost.
        PREFERENCES_WORKER_LOCK_TIMEOUT="120",
    )
    return env


def python_command(*arguments):
    return [sys.executable, PEER] + list(arguments)


def domain_values(environment):
    """The domain file's values, read by the Python package in a process of its own."""
    script = "import json; from swift_preferences import Domain; print(json.dumps(Domain(%r).own()))" % DOMAIN
    result = subprocess.run([sys.executable, "-c", script], env=environment, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, check=False, timeout=SILENCE)
    assert result.returncode == 0, result.stderr.decode()
    return json.loads(result.stdout)


def swift_reads(worker, environment, key):
    result = subprocess.run([worker, "read", DOMAIN, key], env=environment, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, check=False, timeout=SILENCE)
    assert result.returncode == 0, result.stderr.decode()
    return result.stdout.decode().strip()


class Peer:
    """A line-speaking child process: requests on its stdin, answers on its stdout."""

    def __init__(self, command, environment):
        self.command = command
        self.process = subprocess.Popen(command, env=environment, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE)
        self.buffer = b""

    def line(self):
        while b"\n" not in self.buffer:
            ready, _, _ = select.select([self.process.stdout], [], [], SILENCE)
            if not ready:
                self.stop()
                pytest.fail("%s said nothing for %d s" % (" ".join(self.command[:3]), SILENCE))
            chunk = os.read(self.process.stdout.fileno(), 65536)
            if not chunk:
                self.process.wait()
                pytest.fail("%s ended (exit %s): %s" % (" ".join(self.command[:3]), self.process.returncode,
                                                      self.process.stderr.read().decode()[-2000:]))
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return line.decode()

    def send(self, text):
        self.process.stdin.write((text + "\n").encode())
        self.process.stdin.flush()

    def stop(self):
        """Closes its input (the commands end there) and waits for it; returns its exit status."""
        try:
            self.process.stdin.close()
        except BrokenPipeError:
            pass
        try:
            return self.process.wait(timeout=SILENCE)
        except subprocess.TimeoutExpired:
            self.process.kill()
            return self.process.wait()


# ---------------------------------------------------------------- writers

SWIFT_WRITERS, PYTHON_WRITERS, INCREMENTS = 4, 4, 400


def test_mixed_writers_lose_no_increment(worker, environment):
    """4 Swift and 4 Python processes at once, each making 400 transactions that read `shared`
    and its own key under the lock and write both back plus one: every one of the 3,200
    increments of `shared` is there, and every writer's own 400. A Swift and a Python watcher,
    started before the domain exists, hear `shared` go up in commit order to 3,200."""
    total = (SWIFT_WRITERS + PYTHON_WRITERS) * INCREMENTS
    watchers = [Peer([worker, "observe-key", DOMAIN, "shared"], environment),
                Peer(python_command("observe-key", DOMAIN, "shared"), environment)]
    for watcher in watchers:
        assert watcher.line() == "ready"
    commands = []
    for index in range(SWIFT_WRITERS):
        commands.append([worker, "transact-increment", DOMAIN, "shared", str(INCREMENTS), "swift-%d" % index])
    for index in range(PYTHON_WRITERS):
        commands.append(python_command("transact-increment", DOMAIN, "shared", str(INCREMENTS), "python-%d" % index))
    # Interleaved starts, so neither language has a head start of several processes.
    order = [c for pair in zip(commands[:SWIFT_WRITERS], commands[SWIFT_WRITERS:]) for c in pair]
    processes = [subprocess.Popen(c, env=environment, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE) for c in order]
    failures = []
    for command, process in zip(order, processes):
        _, errors = process.communicate(timeout=1800)
        if process.returncode != 0:
            failures.append("%s: exit %d: %s" % (" ".join(command[1:3]), process.returncode, errors.decode()[-1000:]))
    assert not failures, "\n".join(failures)

    # Each watcher hears the last commit's value; what it heard before went up in commit order
    # (a watcher reads the file, so commits close together are heard as the last of them).
    for watcher in watchers:
        heard = []
        while not heard or heard[-1] != total:
            heard.append(heard_value(watcher.line()))
            assert heard[-1] is not None and 0 < heard[-1] <= total, heard[-20:]
        assert heard == sorted(set(heard)), "heard out of commit order or twice: %s" % heard
        assert watcher.stop() == 0, watcher.process.stderr.read().decode()

    expected = {"shared": total}
    expected.update({"swift-%d" % i: INCREMENTS for i in range(SWIFT_WRITERS)})
    expected.update({"python-%d" % i: INCREMENTS for i in range(PYTHON_WRITERS)})
    assert domain_values(environment) == expected
    # The Swift library reads the same totals from the same file.
    for key, value in sorted(expected.items()):
        assert swift_reads(worker, environment, key) == str(value), key


# ---------------------------------------------------------------- watchers

STEPS, BURST = 50, 200
CHANGED = re.compile(r"^changed (?:integer\()?(-?\d+|nil)\)?(?: .*)?$")


def heard_value(line):
    """The value of an `observe-key` line of either language: "changed 5" (Python) or
    "changed integer(5) THREAD WAKEUPS" (Swift)."""
    match = CHANGED.match(line)
    assert match, "not an observe-key line: %r" % line
    return None if match.group(1) == "nil" else int(match.group(1))


def watch_while_other_writes(writer_command, watcher_command, environment):
    """The writer commits 1…STEPS one at a time, each only after the watcher heard the one
    before: the watcher must hear each, exactly once, in order. Then BURST more commits with no
    waiting: the watcher may hear some only as part of a later one (it reads the file, not a
    log), but what it hears must go up in commit order and end at the last commit's value."""
    writer = Peer(writer_command, environment)
    assert writer.line() == "ready"
    # The watcher starts once the file holds 0, so its first change is 1.
    watcher = Peer(watcher_command, environment)
    try:
        assert watcher.line() == "ready"
        heard = []
        for value in range(1, STEPS + 1):
            writer.send(str(value))
            assert writer.line() == str(value)
            heard.append(heard_value(watcher.line()))
        assert heard == list(range(1, STEPS + 1))

        last = STEPS + BURST
        for value in range(STEPS + 1, last + 1):
            writer.send(str(value))
        for value in range(STEPS + 1, last + 1):
            assert writer.line() == str(value)
        burst = []
        while not burst or burst[-1] != last:
            burst.append(heard_value(watcher.line()))
            assert burst[-1] is not None and STEPS < burst[-1] <= last, burst
        assert burst == sorted(set(burst)), "heard out of commit order or twice: %s" % burst
    finally:
        writer_status = writer.stop()
        watcher_status = watcher.stop()
    assert writer_status == 0, writer.process.stderr.read().decode()
    assert watcher_status == 0, watcher.process.stderr.read().decode()
    # Nothing more after the last commit: no late or repeated delivery.
    assert watcher.buffer.decode().strip() == "" and watcher.process.stdout.read().decode().strip() == ""


def test_python_watcher_hears_swift_writer(worker, environment):
    watch_while_other_writes([worker, "write-on-request", DOMAIN, "counter"],
                             python_command("observe-key", DOMAIN, "counter"), environment)


def test_swift_watcher_hears_python_writer(worker, environment):
    watch_while_other_writes(python_command("write-on-request", DOMAIN, "counter"),
                             [worker, "observe-key", DOMAIN, "counter"], environment)
