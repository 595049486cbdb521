#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Writes bytes at a moving position in a buffer the writer sized exactly beforehand.
struct ByteCursor {
    typealias Format = BinaryPropertyListFormat
    typealias Marker = BinaryPropertyListFormat.Marker

    private var position: UnsafeMutablePointer<UInt8>

    init(_ start: UnsafeMutablePointer<UInt8>) {
        position = start
    }

    func offset(from start: UnsafeMutablePointer<UInt8>) -> Int {
        position - start
    }

    @inline(__always)
    mutating func append(_ byte: UInt8) {
        position.initialize(to: byte)
        position += 1
    }

    @inline(__always)
    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        UnsafeMutableRawPointer(position).copyMemory(from: source, byteCount: bytes.count)
        position += bytes.count
    }

    @inline(__always)
    mutating func appendBigEndian(_ value: UInt64, width: Int) {
        let raw = UnsafeMutableRawPointer(position)
        switch width {
        case 1: raw.storeBytes(of: UInt8(truncatingIfNeeded: value), as: UInt8.self)
        case 2: raw.storeBytes(of: UInt16(truncatingIfNeeded: value).bigEndian, as: UInt16.self)
        case 4: raw.storeBytes(of: UInt32(truncatingIfNeeded: value).bigEndian, as: UInt32.self)
        case 8: raw.storeBytes(of: value.bigEndian, as: UInt64.self)
        default:
            var shift = (width - 1) * 8
            var byte = position
            while shift >= 0 {
                byte.initialize(to: UInt8(truncatingIfNeeded: value >> UInt64(shift)))
                byte += 1
                shift -= 8
            }
        }
        position += width
    }

    /// Writes a marker with its count: inline below 15, else as a following integer.
    @inline(__always)
    mutating func appendHeader(_ marker: UInt8, count: Int) {
        if count < 15 {
            append(marker | UInt8(count))
        } else {
            append(marker | Marker.countFollows)
            appendInteger(PropertyListInteger(count))
        }
    }

    /// Writes an integer in the fewest bytes: 1, 2 or 4 unsigned, 8 signed, or the 16-byte
    /// form for unsigned values above `Int64.max`.
    mutating func appendInteger(_ integer: PropertyListInteger) {
        if let signed = integer.int64Value {
            if signed < 0 || signed > 0xFFFF_FFFF {
                append(Marker.integer | 3)
                appendBigEndian(UInt64(bitPattern: signed), width: 8)
            } else {
                let width = Format.width(for: UInt64(signed))
                append(Marker.integer | UInt8(width.trailingZeroBitCount))
                appendBigEndian(UInt64(signed), width: width)
            }
        } else {
            append(Marker.integer | 4)
            appendBigEndian(0, width: 8)
            appendBigEndian(integer.uint64Value!, width: 8)
        }
    }

    mutating func appendScalar(_ object: FlatObject) {
        switch object {
        case .bool(let bool):
            append(bool ? Marker.true : Marker.false)
        case .integer(let integer):
            appendInteger(integer)
        case .float(let bits):
            append(Marker.float32)
            appendBigEndian(UInt64(bits), width: 4)
        case .double(let bits):
            append(Marker.float64)
            appendBigEndian(bits, width: 8)
        case .date(let bits):
            append(Marker.date)
            appendBigEndian(bits, width: 8)
        case .data(let data):
            appendHeader(Marker.data, count: data.count)
            data.withUnsafeBytes { append($0) }
        case .asciiString(var string):
            string.withUTF8 { utf8 in
                appendHeader(Marker.asciiString, count: utf8.count)
                append(UnsafeRawBufferPointer(utf8))
            }
        case .utf16String(var string, let units):
            appendHeader(Marker.utf16String, count: units)
            string.withUTF8 { appendUTF16(from: $0) }
        case .array, .dictionary:
            preconditionFailure("containers are written with their references")
        }
    }

    /// Transcodes UTF-8 (valid, as every `String` is) to big-endian UTF-16, straight from
    /// the string's bytes: going through `String.utf16` cost a call per code unit.
    private mutating func appendUTF16(from utf8: UnsafeBufferPointer<UInt8>) {
        var index = 0
        let count = utf8.count
        while index < count {
            let lead = UInt32(utf8[index])
            var scalar: UInt32
            if lead < 0x80 {
                scalar = lead
                index += 1
            } else if lead < 0xE0 {
                scalar = (lead & 0x1F) << 6 | UInt32(utf8[index + 1] & 0x3F)
                index += 2
            } else if lead < 0xF0 {
                scalar = (lead & 0x0F) << 12 | UInt32(utf8[index + 1] & 0x3F) << 6 | UInt32(utf8[index + 2] & 0x3F)
                index += 3
            } else {
                scalar = (lead & 0x07) << 18 | UInt32(utf8[index + 1] & 0x3F) << 12
                    | UInt32(utf8[index + 2] & 0x3F) << 6 | UInt32(utf8[index + 3] & 0x3F)
                index += 4
            }
            if scalar >= 0x10000 {
                scalar -= 0x10000
                appendBigEndian(UInt64(0xD800 + (scalar >> 10)), width: 2)
                appendBigEndian(UInt64(0xDC00 + (scalar & 0x3FF)), width: 2)
            } else {
                appendBigEndian(UInt64(scalar), width: 2)
            }
        }
    }
}
