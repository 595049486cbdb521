#!/usr/bin/env bash
# Runs a command (normally `swift test --skip-build`) with a real systemd-journald of its own,
# which the JournaldLogging tests write to and read back with journalctl:
#
#   bash Tests/Scripts/with-journald.sh swift test --skip-build --filter JournaldLoggingTests
#
# The command runs in a private mount namespace with fresh tmpfs file systems on /run/systemd
# and /run/log, so this journald's socket and journal files exist only for it: nothing is left
# behind (a killed journald leaves a stale socket, and /run/systemd/system would make
# sd_booted() true for everyone), and another journald on the machine is neither used nor
# disturbed. journald keeps entries in /run/log/journal because no flush to /var is requested.
# Needs root, unshare(1) and /lib/systemd/systemd-journald (the systemd package).
# Exports JOURNALD_LOGGING_TEST_JOURNAL (the socket's path); the tests that need a live
# journald run only when it is set, and then fail if the journal does not work.
set -euo pipefail

if [[ "${1:-}" != "--in-namespace" ]]; then
    exec unshare --mount --propagation private bash "${BASH_SOURCE[0]}" --in-namespace "$@"
fi
shift

mkdir -p /run/systemd /run/log
mount -t tmpfs -o mode=0755 tmpfs /run/systemd
mount -t tmpfs -o mode=0755 tmpfs /run/log
mkdir -p /run/systemd/journal

setsid /lib/systemd/systemd-journald &
journald=$!
# Stop journald by the PID started here, never by name.
trap 'kill -TERM "$journald" 2>/dev/null; wait "$journald" 2>/dev/null || true' EXIT

socket=/run/systemd/journal/socket
# shellcheck source=journald-socket.sh
source "$(dirname "${BASH_SOURCE[0]}")/journald-socket.sh"
wait_for_journal_socket "$journald"

export JOURNALD_LOGGING_TEST_JOURNAL=$socket
status=0
"$@" || status=$?
exit "$status"
