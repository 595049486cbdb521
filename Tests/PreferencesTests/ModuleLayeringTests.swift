import Foundation
import Testing

/// The direction of the core's code, checked on its sources: within each of the two core
/// modules, no two folders refer to each other both ways. (That `DomainStorage` never names
/// the store is kept by the compiler: it cannot import `Preferences`.)
@Suite("The core's folders refer to each other one way")
struct ModuleLayeringTests {
    /// One module's Swift sources, by folder (`""` for files at the module's top).
    struct Module {
        var folders: [String: [(file: String, code: String)]] = [:]

        init(_ name: String) throws {
            let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
                .appendingPathComponent("../../Sources/\(name)").standardizedFileURL
            let files = try #require(FileManager.default.enumerator(atPath: root.path)).compactMap { $0 as? String }
                .filter { $0.hasSuffix(".swift") }
            for file in files {
                let text = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
                let folder = file.contains("/") ? String(file.prefix { $0 != "/" }) : ""
                folders[folder, default: []].append((file, ModuleLayeringTests.code(of: text)))
            }
        }

        /// The folder that declares each type (struct, class, enum, protocol, actor or
        /// typealias), by name.
        var owners: [String: String] {
            var owners: [String: String] = [:]
            for (folder, files) in folders {
                for (_, code) in files {
                    for name in ModuleLayeringTests.declaredTypes(in: code) where owners[name] == nil { owners[name] = folder }
                }
            }
            return owners
        }

        /// For each folder, the other folders it names a type of, with one example each.
        var references: [String: [String: String]] {
            let owners = owners
            var references: [String: [String: String]] = [:]
            for (folder, files) in folders {
                for (file, code) in files {
                    for word in ModuleLayeringTests.capitalizedWords(in: code) {
                        if let owner = owners[word], owner != folder {
                            references[folder, default: [:]][owner] = "\(file) names \(word)"
                        }
                    }
                }
            }
            return references
        }
    }

    /// `text` with its comments and the contents of its string literals blanked out, so that
    /// a type named only in prose is no reference.
    static func code(of text: String) -> String {
        var output = ""
        var characters = Array(text)[...]
        while let character = characters.first {
            if characters.starts(with: "//") {
                let end = characters.firstIndex(of: "\n") ?? characters.endIndex
                characters = characters[end...]
            } else if characters.starts(with: "/*") {
                var depth = 0
                while !characters.isEmpty {
                    if characters.starts(with: "/*") { depth += 1; characters = characters.dropFirst(2) }
                    else if characters.starts(with: "*/") { depth -= 1; characters = characters.dropFirst(2); if depth == 0 { break } }
                    else { characters = characters.dropFirst() }
                }
                output.append(" ")
            } else if character == "\"" {
                // A literal ends at the next unescaped quote on its line; `"""` blocks end at
                // the next `"""`. Interpolations are dropped with the rest.
                if characters.starts(with: "\"\"\"") {
                    characters = characters.dropFirst(3)
                    while !characters.isEmpty && !characters.starts(with: "\"\"\"") { characters = characters.dropFirst() }
                    characters = characters.dropFirst(3)
                } else {
                    characters = characters.dropFirst()
                    while let next = characters.first, next != "\"", next != "\n" {
                        characters = characters.dropFirst(next == "\\" ? 2 : 1)
                    }
                    characters = characters.dropFirst()
                }
                output.append("\"\"")
            } else {
                output.append(character)
                characters = characters.dropFirst()
            }
        }
        return output
    }

    /// The names of the types a file's code declares at its top level (nested types, such as
    /// the several `State`s, are reached through their outer type's name).
    static func declaredTypes(in code: String) -> [String] {
        let modifiers: Set<Substring> = ["public", "package", "internal", "private", "fileprivate", "final", "indirect"]
        var names: [String] = []
        for line in code.split(separator: "\n") where line.first?.isWhitespace == false {
            let words = line.split { !$0.isLetter && !$0.isNumber && $0 != "_" && $0 != "@" }.drop { modifiers.contains($0) || $0.first == "@" }
            guard let keyword = words.first, ["struct", "class", "enum", "protocol", "actor", "typealias"].contains(keyword),
                let name = words.dropFirst().first, name.first?.isUppercase == true
            else { continue }
            names.append(String(name))
        }
        return names
    }

    /// Every identifier of a file's code that starts with a capital letter.
    static func capitalizedWords(in code: String) -> Set<String> {
        Set(code.split { !$0.isLetter && !$0.isNumber && $0 != "_" }.filter { $0.first?.isUppercase == true }.map(String.init))
    }

    @Test("the scanner sees through comments and strings, and finds declarations")
    func scanner() {
        let code = Self.code(of: "struct A { let b: B // names C\n let s = \"D \\\" E\" /* F */\n struct H {} }\npackage final class G {}")
        #expect(Self.capitalizedWords(in: code) == ["A", "B", "G", "H"])
        #expect(Self.declaredTypes(in: code) == ["A", "G"])
    }

    @Test("no two folders of a core module refer to each other both ways", arguments: ["Preferences", "DomainStorage"])
    func oneWay(module name: String) throws {
        let module = try Module(name)
        #expect(module.folders.count > 5)
        let references = module.references
        for (folder, targets) in references {
            for (target, example) in targets where folder < target {
                if let back = references[target]?[folder] {
                    Issue.record("\(name): \(folder) and \(target) refer to each other: \(example); \(back)")
                }
            }
        }
    }
}
