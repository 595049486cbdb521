extension BinaryPropertyListReader {
    func integer(marker: UInt8, object index: Int, at offset: Int) throws(PropertyListError) -> PropertyListInteger {
        let exponent = Int(marker & 0x0F)
        guard exponent <= 4 else {
            throw PropertyListError(.invalidMarker, at: offset, "integer object \(index) has marker \(Self.hex(marker)), a width of 2^\(exponent) bytes")
        }
        let width = 1 << exponent
        try need(width, after: offset, for: "\(width)-byte integer", object: index)
        switch width {
        case 1, 2, 4:
            return PropertyListInteger(Self.readUnsigned(bytes, at: offset + 1, width: width))
        case 8:
            return PropertyListInteger(Int64(bitPattern: Self.readUnsigned(bytes, at: offset + 1, width: 8)))
        default:
            let high = Self.readUnsigned(bytes, at: offset + 1, width: 8)
            let low = Self.readUnsigned(bytes, at: offset + 9, width: 8)
            if high == 0 { return PropertyListInteger(low) }
            if high == UInt64.max && low >= UInt64(1) << 63 { return PropertyListInteger(Int64(bitPattern: low)) }
            throw PropertyListError(
                .integerOutOfRange, at: offset, "16-byte integer object \(index) lies outside Int64.min...UInt64.max")
        }
    }

    func asciiString(marker: UInt8, object index: Int, at offset: Int) throws(PropertyListError) -> String {
        let (length, start) = try count(marker: marker, object: index, at: offset, elementWidth: 1, what: "ASCII string")
        let slice = UnsafeRawBufferPointer(rebasing: bytes[start..<(start + length)])
        if let bad = Self.firstNonASCII(slice) {
            throw PropertyListError(
                .invalidString, at: start + bad,
                "ASCII string object \(index) holds byte \(Self.hex(slice[bad])), which is not ASCII")
        }
        return String(decoding: slice, as: UTF8.self)
    }

    /// The position of the first byte of `slice` with its high bit set, if any.
    ///
    /// Tests eight bytes at a time: a byte-by-byte scan was the largest cost of decoding a
    /// domain of long ASCII strings.
    @inline(__always)
    private static func firstNonASCII(_ slice: UnsafeRawBufferPointer) -> Int? {
        guard let base = slice.baseAddress else { return nil }
        let count = slice.count
        let highBits: UInt64 = 0x8080_8080_8080_8080
        var position = 0
        // 32 bytes per step while they last: most of a domain's bytes are in long strings.
        while position + 32 <= count {
            let any = base.loadUnaligned(fromByteOffset: position, as: UInt64.self)
                | base.loadUnaligned(fromByteOffset: position + 8, as: UInt64.self)
                | base.loadUnaligned(fromByteOffset: position + 16, as: UInt64.self)
                | base.loadUnaligned(fromByteOffset: position + 24, as: UInt64.self)
            if any & highBits != 0 { break }
            position += 32
        }
        while position + 8 <= count {
            if base.loadUnaligned(fromByteOffset: position, as: UInt64.self) & highBits != 0 { break }
            position += 8
        }
        while position < count {
            if base.load(fromByteOffset: position, as: UInt8.self) >= 0x80 { return position }
            position += 1
        }
        return nil
    }

    func utf16String(marker: UInt8, object index: Int, at offset: Int) throws(PropertyListError) -> String {
        let (units, start) = try count(marker: marker, object: index, at: offset, elementWidth: 2, what: "UTF-16 string")
        var failure: Int? = nil
        let bytes = self.bytes
        // Transcode big-endian UTF-16 straight to UTF-8, refusing unpaired surrogates.
        let string = String(unsafeUninitializedCapacity: units * 3) { out in
            var unit = 0
            var written = 0
            func read(_ i: Int) -> UInt32 {
                UInt32(bytes[start + 2 * i]) << 8 | UInt32(bytes[start + 2 * i + 1])
            }
            while unit < units {
                let first = read(unit)
                var scalar = first
                if (0xD800...0xDBFF).contains(first) {
                    guard unit + 1 < units, case let second = read(unit + 1), (0xDC00...0xDFFF).contains(second) else {
                        failure = unit
                        return 0
                    }
                    scalar = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
                    unit += 1
                } else if (0xDC00...0xDFFF).contains(first) {
                    failure = unit
                    return 0
                }
                unit += 1
                switch scalar {
                case ..<0x80:
                    out[written] = UInt8(scalar)
                    written += 1
                case ..<0x800:
                    out[written] = UInt8(0xC0 | scalar >> 6)
                    out[written + 1] = UInt8(0x80 | scalar & 0x3F)
                    written += 2
                case ..<0x10000:
                    out[written] = UInt8(0xE0 | scalar >> 12)
                    out[written + 1] = UInt8(0x80 | (scalar >> 6) & 0x3F)
                    out[written + 2] = UInt8(0x80 | scalar & 0x3F)
                    written += 3
                default:
                    out[written] = UInt8(0xF0 | scalar >> 18)
                    out[written + 1] = UInt8(0x80 | (scalar >> 12) & 0x3F)
                    out[written + 2] = UInt8(0x80 | (scalar >> 6) & 0x3F)
                    out[written + 3] = UInt8(0x80 | scalar & 0x3F)
                    written += 4
                }
            }
            return written
        }
        if let failure {
            throw PropertyListError(
                .invalidString, at: start + 2 * failure,
                "UTF-16 string object \(index) has an unpaired surrogate at code unit \(failure)")
        }
        return string
    }
}
