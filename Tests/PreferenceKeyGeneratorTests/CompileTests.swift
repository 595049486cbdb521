import Foundation
import PreferenceKeyGeneration
import Testing
import TestSupport

/// Type-checks generated keys and code using them against the `Preferences` module this
/// test run was built with: what a build with the plugin compiles, without building a
/// package (which would rebuild every dependency, minutes).
@Suite("Generated keys compile", .ownThread)
struct CompileTests {
    /// A schema with a key of every type, keys without defaults, and names that need care.
    static let schema = nativeSchema(#"""
        <key>Volume</key><dict><key>Type</key><string>integer</string><key>Default</key><integer>50</integer>
          <key>Minimum</key><integer>0</integer><key>Maximum</key><integer>100</integer><key>Summary</key><string>How loud.</string></dict>
        <key>title</key><dict><key>Type</key><string>string</string><key>Default</key><string>"Quoted" \ back
        slash &#x1; Grüße */ /*</string></dict>
        <key>ratio</key><dict><key>Type</key><string>real</string><key>Default</key><real>0.1</real></dict>
        <key>enabled</key><dict><key>Type</key><string>boolean</string><key>Default</key><false/></dict>
        <key>since</key><dict><key>Type</key><string>date</string><key>Default</key><date>2001-01-01T00:00:12Z</date></dict>
        <key>token</key><dict><key>Type</key><string>data</string><key>Default</key><data>AAr/</data></dict>
        <key>tags</key><dict><key>Type</key><string>array</string><key>ElementType</key><string>string</string>
          <key>Default</key><array><string>a</string></array></dict>
        <key>mixed</key><dict><key>Type</key><string>array</string>
          <key>Default</key><array><string>a</string><integer>18446744073709551615</integer><real>1.5</real><true/></array></dict>
        <key>extra</key><dict><key>Type</key><string>dictionary</string>
          <key>Default</key><dict><key>n</key><dict><key>d</key><data>AQ==</data><key>t</key><date>2001-01-01T00:00:00Z</date></dict></dict></dict>
        <key>count</key><dict><key>Type</key><string>integer</string></dict>
        <key>default</key><dict><key>Type</key><string>string</string><key>Default</key><string>x</string></dict>
        <key>3d.mode</key><dict><key>Type</key><string>boolean</string><key>Default</key><true/></dict>
        """#)

    /// Code that reads and writes every key with the types the schema declares.
    static let useSite = """
        import Foundation
        import Preferences

        func use(_ store: PreferenceStore) {
            let volume: Int = store[.volume]
            store[.volume] = volume + 1
            let title: String = store[.title]
            let ratio: Double = store[.ratio]
            let enabled: Bool = store[.enabled]
            let since: Date = store[.since]
            let token: Data = store[.token]
            let tags: [String] = store[.tags]
            let mixed: [PropertyListValue] = store[.mixed]
            let extra: [String: PropertyListValue] = store[.extra]
            let count: Int? = store[.count]
            store[.count] = nil
            let keyword: String = store[.default]
            let mode: Bool = store[._3dMode]
            _ = (title, ratio, enabled, since, token, tags, mixed, extra, count, keyword, mode)
        }
        """

    @Test("A schema change that breaks code fails the build: the keys type-check, and after a key's type changes the use site fails naming it")
    func schemaChangeBreaksTheBuild() throws {
        let compiler = try BuiltCompiler()
        let directory = try TemporaryDirectory()
        let schema = directory.file("app.schema.plist")
        let keys = directory.file("PreferenceKeys.swift")
        let use = directory.file("Use.swift")
        try Self.useSite.write(to: use, atomically: true, encoding: .utf8)

        try Self.schema.write(to: schema, atomically: true, encoding: .utf8)
        let generated = runCommand(["--output", keys.path, schema.path])
        try #require(generated.status == 0, "\(generated.errors)")
        let good = try compiler.typecheck([keys.path, use.path])
        // Warnings are errors here, as in the package: the generated file must have none.
        #expect(good.status == 0 && good.output.isEmpty, "\(good.output)")

        // Volume becomes a string: the code that reads it as an Int no longer compiles.
        let changed = Self.schema.replacingOccurrences(
            of: "<key>Type</key><string>integer</string><key>Default</key><integer>50</integer>\n  <key>Minimum</key><integer>0</integer><key>Maximum</key><integer>100</integer>",
            with: "<key>Type</key><string>string</string><key>Default</key><string>50</string>")
        try #require(changed != Self.schema)
        try changed.write(to: schema, atomically: true, encoding: .utf8)
        try #require(runCommand(["--output", keys.path, schema.path]).status == 0)
        let broken = try compiler.typecheck([keys.path, use.path])
        #expect(broken.status != 0)
        #expect(broken.output.contains("Use.swift:5:"), "\(broken.output)")
        #expect(broken.output.contains("volume") || broken.output.contains("'String' to specified type 'Int'"), "\(broken.output)")
    }

    @Test("The declared-settings guide's twenty-line example compiles against generated keys, as written")
    func guideExample() throws {
        let guide = try String(
            contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent()
                .appendingPathComponent("Sources/Preferences/Preferences.docc/Articles/DeclaredSettingsAndSettingsBundle.md"),
            encoding: .utf8)
        let section = try #require(guide.range(of: "### The whole path, in twenty lines").map { guide[$0.lowerBound...] })
        func block(_ language: String) throws -> String {
            let start = try #require(section.range(of: "```\(language)\n"))
            let end = try #require(section[start.upperBound...].range(of: "```"))
            return String(section[start.upperBound..<end.lowerBound])
        }
        let xml = try block("xml")
        let swift = try block("swift")
        let directory = try TemporaryDirectory()
        let schema = directory.file("com.example.player.schema.plist")
        try ("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<plist version=\"1.0\">\n" + xml + "</plist>\n")
            .write(to: schema, atomically: true, encoding: .utf8)
        let keys = directory.file("PreferenceKeys.swift")
        let generated = runCommand(["--output", keys.path, schema.path])
        try #require(generated.status == 0, "\(generated.errors)")
        // The snippet is top-level code, as in a main.swift, with the imports it needs.
        let main = directory.file("main.swift")
        try ("import Foundation\nimport Observation\nimport Preferences\n\nfunc example() throws {\n" + swift + "_ = volume\n}\n")
            .write(to: main, atomically: true, encoding: .utf8)
        let result = try BuiltCompiler().typecheck([keys.path, main.path])
        #expect(result.status == 0 && result.output.isEmpty, "\(result.output)")
    }

    @Test("Public keys compile warning-free in a library that exports them")
    func publicKeys() throws {
        let compiler = try BuiltCompiler()
        let directory = try TemporaryDirectory()
        let schema = directory.file("app.schema.plist")
        try Self.schema.write(to: schema, atomically: true, encoding: .utf8)
        let keys = directory.file("PreferenceKeys.swift")
        try #require(runCommand(["--output", keys.path, "--access", "public", schema.path]).status == 0)
        let result = try compiler.typecheck([keys.path], extra: ["-parse-as-library", "-module-name", "AppKeys"])
        #expect(result.status == 0 && result.output.isEmpty, "\(result.output)")

        // Keys of no Foundation type: Foundation is not imported publicly, which would warn.
        let plain = directory.file("plain.schema.plist")
        try nativeSchema("<key>a</key><dict><key>Type</key><string>string</string></dict>").write(to: plain, atomically: true, encoding: .utf8)
        try #require(runCommand(["--output", keys.path, "--access", "public", plain.path]).status == 0)
        let plainResult = try compiler.typecheck([keys.path], extra: ["-parse-as-library", "-module-name", "AppKeys"])
        #expect(plainResult.status == 0 && plainResult.output.isEmpty, "\(plainResult.output)")
    }
}

/// The compiler and search paths this test run's `Preferences` module was built with,
/// read from SwiftPM's build manifest (`.build/debug.yaml`) so the flags are exactly the
/// build's: the module directory and the module maps of the C modules it imports
/// (CSystemd, swift-system's CSystem).
struct BuiltCompiler {
    let executable: String
    let flags: [String]

    init() throws {
        let configuration = builtProductsDirectory.lastPathComponent
        let candidates = [
            builtProductsDirectory.deletingLastPathComponent().deletingLastPathComponent(),
            builtProductsDirectory.deletingLastPathComponent(),
        ].map { $0.appendingPathComponent("\(configuration).yaml") }
        guard let manifest = candidates.first(where: { FileManager.default.fileExists(atPath: $0.path) }) else {
            throw Failure("no build manifest at \(candidates.map(\.path))")
        }
        let text = try String(contentsOf: manifest, encoding: .utf8)
        guard let line = text.split(separator: "\n").first(where: {
            $0.contains(#"args: ["#) && $0.contains(#""-module-name","Preferences","#)
        }), let start = line.firstIndex(of: "[") else {
            throw Failure("no command compiling Preferences in \(manifest.path)")
        }
        let arguments = try JSONDecoder().decode([String].self, from: Data(line[start...].utf8))
        executable = arguments[0]
        var flags: [String] = []
        var index = 1
        while index < arguments.count {
            let argument = arguments[index]
            if argument == "-I" || argument == "-sdk" || argument == "-target", index + 1 < arguments.count {
                flags += [argument, arguments[index + 1]]
                index += 1
            } else if argument == "-Xcc", index + 1 < arguments.count, arguments[index + 1].hasPrefix("-fmodule-map-file=") {
                flags += [argument, arguments[index + 1]]
                index += 1
            }
            index += 1
        }
        self.flags = flags
    }

    /// Runs `swiftc -typecheck` in Swift 6 mode with warnings as errors.
    func typecheck(_ files: [String], extra: [String] = []) throws -> ProgramResult {
        try run(executable, ["-typecheck", "-swift-version", "6", "-warnings-as-errors"] + flags + extra + files)
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
