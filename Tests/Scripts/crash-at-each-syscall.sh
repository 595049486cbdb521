#!/usr/bin/env bash
# Kills a writer at each system call of one flush, with strace's fault injection
# (`-e inject=SYSCALL:signal=SIGKILL:when=N`), and checks the file is on the predicted side
# of the rename: killed at or before `rename` → the old state (or, for the very first
# creation, no file); killed after it → the new state, complete. After each kill the next
# flush must succeed and leave no temporary file.
#
# Usage: bash Tests/Scripts/crash-at-each-syscall.sh [BIN-PATH]   (default: swift build --show-bin-path)
# Needs strace and python3 (Tests/Scripts/install-dependencies.sh installs them).
#
# How each call is found: a reference run under `strace -f` records the calls the worker's
# main thread makes between two marker calls (`flush-once` writes with the atomic
# read-modify-write, so the whole flush runs on that thread). For the k-th call, named S and
# the M-th S of that thread, a fresh run is killed at `inject=S:signal=SIGKILL:when=M`
# (strace counts per thread). The kill is verified from the trace: the main thread's M-th
# S is the last thing it did. futex and gettid are skipped: their number depends on timing.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
bin="${1:-$(swift build --show-bin-path)}"
command -v strace >/dev/null || { echo "strace is not installed: run Tests/Scripts/install-dependencies.sh" >&2; exit 1; }
exec python3 - "$bin/PreferencesWorker" <<'PY'
import os, plistlib, re, shutil, subprocess, sys, tempfile

worker = sys.argv[1]
domain = "com.example.syscalls"
skipped = {"futex", "gettid"}
line_re = re.compile(r"^(\d+)\s+(?:<\.\.\. )?([a-z0-9_]+)[( ]")

def run(home, strace_args, log):
    env = dict(os.environ, PREFERENCES_HOME=home)
    return subprocess.run(["strace", "-f", "-qq", "-o", log] + strace_args + [worker, "flush-once", domain, "5"],
                          env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)

def generation(home):
    path = os.path.join(home, domain + ".plist")
    if not os.path.exists(path):
        return None
    with open(path, "rb") as f:
        values = plistlib.load(f)  # a partial file raises here
    state = values["state"]
    assert all(state["k%d" % i] == state["generation"] for i in range(5)), "a partial state: %r" % state
    return state["generation"]

def temporaries(home):
    # Beside the domain files and in the staging directory, where writers make them.
    staging = os.path.join(home, ".swift-preferences-staging")
    names = os.listdir(home) + (os.listdir(staging) if os.path.isdir(staging) else [])
    return [n for n in names if ".tmp-" in n]

def flush_calls(log):
    """The main thread's calls between the markers: (name, per-thread occurrence)."""
    main, counts, calls, inside = None, {}, [], False
    for line in open(log):
        m = line_re.match(line)
        if not m or "resumed>" in line:
            continue
        tid, name = int(m.group(1)), m.group(2)
        main = main or tid
        if tid != main:
            continue
        counts[name] = counts.get(name, 0) + 1
        if "/swift-preferences-flush-begin" in line:
            inside = True
            continue
        if "/swift-preferences-flush-end" in line:
            break
        if inside and name not in skipped:
            calls.append((name, counts[name]))
    return calls

def killed_at(log, name):
    """How many `name` calls the main thread started, and whether the process was SIGKILLed."""
    main, count, killed = None, 0, False
    for line in open(log):
        m = line_re.match(line)
        if "+++ killed by SIGKILL" in line:
            killed = True
        if not m or "resumed>" in line:
            continue
        main = main or int(m.group(1))
        if int(m.group(1)) == main and m.group(2) == name:
            count += 1
    return count, killed

failures, results = 0, []
work = tempfile.mkdtemp(prefix="swift-preferences-syscalls-")
try:
    for scenario in ("update", "create"):
        template = os.path.join(work, scenario + "-template")
        os.makedirs(template, mode=0o700)
        if scenario == "update":
            subprocess.run([worker, "flush-once", domain, "5"], env=dict(os.environ, PREFERENCES_HOME=template), check=True, stdout=subprocess.DEVNULL)
        before = generation(template)
        reference = os.path.join(work, scenario + "-reference.log")
        home = os.path.join(work, scenario + "-reference")
        shutil.copytree(template, home)
        run(home, [], reference)
        calls = flush_calls(reference)
        rename_index = max(i for i, (name, _) in enumerate(calls) if name == "rename")
        unverified = 0
        for index, (name, occurrence) in enumerate(calls):
            expected = before if index <= rename_index else (before or 0) + 1
            for attempt in range(3):
                home = os.path.join(work, "%s-%d-%d" % (scenario, index, attempt))
                shutil.copytree(template, home)
                log = home + ".log"
                run(home, ["-e", "trace=" + name, "-e", "inject=%s:signal=SIGKILL:when=%d" % (name, occurrence)], log)
                count, killed = killed_at(log, name)
                if killed and count == occurrence:
                    break
            else:
                unverified += 1
                results.append("%s #%d %s(%d): kill not verified after 3 tries" % (scenario, index, name, occurrence))
                continue
            try:
                found = generation(home)
            except Exception as error:
                found = "undecodable: %s" % error
            left = temporaries(home)
            # The next flush, unkilled, must succeed and clean up.
            subprocess.run([worker, "flush-once", domain, "5"], env=dict(os.environ, PREFERENCES_HOME=home), check=True, stdout=subprocess.DEVNULL)
            after = generation(home)
            ok = found == expected and not temporaries(home) and after == (found or 0) + 1
            if not ok:
                failures += 1
            results.append("%s #%d kill at %s (its #%d): %s, expected %s; temp files left %d, removed by next flush: %s%s" % (
                scenario, index, name, occurrence, found, expected, len(left), not temporaries(home), "" if ok else "  <-- FAIL"))
        print("%s: %d calls in the flush, rename is #%d, %d kills verified" % (scenario, len(calls), rename_index, len(calls) - unverified))
finally:
    shutil.rmtree(work, ignore_errors=True)
for line in results:
    print("  " + line)
print("crash-at-each-syscall: %d failures" % failures)
sys.exit(1 if failures else 0)
PY
