/// Builds `bplist00` files byte by byte, including ones no encoder would write, so the
/// hostile-input tests can say exactly what is wrong with each.
struct RawPropertyList {
    /// Each object's bytes, marker first; object n's offset is where it lands.
    var objects: [[UInt8]]
    var offsetWidth = 1
    var referenceWidth = 1
    var topObject: UInt64 = 0
    /// Overrides for trailer fields and offsets; nil means "what the objects imply".
    var objectCount: UInt64?
    var offsetTableOffset: UInt64?
    var offsets: [UInt64]?

    init(objects: [[UInt8]]) {
        self.objects = objects
    }

    var bytes: [UInt8] {
        var out = Array("bplist00".utf8)
        var computed: [UInt64] = []
        for object in objects {
            computed.append(UInt64(out.count))
            out += object
        }
        let table = UInt64(out.count)
        for offset in offsets ?? computed {
            out += bigEndian(offset, width: offsetWidth)
        }
        out += [0, 0, 0, 0, 0, 0, UInt8(offsetWidth), UInt8(referenceWidth)]
        out += bigEndian(objectCount ?? UInt64(objects.count), width: 8)
        out += bigEndian(topObject, width: 8)
        out += bigEndian(offsetTableOffset ?? table, width: 8)
        return out
    }
}

func bigEndian(_ value: UInt64, width: Int) -> [UInt8] {
    (0..<width).reversed().map { UInt8(truncatingIfNeeded: value >> UInt64($0 * 8)) }
}

/// An array object referring to `references` with one-byte references.
func arrayObject(_ references: [Int]) -> [UInt8] {
    precondition(references.count < 15)
    return [0xA0 | UInt8(references.count)] + references.map { UInt8($0) }
}

/// An ASCII string object.
func asciiObject(_ string: String) -> [UInt8] {
    precondition(string.utf8.count < 15)
    return [0x50 | UInt8(string.utf8.count)] + Array(string.utf8)
}
