import Foundation
import Glibc
import TestSupport

/// Why a fault could not be injected.
struct FaultInjectionUnavailable: Error, CustomStringConvertible {
    let description: String
}

/// Runs `body` with one system call failing on the calling thread only, by attaching strace
/// to this thread, and returns what strace saw of that call.
///
/// strace is attached to the thread, not the process (`-p <tid>` without `-f`), so tests
/// running in parallel on other threads are unaffected. `body` is synchronous, so it runs on
/// this thread from start to end; it must do nothing but the operation under test (no
/// `#expect`, no Foundation run loop), because the fault hits every such call on the thread,
/// including ones the runtime makes. strace is detached before anything else runs on the
/// thread, and before this returns, whatever happens, because the thread goes back to the
/// test runner's pool afterwards.
///
/// - Parameters:
///   - syscall: The call to trace and fail, e.g. `fsync`.
///   - error: The errno name to fail it with, e.g. `EIO`.
/// - Returns: `body`'s result and strace's log lines for `syscall`.
func withInjectedFault<Result>(
    _ syscall: String, error: String, _ body: () -> Result
) throws -> (result: Result, trace: [String]) {
    guard let strace = installedProgram("strace") else {
        throw FaultInjectionUnavailable(description: "strace is not installed")
    }
    // /proc/thread-self links to "<pid>/task/<tid>".
    let thread = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self")
    guard let threadID = thread.split(separator: "/").last else {
        throw FaultInjectionUnavailable(description: "no thread ID in /proc/thread-self (\(thread))")
    }
    let log = FileManager.default.temporaryDirectory
        .appendingPathComponent("swift-preferences-strace-\(UUID().uuidString).log").path
    defer { try? FileManager.default.removeItem(atPath: log) }

    // strace's messages (its own standard error; the trace goes to the log) are read by a
    // thread of the subprocess's, so this thread only waits for them.
    let tracer = try Subprocess(
        strace, ["-o", log, "-e", "trace=\(syscall)", "-e", "inject=\(syscall):error=\(error)", "-p", String(threadID)],
        errors: .mergedWithOutput)
    // Detaches strace without making a single system call that could be the faulted one
    // (Foundation's run loop writes to an eventfd, for instance): signalling takes a lock
    // and kill(2), and nothing else. strace is killed rather than asked to stop, because it inherits the test runner
    // thread's signal mask, which blocks SIGTERM and SIGINT; when a tracer dies the kernel
    // detaches its tracees (strace sets no PTRACE_O_EXITKILL for -p). The thread is free
    // once it has no tracer.
    func detach() {
        tracer.signal(SIGKILL)
        while tracerID(of: thread) != 0 { usleep(1000) }
        tracer.wait()
    }
    // strace reports the attachment before the first traced call can be affected.
    let attached = tracer.nextLine()
    guard let attached, attached.hasSuffix("attached") else {
        detach()
        throw FaultInjectionUnavailable(description: "strace did not attach: \(attached ?? "no output")")
    }
    let result = body()
    detach()
    let trace = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
    return (result, trace.split(separator: "\n").map(String.init).filter { $0.hasPrefix(syscall + "(") })
}

/// The ID of the process tracing a thread (`TracerPid` in its status), 0 if none.
///
/// `thread` is "<pid>/task/<tid>", as /proc/thread-self names it. Reading the status
/// takes only open, read and close.
func tracerID(of thread: String) -> Int {
    guard let status = FileManager.default.contents(atPath: "/proc/" + thread + "/status") else { return 0 }
    let line = String(decoding: status, as: UTF8.self).split(separator: "\n").first { $0.hasPrefix("TracerPid:") }
    return line.flatMap { Int($0.dropFirst("TracerPid:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
}
