import FleetPolicy
import Logging
import PreferencesService
import ServiceLifecycle
import Synchronization

/// The follower as a service of the `ServiceGroup`: tells systemd it is ready once the first
/// whole read is applied, or once etcd is found away (the managed files then stay as the
/// last run left them, which is the policy to keep), and keeps `STATUS=` current.
struct FleetService: Service {
    let follower: FleetFollower
    let notifier: SystemdNotifier
    let logger: Logger

    func run() async {
        let readiness = Readiness()
        // A graceful shutdown (SIGTERM) cancels the follower: its watch request and any
        // back-off end at once, and a managed-file write under way finishes first (it is
        // synchronous on the follower's task).
        await cancelWhenGracefulShutdown {
            await follower.run { event in
                switch event {
                case .synchronized(let revision):
                    notifier.status("following at revision \(revision)")
                case .applied(let revision, _):
                    notifier.status("following at revision \(revision)")
                case .unavailable(let reason):
                    notifier.status("etcd unavailable, keeping the last policy: \(reason)")
                }
                if readiness.becomeReady() { notifier.ready() }
            }
        }
        notifier.stopping()
    }
}

/// Whether READY=1 was sent: sent once.
private final class Readiness: Sendable {
    private let sent = Mutex(false)

    /// True the first time only.
    func becomeReady() -> Bool {
        sent.withLock { sent in
            defer { sent = true }
            return !sent
        }
    }
}

/// The status reporter as a service of the `ServiceGroup`: puts statuses until a graceful
/// shutdown, then revokes the lease so this host shows as silent at once.
struct FleetStatusService: Service {
    let reporter: FleetStatusReporter

    func run() async {
        await cancelWhenGracefulShutdown {
            await reporter.run()
        }
    }
}
