import ArgumentParser
import EtcdGateway
import FleetPolicy
import Foundation
import Logging
import Preferences

/// `preferences-fleet status`: the administrator's view of what every host applied, from the
/// statuses the followers write (``FleetStatusReport``), and `--wait` for a change to reach
/// every live host (``FleetWaitVerdict``).
struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show which hosts applied the newest policy of each domain, which are behind, which refused values, and which are silent.",
        discussion: """
            Reads the whole prefix in one etcd request: the policy keys and each host's \
            enrolment (<prefix>status/<hostname>) and statuses (<prefix>status/<hostname>/<domain>, \
            on the host's lease, so a host that stops loses them).

            A host should have reached the newest mod revision among the keys that apply to it: \
            fleet/<domain>, rollouts/<domain>, groups/<group>/<domain> for the groups it follows, \
            hosts/<itself>/<domain>. Per domain, a host with a status is
              current     its status's revision is at least that
              behind      it is older; "since" is the time of its status
              invalid     it refused values (whether current or behind); why follows
              unreadable  its status key holds something that is not a status
            and an enrolled host that some key of the domain applies to but that has no status \
            for it is
              silent      its lease expired, or it never reported: never success
            NEWEST is the newest mod revision among all the domain's policy keys; LIVE counts the \
            hosts with a status (current + behind + unreadable).

            Known limit: etcd's range read does not show deleted keys, so a host that has not yet \
            applied the delete of a policy key still looks current.

            --wait REVISION polls (every 150 ms) until every live host of the domain (or of every \
            domain) has reported REVISION: its status's revision is at least REVISION, or it is \
            current and the newest change that concerns it is older (the change did not concern \
            it). A silent host that reports other domains (its lease is alive) is waited for \
            too: the domain is new to it. Other silent hosts are not waited for, since no status \
            will come from a dead host, but they are listed; a host that reports no domain at \
            all cannot be told from a dead one. With no live host at all, nothing has reported \
            and the wait goes on to its timeout. Use the revision etcd gave the put \
            (etcdctl put -w json).

            --json prints the report as one JSON object, keys sorted; a field whose value is not \
            known (the revision of a silent host) is left out:
              revision, time, enrolled, unreadable [{key, reason}],
              domains [{domain, newestRevision,
                        live, current, behind, invalid, silent, unreadable,
                        hosts [{host, state, revision, expected, valid, since,
                                digest, reasons [{key, reason}], problem,
                                reportsElsewhere}]}],
              wait, with --wait: {revision, reached, live,
                        outcome (reported, invalid or pending),
                        pending, invalid, silent [{host, domain, state,
                                revision, reasons [{key, reason}], problem}]}

            Exit status:
              0  the report was read; with --wait: every live host reported
                 REVISION, all valid
              1  etcd could not be read (the error says why)
              2  with --wait: every live host reported REVISION, but some refused values
              3  with --wait: the timeout passed before every live host
                 reported REVISION
              64 the command line is wrong

            Examples:
              preferences-fleet status --endpoints http://10.0.0.1:2379
              preferences-fleet status com.example.app --json \\
                --endpoints http://10.0.0.1:2379
              preferences-fleet status com.example.app --wait 412 --timeout 120 \\
                --endpoints http://10.0.0.1:2379
            """)

    /// Exit status when every live host reported the revision but some refused values.
    static let invalidExitCode: Int32 = 2
    /// Exit status when the timeout passed before every live host reported the revision.
    static let timeoutExitCode: Int32 = 3

    /// Where etcd is and how to prove who we are.
    @OptionGroup var etcd: EtcdOptions
    /// The one domain to report, or nil for every domain.
    @Argument(help: "The domain; every domain with policy or status when left out.")
    var domain: String?
    /// Whether to print JSON rather than the table.
    @Flag(help: "Print the report as JSON.")
    var json = false
    /// The etcd revision to wait for, if any.
    @Option(help: ArgumentHelp("Wait until every live host has reported this etcd revision.", valueName: "revision"))
    var wait: Int64?
    /// How long `--wait` waits, in seconds.
    @Option(help: ArgumentHelp("How long --wait waits, in seconds.", valueName: "seconds"))
    var timeout: Double = 60

    /// Refuses a domain that is not a domain name, a revision below 1 and a timeout of no time.
    func validate() throws {
        if let domain {
            do {
                _ = try DomainName(domain)
            } catch {
                throw ValidationError("\(error.description)")
            }
        }
        if let wait, wait < 1 { throw ValidationError("--wait takes an etcd revision, 1 or more") }
        guard timeout.isFinite, timeout > 0 else { throw ValidationError("--timeout takes a number of seconds above 0") }
    }

    /// Reads (and with `--wait`, reads again until the verdict), prints, and exits with the
    /// verdict's status.
    func run() async throws {
        // Standard output is the report's: the client's few log lines go to standard error.
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = .warning
            return handler
        }
        let logger = Logger(label: "preferences-fleet")
        let layout = FleetLayout(prefix: etcd.prefix)
        let (report, verdict, timedOut) = try await etcd.makeClient(logger: logger).using { client in
            guard let wait else { return (try await read(client, layout: layout), nil as FleetWaitVerdict?, false) }
            return try await waitFor(wait, client: client, layout: layout)
        }
        if json {
            var bytes = try FleetJSON.encode(StatusOutput(report: report, wait: verdict))
            bytes.append(UInt8(ascii: "\n"))
            FileHandle.standardOutput.write(Data(bytes))
        } else {
            print(report.text, terminator: "")
            if let verdict {
                print("")
                print(verdict.text(timedOut: timedOut), terminator: "")
            }
        }
        switch verdict?.outcome {
        case nil, .reported: return
        case .invalid: throw ExitCode(Self.invalidExitCode)
        case .pending: throw ExitCode(Self.timeoutExitCode)
        }
    }

    /// One read of the whole prefix, made into a report.
    ///
    /// One request rather than one for the policy part and one for `status/`: a single
    /// round trip, and the statuses and the policy revisions they are compared with come
    /// from the same etcd revision, so a put between two reads cannot make hosts look behind
    /// (or current). The whole prefix is exactly those two ranges, so nothing extra is read.
    private func read(_ client: EtcdClient, layout: FleetLayout) async throws -> FleetStatusReport {
        let range = try await client.range(prefix: Array(layout.prefix.utf8))
        let entries = range.keyValues.map { (key: String(decoding: $0.key, as: UTF8.self), value: $0.value, revision: $0.modRevision) }
        return FleetStatusReport(layout: layout, revision: range.revision, entries: entries, domain: domain, now: Date())
    }

    /// Reads until the verdict on `revision` is no longer pending or the timeout passed.
    ///
    /// A read that fails (every endpoint down for a moment) is tried again until the timeout,
    /// as a wait outlives a member's loss; only when no read succeeded at all is its error thrown.
    private func waitFor(
        _ revision: Int64, client: EtcdClient, layout: FleetLayout
    ) async throws -> (FleetStatusReport, FleetWaitVerdict?, Bool) {
        let deadline = ContinuousClock.now + .milliseconds(Int64(timeout * 1000))
        var last: (report: FleetStatusReport, verdict: FleetWaitVerdict)?
        var failure: (any Error)?
        while true {
            do {
                let report = try await read(client, layout: layout)
                let verdict = report.verdict(waitingFor: revision)
                if verdict.outcome != .pending { return (report, verdict, false) }
                last = (report, verdict)
            } catch let error as EtcdError {
                // Only a cluster out of reach is waited out; a refusal will not change.
                guard case .unavailable = error else { throw error }
                failure = error
            }
            if ContinuousClock.now >= deadline { break }
            try await Task.sleep(for: .milliseconds(150))
        }
        guard let last else { throw failure ?? EtcdError.unavailable("no read finished before the timeout") }
        return (last.report, last.verdict, true)
    }
}

/// What `status --json` prints: the report's fields, and `wait` beside them with --wait.
private struct StatusOutput: Encodable {
    /// The report.
    var report: FleetStatusReport
    /// The verdict of --wait, if asked.
    var wait: FleetWaitVerdict?

    /// The field ``wait`` adds.
    enum CodingKeys: String, CodingKey {
        case wait
    }

    /// Encodes the report's fields and `wait` into one object.
    func encode(to encoder: any Encoder) throws {
        try report.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(wait, forKey: .wait)
    }
}
