import Configuration

/// What the server answers with, read from one configuration snapshot so that a greeting and
/// a flag written together (`defaults write … features -dict shout -bool yes` beside a new
/// greeting in one `-dict`) are never answered half old and half new.
struct GreetingSettings: Sendable, Equatable {
    /// `greeting`: the word the answer starts with.
    var greeting: String
    /// `features.shout`: a feature flag; when on, the answer is in capitals.
    var shout: Bool

    /// Reads the settings, with the default for anything unset or of a type that does not
    /// convert: `ConfigReader` turns the provider's conversion error into the default (and
    /// reports it to an access reporter, if one is set), so a mistyped `defaults write` never
    /// takes the service down.
    init(_ snapshot: ConfigSnapshotReader) {
        greeting = snapshot.string(forKey: "greeting", default: "Hello")
        shout = snapshot.bool(forKey: "features.shout", default: false)
    }

    /// The answer to `name`: `Hello, world!`, or `HELLO, WORLD!` with the flag on.
    func answer(to name: String) -> String {
        let text = "\(greeting), \(name)!"
        return shout ? text.uppercased() : text
    }
}
