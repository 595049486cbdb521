import Foundation

/// Reads a property-list file a program ships with (registered defaults), in any of the
/// three formats, with errors that name the file.
enum PropertyListFile {
    /// The largest file accepted: registered defaults are small; this bounds memory.
    static let sizeLimit = 16 << 20

    /// Reads a file whose top value must be a dictionary.
    static func readDictionary(at url: URL) throws(PreferencesError) -> [String: PropertyListValue] {
        let path = url.path
        let data: Data
        do {
            data = try Data(contentsOf: url, options: [.mappedIfSafe])
        } catch {
            let code = (error as NSError).code
            let missing = code == NSFileReadNoSuchFileError || code == NSFileNoSuchFileError
            throw PreferencesError(
                missing ? .missingFile : .unreadable, path: path,
                missing ? "the property-list file does not exist" : "the property-list file cannot be read: \(error.localizedDescription)")
        }
        guard data.count <= sizeLimit else {
            throw PreferencesError(.tooLarge, path: path, "the property-list file is \(data.count) bytes; at most \(sizeLimit) are read")
        }
        let value: PropertyListValue
        do throws(PropertyListError) {
            value = try decode(data)
        } catch {
            throw PreferencesError(.invalidPropertyList, path: path, "the file is not a valid property list: \(error)")
        }
        guard case .dictionary(let entries) = value else {
            throw PreferencesError(.notADictionary, path: path, "the property list's top value is a \(value.typeName), not a dictionary")
        }
        return entries
    }

    /// Decodes binary, XML or old-style text by looking at the first bytes.
    static func decode(_ data: Data) throws(PropertyListError) -> PropertyListValue {
        if data.starts(with: Array("bplist".utf8)) {
            return try BinaryPropertyListDecoder().decode(data)
        }
        let text = data.drop { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D || $0 == 0xEF || $0 == 0xBB || $0 == 0xBF }
        if text.starts(with: Array("<?xml".utf8)) || text.starts(with: Array("<!DOCTYPE".utf8)) || text.starts(with: Array("<plist".utf8)) {
            return try XMLPropertyListDecoder().decode(data)
        }
        return try OpenStepPropertyListDecoder().decode(String(decoding: data, as: UTF8.self))
    }
}
