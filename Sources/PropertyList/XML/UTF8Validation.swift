/// Finds the first byte that breaks UTF-8, so a document can be checked once up front and
/// its strings then built without further checks.
enum UTF8Validation {
    /// The offset of the first byte in `bytes[start...]` that does not belong to a valid UTF-8
    /// sequence (overlong forms, surrogates and values above U+10FFFF are invalid), or nil.
    static func firstInvalidOffset(in bytes: UnsafeRawBufferPointer, from start: Int = 0) -> Int? {
        var index = start
        let count = bytes.count
        while index < count {
            let lead = bytes[index]
            if lead < 0x80 {
                index += 1
                continue
            }
            let length: Int
            var secondRange: ClosedRange<UInt8> = 0x80...0xBF
            switch lead {
            case 0xC2...0xDF: length = 2
            case 0xE0:
                length = 3
                secondRange = 0xA0...0xBF  // no overlong forms
            case 0xED:
                length = 3
                secondRange = 0x80...0x9F  // no surrogates
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xF0:
                length = 4
                secondRange = 0x90...0xBF  // no overlong forms
            case 0xF1...0xF3: length = 4
            case 0xF4:
                length = 4
                secondRange = 0x80...0x8F  // nothing above U+10FFFF
            default: return index
            }
            guard index + length <= count, secondRange.contains(bytes[index + 1]) else { return index }
            for continuation in (index + 2)..<(index + length) where bytes[continuation] & 0xC0 != 0x80 {
                return index
            }
            index += length
        }
        return nil
    }
}
