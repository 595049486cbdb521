#!/usr/bin/env bash
# EIO on fsync, through the store's retry: the first flush's fsync fails (strace
# `inject=fsync:error=EIO:when=1`), the next flush must write a new temporary file, and the
# failed file's descriptor must never be fsynced again (its data may be lost whatever a
# second fsync says). Usage: bash Tests/Scripts/fsync-eio-retry.sh [BIN-PATH]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
bin="${1:-$(swift build --show-bin-path)}"
home="$(mktemp -d)"
trap 'rm -rf "$home"' EXIT
chmod 700 "$home"
PREFERENCES_HOME="$home" strace -f -qq -o "$home.log" -e trace=openat,fsync,close,rename \
    -e inject=fsync:error=EIO:when=1 "$bin/PreferencesWorker" flush-retry com.example.eio
exec python3 - "$home" <<'PY'
import os, plistlib, re, sys
home = sys.argv[1]
lines = open(home + ".log").read().splitlines()
os.remove(home + ".log")
temp_opens = []  # (line number, path, fd)
for number, line in enumerate(lines):
    m = re.search(r'openat\(AT_FDCWD, "([^"]*\.tmp-[^"]*)".* = (\d+)$', line)
    if m:
        temp_opens.append((number, m.group(1), m.group(2)))
failed = [n for n, line in enumerate(lines) if "fsync(" in line and "EIO" in line and "INJECTED" in line]
problems = []
if len(failed) != 1: problems.append("expected one injected fsync failure, saw %d" % len(failed))
if len(temp_opens) < 2: problems.append("expected a second temporary file, saw %d" % len(temp_opens))
if not problems:
    first_line, first_path, first_fd = temp_opens[0]
    second_line, second_path, second_fd = temp_opens[1]
    if second_path == first_path: problems.append("the retry reused the temporary file name")
    # Between the failure and the close of its descriptor, no second fsync of it.
    for line in lines[failed[0] + 1:]:
        if re.search(r"close\(%s\)" % first_fd, line): break
        if re.search(r"fsync\(%s\)" % first_fd, line): problems.append("the failed descriptor was fsynced again: " + line)
    if os.path.exists(first_path): problems.append("the failed temporary file is still there")
with open(os.path.join(home, "com.example.eio.plist"), "rb") as f:
    if plistlib.load(f) != {"retried": "value"}: problems.append("the retry did not write the key")
leftover = [n for n in os.listdir(home) if ".tmp-" in n]
if leftover: problems.append("temporary files left: %s" % leftover)
for line in lines:
    if "fsync" in line or ".tmp-" in line: print("  " + line)
print("fsync-eio-retry: " + ("; ".join(problems) if problems else "ok: new temporary file on retry, the failed one never fsynced again, key written"))
sys.exit(1 if problems else 0)
PY
