import Foundation
import TestSupport

/// Runs `PreferencesWorker log MODE MESSAGE PAIRS...` in a private mount namespace whose
/// /run is a fresh tmpfs, after `setUp` (shell commands) has prepared it, and returns its
/// status and output (standard output and error together; the worker prints nothing else).
///
/// A private namespace makes "no journald" real for the child alone: the journal socket the
/// child sees is whatever `setUp` left at /run/systemd/journal/socket, while the test run's
/// journald, and any other on the machine, stays untouched. The mount namespace is made inside
/// a user namespace (`unshare --user --map-root-user`), so an ordinary user may mount the
/// tmpfs too; the tests that use this check ``Privileges/canCreateUserNamespaces`` first.
func runWorkerWithoutJournal(setUp: String, mode: String, message: String, pairs: [String]) throws -> ProgramResult {
    try runWorkerWithoutJournal(setUp: setUp, arguments: ["log", mode, message] + pairs)
}

/// Runs `PreferencesWorker ARGUMENTS...` in a private mount namespace whose /run is a fresh
/// tmpfs prepared by `setUp`, with `environment` added to the test's, and returns its status
/// and output (standard output and error together).
func runWorkerWithoutJournal(setUp: String, arguments: [String], environment: [String: String] = [:]) throws -> ProgramResult {
    let script = """
        set -e
        mount -t tmpfs tmpfs /run
        mkdir -p /run/systemd/journal
        \(setUp)
        exec "$@"
        """
    let assignments = environment.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
    return try run(
        "unshare", ["--user", "--map-root-user", "--mount", "--propagation", "private", "sh", "-c", script, "sh", "env"] + assignments + [workerPath] + arguments)
}

/// Shell commands that leave a stale journal socket: a UNIX datagram socket bound at the path
/// and closed again, as a killed journald leaves it.
let staleSocketSetUp = """
    python3 -c 'import socket; s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); s.bind("/run/systemd/journal/socket"); s.close()'
    test -S /run/systemd/journal/socket
    """
