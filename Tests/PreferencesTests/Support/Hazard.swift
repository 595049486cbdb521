import Foundation
import Glibc
import Testing
import TestSupport

@testable import Preferences

/// A file planted at a domain's path that a reader must refuse.
enum Hazard: String, CaseIterable, CustomTestStringConvertible {
    case symbolicLink, otherOwner, groupWritable, fifo, tooLarge, garbage, arrayAtTop

    var testDescription: String { rawValue }

    /// Whether the file is a safe file with undecodable contents (an update sets it aside)
    /// rather than an unsafe one (an update refuses to touch it).
    var isCorrupt: Bool { self == .garbage || self == .arrayAtTop }

    /// The error code a read gives.
    var code: PreferencesError.Code {
        switch self {
        case .symbolicLink: .symbolicLink
        case .otherOwner: .wrongOwner
        case .groupWritable: .insecurePermissions
        case .fifo: .notRegularFile
        case .tooLarge: .tooLarge
        case .garbage: .corrupt
        case .arrayAtTop: .notADictionary
        }
    }

    /// Words the error's description must contain, saying why.
    var words: String {
        switch self {
        case .symbolicLink: "is a symbolic link"
        case .otherOwner: "is owned by uid"
        case .groupWritable: "is group- or world-writable (mode 0664)"
        case .fifo: "is a FIFO (named pipe), not a regular file"
        case .tooLarge: "is 1048577 bytes, over the limit of 1048576 bytes"
        case .garbage: "is not a valid binary property list"
        case .arrayAtTop: "top-level value is an array, not a dictionary"
        }
    }

    /// Puts the hazard at the fixture's domain path and returns the policy to read it with.
    func plant(in fixture: borrowing DomainFileFixture) throws -> FilePolicy {
        let path = fixture.file.path
        switch self {
        case .symbolicLink:
            let target = fixture.directory + "/elsewhere.plist"
            try Data(BinaryPropertyListEncoder().encode(["a": 1])).write(to: URL(fileURLWithPath: target))
            try check(symlink(target, path), "symlink")
        case .otherOwner:
            try fixture.plant(["a": 1])
            // With CAP_CHOWN (root, as CI runs) the file really belongs to someone else;
            // otherwise the same check is reached by trusting only another user.
            guard Privileges.canChangeOwners else { return FilePolicy(trustedOwners: [geteuid() &+ 1]) }
            try check(chown(path, 65534, 65534), "chown")
        case .groupWritable:
            try fixture.plant(["a": 1], mode: 0o664)
        case .fifo:
            try check(mkfifo(path, 0o600), "mkfifo")
        case .tooLarge:
            try fixture.plant([UInt8](repeating: 0x42, count: FilePolicy.defaultSizeLimit + 1))
        case .garbage:
            try fixture.plant(garbageBytes)
        case .arrayAtTop:
            try fixture.plant(BinaryPropertyListEncoder().encode(["not", "a", "dictionary"]))
        }
        return FilePolicy()
    }
}
