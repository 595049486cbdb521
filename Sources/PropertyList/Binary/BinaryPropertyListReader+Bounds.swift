extension BinaryPropertyListReader {
    /// The byte offset of object `index`, checked to lie in the object area.
    @inline(__always)
    func offset(of index: Int) throws(PropertyListError) -> Int {
        let entry = objectsEnd + index * offsetWidth
        let offset = Self.readUnsigned(bytes, at: entry, width: offsetWidth)
        guard offset >= UInt64(Format.headerLength) else {
            throw PropertyListError(.invalidOffset, at: entry, "offset table entry \(index) points to byte \(offset), inside the header")
        }
        guard offset < UInt64(objectsEnd) else {
            let place = offset >= UInt64(bytes.count)
                ? "past the end of the file (\(bytes.count) bytes)"
                : "into the offset table or trailer (objects end at byte \(objectsEnd))"
            throw PropertyListError(.invalidOffset, at: entry, "offset table entry \(index) points to byte \(offset), \(place)")
        }
        return Int(offset)
    }

    /// Reads the object reference at `position`, checked to name an existing object.
    @inline(__always)
    func reference(at position: Int, in container: Int) throws(PropertyListError) -> Int {
        let reference = Self.readUnsigned(bytes, at: position, width: referenceWidth)
        guard reference < UInt64(objectCount) else {
            throw PropertyListError(
                .invalidReference, at: position,
                "container object \(container) refers to object \(reference), but there are \(objectCount)")
        }
        return Int(reference)
    }

    /// Reads an object's element count (inline or as a following integer) and checks
    /// that `count * elementWidth` bytes follow inside the object area. `what` is static
    /// text, so passing it costs nothing on the path that does not throw.
    @inline(__always)
    func count(
        marker: UInt8, object index: Int, at offset: Int, elementWidth: Int, what: StaticString
    ) throws(PropertyListError) -> (count: Int, start: Int) {
        var count = UInt64(marker & 0x0F)
        var start = offset + 1
        if marker & 0x0F == Marker.countFollows {
            try need(1, after: offset, for: "\(what) length", object: index)
            let lengthMarker = bytes[offset + 1]
            let exponent = Int(lengthMarker & 0x0F)
            guard lengthMarker & 0xF0 == Marker.integer, exponent <= 3 else {
                throw PropertyListError(
                    .invalidLength, at: offset + 1,
                    "\(what) object \(index) has a length marked \(Self.hex(lengthMarker)), not a 1-8 byte integer")
            }
            let width = 1 << exponent
            try need(1 + width, after: offset, for: "\(what) length", object: index)
            count = Self.readUnsigned(bytes, at: offset + 2, width: width)
            start = offset + 2 + width
        }
        let available = UInt64(objectsEnd - start)
        guard count <= available / UInt64(elementWidth) else {
            throw PropertyListError(
                .invalidLength, at: offset,
                "\(what) object \(index) claims \(count) elements of \(elementWidth) bytes, "
                    + "but only \(available) bytes remain before the offset table")
        }
        return (Int(count), start)
    }

    /// Checks that `length` bytes follow the marker at `offset` inside the object area.
    /// `what` is an autoclosure: building the description eagerly on every object cost
    /// more than the rest of decoding a number.
    @inline(__always)
    func need(_ length: Int, after offset: Int, for what: @autoclosure () -> String, object index: Int) throws(PropertyListError) {
        guard length <= objectsEnd - offset - 1 else {
            throw PropertyListError(
                .invalidLength, at: offset, "\(what()) object \(index) needs \(length) bytes, past the object area's end")
        }
    }

    /// Reads a big-endian unsigned integer of `width` (1...8) bytes; the caller has checked
    /// that they lie inside `bytes`. The common widths are single loads: this runs for
    /// every offset-table entry and every reference.
    @inline(__always)
    static func readUnsigned(_ bytes: UnsafeRawBufferPointer, at offset: Int, width: Int) -> UInt64 {
        let base = bytes.baseAddress.unsafelyUnwrapped
        switch width {
        case 1: return UInt64(base.load(fromByteOffset: offset, as: UInt8.self))
        case 2: return UInt64(UInt16(bigEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt16.self)))
        case 4: return UInt64(UInt32(bigEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
        case 8: return UInt64(bigEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
        default: break
        }
        var result: UInt64 = 0
        for i in 0..<width {
            result = result << 8 | UInt64(bytes[offset + i])
        }
        return result
    }

    static func badMarker(_ marker: UInt8, object index: Int, at offset: Int) -> PropertyListError {
        PropertyListError(.invalidMarker, at: offset, "object \(index) has marker \(hex(marker)), which the format does not define")
    }

    static func hex(_ byte: UInt8) -> String {
        let digits = String(byte, radix: 16, uppercase: true)
        return "0x" + (digits.count == 1 ? "0" + digits : digits)
    }
}
