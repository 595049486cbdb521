public import Foundation
import PropertyList

/// The words of one `<language>.lproj/<table>.strings` file of a Settings.bundle: each
/// raw title the bundle's plists use, and what to show for it.
///
/// Reads the file forms Xcode and people write: text `"KEY" = "words";` (with comments and
/// the old-style escapes) in UTF-16 (with a byte-order mark, or without one when the
/// first character is ASCII) or UTF-8, and compiled binary or XML property lists.
public struct StringsTable: Sendable, Hashable {
    /// The words by raw title.
    public var entries: [String: String]

    /// Creates a table.
    public init(entries: [String: String]) {
        self.entries = entries
    }

    /// Decodes a strings file's bytes; `path` names it in the error.
    public init(data: Data, path: String) throws(SchemaError) {
        let value: PropertyListValue
        do throws(PropertyListError) {
            if PropertyListFormat.detect(data) == .binary {
                value = try BinaryPropertyListDecoder().decode(data)
            } else {
                // Told apart as every reader does (the text is UTF-8 now, whatever the file's
                // encoding was).
                let text = Self.text(of: data)
                if PropertyListFormat.detect(text.utf8) == .xml {
                    value = try XMLPropertyListDecoder().decode(Data(text.utf8))
                } else {
                    // A strings file is a dictionary's entries without the braces; a file that
                    // has them (some tools write them) reads as it is.
                    do throws(PropertyListError) {
                        value = try OpenStepPropertyListDecoder().decode("{\n" + text + "\n}")
                    } catch {
                        guard let braced = try? OpenStepPropertyListDecoder().decode(text) else { throw error }
                        value = braced
                    }
                }
            }
        } catch {
            throw SchemaError(.invalidPropertyList, path: path, "the strings file does not parse: \(error)")
        }
        guard case .dictionary(let dictionary) = value else {
            throw SchemaError(.malformed, path: path, "a strings file holds a dictionary of strings")
        }
        entries = dictionary.compactMapValues(\.stringValue)
    }

    /// The words for `key`, if the table has them.
    public subscript(key: String) -> String? { entries[key] }

    /// The file's text: UTF-16 by its byte-order mark (or by a zero byte beside the first
    /// ASCII character), else UTF-8 without its byte-order mark.
    static func text(of data: Data) -> String {
        let bytes = [UInt8](data.prefix(2))
        if bytes == [0xFF, 0xFE] { return String(decoding: utf16(data.dropFirst(2), bigEndian: false), as: UTF16.self) }
        if bytes == [0xFE, 0xFF] { return String(decoding: utf16(data.dropFirst(2), bigEndian: true), as: UTF16.self) }
        if bytes.count == 2, bytes[0] != 0, bytes[1] == 0 { return String(decoding: utf16(data, bigEndian: false), as: UTF16.self) }
        if bytes.count == 2, bytes[0] == 0, bytes[1] != 0 { return String(decoding: utf16(data, bigEndian: true), as: UTF16.self) }
        let body = data.starts(with: [0xEF, 0xBB, 0xBF]) ? data.dropFirst(3) : data[...]
        return String(decoding: body, as: UTF8.self)
    }

    /// UTF-16 code units from bytes in the given order; an odd last byte is dropped.
    private static func utf16(_ bytes: Data, bigEndian: Bool) -> [UInt16] {
        let array = [UInt8](bytes)
        var units: [UInt16] = []
        units.reserveCapacity(array.count / 2)
        var index = 0
        while index + 1 < array.count {
            let first = UInt16(array[index]), second = UInt16(array[index + 1])
            units.append(bigEndian ? first << 8 | second : second << 8 | first)
            index += 2
        }
        return units
    }

    /// The languages to look words up in, best first: `LANGUAGE`'s list, then the locale of
    /// `LC_ALL`, `LC_MESSAGES` or `LANG` (the first set), each as `de_DE`, `de-DE` and `de`;
    /// then `en` and `English`, the names a bundle's fallback folder has. `C` and `POSIX`
    /// name no language.
    public static func preferredLanguages(environment: [String: String]) -> [String] {
        var names: [Substring] = []
        if let list = environment["LANGUAGE"] { names += list.split(separator: ":") }
        if let locale = ["LC_ALL", "LC_MESSAGES", "LANG"].lazy.compactMap({ environment[$0] }).first(where: { !$0.isEmpty }) {
            names.append(Substring(locale))
        }
        var languages: [String] = []
        func add(_ name: String) {
            if !name.isEmpty, !languages.contains(name) { languages.append(name) }
        }
        for name in names {
            // de_DE.UTF-8@euro: the language and region, without codeset and modifier.
            let bare = name.prefix { $0 != "." && $0 != "@" }
            guard bare != "C", bare != "POSIX", !bare.isEmpty, !bare.contains("/") else { continue }
            add(String(bare))
            add(bare.replacingOccurrences(of: "_", with: "-"))
            add(String(bare.prefix { $0 != "_" && $0 != "-" }))
        }
        add("en")
        add("English")
        return languages
    }
}
