package import Logging

extension PreferencesLogger {
    /// Logs a warning that a corrupt domain file is read from a generation, naming both
    /// files; once per ten seconds per distinct recovery, like errors.
    package static func report(_ recovery: DomainRecovery, to logger: Logger) {
        let message = "\(recovery.path) is corrupt; using generation \(recovery.generation) (\(recovery.generationPath)) instead: \(recovery.reason.reason)"
        guard admitOnce(message) else { return }
        logger.warning(
            "\(message)",
            metadata: [
                "MESSAGE_ID": .string(PreferencesLogEvent.recovered.messageID),
                "PREFERENCES_ERROR": .string(recovery.reason.code.description),
                "PREFERENCES_PATH": .string(recovery.path),
                "PREFERENCES_GENERATION": .string(String(recovery.generation)),
                "PREFERENCES_GENERATION_PATH": .string(recovery.generationPath),
            ])
    }
}
