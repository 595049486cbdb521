import ArgumentParser
import Foundation
import DefaultsCommand
import Preferences

/// `defaults history domain [key]`: the domain's kept versions, newest first.
struct History: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List a domain's versions newest first: the current file, then the generations kept in its history.",
        discussion: """
            Each line: the version's number, when it was written, by which process (pid and \
            systemd unit) and the keys it changed relative to the version before. A writer is \
            unknown for files written by other programs, and 'edited outside the library' for \
            files rewritten in place since. With KEY, only versions that changed it. undo and \
            restore bring back an earlier version.

            Examples:
              defaults history com.example.app
              defaults history com.example.app Interval
            """
    )

    @OptionGroup var host: HostOptions
    @Flag(help: "Print a JSON array instead.") var json = false
    @Argument(help: "The domain.") var domain: String
    @Argument(help: "Only versions that changed this key.") var key: String?

    func run() throws {
        let context = DefaultsContext(currentHost: host.currentHost)
        let location = try context.location(domain)
        let files = context.files()
        var generations: [DomainGeneration]
        do throws(PreferencesError) {
            generations = try files.generations(at: location)
        } catch {
            throw DefaultsContext.failure(error, domain: location.description)
        }
        guard !generations.isEmpty else { throw DefaultsFailure("Domain \(location) has no versions: no file and no history") }
        if let key { generations = generations.filter { $0.changedKeys?.contains(key) ?? false } }
        if json {
            Output.line(GenerationText.json(generations))
        } else {
            for generation in generations { Output.line(GenerationText.line(generation)) }
        }
    }
}

/// `defaults undo domain`: back to the version before the current one.
struct Undo: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Restore the domain's previous version, as a new commit (a second undo undoes the undo).",
        discussion: """
            Running programs see the change as any other write. The version replaced is kept in \
            the history.

            Examples:
              defaults undo com.example.app
            """
    )

    @OptionGroup var host: HostOptions
    @Argument(help: "The domain.") var domain: String

    func run() throws {
        let context = DefaultsContext(currentHost: host.currentHost)
        let location = try context.location(domain)
        do throws(PreferencesError) {
            let restored = try context.files().undo(at: location)
            Output.error("Restored \(location) to generation \(restored.number)")
        } catch {
            throw DefaultsContext.failure(error, domain: location.description)
        }
    }
}

/// `defaults restore domain generation`: back to any kept version.
struct Restore: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Restore a kept generation of the domain (see history), as a new commit.",
        discussion: """
            Running programs see the change as any other write. A generation that does not exist \
            or does not decode changes nothing and exits 1.

            Examples:
              defaults history com.example.app
              defaults restore com.example.app 3
            """
    )

    @OptionGroup var host: HostOptions
    @Argument(help: "The domain.") var domain: String
    @Argument(help: "The generation's number, as history lists it.") var generation: Int

    func run() throws {
        let context = DefaultsContext(currentHost: host.currentHost)
        let location = try context.location(domain)
        do throws(PreferencesError) {
            let restored = try context.files().restore(generation: generation, at: location)
            Output.error("Restored \(location) to generation \(restored.number)")
        } catch {
            throw DefaultsContext.failure(error, domain: location.description)
        }
    }
}

/// `defaults purge domain [key...]`: a value gone from every kept copy.
struct Purge: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Remove keys from a domain and from every copy of it kept: its history and any corrupt file set aside.",
        discussion: """
            With keys: each is deleted from the domain (running programs see a removal) and its \
            values are taken out of every generation in the history and every corrupt copy kept \
            aside, durably, so that no file of the domain holds them any more. Undo and restore \
            keep working for the other keys. With no key: the whole history and every corrupt \
            copy are removed, and the domain's current values stay. Deleting a key the domain's \
            schema declares private does the same by itself.

            Examples:
              defaults purge com.example.app Token
              defaults purge com.example.app
            """
    )

    @OptionGroup var host: HostOptions
    @Argument(help: "The domain.") var domain: String
    @Argument(help: "The keys; the whole history when omitted.") var keys: [String] = []

    func run() throws {
        let context = DefaultsContext(currentHost: host.currentHost)
        let location = try context.location(domain)
        do throws(PreferencesError) {
            let files = context.files()
            let count = try files.purge(keys: keys, at: location)
            let what = keys.isEmpty ? "the history" : keys.joined(separator: ", ")
            Output.error("Purged \(what) of \(location): \(count) kept file\(count == 1 ? "" : "s") rewritten or removed")
            // A copy set aside as corrupt does not decode: only the values the keys were
            // found with elsewhere could be overwritten in it. A value it alone holds cannot
            // be found by key, so say which copies remain and how to remove them.
            if !keys.isEmpty, let path = files.filePath(of: location) {
                let directory = (path as NSString).deletingLastPathComponent
                let prefix = (path as NSString).lastPathComponent + ".corrupt-"
                let copies = ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter { $0.hasPrefix(prefix) }.sorted()
                if !copies.isEmpty {
                    Output.error(
                        "warning: \(copies.count) corrupt cop\(copies.count == 1 ? "y" : "ies") kept aside (\(copies.joined(separator: ", "))) do not decode; values found elsewhere were overwritten in them, but a value only they hold cannot be found by key: `defaults purge \(location)` removes them with the whole history")
                }
            }
        } catch {
            throw DefaultsContext.failure(error, domain: location.description)
        }
    }
}
