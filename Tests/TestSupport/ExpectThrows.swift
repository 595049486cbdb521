package import Testing

/// Runs `body`, requiring it to throw an error whose code (`code` reads it) is `expected`
/// and, when `words` are given, whose text (`text`; its description unless given) mentions
/// them. Each failure is recorded at the caller's `sourceLocation`, so it points at the
/// test, not here.
///
/// - Returns: The error, for the caller to check what else it carries; nil if `body`
///   returned instead of throwing.
@discardableResult
package func expectThrows<Value, Failure: Error, Code: Equatable>(
    _ expected: Code, code: (Failure) -> Code, mentioning words: String? = nil,
    in text: (Failure) -> String = { String(describing: $0) },
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () throws(Failure) -> Value
) -> Failure? {
    do {
        let value = try body()
        Issue.record(
            "returned \(String(describing: value).prefix(100)) instead of throwing \(expected)", sourceLocation: sourceLocation)
        return nil
    } catch {
        #expect(code(error) == expected, "\(error)", sourceLocation: sourceLocation)
        if let words {
            #expect(text(error).contains(words), "\(error)", sourceLocation: sourceLocation)
        }
        return error
    }
}
