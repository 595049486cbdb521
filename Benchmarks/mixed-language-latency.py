"""Cross-language change latency, side by side (issue 39, item 5): Swift -> Swift, Swift -> Python,
Python -> Swift and Python -> Python, in one run on the same machine. Run by
Benchmarks/mixed-language-latency.sh, which gives the Swift worker and the package's path.

    python3 mixed-language-latency.py WORKER [CHANGES] [SAMPLES-DIRECTORY]
    python3 mixed-language-latency.py writer DOMAIN KEY      (the Python writer)
    python3 mixed-language-latency.py watcher DOMAIN KEY     (the Python watcher)

A sample is one change: the writer takes CLOCK_MONOTONIC just before the call that commits
(Swift: `set` then `flush()`, `PreferencesWorker timed-write`; Python: `Domain.set`, which
commits durably before it returns) and writes that time as the value; the watcher, in another
process, takes CLOCK_MONOTONIC as its change callback starts (`PreferencesWorker timed-watch`;
Python: `Domain.watch`'s callback, on the package's watcher thread) and reports it. Python's
`time.monotonic_ns()` and Swift's `clock_gettime(CLOCK_MONOTONIC)` read the same clock.

The four pairs run at once, each on a domain of its own, all eight processes started before the
first change; changes go to the pairs in a new random order each round, so the four rows share
the machine's state and load. One change at a time in the whole run: the next is made only after
the last was heard, then a random pause of 2-10 ms (so each watcher goes back to sleep, as it
does between real changes). The first 10 changes of each pair are not counted (first-use costs).
"""

import os
import random
import select
import shutil
import subprocess
import sys
import tempfile
import time

WARM_UP = 10


def say(line):
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def python_writer(domain, key):
    from swift_preferences import Domain
    preferences = Domain(domain)
    preferences.set(key, 0)
    say("ready")
    for _ in sys.stdin:
        sent = time.monotonic_ns()
        preferences.set(key, sent)
        say(str(sent))


def python_watcher(domain, key):
    from swift_preferences import Domain

    def heard(changed, old, new):
        now = time.monotonic_ns()
        if changed == key:
            say("seen %s %d" % (new, now))

    handle = Domain(domain).watch(heard)
    say("ready")
    sys.stdin.read()
    handle.close()


class Peer:
    def __init__(self, command, environment):
        self.command = command
        self.process = subprocess.Popen(command, env=environment, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.buffer = b""

    def line(self, timeout=60.0):
        while b"\n" not in self.buffer:
            ready, _, _ = select.select([self.process.stdout], [], [], timeout)
            if not ready:
                sys.exit("mixed-language-latency: %s said nothing for %d s" % (" ".join(self.command[-3:]), timeout))
            chunk = os.read(self.process.stdout.fileno(), 65536)
            if not chunk:
                sys.exit("mixed-language-latency: %s ended" % " ".join(self.command[-3:]))
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return line.decode()

    def send(self, text):
        self.process.stdin.write((text + "\n").encode())
        self.process.stdin.flush()

    def stop(self):
        self.process.stdin.close()
        self.process.wait(timeout=60)


def percentile(ordered, p):
    return ordered[min(len(ordered) - 1, int(len(ordered) * p))]


def measure(worker, changes, samples_directory):
    work = tempfile.mkdtemp(prefix="mixed-language-latency-")
    try:
        run(worker, changes, samples_directory, work)
    finally:
        # Also when a peer failed (sys.exit): no domain files are left behind.
        shutil.rmtree(work, ignore_errors=True)


def run(worker, changes, samples_directory, work):
    here = os.path.abspath(__file__)
    home = os.path.join(work, "home")
    runtime = os.path.join(work, "runtime")
    for directory in (home, runtime):
        os.makedirs(directory, mode=0o700)
    environment = {k: v for k, v in os.environ.items() if not k.startswith(("PREFERENCES_", "XDG_"))}
    environment.update(HOME=home, PREFERENCES_HOME=home + "/preferences", PREFERENCES_SYSTEM_DIR=work + "/system",
                       PREFERENCES_SCHEMA_PATH=work + "/schemas", XDG_RUNTIME_DIR=runtime, XDG_CONFIG_HOME=home + "/.config",
                       XDG_DATA_HOME=home + "/.local/share", XDG_DATA_DIRS=work + "/data")
    commands = {
        "swift": {"writer": lambda d: [worker, "timed-write", d, "Probe"], "watcher": lambda d: [worker, "timed-watch", d, "Probe"]},
        "python": {"writer": lambda d: [sys.executable, here, "writer", d, "Probe"],
                   "watcher": lambda d: [sys.executable, here, "watcher", d, "Probe"]},
    }
    pairs = [("swift", "swift"), ("swift", "python"), ("python", "swift"), ("python", "python")]
    peers = {}
    for writer, watcher in pairs:
        domain = "com.example.latency.%s-%s" % (writer, watcher)
        w = Peer(commands[writer]["writer"](domain), environment)
        if w.line() != "ready":
            sys.exit("mixed-language-latency: the %s writer did not start" % writer)
        # The watcher starts once the domain's file exists.
        v = Peer(commands[watcher]["watcher"](domain), environment)
        if v.line() != "ready":
            sys.exit("mixed-language-latency: the %s watcher did not start" % watcher)
        peers[(writer, watcher)] = (w, v)

    samples = {pair: [] for pair in pairs}
    load_start = open("/proc/loadavg").read().split()[:3]
    started = time.monotonic()
    for round_number in range(WARM_UP + changes):
        order = list(pairs)
        random.shuffle(order)
        for pair in order:
            w, v = peers[pair]
            w.send("")
            sent = int(w.line())
            while True:
                fields = v.line().split()
                if fields[0] == "seen" and fields[1] == str(sent):
                    break
            if round_number >= WARM_UP:
                samples[pair].append((int(fields[2]) - sent) / 1000.0)
            time.sleep(random.uniform(0.002, 0.010))
    elapsed = time.monotonic() - started
    load_end = open("/proc/loadavg").read().split()[:3]
    for w, v in peers.values():
        w.stop()
        v.stop()

    print("mixed-language-latency: %d changes per pair after %d untimed, %.0f s, %d cores" % (changes, WARM_UP, elapsed, os.cpu_count()))
    print("load average (1, 5, 15 min) at the start: %s; at the end: %s" % (" ".join(load_start), " ".join(load_end)))
    print("| writer -> watcher | samples | p50 | p90 | p99 | p99.9 | min | max |")
    print("|---|---|---|---|---|---|---|---|")
    for pair in pairs:
        ordered = sorted(samples[pair])
        figures = [percentile(ordered, p) for p in (0.5, 0.9, 0.99, 0.999)] + [ordered[0], ordered[-1]]
        print("| %s -> %s | %d | %s |" % (pair[0].capitalize(), pair[1].capitalize(), len(ordered),
                                         " | ".join(format_us(f) for f in figures)))
        if samples_directory:
            os.makedirs(samples_directory, exist_ok=True)
            with open(os.path.join(samples_directory, "%s-%s.txt" % pair), "w") as f:
                f.write("\n".join("%.3f" % s for s in samples[pair]) + "\n")


def format_us(microseconds):
    if microseconds >= 1000:
        return "%.2f ms" % (microseconds / 1000)
    return "%.0f µs" % microseconds


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "writer":
        python_writer(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 4 and sys.argv[1] == "watcher":
        python_watcher(sys.argv[2], sys.argv[3])
    elif 2 <= len(sys.argv) <= 4 and sys.argv[1] not in ("writer", "watcher"):
        measure(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 1000, sys.argv[3] if len(sys.argv) > 3 else None)
    else:
        sys.exit(__doc__)
