import Glibc
package import SystemPackage

extension SystemCalls {
    /// Creates an inotify instance whose reads never block and which no child program
    /// inherits (`inotify_init1(IN_NONBLOCK | IN_CLOEXEC)`).
    ///
    /// Fails with `EMFILE`/`ENFILE` when descriptors or instances run out
    /// (`fs.inotify.max_user_instances`) and `ENOSYS` on kernels built without inotify.
    package static func makeInotifyInstance() throws(Errno) -> FileDescriptor {
        let descriptor = Glibc.inotify_init1(Int32(IN_NONBLOCK) | Int32(IN_CLOEXEC))
        if descriptor < 0 { throw currentErrno() }
        return FileDescriptor(rawValue: descriptor)
    }

    /// Starts watching a path for `events`, or updates the events of the existing watch on
    /// the same inode (`inotify_add_watch`).
    ///
    /// The kernel keeps one watch per inode and instance, so two paths to one directory
    /// (through a symbolic link, say) return the same descriptor.
    ///
    /// - Throws: `ENOENT`/`ENOTDIR`/`EACCES` when the path cannot be reached or (with
    ///   ``WatchEvents/onlyDirectory``) is not a directory, `ENOSPC` when the watch limit
    ///   (`fs.inotify.max_user_watches`) is reached.
    package static func addWatch(
        _ path: FilePath, for events: WatchEvents, to inotify: FileDescriptor
    ) throws(Errno) -> WatchDescriptor {
        let watch = path.withPlatformString { Glibc.inotify_add_watch(inotify.rawValue, $0, events.rawValue) }
        if watch < 0 { throw currentErrno() }
        return WatchDescriptor(rawValue: watch)
    }

    /// Stops a watch (`inotify_rm_watch`); the kernel then queues a ``WatchEvents/watchRemoved``
    /// event for it.
    ///
    /// - Throws: `EINVAL` if the watch is already gone, for instance because its directory
    ///   was deleted.
    package static func removeWatch(_ watch: WatchDescriptor, from inotify: FileDescriptor) throws(Errno) {
        if Glibc.inotify_rm_watch(inotify.rawValue, watch.rawValue) != 0 { throw currentErrno() }
    }

    /// Reads the queued inotify events that fit in `buffer` (`read`), without blocking.
    ///
    /// - Returns: The events in the order the kernel queued them; empty when none are queued
    ///   (`EAGAIN` on the non-blocking instance).
    package static func readWatchEvents(
        from inotify: FileDescriptor, into buffer: UnsafeMutableRawBufferPointer
    ) throws(Errno) -> [WatchEvent] {
        while true {
            let count = Glibc.read(inotify.rawValue, buffer.baseAddress, buffer.count)
            if count >= 0 { return parseWatchEvents(UnsafeRawBufferPointer(rebasing: buffer[..<count])) }
            let error = currentErrno()
            if error == .interrupted { continue }
            if error == .wouldBlock { return [] }
            throw error
        }
    }

    /// Splits the bytes of an inotify read into events (`struct inotify_event` records).
    ///
    /// Each record is a fixed header (watch descriptor, mask, cookie, name length) followed
    /// by `len` bytes holding the name, NUL-padded. Every field is loaded unaligned and every
    /// length is checked against the bytes actually present, so a short or malformed buffer
    /// ends the parse instead of reading past it. A name that is not valid UTF-8 cannot be any
    /// watched file's name (those are Swift strings), so such an event is dropped.
    package static func parseWatchEvents(_ bytes: UnsafeRawBufferPointer) -> [WatchEvent] {
        let headerSize = MemoryLayout<inotify_event>.size
        let maskOffset = MemoryLayout<inotify_event>.offset(of: \.mask)!
        let lengthOffset = MemoryLayout<inotify_event>.offset(of: \.len)!
        var events: [WatchEvent] = []
        var offset = 0
        while bytes.count - offset >= headerSize {
            let descriptor = bytes.loadUnaligned(fromByteOffset: offset, as: Int32.self)
            let mask = bytes.loadUnaligned(fromByteOffset: offset + maskOffset, as: UInt32.self)
            let nameLength = Int(bytes.loadUnaligned(fromByteOffset: offset + lengthOffset, as: UInt32.self))
            let nameStart = offset + headerSize
            guard nameLength <= bytes.count - nameStart else { break }
            offset = nameStart + nameLength
            var name: String?
            if nameLength > 0 {
                let nameBytes = bytes[nameStart..<offset].prefix { $0 != 0 }
                guard let decoded = String(validating: nameBytes, as: UTF8.self) else { continue }
                name = decoded
            }
            events.append(
                WatchEvent(watch: WatchDescriptor(rawValue: descriptor), events: WatchEvents(rawValue: mask), name: name))
        }
        return events
    }
}

extension SystemCalls {
    /// One inotify watch, as `inotify_add_watch` numbers it within its instance.
    package struct WatchDescriptor: RawRepresentable, Hashable, Sendable {
        /// The kernel's watch descriptor.
        package let rawValue: Int32
        /// The descriptor the kernel returned.
        package init(rawValue: Int32) { self.rawValue = rawValue }
    }

    /// What an inotify watch reports, or what happened in one event (the `IN_*` mask bits).
    ///
    /// The names say what happened to the entry an event names, or, for the `watched...`
    /// members, to the watched directory itself.
    package struct WatchEvents: OptionSet, Hashable, Sendable {
        package let rawValue: UInt32
        /// The events of an inotify mask.
        package init(rawValue: UInt32) { self.rawValue = rawValue }

        /// A file opened for writing was closed (`IN_CLOSE_WRITE`).
        package static let closedAfterWriting = WatchEvents(rawValue: UInt32(IN_CLOSE_WRITE))
        /// An entry was renamed into the directory, possibly over another (`IN_MOVED_TO`).
        package static let movedIn = WatchEvents(rawValue: UInt32(IN_MOVED_TO))
        /// An entry was renamed out of the directory, or to another name (`IN_MOVED_FROM`).
        package static let movedOut = WatchEvents(rawValue: UInt32(IN_MOVED_FROM))
        /// An entry was deleted (`IN_DELETE`).
        package static let deleted = WatchEvents(rawValue: UInt32(IN_DELETE))
        /// An entry's permissions, owner, timestamps or link count changed (`IN_ATTRIB`).
        package static let attributesChanged = WatchEvents(rawValue: UInt32(IN_ATTRIB))
        /// The watched directory itself was deleted (`IN_DELETE_SELF`).
        package static let watchedDeleted = WatchEvents(rawValue: UInt32(IN_DELETE_SELF))
        /// The watched directory itself was renamed or moved (`IN_MOVE_SELF`).
        package static let watchedMoved = WatchEvents(rawValue: UInt32(IN_MOVE_SELF))
        /// The file system holding the watched directory was unmounted (`IN_UNMOUNT`).
        package static let watchedUnmounted = WatchEvents(rawValue: UInt32(IN_UNMOUNT))
        /// The watch is gone, removed explicitly or because its directory is (`IN_IGNORED`).
        package static let watchRemoved = WatchEvents(rawValue: UInt32(IN_IGNORED))
        /// The event queue overflowed and events were lost (`IN_Q_OVERFLOW`).
        package static let queueOverflowed = WatchEvents(rawValue: UInt32(IN_Q_OVERFLOW))
        /// A request flag: watch the path only if it is a directory (`IN_ONLYDIR`).
        package static let onlyDirectory = WatchEvents(rawValue: UInt32(IN_ONLYDIR))
    }

    /// One event read from an inotify instance.
    package struct WatchEvent: Hashable, Sendable {
        /// The watch that reported it; meaningless for ``WatchEvents/queueOverflowed``.
        package let watch: WatchDescriptor
        /// What happened.
        package let events: WatchEvents
        /// The entry in the watched directory it concerns; nil for events about the
        /// directory itself or the queue.
        package let name: String?

        /// An event as the kernel reported it.
        package init(watch: WatchDescriptor, events: WatchEvents, name: String?) {
            self.watch = watch
            self.events = events
            self.name = name
        }
    }
}
