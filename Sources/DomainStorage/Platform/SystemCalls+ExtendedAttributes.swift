import CLinux
package import SystemPackage

extension SystemCalls {
    /// Sets an extended attribute of an open file (`fsetxattr`), creating or replacing it.
    ///
    /// Fails with `ENOTSUP` (`EOPNOTSUPP`) on file systems without user extended attributes.
    package static func setExtendedAttribute(_ name: String, to value: [UInt8], of descriptor: FileDescriptor) throws(Errno) {
        let result = name.withCString { name in
            value.withUnsafeBytes { bytes in CLinux.set_extended_attribute(descriptor.rawValue, name, bytes.baseAddress, bytes.count, 0) }
        }
        if result != 0 { throw currentErrno() }
    }

    /// An extended attribute of an open file, at most `limit` bytes (`fgetxattr`); nil if the
    /// file has none of that name (`ENODATA`).
    ///
    /// Throws `ERANGE` for a longer value, `ENOTSUP` where the file system has none.
    package static func extendedAttribute(_ name: String, of descriptor: FileDescriptor, limit: Int) throws(Errno) -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: limit)
        let count = name.withCString { name in
            buffer.withUnsafeMutableBytes { bytes in CLinux.get_extended_attribute(descriptor.rawValue, name, bytes.baseAddress, bytes.count) }
        }
        if count < 0 {
            let error = currentErrno()
            if error == .noData { return nil }
            throw error
        }
        return Array(buffer.prefix(count))
    }

    /// An extended attribute of the file at a path, not following a link there, at most
    /// `limit` bytes (`lgetxattr`); nil if it has none of that name (`ENODATA`).
    package static func extendedAttribute(_ name: String, atPath path: FilePath, limit: Int) throws(Errno) -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: limit)
        let count = path.withPlatformString { path in
            name.withCString { name in
                buffer.withUnsafeMutableBytes { bytes in CLinux.get_path_extended_attribute(path, name, bytes.baseAddress, bytes.count) }
            }
        }
        if count < 0 {
            let error = currentErrno()
            if error == .noData { return nil }
            throw error
        }
        return Array(buffer.prefix(count))
    }
}
