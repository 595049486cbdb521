import SystemPackage

/// The systemd unit this process runs in, for the commit records of the files it writes.
///
/// Read once per process from `/proc/self/cgroup`: the last component of the process's
/// cgroup path names its unit when it ends in `.service` or `.scope` (a user service, a
/// login session's scope). `INVOCATION_ID` is not used: only services get it, and a program
/// run from a session's shell is in a scope all the same. Anything else (no cgroup file, a
/// delegated sub-cgroup, a container) gives nil: the record then names the process only.
package enum ProcessUnit {
    /// This process's unit, or nil; computed on first use.
    package static let current: String? = read()

    /// Reads and parses `/proc/self/cgroup`.
    private static func read() -> String? {
        guard let descriptor = try? FileDescriptor.open("/proc/self/cgroup", .readOnly, options: [.closeOnExec]) else {
            return nil
        }
        defer { try? descriptor.close() }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        // The file is small; 64 KiB bounds a strange one.
        while bytes.count < 65_536 {
            guard let count = try? buffer.withUnsafeMutableBytes({ try descriptor.read(into: $0) }), count > 0 else { break }
            bytes.append(contentsOf: buffer.prefix(count))
        }
        return unit(fromCgroupFile: String(decoding: bytes, as: UTF8.self))
    }

    /// The unit named by a `/proc/<pid>/cgroup` text: the unified hierarchy's line (`0::/...`),
    /// else the v1 `name=systemd` line; nil if its last component is not a service or scope.
    package static func unit(fromCgroupFile text: String) -> String? {
        let lines = text.split(separator: "\n")
        let line = lines.first { $0.hasPrefix("0::") } ?? lines.first { $0.contains(":name=systemd:") }
        guard let line, let path = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false).last,
            let last = path.split(separator: "/").last
        else { return nil }
        guard last.hasSuffix(".service") || last.hasSuffix(".scope"), !last.contains(" ") else { return nil }
        return String(last)
    }
}
