import Foundation
import Glibc

/// Everything observable about a path without opening it for reading: its `lstat`
/// fields and, for a regular file, its bytes; for a link, its target.
///
/// Two equal snapshots mean the file was not modified, replaced, moved or re-permissioned.
struct FileSnapshot: Equatable, CustomStringConvertible {
    let device: UInt64
    let inode: UInt64
    let mode: UInt32
    let owner: UInt32
    let size: Int64
    let modificationTime: [Int]
    let statusChangeTime: [Int]
    let bytes: [UInt8]?
    let linkTarget: String?

    /// Takes a snapshot; nil if nothing is at the path.
    init?(_ path: String) {
        var status = stat()
        guard lstat(path, &status) == 0 else { return nil }
        device = UInt64(status.st_dev)
        inode = UInt64(status.st_ino)
        mode = status.st_mode
        owner = status.st_uid
        size = Int64(status.st_size)
        modificationTime = [status.st_mtim.tv_sec, status.st_mtim.tv_nsec]
        statusChangeTime = [status.st_ctim.tv_sec, status.st_ctim.tv_nsec]
        // Only regular files are read: reading a FIFO would block.
        bytes = (status.st_mode & S_IFMT) == S_IFREG ? FileManager.default.contents(atPath: path).map { [UInt8]($0) } : nil
        linkTarget = (status.st_mode & S_IFMT) == S_IFLNK ? try? FileManager.default.destinationOfSymbolicLink(atPath: path) : nil
    }

    /// Equal in everything but the status-change time: the same inode, mode, owner, size,
    /// modification time, bytes and link target.
    func unchangedApartFromStatusChange(since other: FileSnapshot) -> Bool {
        device == other.device && inode == other.inode && mode == other.mode && owner == other.owner && size == other.size
            && modificationTime == other.modificationTime && bytes == other.bytes && linkTarget == other.linkTarget
    }

    var description: String {
        "inode \(inode) mode \(String(mode, radix: 8)) uid \(owner) size \(size) mtime \(modificationTime)"
    }
}
