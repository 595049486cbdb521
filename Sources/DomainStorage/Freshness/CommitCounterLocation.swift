import PropertyList
import DeclaredSettings
import Foundation

/// Where a domain file's commit counter lives.
///
/// Under `$XDG_RUNTIME_DIR/swift-preferences/`, a private directory on a memory file system
/// that every process of the user's session shares and that is emptied at logout, named
/// after the file and a hash of its path (`<fileName>-<16 hex digits>`), so a domain in
/// any directory has its own. Without a runtime directory (no session, some containers),
/// beside the domain file as `.<fileName>.commits`, which every process using the file
/// finds too. Two paths that hash alike share a counter: that costs spurious re-reads,
/// never a missed one.
package struct CommitCounterLocation: Sendable, Equatable {
    /// The directory holding the counter, created (0700) if missing.
    package let directory: String
    /// The counter's file name in ``directory``.
    package let name: String
    /// The counter's path.
    package let path: String

    /// The location for `file` given the runtime directory (nil or unusable: beside the file).
    package init(for file: DomainFile, runtimeDirectory: String?) {
        if let runtimeDirectory, runtimeDirectory.hasPrefix("/"), SystemCalls.isSearchableDirectory(runtimeDirectory) {
            directory = runtimeDirectory.pathAppending("swift-preferences")
            // Long enough to tell domains apart, short enough to leave room for the hash.
            let prefix = String(decoding: file.fileName.utf8.prefix(180), as: UTF8.self)
            name = prefix + "-" + Self.hexDigits(Self.hash(file.path))
            path = directory + "/" + name
        } else {
            directory = file.directory
            name = ".\(file.fileName).commits"
            path = file.siblingPath(name)
        }
    }

    /// The runtime directory of this process's session, if it names one.
    package static var processRuntimeDirectory: String? {
        ProcessInfo.processInfo.environment["XDG_RUNTIME_DIR"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// FNV-1a, 64 bits: the same in every process (Swift's `Hasher` is seeded per process).
    package static func hash(_ text: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        return hash
    }

    private static func hexDigits(_ value: UInt64) -> String {
        String(value, radix: 16).zeroPadded(to: 16)
    }
}
