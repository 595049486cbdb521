/// Lays a flat object list out as bytes, header, objects, offset table and trailer, into
/// one buffer of exactly the file's size.
struct BinaryPropertyListWriter {
    typealias Format = BinaryPropertyListFormat
    typealias Marker = BinaryPropertyListFormat.Marker

    let flattener: ObjectFlattener

    func write() -> [UInt8] {
        let objects = flattener.objects
        let references = flattener.references
        let referenceWidth = Format.width(for: UInt64(objects.count - 1))
        var containerBytes = 0
        for object in objects {
            switch object {
            case .array(_, let count): containerBytes += ObjectFlattener.headerSize(count: count) + count * referenceWidth
            case .dictionary(_, let count): containerBytes += ObjectFlattener.headerSize(count: count) + 2 * count * referenceWidth
            default: break
            }
        }
        let tableOffset = Format.headerLength + flattener.scalarBytes + containerBytes
        let lastOffset = tableOffset - Self.size(of: objects[objects.count - 1], referenceWidth: referenceWidth)
        let offsetWidth = Format.width(for: UInt64(lastOffset))
        let total = tableOffset + objects.count * offsetWidth + Format.trailerLength

        return [UInt8](unsafeUninitializedCapacity: total) { buffer, initialized in
            var out = ByteCursor(buffer.baseAddress!)
            var table = ByteCursor(buffer.baseAddress! + tableOffset)
            for byte in Format.magic { out.append(byte) }
            for byte in Format.version { out.append(byte) }
            references.withUnsafeBufferPointer { references in
                for object in objects {
                    table.appendBigEndian(UInt64(out.offset(from: buffer.baseAddress!)), width: offsetWidth)
                    switch object {
                    case .array(let first, let count):
                        out.appendHeader(Marker.array, count: count)
                        for child in references[first..<(first + count)] {
                            out.appendBigEndian(UInt64(child), width: referenceWidth)
                        }
                    case .dictionary(let first, let count):
                        out.appendHeader(Marker.dictionary, count: count)
                        for child in references[first..<(first + 2 * count)] {
                            out.appendBigEndian(UInt64(child), width: referenceWidth)
                        }
                    default:
                        out.appendScalar(object)
                    }
                }
            }
            // The objects end exactly where the table starts, and the table where the
            // trailer does: the sizes above and the bytes written must agree.
            precondition(out.offset(from: buffer.baseAddress!) == tableOffset, "encoder object sizes are inconsistent")
            precondition(table.offset(from: buffer.baseAddress!) == total - Format.trailerLength, "encoder offset table size is inconsistent")
            for _ in 0..<6 { table.append(0) }
            table.append(UInt8(offsetWidth))
            table.append(UInt8(referenceWidth))
            table.appendBigEndian(UInt64(objects.count), width: 8)
            table.appendBigEndian(0, width: 8)
            table.appendBigEndian(UInt64(tableOffset), width: 8)
            initialized = total
        }
    }

    /// The bytes `object` takes when written.
    static func size(of object: FlatObject, referenceWidth: Int) -> Int {
        switch object {
        case .array(_, let count): ObjectFlattener.headerSize(count: count) + count * referenceWidth
        case .dictionary(_, let count): ObjectFlattener.headerSize(count: count) + 2 * count * referenceWidth
        default: scalarSize(object)
        }
    }

    /// The bytes a scalar object takes when written.
    static func scalarSize(_ object: FlatObject) -> Int {
        switch object {
        case .bool: 1
        case .integer(let integer): integerSize(integer)
        case .float: 5
        case .double, .date: 9
        case .data(let data): ObjectFlattener.headerSize(count: data.count) + data.count
        case .asciiString(let string): ObjectFlattener.headerSize(count: string.utf8.count) + string.utf8.count
        case .utf16String(_, let units): ObjectFlattener.headerSize(count: units) + 2 * units
        case .array, .dictionary: preconditionFailure("containers are sized with their reference width")
        }
    }

    /// The bytes an integer object takes: a marker and 1, 2 or 4 bytes unsigned, 8 signed,
    /// or 16 for unsigned values above `Int64.max`.
    static func integerSize(_ integer: PropertyListInteger) -> Int {
        guard let signed = integer.int64Value else { return 17 }
        if signed < 0 || signed > 0xFFFF_FFFF { return 9 }
        return 1 + Format.width(for: UInt64(signed))
    }
}
