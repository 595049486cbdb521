import ArgumentParser

/// `-currentHost`, which Apple's syntax puts before the verb; `main` moves it after the
/// verb as `--current-host`, where each verb's parser finds it.
struct HostOptions: ParsableArguments {
    @Flag(name: .customLong("current-host"), help: "Use the domain's by-host file for this machine (Apple: -currentHost before the verb).")
    var currentHost = false
}
