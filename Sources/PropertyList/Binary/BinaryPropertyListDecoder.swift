#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// Decodes Apple's binary property-list format (`bplist00`) into ``PropertyListValue``s.
///
/// Safe on hostile input: every count, offset, width and reference is checked against
/// the file before it is used; nesting, the object count and the expansion of shared
/// references are bounded by ``limits``; cycles are rejected. Any failure is a
/// ``PropertyListError`` naming the reason and the byte offset; none traps.
public struct BinaryPropertyListDecoder: Sendable {
    /// The bounds every decoded file is held to.
    public var limits: PropertyListLimits

    /// Creates a decoder with the given limits (the defaults unless tightened).
    public init(limits: PropertyListLimits = .default) {
        self.limits = limits
    }

    /// Decodes a binary property list from raw bytes.
    public func decode(_ bytes: UnsafeRawBufferPointer) throws(PropertyListError) -> PropertyListValue {
        var reader = try BinaryPropertyListReader(bytes: bytes, limits: limits)
        return try reader.readTopObject()
    }

    /// Decodes a binary property list from an array of bytes.
    public func decode(_ bytes: [UInt8]) throws(PropertyListError) -> PropertyListValue {
        try bytes.withUnsafeBytes { buffer in
            Result { () throws(PropertyListError) in try decode(buffer) }
        }.get()
    }

    /// Decodes a binary property list from `Data`.
    public func decode(_ data: Data) throws(PropertyListError) -> PropertyListValue {
        try data.withUnsafeBytes { buffer in
            Result { () throws(PropertyListError) in try decode(buffer) }
        }.get()
    }
}
