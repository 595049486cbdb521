#!/usr/bin/env bash
# The thread stress test (16 threads × 10,000 mixed operations on one store) under the
# thread sanitizer, in its own build directory (.build-tsan, a full rebuild: several
# minutes). Any data race report fails the run. Usage: bash Tests/Scripts/tsan.sh
#
# Known: it fails today. Swift's Synchronization.Mutex on Linux synchronises through futexes
# TSan does not see, so every access to Mutex-protected state is reported as a "Swift
# access race": eight threads writing a Mutex<[Int: String]> in a 10-line program get the
# same warning. Until that is fixed or suppressed, read its reports for accesses outside
# withLock (see RELIABILITY.md).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
swift build --build-tests --sanitize=thread --build-path .build-tsan
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
status=0
TSAN_OPTIONS="halt_on_error=0" swift test --skip-build --sanitize=thread --build-path .build-tsan \
    --filter "ThreadStressTests" 2>&1 | tee "$log" || status=$?
races=$(grep -c "WARNING: ThreadSanitizer" "$log" || true)
echo "tsan.sh: exit $status, $races ThreadSanitizer warnings"
[ "$status" -eq 0 ] && [ "$races" -eq 0 ]
