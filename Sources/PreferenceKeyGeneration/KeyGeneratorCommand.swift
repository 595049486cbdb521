import DeclaredSettings
import Foundation

/// The `preferences-keygen` command line, callable from tests without a process.
///
/// ```
/// preferences-keygen --output FILE.swift [--access internal|public] SCHEMA...
/// ```
///
/// Each SCHEMA is a native schema file or a Settings.bundle (the directory or its
/// `Root.plist`). Every schema is read before anything is written, and every problem is
/// reported, so one build shows them all; any problem exits 1 and leaves the output as it was.
package enum KeyGeneratorCommand {
    /// The usage line printed with a usage error and by `--help`.
    package static let usage = "usage: preferences-keygen --output FILE.swift [--access internal|public] SCHEMA..."

    /// What the arguments ask for.
    package struct Options: Sendable, Equatable {
        /// The Swift file to write.
        package var output: String
        /// The declarations' access level.
        package var access: KeyGenerator.Access
        /// The schema paths, in the order given.
        package var schemas: [String]

        /// Creates options.
        package init(output: String, access: KeyGenerator.Access = .internal, schemas: [String]) {
            self.output = output
            self.access = access
            self.schemas = schemas
        }
    }

    /// Arguments that do not make a valid command.
    package struct UsageError: Error, Sendable, Equatable, CustomStringConvertible {
        /// What is wrong.
        package let description: String

        /// Creates an error saying what is wrong.
        package init(description: String) {
            self.description = description
        }
    }

    /// Parses the arguments (without the program name); nil for `--help`.
    package static func parse(_ arguments: [String]) throws(UsageError) -> Options? {
        var output: String?
        var access = KeyGenerator.Access.internal
        var schemas: [String] = []
        var index = 0
        func value(of option: String) throws(UsageError) -> String {
            index += 1
            guard index < arguments.count else { throw UsageError(description: "\(option) needs a value") }
            return arguments[index]
        }
        var optionsEnded = false
        while index < arguments.count {
            let argument = arguments[index]
            switch argument {
            case _ where optionsEnded:
                schemas.append(argument)
            case "--help", "-h":
                return nil
            case "--output", "-o":
                guard output == nil else { throw UsageError(description: "--output is given twice") }
                output = try value(of: argument)
            case "--access":
                let name = try value(of: argument)
                guard let level = KeyGenerator.Access(rawValue: name) else {
                    throw UsageError(description: "--access must be internal or public, not \"\(name)\"")
                }
                access = level
            case "--":
                optionsEnded = true
            case _ where argument.hasPrefix("-") && argument.count > 1:
                throw UsageError(description: "unknown option \(argument)")
            default:
                schemas.append(argument)
            }
            index += 1
        }
        guard let output, !output.isEmpty else { throw UsageError(description: "--output FILE.swift is required") }
        guard !schemas.isEmpty else { throw UsageError(description: "no schema given") }
        return Options(output: output, access: access, schemas: schemas)
    }

    /// Runs the command: 0 on success (or `--help`), 1 on any error. Messages go to
    /// `standardError`, usage to `standardOutput` for `--help`.
    package static func run(
        _ arguments: [String],
        standardOutput: (String) -> Void = { print($0) },
        standardError: (String) -> Void
    ) -> Int32 {
        let options: Options
        do throws(UsageError) {
            guard let parsed = try parse(arguments) else {
                standardOutput(usage)
                return 0
            }
            options = parsed
        } catch {
            standardError("preferences-keygen: \(error)\n\(usage)")
            return 1
        }
        var sources: [KeyGenerator.Source] = []
        var failed = false
        for path in options.schemas {
            do throws(SchemaError) {
                sources.append(try KeyGenerator.Source(contentsOf: path))
            } catch {
                standardError("error: \(error)")
                failed = true
            }
        }
        if failed { return 1 }
        let text: String
        do throws(SchemaError) {
            text = try KeyGenerator(access: options.access).generate(sources)
        } catch {
            standardError("error: \(error)")
            return 1
        }
        do {
            try write(text, to: options.output)
        } catch {
            standardError("error: cannot write \(options.output): \(error)")
            return 1
        }
        return 0
    }

    /// Writes `text` unless the file already holds it: an unchanged file keeps its
    /// modification time, so the build does not recompile the module for nothing.
    static func write(_ text: String, to path: String) throws {
        let data = Data(text.utf8)
        if FileManager.default.contents(atPath: path) == data { return }
        try data.write(to: URL(fileURLWithPath: path), options: .atomic)
    }
}
