extension PropertyListError {
    /// An error at byte `offset` of a text, its reason ending with the line and column.
    static func text(
        _ code: Code, at offset: Int, in bytes: UnsafeRawBufferPointer, _ reason: String
    ) -> PropertyListError {
        PropertyListError(code, at: offset, "\(reason) at \(TextLocation(offset: offset, in: bytes))")
    }
}
