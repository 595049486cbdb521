import Synchronization

/// The address the server listens on, known once it is bound (a port of 0 is chosen then).
package final class ListeningAddress: Sendable {
    private let boundPort = Atomic<Int>(0)

    /// An address not bound yet.
    package init() {}

    /// The port, 0 until bound.
    package var port: Int { boundPort.load(ordering: .acquiring) }

    /// Records the bound port.
    package func bind(port: Int) { boundPort.store(port, ordering: .releasing) }

    /// The `Host` values a request may carry: the loopback address or `localhost`, with the
    /// port. Anything else is a page of another site reaching us by DNS rebinding.
    func admits(host: String?) -> Bool {
        guard let host, port != 0 else { return false }
        let lowered = host.lowercased()
        return lowered == "127.0.0.1:\(port)" || lowered == "localhost:\(port)"
    }

    /// The origins a page of ours has.
    func admits(origin: String) -> Bool {
        let lowered = origin.lowercased()
        return lowered == "http://127.0.0.1:\(port)" || lowered == "http://localhost:\(port)"
    }
}
