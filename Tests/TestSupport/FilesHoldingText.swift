import Foundation

/// Where a value's bytes are on disk: the search the tests of private keys (issue 32) make
/// after each path to show that a secret left no copy behind. One implementation for the
/// library's tests and the tool's, so both look for the same byte forms in the same files.
package enum FilesHoldingText {
    /// The byte strings `text` may be stored as: UTF-8 (what a binary property list holds
    /// for an ASCII string, and what text files hold) and UTF-16 in both byte orders (a
    /// binary property list's other strings, big-endian; little-endian for anything else).
    package static func forms(of text: String) -> [[UInt8]] {
        [
            Array(text.utf8),
            text.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] },
            text.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] },
        ]
    }

    /// Whether `bytes` hold any of `forms` anywhere.
    package static func bytes(_ bytes: [UInt8], holdAnyOf forms: [[UInt8]]) -> Bool {
        forms.contains { form in
            guard let first = form.first, bytes.count >= form.count else { return form.isEmpty }
            var index = 0
            while index + form.count <= bytes.count {
                if bytes[index] == first && bytes[index..<(index + form.count)].elementsEqual(form) { return true }
                index += 1
            }
            return false
        }
    }

    /// Every regular file under `roots` (at any depth, hidden ones too; links are not
    /// followed) whose bytes hold `text` in any of its ``forms(of:)``, as absolute paths,
    /// sorted and without repeats (roots may nest).
    ///
    /// - Throws: A regular file that cannot be read is an error, not a file without the
    ///   text: a search that cannot look is not a search that found nothing.
    package static func paths(holding text: String, under roots: [String]) throws -> [String] {
        let forms = forms(of: text)
        var found: Set<String> = []
        var searched: [String] = []
        for root in roots where !searched.contains(where: { root == $0 || root.hasPrefix($0 + "/") }) {
            searched.append(root)
            guard let walker = FileManager.default.enumerator(atPath: root) else { continue }
            while let relative = walker.nextObject() as? String {
                let path = root + "/" + relative
                // lstat: a link is neither followed nor read; a file removed meanwhile is gone.
                guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
                    attributes[.type] as? FileAttributeType == .typeRegular
                else { continue }
                guard let data = FileManager.default.contents(atPath: path) else {
                    throw CocoaError(.fileReadNoPermission, userInfo: [NSFilePathErrorKey: path])
                }
                if bytes(Array(data), holdAnyOf: forms) { found.insert(path) }
            }
        }
        return found.sorted()
    }
}

extension PrivatePreferencesHome {
    /// The files of this fixture that hold `text` (``FilesHoldingText``): everything under
    /// ``directory`` (the user preferences directory, the system directory, the home
    /// directory, the schemas, and whatever else a test put there, such as a runtime
    /// directory or an exported file), the user directory when it lies elsewhere, and
    /// `others`. Paths inside ``directory`` are relative to it (`preferences/com.example.plist`),
    /// others absolute.
    package func files(holding text: String, alsoUnder others: [String] = []) throws -> [String] {
        let root = directory.url.path
        let roots = [root, userDirectory] + others
        return try FilesHoldingText.paths(holding: text, under: roots).map { path in
            path.hasPrefix(root + "/") ? String(path.dropFirst(root.count + 1)) : path
        }
    }
}
