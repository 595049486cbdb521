#!/usr/bin/env bash
# EIO on fsync, through the store's retry: the first fsync of a thread fails (strace
# `inject=fsync:error=EIO:when=1`, counted per thread, so the explicit flush's and perhaps
# the background flush's), the next flush must write a new temporary file, and the
# failed file's descriptor must never be fsynced again (its data may be lost whatever a
# second fsync says). Usage: bash Tests/Scripts/fsync-eio-retry.sh [BIN-PATH]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
bin="${1:-$(swift build --show-bin-path)}"
home="$(mktemp -d)"
runtime="$(mktemp -d)"
trap 'rm -rf "$home" "$runtime"' EXIT
chmod 700 "$home" "$runtime"
# The commit counters are made (and synced) by a first process that only reads: in the traced
# one, the first fsync of the thread must be the domain file's, not a new counter's.
export XDG_RUNTIME_DIR="$runtime"
PREFERENCES_HOME="$home" "$bin/PreferencesWorker" read com.example.eio retried >/dev/null
PREFERENCES_HOME="$home" strace -f -qq -o "$home.log" -e trace=openat,fsync,close,rename \
    -e inject=fsync:error=EIO:when=1 "$bin/PreferencesWorker" flush-retry com.example.eio
exec python3 - "$home" <<'PY'
import os, plistlib, re, sys
home = sys.argv[1]
lines = open(home + ".log").read().splitlines()
os.remove(home + ".log")
temp_opens = []  # (line number, path, fd)
for number, line in enumerate(lines):
    # The domain's temporary files as they are created (O_CREAT): not the read-only reopen
    # that keeps a written one's status, nor the commit counter's own temporary file.
    m = re.search(r'openat\(AT_FDCWD, "([^"]*\.plist\.tmp-[^"]*)", [^)]*O_CREAT.* = (\d+)$', line)
    if m:
        temp_opens.append((number, m.group(1), m.group(2)))
# strace counts per thread, so the background flush's first fsync may fail too: every
# injected failure is checked.
failed = [n for n, line in enumerate(lines) if "fsync(" in line and "EIO" in line and "INJECTED" in line]
problems = []
if not failed: problems.append("no injected fsync failure")
if len(temp_opens) < len(failed) + 1: problems.append("expected a new temporary file per attempt, saw %d for %d failures" % (len(temp_opens), len(failed)))
if len(set(path for _, path, _ in temp_opens)) != len(temp_opens): problems.append("a temporary file name was reused")
for failure in failed:
    fd = re.search(r"fsync\((\d+)", lines[failure]).group(1)
    # Between the failure and the close of its descriptor, no second fsync of it.
    for line in lines[failure + 1:]:
        if re.search(r"close\(%s\)" % fd, line): break
        if re.search(r"fsync\(%s\)" % fd, line): problems.append("a failed descriptor was fsynced again: " + line)
for _, path, _ in temp_opens:
    if os.path.exists(path): problems.append("temporary file %s is still there" % path)
with open(os.path.join(home, "com.example.eio.plist"), "rb") as f:
    if plistlib.load(f) != {"retried": "value"}: problems.append("the retry did not write the key")
staging = os.path.join(home, ".swift-preferences-staging")
leftover = [n for n in os.listdir(home) + (os.listdir(staging) if os.path.isdir(staging) else []) if ".plist.tmp-" in n]
# Writers make their temporary files in the staging directory, out of the watched one.
if not any(os.path.dirname(path) == staging for _, path, _ in temp_opens): problems.append("no temporary file was made in the staging directory")
if leftover: problems.append("temporary files left: %s" % leftover)
for line in lines:
    if "fsync" in line or ".tmp-" in line: print("  " + line)
print("fsync-eio-retry: " + ("; ".join(problems) if problems else "ok: %d injected failure(s), %d temporary files, none reused, no failed descriptor fsynced again, key written" % (len(failed), len(temp_opens))))
sys.exit(1 if problems else 0)
PY
