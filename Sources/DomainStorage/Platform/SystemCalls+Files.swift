import CLinux
import Glibc
package import SystemPackage

extension SystemCalls {
    /// Flushes a file's data and metadata to its storage device (`fsync`).
    ///
    /// Not retried on `EINTR` or anything else: after a failed `fsync` the kernel may already
    /// have dropped the dirty pages, so a second call can succeed without the data being safe.
    /// A caller that sees an error must treat the file's contents as lost.
    package static func fsync(_ descriptor: FileDescriptor) throws(Errno) {
        if Glibc.fsync(descriptor.rawValue) != 0 { throw currentErrno() }
    }

    /// Sets an open file's permission bits exactly (`fchmod`).
    ///
    /// `open` and `mkdir` filter the requested mode through the umask; this sets it as given.
    package static func fchmod(_ descriptor: FileDescriptor, _ permissions: FilePermissions) throws(Errno) {
        while Glibc.fchmod(descriptor.rawValue, permissions.rawValue) != 0 {
            let error = currentErrno()
            if error != .interrupted { throw error }
        }
    }

    /// Sets an open file's modification time to `nanoseconds` since 1970 and its access time
    /// to the same (`futimens`).
    package static func setModificationTime(_ descriptor: FileDescriptor, nanoseconds: Int64) throws(Errno) {
        let time = timespec(tv_sec: Int(nanoseconds / 1_000_000_000), tv_nsec: Int(nanoseconds % 1_000_000_000))
        let times = [time, time]
        while Glibc.futimens(descriptor.rawValue, times) != 0 {
            let error = currentErrno()
            if error != .interrupted { throw error }
        }
    }

    /// Atomically gives a file a new name, replacing any file already there (`rename`).
    package static func rename(_ source: FilePath, to destination: FilePath) throws(Errno) {
        let result = source.withPlatformString { source in
            destination.withPlatformString { destination in Glibc.rename(source, destination) }
        }
        if result != 0 { throw currentErrno() }
    }

    /// Gives an existing file a second name, failing with `EEXIST` if that name is taken
    /// (`link`).
    ///
    /// Unlike `rename`, this never replaces anything and leaves the original name in place.
    package static func link(_ existing: FilePath, as newName: FilePath) throws(Errno) {
        let result = existing.withPlatformString { existing in
            newName.withPlatformString { newName in Glibc.link(existing, newName) }
        }
        if result != 0 { throw currentErrno() }
    }

    /// Gives an existing file a second name inside an open directory, failing with `EEXIST`
    /// if that name is taken (`linkat`, without following a link at `existing`).
    ///
    /// The directory is named by its descriptor, so the name lands in the very directory that
    /// was opened and checked, even if its path is replaced in between.
    package static func link(_ existing: FilePath, into directory: FileDescriptor, as name: String) throws(Errno) {
        let result = existing.withPlatformString { existing in
            name.withCString { name in Glibc.linkat(AT_FDCWD, existing, directory.rawValue, name, 0) }
        }
        if result != 0 { throw currentErrno() }
    }

    /// Moves a name out of an open directory to `destination`, failing with `EEXIST` rather
    /// than replacing a file there (`renameat2` with `RENAME_NOREPLACE`).
    package static func move(_ name: String, in directory: FileDescriptor, to destination: FilePath) throws(Errno) {
        let result = name.withCString { name in
            destination.withPlatformString { destination in
                CLinux.rename_no_replace(directory.rawValue, name, AT_FDCWD, destination)
            }
        }
        if result != 0 { throw currentErrno() }
    }

    /// Renames a name inside an open directory, replacing any file at `destination` there
    /// (`renameat`), or failing with `EEXIST` instead when `replacing` is false
    /// (`renameat2` with `RENAME_NOREPLACE`).
    package static func rename(_ source: String, to destination: String, in directory: FileDescriptor, replacing: Bool) throws(Errno) {
        let result = source.withCString { source in
            destination.withCString { destination in
                replacing
                    ? Glibc.renameat(directory.rawValue, source, directory.rawValue, destination)
                    : CLinux.rename_no_replace(directory.rawValue, source, directory.rawValue, destination)
            }
        }
        if result != 0 { throw currentErrno() }
    }

    /// Creates a new file in an open directory for writing, failing with `EEXIST` if the name
    /// is taken and never following a link (`openat(O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
    /// O_CLOEXEC)`), retrying `EINTR`.
    package static func createExclusively(_ name: String, in directory: FileDescriptor, permissions: FilePermissions) throws(Errno) -> FileDescriptor {
        while true {
            let descriptor = name.withCString {
                Glibc.openat(directory.rawValue, $0, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, permissions.rawValue)
            }
            if descriptor >= 0 { return FileDescriptor(rawValue: descriptor) }
            let error = currentErrno()
            if error != .interrupted { throw error }
        }
    }

    /// Removes a name from an open directory (`unlinkat`).
    package static func unlink(_ name: String, in directory: FileDescriptor) throws(Errno) {
        if name.withCString({ Glibc.unlinkat(directory.rawValue, $0, 0) }) != 0 { throw currentErrno() }
    }

    /// Opens a file in an open directory for reading, without following a link, without
    /// blocking on a FIFO, and close-on-exec (`openat(O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
    /// O_CLOEXEC)`), retrying `EINTR`.
    package static func openForReading(_ name: String, in directory: FileDescriptor) throws(Errno) -> FileDescriptor {
        while true {
            let descriptor = name.withCString {
                Glibc.openat(directory.rawValue, $0, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
            }
            if descriptor >= 0 { return FileDescriptor(rawValue: descriptor) }
            let error = currentErrno()
            if error != .interrupted { throw error }
        }
    }

    /// The names in an open directory, without `.` and `..` (`dup`, `fdopendir`, `readdir`,
    /// `closedir`); the descriptor stays open and is not moved.
    package static func directoryEntries(in directory: FileDescriptor) throws(Errno) -> [String] {
        // fdopendir takes over the descriptor it is given and closedir closes it: give it a copy.
        let copy = Glibc.dup(directory.rawValue)
        guard copy >= 0 else { throw currentErrno() }
        guard let stream = Glibc.fdopendir(copy) else {
            let error = currentErrno()
            Glibc.close(copy)
            throw error
        }
        defer { Glibc.closedir(stream) }
        // A duplicate shares the original's position: start from the beginning whatever an
        // earlier listing left.
        Glibc.rewinddir(stream)
        var names: [String] = []
        while true {
            Glibc.errno = 0
            guard let entry = Glibc.readdir(stream) else {
                if Glibc.errno != 0 { throw currentErrno() }
                return names
            }
            let name = withUnsafeBytes(of: entry.pointee.d_name) { bytes in
                String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
    }

    /// Whether anything is at `path`, a link included (`lstat`: none is followed).
    package static func entryExists(_ path: String) -> Bool {
        (try? FilePath(path).stat(followTargetSymlink: false)) != nil
    }

    /// Removes a name from the file system (`unlink`).
    package static func unlink(_ path: FilePath) throws(Errno) {
        if path.withPlatformString({ Glibc.unlink($0) }) != 0 { throw currentErrno() }
    }

    /// Creates one directory with the given permissions, less the umask (`mkdir`).
    package static func mkdir(_ path: FilePath, _ permissions: FilePermissions) throws(Errno) {
        if path.withPlatformString({ Glibc.mkdir($0, permissions.rawValue) }) != 0 { throw currentErrno() }
    }

    /// Sets a path's permissions exactly, whatever the umask (`chmod`).
    package static func chmod(_ path: FilePath, _ permissions: FilePermissions) throws(Errno) {
        if path.withPlatformString({ Glibc.chmod($0, permissions.rawValue) }) != 0 { throw currentErrno() }
    }

    /// The names in a directory, without `.` and `..` (`opendir`, `readdir`, `closedir`).
    package static func directoryEntries(_ path: FilePath) throws(Errno) -> [String] {
        guard let directory = path.withPlatformString({ Glibc.opendir($0) }) else { throw currentErrno() }
        defer { Glibc.closedir(directory) }
        var names: [String] = []
        while true {
            // readdir returns nil both at the end and on error; only errno tells them apart.
            Glibc.errno = 0
            guard let entry = Glibc.readdir(directory) else {
                if Glibc.errno != 0 { throw currentErrno() }
                return names
            }
            let name = withUnsafeBytes(of: entry.pointee.d_name) { bytes in
                String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
    }

    /// Splits a device number into its major and minor numbers, as glibc's `major()` and
    /// `minor()` do (macros over inline functions, which Swift does not import).
    ///
    /// `/proc/self/mountinfo` names each mount's device as `major:minor`.
    package static func deviceNumbers(_ device: DeviceID) -> (major: UInt32, minor: UInt32) {
        let raw = UInt64(device.rawValue)
        let major = (raw & 0x0000_0000_000f_ff00) >> 8 | (raw & 0xffff_f000_0000_0000) >> 32
        let minor = (raw & 0x0000_0000_0000_00ff) | (raw & 0x0000_0fff_fff0_0000) >> 12
        return (UInt32(truncatingIfNeeded: major), UInt32(truncatingIfNeeded: minor))
    }

    /// Whether `path` leads (following links) to a directory this user can read: an
    /// `open(O_RDONLY | O_DIRECTORY)` and a `close` on the string as it is, without building a
    /// `FilePath`. False for a missing path and for one this user cannot search.
    package static func isSearchableDirectory(_ path: String) -> Bool {
        let descriptor = path.withCString { Glibc.open($0, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NONBLOCK) }
        guard descriptor >= 0 else { return false }
        Glibc.close(descriptor)
        return true
    }

    /// The `f_type` magic number `statfs(2)` reports for the file system holding `path`;
    /// nil if it cannot be examined.
    package static func fileSystemMagic(_ path: String) -> Int? {
        let magic = path.withCString { CLinux.file_system_magic($0) }
        return magic < 0 ? nil : Int(magic)
    }
}
