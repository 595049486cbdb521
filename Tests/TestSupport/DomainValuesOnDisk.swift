import Foundation
package import PropertyList

/// A domain's values straight from its file at `path`, decoded by the library's binary
/// property list decoder rather than read through a store: what another program reading
/// the file would find. Nil if there is no file (or its top object is not a dictionary).
package func domainValuesOnDisk(atPath path: String) throws -> [String: PropertyListValue]? {
    guard let data = FileManager.default.contents(atPath: path) else { return nil }
    return try BinaryPropertyListDecoder().decode(data).dictionaryValue
}
