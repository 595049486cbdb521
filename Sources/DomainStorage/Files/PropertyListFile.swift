package import Foundation
package import PropertyList

/// Reads a property-list file a program ships with (registered defaults), in any of the
/// three formats, with errors that name the file.
package enum PropertyListFile {
    /// The largest file accepted: registered defaults are small; this bounds memory.
    package static let sizeLimit = 16 << 20

    /// Reads a file whose top value must be a dictionary.
    package static func readDictionary(at url: URL) throws(PreferencesError) -> [String: PropertyListValue] {
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
    package static func decode(_ data: Data) throws(PropertyListError) -> PropertyListValue {
        try PropertyListValue(decodingAnyFormat: data)
    }
}
