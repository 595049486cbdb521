import ArgumentParser
import EtcdGateway
import FleetPolicy
import Foundation
import Logging
import Preferences

/// `preferences-fleet rollout`: puts a domain's fleet policy in stages, each waiting for the
/// hosts it reached, and stops and puts back the previous policy when too many refuse it or
/// go silent.
struct RolloutCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rollout",
        abstract: "Roll a domain's fleet policy out in stages, stopping and putting the previous policy back when hosts refuse it.",
        discussion: """
            Hosts fall into stable cohorts by a hash of their name (the first 8 bytes of the \
            SHA-256 of the name, modulo 10,000). Each step publishes the policy to the hosts \
            whose cohort is below its share (1% = 100), and always to at least one enrolled \
            host more than the step before; then it waits, up to --step-timeout, for every \
            host it reached to report the step's etcd revision. It goes on only while the \
            reached hosts that refused a value, or stayed silent or behind, are at most \
            --max-invalid of them; past that, it stops: every host it reached goes back to \
            the previous policy (<prefix>fleet/<domain>, which the rollout does not touch), \
            and it names the hosts and reasons that stopped it. After the last step (100%) the \
            policy becomes <prefix>fleet/<domain> in the same etcd transaction that marks the \
            rollout completed.

            The rollout's progress lives in etcd at <prefix>rollouts/<domain>, changed only by \
            compare-and-set: if this process is killed, `rollout DOMAIN --resume` goes on from \
            the step it reached and `rollout DOMAIN --abort` puts the previous policy back. \
            It rides out the loss of an etcd member. Hosts are those enrolled \
            (<prefix>status/<hostname>, written by each host's follower when it starts); \
            a retired host is forgotten by deleting its enrolment key.

            Exit status: 0 completed (or aborted, with --abort); 1 stopped by failing hosts; \
            2 the rollout could not be started, resumed or aborted (another is running, a bad \
            file, an unreadable rollout document, etcd away for two minutes, the fleet policy \
            changed by hand during the rollout).

            Examples:
              preferences-fleet rollout com.example.app app-policy.plist --steps 1%,10%,100% \\
                --max-invalid 2% --endpoints http://10.0.0.1:2379
              preferences-fleet rollout com.example.app --resume --endpoints http://10.0.0.1:2379
              preferences-fleet rollout com.example.app --abort --endpoints http://10.0.0.1:2379
            """)

    @OptionGroup var etcd: EtcdOptions
    @Argument(help: "The domain whose fleet-wide policy is rolled out.")
    var domain: String
    @Argument(help: "The new policy: an XML or binary property-list dictionary (not with --resume or --abort).")
    var file: String?
    @Option(help: "The share of hosts each step reaches, rising, the last 100% and at least one before it (a canary).")
    var steps = "1%,10%,100%"
    @Option(help: "The most reached hosts that may refuse a value or stay silent, as a share of those reached.")
    var maxInvalid = "0%"
    @Option(help: "Seconds a step waits for the hosts it reached to report.")
    var stepTimeout: Double = 60
    @Flag(help: "Go on with the rollout of DOMAIN that is under way (after its process was killed).")
    var resume = false
    @Flag(help: "Stop the rollout of DOMAIN under way and put the previous policy back on every host.")
    var abort = false

    func validate() throws {
        guard (try? DomainName(domain)) != nil else { throw ValidationError("\(domain) is not a valid domain name") }
        guard !(resume && abort) else { throw ValidationError("--resume and --abort do not go together") }
        if resume || abort {
            guard file == nil else { throw ValidationError("--\(resume ? "resume" : "abort") takes no FILE: the rollout's policy is in etcd") }
        } else {
            guard file != nil else { throw ValidationError("give the policy FILE to roll out (or --resume, or --abort)") }
            do {
                _ = try FleetRolloutPlan.steps(steps)
            } catch {
                throw ValidationError("--steps \(steps): \(error)")
            }
        }
        guard FleetRolloutPlan.basisPoints(maxInvalid) != nil else { throw ValidationError("--max-invalid \(maxInvalid) is not a share such as 2%") }
        guard stepTimeout > 0 else { throw ValidationError("--step-timeout must be above 0") }
    }

    func run() async throws {
        LoggingSystem.bootstrap { StreamLogHandler.standardError(label: $0) }
        var logger = Logger(label: "preferences-fleet")
        logger.logLevel = .warning
        let name = try DomainName(domain)
        let client = try etcd.makeClient(logger: logger)
        let code: Int32 = try await client.using { client in
            do {
                return try await run(with: client, domain: name)
            } catch let conflict as FleetRolloutRun.Conflict {
                FleetOutput.error("\(conflict)")
                return 2
            } catch let error as EtcdError {
                // Exit status 1 means "stopped by hosts"; an etcd that cannot be used is not that.
                FleetOutput.error("\(error); the rollout document says where it stands (preferences-fleet status, or --resume)")
                return 2
            } catch is CancellationError {
                return 2
            } catch {
                // Nor is anything else that went wrong (a rollout document that cannot be read).
                FleetOutput.error("\(error)")
                return 2
            }
        }
        if code != 0 { throw ExitCode(code) }
    }

    /// Starts, resumes or aborts; returns the exit status.
    private func run(with client: EtcdClient, domain name: DomainName) async throws -> Int32 {
        let rollout = FleetRolloutRun(client: client, layout: FleetLayout(prefix: etcd.prefix), domain: name)
        if abort { return try await rollout.abort() }
        if resume { return try await rollout.resume() }
        let bytes: [UInt8]
        if let file, let data = FileManager.default.contents(atPath: file) {
            bytes = Array(data)
        } else {
            FleetOutput.error("the policy file \(file ?? "") cannot be read")
            return 2
        }
        do throws(FleetValueError) {
            _ = try FleetPolicy.policyValues(decoding: bytes, sizeLimit: PreferenceFiles().configuration.sizeLimit)
        } catch {
            FleetOutput.error("\(file ?? ""): \(error.reason); nothing was rolled out")
            return 2
        }
        return try await rollout.start(
            policy: bytes, steps: try FleetRolloutPlan.steps(steps), maxInvalid: FleetRolloutPlan.basisPoints(maxInvalid) ?? 0,
            stepTimeout: stepTimeout)
    }
}

/// Lines for the administrator: progress on standard output, errors on standard error.
enum FleetOutput {
    /// Prints one line of progress, at once (the rollout may run for minutes).
    static func line(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    /// Prints an error line.
    static func error(_ text: String) {
        FileHandle.standardError.write(Data(("preferences-fleet: " + text + "\n").utf8))
    }
}
