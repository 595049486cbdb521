# Sourced by with-journald.sh and with-systemd-user.sh: waits for the systemd-journald they
# started (PID $1) to create its socket, and fails clearly if it exits or never does.
wait_for_journal_socket() {
    local pid=$1 socket=/run/systemd/journal/socket
    for _ in $(seq 100); do
        [[ -S $socket ]] && return 0
        kill -0 "$pid" 2>/dev/null || { echo "error: systemd-journald exited" >&2; exit 1; }
        sleep 0.1
    done
    echo "error: systemd-journald made no socket at $socket" >&2
    exit 1
}
