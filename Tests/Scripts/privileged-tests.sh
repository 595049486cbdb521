#!/usr/bin/env bash
# Runs as root, beside a journald of its own (with-journald.sh), every library test that the
# ordinary user's run skipped: those that need root, a capability, journald or a kernel feature
# the user lacks. With Tests/Scripts/unprivileged-tests.sh before it, every test of the library
# runs somewhere, and none twice.
#
#   bash Tests/Scripts/unprivileged-tests.sh --events EVENTS
#   bash Tests/Scripts/privileged-tests.sh EVENTS
#
# EVENTS is the Swift Testing event stream of that run; the skipped tests and suites are read
# from its `testSkipped` events, by ID.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

events=${1:?usage: privileged-tests.sh EVENTS (the event stream of unprivileged-tests.sh --events)}
[[ $(id -u) -eq 0 ]] || { echo "privileged-tests: needs root" >&2; exit 1; }

# One regular expression matching exactly the skipped IDs (a suite's ID covers its tests).
selection=$(python3 - "$events" <<'PY'
import json, re, sys

skipped = set()
with open(sys.argv[1]) as stream:
    for line in stream:
        record = json.loads(line)
        payload = record.get("payload", {})
        if record.get("kind") == "event" and payload.get("kind") == "testSkipped":
            skipped.add(payload["testID"])
# A test inside a skipped suite is covered by the suite's ID.
kept = sorted(i for i in skipped if not any(i.startswith(s + "/") for s in skipped))
print(len(kept))
print("|".join("^" + re.escape(i) + "($|/)" for i in kept))
PY
)
count=$(head -1 <<<"$selection")
filter=$(tail -n +2 <<<"$selection")
if [[ -z $filter ]]; then
    echo "privileged-tests: the unprivileged run skipped nothing"
    exit 0
fi
echo "privileged-tests: running as root what the unprivileged run skipped: $count tests and suites"
exec bash Tests/Scripts/with-journald.sh swift test --skip-build --filter "$filter"
