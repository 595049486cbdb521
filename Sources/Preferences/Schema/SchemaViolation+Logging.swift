extension SchemaViolation {
    /// What a log entry shows of the value: ``DeclaredKey/privateValuePlaceholder`` for a key
    /// declared private (``DeclaredKey/isPrivate``), else the value rendered (``render(_:)``).
    func loggedValue(isPrivate: Bool) -> String {
        isPrivate ? DeclaredKey.privateValuePlaceholder : Self.render(value)
    }

    /// ``description`` as a log entry shows it: for a private key, the rule without the value.
    func loggedDescription(isPrivate: Bool) -> String {
        isPrivate ? "\(key) \(rule), not \(DeclaredKey.privateValuePlaceholder) (schema \(schemaPath))" : description
    }
}
