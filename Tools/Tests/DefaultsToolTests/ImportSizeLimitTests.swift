import Foundation
import Preferences
import PropertyList
import Testing
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// `defaults import` refuses input larger than a domain file may be while it reads it, so an
/// endless or huge input can neither exhaust memory nor hang the tool.
@Suite("defaults import size limit", .ownThread)
struct ImportSizeLimitTests {
    /// The tool's limit: the library's default, which `defaults` does not change.
    static let limit = PreferenceStore.Configuration().sizeLimit

    /// A valid domain text padded with spaces to exactly `count` bytes.
    static func padded(to count: Int) -> [UInt8] {
        let text = Array("{ imported = 1; }".utf8)
        return text + [UInt8](repeating: 0x20, count: count - text.count)
    }

    @Test("input of exactly the limit is imported; one byte more is refused and changes nothing")
    func boundary() throws {
        let tool = try ToolFixture()
        let domain = "com.example.limit"
        try tool.output(["import", domain, "-"], input: Self.padded(to: Self.limit))
        #expect(try tool.onDisk(domain) == ["imported": "1"], "untyped old-style text is a string")

        try tool.output(["write", domain, "kept", "-int", "2"])
        let before = FileManager.default.contents(atPath: tool.domainFile(domain))
        let result = try tool.run(["import", domain, "-"], input: Self.padded(to: Self.limit + 1))
        #expect(result.status == 1)
        #expect(result.stderr == "standard input is larger than \(Self.limit) bytes, the most a domain file may hold; it was not read further and nothing was changed\n")
        #expect(FileManager.default.contents(atPath: tool.domainFile(domain)) == before)
    }

    @Test("a file far over the limit is refused, and the domain is left as it was")
    func largeFile() throws {
        let tool = try ToolFixture()
        let domain = "com.example.limit"
        try tool.output(["write", domain, "kept", "-int", "2"])
        let before = FileManager.default.contents(atPath: tool.domainFile(domain))
        // Sparse: its size costs no disk. (The tool refuses endless input such as /dev/zero
        // the same way, but a tool that regressed to reading files whole would never finish
        // that test; this one it fails with another message.)
        let path = tool.directory.file("large.plist").path
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        #expect(descriptor >= 0)
        #expect(ftruncate(descriptor, off_t(16 * Self.limit)) == 0)
        close(descriptor)
        let result = try tool.run(["import", domain, path])
        #expect(result.status == 1)
        #expect(result.stderr == "\(path) is larger than \(Self.limit) bytes, the most a domain file may hold; it was not read further and nothing was changed\n")
        #expect(FileManager.default.contents(atPath: tool.domainFile(domain)) == before)
    }

    @Test("standard input far over the limit: the tool takes no more than the limit and the socket's buffers before it refuses")
    func stdinStopsAtLimit() throws {
        let tool = try ToolFixture()
        let domain = "com.example.limit"
        try tool.output(["write", domain, "kept", "-int", "2"])
        let before = FileManager.default.contents(atPath: tool.domainFile(domain))

        // A socket rather than a pipe: the writer sends with MSG_NOSIGNAL, so when the tool
        // exits early the writer sees EPIPE instead of this test process getting SIGPIPE.
        var sockets: [Int32] = [-1, -1]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &sockets) == 0)
        let (toolEnd, writerEnd) = (sockets[0], sockets[1])
        // What the kernel can hold between the writer and the tool: bytes accepted by send
        // but never read by the tool.
        let buffered = try Self.bufferSize(writerEnd, SO_SNDBUF) + Self.bufferSize(toolEnd, SO_RCVBUF)
        let total = 8 * Self.limit
        #expect(total > Self.limit + 1 + buffered, "the input must be larger than what could be buffered")

        let process = try Subprocess(
            defaultsPath, ["import", domain, "-"], environment: tool.environment, currentDirectory: tool.directory.url.path,
            input: .handle(FileHandle(fileDescriptor: toolEnd, closeOnDealloc: false)))
        // Only the tool holds its end now, so its exit ends the writer's sends.
        close(toolEnd)
        let writer = SocketWriter(writerEnd, total: total)
        let status = process.wait()
        let stderr = process.errorOutput
        let accepted = writer.finish()
        close(writerEnd)

        #expect(status == 1)
        #expect(stderr.hasPrefix("standard input is larger than \(Self.limit) bytes"), "stderr: \(stderr)")
        #expect(FileManager.default.contents(atPath: tool.domainFile(domain)) == before)
        #expect(accepted < total, "the tool read its whole input instead of stopping at the limit")
        #expect(accepted <= Self.limit + 1 + buffered, "the tool took \(accepted) bytes; at most \(Self.limit + 1) and \(buffered) buffered")
    }

    /// A socket buffer's size as the kernel reports it (which includes its bookkeeping, so it
    /// is at least the data the buffer can hold).
    static func bufferSize(_ socket: Int32, _ option: Int32) throws -> Int {
        var size: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(socket, SOL_SOCKET, option, &size, &length) == 0 else {
            throw ToolFailure(description: "getsockopt failed: errno \(errno)")
        }
        return Int(size)
    }
}

/// Sends `total` bytes to a socket on a thread of its own until they are all sent or the
/// other end is closed, and counts the bytes the kernel accepted.
final class SocketWriter: @unchecked Sendable {
    // Safety: `accepted` is written by the sending thread only before `done` is signalled
    // and read by `finish()` only after waiting for it.
    private var accepted = 0
    private let done = DispatchSemaphore(value: 0)

    init(_ socket: Int32, total: Int) {
        Thread { [self] in
            let chunk = [UInt8](repeating: 0x20, count: 64 << 10)
            while accepted < total {
                let sent = chunk.withUnsafeBytes { send(socket, $0.baseAddress, min($0.count, total - accepted), Int32(MSG_NOSIGNAL)) }
                if sent > 0 {
                    accepted += sent
                } else if sent < 0 && errno == EINTR {
                    continue
                } else {
                    break
                }
            }
            done.signal()
        }.start()
    }

    /// The bytes sent, once the other end has closed or everything was sent.
    func finish() -> Int {
        done.wait()
        return accepted
    }
}
