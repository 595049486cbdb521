#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

extension PropertyListValue {
    /// Decodes a property list in any of the three formats, telling them apart by their first
    /// bytes: `bplist` is binary, `<?xml`, `<!DOCTYPE` or `<plist` (after white space or a
    /// byte-order mark) is XML, anything else is read as old-style text.
    ///
    /// For files a program ships or a person writes (registered defaults, schemas), where
    /// any format is fair; domain files are binary and use ``BinaryPropertyListDecoder``.
    public init(decodingAnyFormat data: Data) throws(PropertyListError) {
        if data.starts(with: Array("bplist".utf8)) {
            self = try BinaryPropertyListDecoder().decode(data)
            return
        }
        let text = data.drop { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D || $0 == 0xEF || $0 == 0xBB || $0 == 0xBF }
        if text.starts(with: Array("<?xml".utf8)) || text.starts(with: Array("<!DOCTYPE".utf8)) || text.starts(with: Array("<plist".utf8)) {
            self = try XMLPropertyListDecoder().decode(data)
            return
        }
        self = try OpenStepPropertyListDecoder().decode(String(decoding: data, as: UTF8.self))
    }
}
