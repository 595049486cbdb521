#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

extension PropertyListValue {
    /// Decodes a property list in any of the three formats, telling them apart by how the
    /// bytes begin (``PropertyListFormat/detect(_:)``): `bplist` is binary, `<` opening XML
    /// markup (`<?xml`, `<!DOCTYPE plist`, `<plist`, a bare `<dict>`; after white space or a
    /// byte-order mark) is XML, anything else is read as old-style text.
    ///
    /// For files a program ships or a person writes (registered defaults, schemas), where
    /// any format is fair; domain files are binary and use ``BinaryPropertyListDecoder``.
    public init(decodingAnyFormat data: Data) throws(PropertyListError) {
        switch PropertyListFormat.detect(data) {
        case .binary: self = try BinaryPropertyListDecoder().decode(data)
        case .xml: self = try XMLPropertyListDecoder().decode(data)
        case .openStep: self = try OpenStepPropertyListDecoder().decode(String(decoding: data, as: UTF8.self))
        }
    }
}
