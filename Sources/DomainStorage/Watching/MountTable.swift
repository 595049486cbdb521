import SystemPackage

/// The file systems mounted in this process's mount namespace, as `/proc/self/mountinfo`
/// lists them: enough to tell which kind of file system a directory is on.
///
/// The watcher needs to know because inotify only reports changes that pass through this
/// kernel. On a network file system another machine's write, and on a FUSE file system a
/// change made by the server's side, arrive without an event, so there the watcher polls.
package struct MountTable {
    /// One mount: the device its files report, and its file system type.
    package struct Mount: Equatable {
        /// The device's major number.
        package let major: UInt32
        /// The device's minor number.
        package let minor: UInt32
        /// The type, such as `ext4`, `nfs4` or `fuse.sshfs`.
        package let type: String
    }

    /// File system types whose files can change without this kernel seeing it: network and
    /// cluster file systems, host-shared folders in virtual machines, and FUSE (plain
    /// `fuse` and every `fuse.<server>`). Not `fuseblk`: a FUSE driver for a local disk
    /// (ntfs-3g) is the disk's only writer, so every change passes through the mount.
    package static let typesChangedElsewhere: Set<String> = [
        "nfs", "nfs4", "cifs", "smb3", "smbfs", "9p", "virtiofs", "vboxsf", "ceph", "afs", "coda",
        "gfs2", "ocfs2", "lustre", "gpfs", "glusterfs", "fuse",
    ]

    /// `statfs(2)` magic numbers of file systems whose every change passes through this
    /// kernel (ext2/3/4, tmpfs, btrfs, xfs, overlayfs, f2fs, zfs, ramfs, bcachefs, squashfs,
    /// vfat, exfat): a directory on one needs no look at the mount table. Any other number,
    /// FUSE's above all (shared by `fuse.*` and `fuseblk`), is told apart by its type's name.
    /// An array, not a set: a process's first `Set<Int>` costs a scan of every loaded
    /// library's conformance records, longer than the mount table's read it saves.
    package static let localMagics: [Int] = [
        0xEF53, 0x0102_1994, 0x9123_683E, 0x5846_5342, 0x794C_7630, 0xF2F5_2010, 0x2FC1_2FC1, 0x8584_58F6,
        0xCA45_1A4E, 0x7371_7368, 0x4D44, 0x2011_BAB0,
    ]

    /// The mounts, in the order listed.
    package let mounts: [Mount]

    /// Parses the text of a `mountinfo` file.
    ///
    /// Each line is `ID PARENT MAJOR:MINOR ROOT MOUNT-POINT OPTIONS [OPTIONAL...] - TYPE SOURCE
    /// SUPER-OPTIONS`; the optional fields vary in number, so the type is found after the
    /// lone `-`. Lines that do not have that shape are skipped.
    package init(parsing text: String) {
        // Split as bytes, not Characters: every new watched directory reads the table, and
        // splitting by grapheme made that most of the cost of opening a store.
        var mounts: [Mount] = []
        for line in text.utf8.split(separator: UInt8(ascii: "\n")) {
            let fields = line.split(separator: UInt8(ascii: " "))
            guard fields.count > 2,
                let separator = fields.firstIndex(where: { $0.count == 1 && $0.first == UInt8(ascii: "-") }),
                separator + 1 < fields.count
            else { continue }
            let device = fields[2].split(separator: UInt8(ascii: ":"))
            guard device.count == 2, let major = Self.number(device[0]), let minor = Self.number(device[1]) else { continue }
            mounts.append(Mount(major: major, minor: minor, type: String(decoding: fields[separator + 1], as: UTF8.self)))
        }
        self.mounts = mounts
    }

    /// A decimal number of ASCII digits that fits a `UInt32`; nil otherwise.
    private static func number(_ digits: Substring.UTF8View.SubSequence) -> UInt32? {
        guard !digits.isEmpty, digits.count <= 10 else { return nil }
        var value: UInt64 = 0
        for byte in digits {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + UInt64(byte - UInt8(ascii: "0"))
        }
        return UInt32(exactly: value)
    }

    /// Reads this process's table; empty if `/proc` cannot be read.
    package static func current() -> MountTable {
        MountTable(parsing: (try? readProcFile("/proc/self/mountinfo")) ?? "")
    }

    /// The type of the file system mounted from a device; nil if no mount has it.
    ///
    /// Several mounts of one device (bind mounts) share its type, so the first will do.
    package func type(major: UInt32, minor: UInt32) -> String? {
        mounts.first { $0.major == major && $0.minor == minor }?.type
    }

    /// Whether inotify can miss changes on file systems of this type.
    package static func isChangedElsewhere(_ type: String) -> Bool {
        typesChangedElsewhere.contains(type) || type.hasPrefix("fuse.")
    }

    /// The type of the file system holding `path`; nil if the path cannot be examined or its
    /// device is not listed.
    ///
    /// Symbolic links are followed, as the watch and the readers follow them.
    package static func type(holding path: String) -> String? {
        guard let status = try? FilePath(path).stat() else { return nil }
        let (major, minor) = SystemCalls.deviceNumbers(status.deviceID)
        return current().type(major: major, minor: minor)
    }

    /// The type of the file system holding the directory at `path`, if it is one where
    /// inotify can miss changes; nil for local file systems and for paths that cannot be
    /// examined (the caller's own attempt to watch will say why).
    package static func typeChangedElsewhere(holding path: String) -> String? {
        // One statfs first: reading and parsing mountinfo cost about a quarter of a
        // millisecond, paid for every new watched directory (a schema directory made it a
        // large share of a process's first store of a declared domain).
        if let magic = SystemCalls.fileSystemMagic(path), localMagics.contains(magic) { return nil }
        guard let type = type(holding: path), isChangedElsewhere(type) else { return nil }
        return type
    }

    /// Reads a whole file whose size `stat` does not tell (files in `/proc` report 0).
    private static func readProcFile(_ path: String) throws(Errno) -> String {
        let descriptor = try Errno.typed { try FileDescriptor.open(FilePath(path), .readOnly, options: [.closeOnExec]) }
        defer { try? descriptor.close() }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = try Errno.typed { try chunk.withUnsafeMutableBytes { try descriptor.read(into: $0) } }
            if count == 0 { return String(decoding: bytes, as: UTF8.self) }
            bytes += chunk[..<count]
        }
    }
}
