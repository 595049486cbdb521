#!/usr/bin/env bash
# Runs a test command and, if it fails, prints its failures again at the end: CI keeps only
# the tail of a run's output, and a failing test's lines are otherwise hundreds of lines
# above it (RELIABILITY.md, bug 13).
#
# Usage: bash Tests/Scripts/with-failure-summary.sh COMMAND [ARGUMENT...]
# The command's standard output and error are passed through as they come (merged) and
# copied to a temporary file; its exit status is this script's. NO_COLOR is set for it:
# through the pipe Swift Testing would otherwise colour its detail lines, and the summary
# matches them by their first character.
set -uo pipefail

log=$(mktemp)
trap 'rm -f -- "$log"' EXIT
NO_COLOR=1 "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
if (( status != 0 )); then
    echo "with-failure-summary: $* exited $status; what failed (Swift Testing's ✘ lines, with their details):"
    # Each ✘ line and the detail lines right after it: ↳ comments, ± differences, and the
    # indented continuations of either.
    summary=$(awk '/✘/ { print; detail = 1; next }
                   detail && (/^↳/ || /^±/ || /^[ \t]/) { print; next }
                   { detail = 0 }' "$log" | cut -c1-600)
    lines=$(grep -c '' <<<"$summary")
    if [[ -z $summary ]]; then
        echo "with-failure-summary: no ✘ lines: it failed before or outside Swift Testing's run (see above)"
    elif (( lines > 80 )); then
        head -n 70 <<<"$summary"
        echo "with-failure-summary: … $(( lines - 80 )) lines left out; the last 10:"
        tail -n 10 <<<"$summary"
    else
        printf '%s\n' "$summary"
    fi
fi
exit "$status"
