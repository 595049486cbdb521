package import SystemPackage

extension Errno {
    /// Runs a swift-system call that throws untyped errors and rethrows its error as `Errno`.
    ///
    /// swift-system's `FileDescriptor.open`, `read`, `write` and `close` are declared `throws`
    /// but document that they only ever throw `Errno`; this lets callers keep typed throws.
    /// Should anything else arrive, it becomes `EIO` rather than a trap: a failed file
    /// operation must stay a reported error.
    package static func typed<Value>(_ body: () throws -> Value) throws(Errno) -> Value {
        do {
            return try body()
        } catch let error as Errno {
            throw error
        } catch {
            throw Errno.ioError
        }
    }
}
