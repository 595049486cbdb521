#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// Decodes Apple's XML property lists (`<plist version="1.0">`): what `defaults export`
/// writes and what Settings.bundle-style defaults files and hand-edited plists use.
///
/// A hand-written tokenizer over UTF-8 bytes, not Foundation's `XMLParser` or
/// `PropertyListSerialization`, so that hostile documents meet explicit bounds:
/// - the document type declaration is skipped, never processed; one whose internal subset
///   declares an entity is refused with ``PropertyListError/Code/entityDeclaration``, so
///   "billion laughs" and external entities cannot work, and the only references are
///   `&lt; &gt; &amp; &quot; &apos;` and character references `&#NN;` `&#xHH;`;
/// - containers nest at most ``limits``' depth (64 by default), the document holds at most
///   its expanded-object count of values (keys included; 100,000 by default), and input
///   longer than ``maximumInputLength`` (16 MiB) is refused unread;
/// - the input must be UTF-8 (a UTF-8 byte order mark is skipped); UTF-16 and UTF-32, with
///   or without a byte order mark, and declared encodings other than UTF-8 are refused with
///   ``PropertyListError/Code/unsupportedEncoding``.
///
/// What it reads: the XML declaration, comments and processing instructions anywhere
/// markup may appear, `<plist>` around one value (or a bare value as the root), `dict`
/// with `key`s, `array`, `string`, `integer` (decimal or `0x` hexadecimal, signed, any value
/// from `Int64.min` through `UInt64.max`), `real` (decimal, `nan`, `inf`, `infinity`,
/// `+infinity`, `-infinity` in any case), `true`, `false`, `date` (`2024-01-02T03:04:05Z`,
/// fractional seconds allowed), `data` (base64, whitespace anywhere), the empty-element
/// forms (`<string/>`, `<dict/>`, `<array/>`, `<data/>`, `<true/>`), CDATA sections, and
/// attributes (ignored). Every `<real>` decodes as a `.double`: XML has one kind of real.
/// Text is kept exactly as written, carriage returns included.
///
/// Every failure is a ``PropertyListError`` with the byte offset, its reason ending with
/// the line and column; none traps, and nothing after the root element but whitespace,
/// comments and processing instructions is accepted.
public struct XMLPropertyListDecoder: Sendable {
    /// The longest document, in bytes, the decoder reads: 16 MiB, far beyond any
    /// preferences file, small enough that parsing it is quick.
    public static let maximumInputLength = 16 * 1024 * 1024

    /// The bounds every decoded document is held to (depth and expanded-object count).
    public var limits: PropertyListLimits

    /// Creates a decoder with the given limits (the defaults unless tightened).
    public init(limits: PropertyListLimits = .default) {
        self.limits = limits
    }

    /// Decodes an XML property list from raw bytes.
    public func decode(_ bytes: UnsafeRawBufferPointer) throws(PropertyListError) -> PropertyListValue {
        guard bytes.count <= Self.maximumInputLength else {
            throw PropertyListError(
                .inputTooLarge, at: Self.maximumInputLength,
                "the document is \(bytes.count) bytes, more than the \(Self.maximumInputLength)-byte (16 MiB) limit")
        }
        guard !bytes.isEmpty else {
            throw PropertyListError(.truncated, at: 0, "the input is empty")
        }
        var parser = XMLPropertyListParser(bytes: bytes, limits: limits)
        return try parser.parseDocument()
    }

    /// Decodes an XML property list from an array of bytes.
    public func decode(_ bytes: [UInt8]) throws(PropertyListError) -> PropertyListValue {
        try bytes.withUnsafeBytes { buffer in
            Result { () throws(PropertyListError) in try decode(buffer) }
        }.get()
    }

    /// Decodes an XML property list from `Data`.
    public func decode(_ data: Data) throws(PropertyListError) -> PropertyListValue {
        try data.withUnsafeBytes { buffer in
            Result { () throws(PropertyListError) in try decode(buffer) }
        }.get()
    }
}
