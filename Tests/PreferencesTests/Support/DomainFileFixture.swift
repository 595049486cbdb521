import Foundation
import Glibc
@testable import Preferences
import TestSupport

/// A fresh temporary directory holding one domain file, removed when the test is done.
///
/// Every test gets its own, so tests run in parallel without sharing files, and the
/// directory's contents can be listed to prove that no temporary or corrupt file was left.
struct DomainFileFixture: ~Copyable {
    /// The temporary directory, removed with the fixture.
    private let temporaryDirectory: TemporaryDirectory
    /// The domain file under test, `com.example.plist` in ``directory``.
    let file: DomainFile

    /// Creates the directory; `subdirectory` puts the domain file further down, not yet
    /// created, to test directory creation.
    init(subdirectory: String? = nil) throws {
        temporaryDirectory = try TemporaryDirectory()
        let directory = temporaryDirectory.url.path
        let fileDirectory = subdirectory.map { directory + "/" + $0 } ?? directory
        file = DomainFile(directory: fileDirectory, fileName: "com.example.plist")
    }

    /// The temporary directory.
    var directory: String { temporaryDirectory.url.path }

    /// The names in the domain file's directory, sorted; empty if it does not exist. The
    /// staging directory's own name is left out (it stays once made), and anything in it is
    /// listed as `.swift-preferences-staging/<name>`, so a temporary file left there shows.
    var entries: [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: file.directory)) ?? []
        let staged = (try? FileManager.default.contentsOfDirectory(atPath: file.stagingDirectory)) ?? []
        return (names.filter { $0 != DomainFile.stagingDirectoryName } + staged.map { DomainFile.stagingDirectoryName + "/" + $0 }).sorted()
    }

    /// Writes bytes to the domain file's path as a new regular file with the given mode.
    func plant(_ bytes: [UInt8], mode: mode_t = 0o600) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: file.path))
        try check(chmod(file.path, mode), "chmod")
    }

    /// Writes values to the domain file's path, encoded as a binary property list.
    func plant(_ values: [String: PropertyListValue], mode: mode_t = 0o600) throws {
        try plant(BinaryPropertyListEncoder().encode(.dictionary(values)), mode: mode)
    }
}

/// The permission bits of a path (`lstat`), e.g. `0o600`; nil if nothing is there.
func permissions(of path: String) -> UInt32? {
    var status = stat()
    guard lstat(path, &status) == 0 else { return nil }
    return status.st_mode & 0o7777
}

/// Bytes that are not a property list of any kind, the same in every run.
let garbageBytes: [UInt8] = (0..<300).map { UInt8(truncatingIfNeeded: $0 &* 167 &+ 13) }

/// Throws if a C call returned -1, naming it and its errno.
func check(_ result: Int32, _ call: String) throws {
    if result == -1 { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO, userInfo: ["call": call]) }
}
