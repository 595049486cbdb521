// For the members of the C `stat` (`st_mtim`, `st_ctim`) that Stat's fields hold.
import Glibc
package import SystemPackage

/// What a domain file looked like on disk at one moment, for cheap change detection.
///
/// Writers replace domain files by rename, so a new version is a new inode; editors that write
/// in place change the size or the times instead. Comparing two identities therefore tells
/// whether a file may have changed without reading it. The status-change time is included
/// because it also moves on `chmod`, `chown` and rename, which the modification time does not;
/// the mode and owner are included because such a change within one tick of the file system's
/// clock leaves the status-change time as it was, and they decide whether the file is trusted.
package struct FileIdentity: Sendable, Hashable {
    /// The device the file is on (`st_dev`).
    package let device: UInt64
    /// The file's inode number on that device (`st_ino`).
    package let inode: UInt64
    /// The file's size in bytes (`st_size`).
    package let size: Int64
    /// The last modification of the file's contents, in nanoseconds since 1970 (`st_mtim`).
    package let modificationTime: Int64
    /// The last change of the file's contents or metadata, in nanoseconds since 1970
    /// (`st_ctim`).
    package let statusChangeTime: Int64
    /// The file's type and permission bits (`st_mode`).
    package let mode: UInt32
    /// The file's owner (`st_uid`).
    package let owner: UInt32

    /// Creates an identity from its parts.
    package init(
        device: UInt64, inode: UInt64, size: Int64, modificationTime: Int64, statusChangeTime: Int64,
        mode: UInt32 = 0, owner: UInt32 = 0
    ) {
        self.device = device
        self.inode = inode
        self.size = size
        self.modificationTime = modificationTime
        self.statusChangeTime = statusChangeTime
        self.mode = mode
        self.owner = owner
    }

    /// Creates the identity of the file a `stat` result describes.
    package init(_ status: Stat) {
        self.init(
            device: UInt64(status.deviceID.rawValue),
            inode: UInt64(status.inode.rawValue),
            size: status.size,
            modificationTime: Int64(status.st_mtim.tv_sec) * 1_000_000_000 + Int64(status.st_mtim.tv_nsec),
            statusChangeTime: Int64(status.st_ctim.tv_sec) * 1_000_000_000 + Int64(status.st_ctim.tv_nsec),
            mode: UInt32(status.mode.rawValue), owner: UInt32(status.userID.rawValue))
    }

    /// Whether `other` names the same inode with the same size, modification time, mode and
    /// owner: equal but perhaps for the status-change time, which a new link, an unchanged
    /// `chmod` or a change of the access time moves too. Such a file may still have been
    /// rewritten in place within one clock tick, so a match is only a candidate, confirmed by
    /// the content's fingerprint (``DomainFile/stillHolds(_:policy:)``).
    package func matches(_ other: FileIdentity) -> Bool {
        device == other.device && inode == other.inode && size == other.size && modificationTime == other.modificationTime
            && mode == other.mode && owner == other.owner
    }

    /// How far apart two file timestamps can be and still come from the same tick of the
    /// file system's clock: twice the coarse clock's resolution, and at least 10 ms.
    package static let timestampGranularity: Int64 = max(2 * SystemCalls.coarseClockResolution(), 10_000_000)

    /// Whether a later change to the file must change this identity, judged at `now`
    /// (nanoseconds since 1970, the wall clock).
    ///
    /// A change stamps the file with the file system's clock, which ticks every few
    /// milliseconds. Once `now` is a full tick past both timestamps, any later change gets a
    /// newer timestamp; before that, an in-place rewrite of the same size can leave the
    /// identity as it was, and only the contents tell (git calls such entries "racily clean").
    package func isSettled(at now: Int64) -> Bool {
        now - max(modificationTime, statusChangeTime) >= Self.timestampGranularity
    }
}
