extension PropertyListError {
    /// An error at byte `offset` of a text, its reason ending with the line and column.
    static func text(
        _ code: Code, at offset: Int, in bytes: UnsafeRawBufferPointer, _ reason: String
    ) -> PropertyListError {
        PropertyListError(code, at: offset, "\(reason) at \(TextLocation(offset: offset, in: bytes))")
    }

    /// The character at `offset` of UTF-8 `bytes` for a message: quoted if printable, else
    /// its code point (`U+0001`).
    static func describeCharacter(at offset: Int, in bytes: UnsafeRawBufferPointer) -> String {
        var iterator = UnsafeRawBufferPointer(rebasing: bytes[offset...]).makeIterator()
        var decoder = UTF8()
        guard case .scalarValue(let scalar) = decoder.decode(&iterator) else { return "a byte that is not UTF-8" }
        if scalar.value < 0x20 || scalar.value == 0x7F {
            let hex = String(scalar.value, radix: 16, uppercase: true)
            return "U+" + hex.zeroPadded(to: 4)
        }
        return "'\(scalar)'"
    }
}
