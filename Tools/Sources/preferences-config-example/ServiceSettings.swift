import Configuration

/// The example service's settings, read from one configuration snapshot so that values
/// changed together (`http.port` and `http.timeout` in one write) are applied together.
struct ServiceSettings: Sendable, Equatable, CustomStringConvertible {
    var greeting: String
    var port: Int
    var timeout: Double

    /// Reads the settings, with defaults for anything unset or mistyped.
    init(_ snapshot: ConfigSnapshotReader) {
        greeting = snapshot.string(forKey: "greeting", default: "Hello")
        port = snapshot.int(forKey: "http.port", default: 8080)
        timeout = snapshot.double(forKey: "http.timeout", default: 30)
    }

    var description: String {
        "greeting=\(greeting) http.port=\(port) http.timeout=\(timeout)"
    }
}
