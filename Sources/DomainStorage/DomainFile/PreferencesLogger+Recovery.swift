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
                PreferencesLogField.messageID: .string(PreferencesLogEvent.recovered.messageID),
                PreferencesLogField.error: .string(recovery.reason.code.description),
                PreferencesLogField.path: .string(recovery.path),
                PreferencesLogField.generation: .string(String(recovery.generation)),
                PreferencesLogField.generationPath: .string(recovery.generationPath),
            ])
    }
}
