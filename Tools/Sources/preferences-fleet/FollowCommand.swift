import ArgumentParser
import EtcdGateway
import FleetPolicy
import Foundation
import JournaldLogging
import Logging
import Preferences
import PreferencesService
import ServiceLifecycle
import UnixSignals

/// `preferences-fleet follow`: follows fleet policy in etcd and writes this machine's managed layer
/// (`systemd/preferences-fleet.service`).
struct FollowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "follow",
        abstract: "Follow fleet policy in etcd and write it into this machine's managed (forced) preferences.",
        discussion: """
            \(FleetHelpText.layout)
            Per key of a domain, the host's value beats the groups' (a later --group beats an \
            earlier one), which beat the fleet's; a running rollout that reaches this machine \
            stands in for the fleet's value. The merge is written to \
            <system dir>/managed/<domain>.plist, where the system directory is \
            $PREFERENCES_SYSTEM_DIR, else /etc/preferences: one atomic replace per etcd \
            revision, mode 0644, owned by the user running this (root), never through a link. \
            A domain whose keys are all deleted loses its managed file. Every running program \
            sees the change as a change of its forced layer; `defaults explain DOMAIN KEY` names \
            the etcd key and revision a forced value came from.

            A value that is not a property-list dictionary, is larger than the size limit \
            (1 MiB), or sits under a key whose domain is not a valid domain name is refused \
            with a journald warning, and the key keeps its previous value. While etcd is away \
            the files are kept as they are; the service follows again from the revision after \
            the last one it applied, and reads the whole prefix again after a compaction.

            After each change it applies, it reports at <prefix>status/<hostname>/<domain> \
            (JSON: revision, digest, valid, reasons, time) what it wrote, on an etcd lease it \
            renews (--status-lease): a value the domain's schema on this machine refuses is \
            not applied (the key keeps its previous value) and is named with the reason. It \
            enrolls at <prefix>status/<hostname> with its groups. Writing a status never holds \
            up applying policy; the newest one is kept while etcd is away. A stopped service \
            revokes its lease, so the machine shows as silent (preferences-fleet status).

            With etcd authentication on, a machine's role needs read on the prefix and \
            read-write on <prefix>status/ (etcdctl role grant-permission ROLE --prefix=true \
            readwrite /preferences/status/). With --user, etcd 3.4 refuses a request through its \
            gateway that also carries a client certificate with a common name (CN): give such \
            a certificate no CN, or use a password alone.

            Examples:
              preferences-fleet --endpoints http://10.0.0.1:2379,http://10.0.0.2:2379
              preferences-fleet --endpoints https://etcd.example:2379 --group lab --group kiosk \\
                --cacert /etc/preferences/fleet/ca.pem --cert /etc/preferences/fleet/client.pem \\
                --key /etc/preferences/fleet/client.key
            """)

    @OptionGroup var etcd: EtcdOptions
    @Option(name: .customLong("group"), help: "A host group of this machine; repeatable, later ones stronger.")
    var groups: [String] = []
    @Option(help: "This machine's name in <prefix>hosts/<hostname>/ (default: the host name).")
    var hostname: String?
    @Option(help: "Seconds a status outlives this host's last renewal of its etcd lease: how soon a stopped host shows as silent.")
    var statusLease: Int64 = 10
    @Flag(help: "Log to standard error even where journald listens (when run by hand, or by a test).")
    var logToStandardError = false

    func validate() throws {
        guard statusLease >= 1 else { throw ValidationError("--status-lease must be at least 1 second") }
        if let hostname, !FleetLayout.isValidHostname(hostname) {
            throw ValidationError("--hostname \(hostname) cannot be a host name: it is empty, longer than 253 bytes, or holds a / or a control character")
        }
    }

    func run() async throws {
        if logToStandardError {
            LoggingSystem.bootstrap { StreamLogHandler.standardError(label: $0) }
        } else {
            LoggingSystem.bootstrap { JournaldLogHandler.makeHandler(label: $0) }
        }
        let logger = Logger(label: "preferences-fleet")
        let client = try etcd.makeClient(logger: logger)
        let machine = hostname ?? ProcessInfo.processInfo.hostName
        let files = PreferenceFiles()
        guard FleetLayout.isValidHostname(machine) else {
            throw ValidationError("this machine's name \(machine) cannot be used in etcd keys; give --hostname")
        }
        let reporter = FleetStatusReporter(
            store: EtcdStatusStore(client: client), layout: FleetLayout(prefix: etcd.prefix),
            enrolment: FleetEnrolment(host: machine, groups: groups, started: Date()), leaseSeconds: statusLease, logger: logger)
        var follower = FleetFollower(
            source: EtcdPolicySource(client: client),
            policy: FleetPolicy(prefix: etcd.prefix, groups: groups, hostname: machine, sizeLimit: files.configuration.sizeLimit),
            files: files, logger: logger)
        follower.reporter = reporter
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: [
                    .init(service: FleetService(follower: follower, notifier: SystemdNotifier(), logger: logger)),
                    .init(service: FleetStatusService(reporter: reporter)),
                ],
                gracefulShutdownSignals: [.sigterm, .sigint],
                logger: logger))
        // The client is shut down on every path: AsyncHTTPClient wants it before it goes.
        do {
            try await group.run()
        } catch {
            try? await client.shutdown()
            throw error
        }
        try await client.shutdown()
    }
}
