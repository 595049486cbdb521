#!/usr/bin/env bash
# Runs a test command and, if it fails, prints its failures again at the end: CI keeps only
# the tail of a run's output, and a failing test's lines are otherwise hundreds of lines
# above it (the failure of stop 47 showed only "2 issues (including 1 known issue)").
#
# Usage: bash Tests/Scripts/with-failure-summary.sh COMMAND [ARGUMENT...]
# The command's standard output and error are passed through as they come (merged) and
# copied to a temporary file; its exit status is this script's.
set -uo pipefail

log=$(mktemp)
trap 'rm -f -- "$log"' EXIT
"$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
if (( status != 0 )); then
    echo "with-failure-summary: $* exited $status; what failed (Swift Testing's ✘ lines, with their comments):"
    # Each issue line, and the ↳ lines (the expectation's comment) right after it.
    awk '/✘/ { print; comment = 1; next } comment && /^↳/ { print; next } { comment = 0 }' "$log" \
        | cut -c1-600 | head -n 80
fi
exit "$status"
