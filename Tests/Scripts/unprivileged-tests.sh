#!/usr/bin/env bash
# The library's tests as an ordinary user, exactly as a contributor's plain `swift test` runs
# them, with no suite skipped by this script: a test that needs root, a capability, journald or
# a kernel feature must check for it and be skipped with a reason, never fail (issue 30). Run
# as root (it creates the user); anyone else is already testing unprivileged, so the script
# says so and exits 0.
#
# Usage: bash Tests/Scripts/unprivileged-tests.sh [--events FILE] [swift-testing arguments]
# With --events, Swift Testing's event stream (JSON lines) is copied to FILE: which tests ran,
# and which were skipped, for Tests/Scripts/privileged-tests.sh to run as root. The user is
# $UNPRIVILEGED_USER (default preferences-tester), created with a home if missing.
#
# What runs: the test binary the root build made (`swift build --build-tests` first), started
# as that user with its own HOME and a clean environment, exactly as `swift test --skip-build`
# starts it. Nothing is built again: a copy built by the user took 12 minutes on the 2-core
# machine, which the suite's budget has no room for, and the code under test is the same.
# The build directory must be readable by the user (a clone under /tmp or /work is; one under
# root's home is not, and the script says so).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

if [[ $(id -u) -ne 0 ]]; then
    echo "unprivileged-tests: skipped: not running as root, which creating the test user needs (run as an ordinary user, swift test is already unprivileged)"
    exit 0
fi

user="${UNPRIVILEGED_USER:-preferences-tester}"
if ! id -u "$user" >/dev/null 2>&1; then
    useradd --create-home --shell /bin/bash "$user"
fi
home="$(getent passwd "$user" | cut -d: -f6)"

tests="$(swift build --show-bin-path)/swift-preferencesPackageTests.xctest"
[[ -x $tests ]] || { echo "unprivileged-tests: $tests is missing: run swift build --build-tests first" >&2; exit 1; }
if ! runuser -u "$user" -- test -x "$tests"; then
    echo "unprivileged-tests: $user cannot run $tests: a directory above it is not searchable by others" >&2
    exit 1
fi

events=""
if [[ ${1:-} == --events ]]; then
    events=$2
    shift 2
fi
stream=()
if [[ -n $events ]]; then
    # Written where the user may write, then copied out.
    stream_directory=$(mktemp -d)
    chown "$user" "$stream_directory"
    trap 'rm -rf -- "$stream_directory"' EXIT
    stream=(--event-stream-output-path "$stream_directory/events.jsonl" --event-stream-version 0)
fi

# A clean environment with the user's own HOME and USER, as for a contributor; the toolchain
# first on PATH (tests run swiftc and swift), then the system's.
toolchain="$(dirname "$(command -v swift)")"
status=0
echo "unprivileged-tests: as $user: $tests $*"
runuser -u "$user" -- env -i HOME="$home" USER="$user" LOGNAME="$user" LANG=C.UTF-8 \
    PATH="$toolchain:/usr/local/bin:/usr/bin:/bin" \
    "$tests" --testing-library swift-testing "${stream[@]}" "$@" || status=$?
if [[ -n $events ]]; then cp -- "$stream_directory/events.jsonl" "$events"; fi
echo "unprivileged-tests: exit $status"
exit "$status"
