package import SystemPackage

extension SystemCalls {
    /// Sets an extended attribute of an open file (`fsetxattr`), creating or replacing it.
    ///
    /// Fails with `ENOTSUP` (`EOPNOTSUPP`) on file systems without user extended attributes.
    package static func setExtendedAttribute(_ name: String, to value: [UInt8], of descriptor: FileDescriptor) throws(Errno) {
        let result = name.withCString { name in
            value.withUnsafeBytes { bytes in glibcSetExtendedAttribute(descriptor.rawValue, name, bytes.baseAddress, bytes.count, 0) }
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
            buffer.withUnsafeMutableBytes { bytes in glibcGetExtendedAttribute(descriptor.rawValue, name, bytes.baseAddress, bytes.count) }
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
                buffer.withUnsafeMutableBytes { bytes in glibcGetLinkExtendedAttribute(path, name, bytes.baseAddress, bytes.count) }
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

// glibc's extended-attribute calls (`<sys/xattr.h>`), which the Glibc module does not
// import. Declared by symbol, as `sched_getcpu` is in SystemCalls.swift: they take C ints,
// pointers and sizes and return a C int or ssize_t, which Swift's calling convention passes
// as C does.

/// `int fsetxattr(int fd, const char *name, const void *value, size_t size, int flags)`.
@_silgen_name("fsetxattr")
private func glibcSetExtendedAttribute(
    _ descriptor: CInt, _ name: UnsafePointer<CChar>, _ value: UnsafeRawPointer?, _ size: Int, _ flags: CInt
) -> CInt

/// `ssize_t fgetxattr(int fd, const char *name, void *value, size_t size)`.
@_silgen_name("fgetxattr")
private func glibcGetExtendedAttribute(
    _ descriptor: CInt, _ name: UnsafePointer<CChar>, _ value: UnsafeMutableRawPointer?, _ size: Int
) -> Int

/// `ssize_t lgetxattr(const char *path, const char *name, void *value, size_t size)`.
@_silgen_name("lgetxattr")
private func glibcGetLinkExtendedAttribute(
    _ path: UnsafePointer<CChar>, _ name: UnsafePointer<CChar>, _ value: UnsafeMutableRawPointer?, _ size: Int
) -> Int
