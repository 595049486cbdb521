package import Foundation
import Glibc

/// A program a test starts: the one way the tests of both packages run another process.
///
/// Standard output and standard error, when ``Output/collected`` and ``Errors/collected``,
/// are each read by a thread of their own as they arrive, so the program never blocks on a
/// full pipe and no test thread blocks on a read (a task blocked in `read` would hold one of
/// the few threads the test runner's tasks share). What arrived is there at any moment: the
/// whole text (``output``, ``errorOutput``), its lines (``lines``, ``errorLines``), and each
/// line's arrival for tests that time deliveries (``waitForLine(in:within:where:)``).
///
/// Every wait has a limit, and the limit only bounds a failure: a wait for a line or a
/// condition returns what it found (nil or false when nothing came), and ``wait(timeout:)``
/// kills the program with SIGKILL once its limit has passed, so a hung child fails its test
/// instead of hanging the run. Each wait comes twice: blocking the calling thread (for
/// synchronous tests), and, under the same name, `async`, suspending without holding a
/// thread.
///
/// A program still running when its value goes away is killed with SIGKILL and reaped:
/// SIGKILL, not SIGTERM, because a test process that has run a `ServiceGroup` ignores
/// SIGTERM (swift-service-lifecycle sets `SIG_IGN`), and its children inherit that.
///
/// Safe to share between threads (`@unchecked Sendable`): the fields that change (what was
/// read, whether the program exited, the input's state) live in one ``State`` and are read
/// and written only with its condition's lock held; the rest is set by `init` and not changed.
package final class Subprocess: @unchecked Sendable {
    /// What the program reads on standard input.
    package enum Input {
        /// `/dev/null`: end of file at once.
        case nullDevice
        /// A pipe given these bytes (on a thread of its own) and then closed; empty data is
        /// a pipe at end of file.
        case data(Data)
        /// A pipe kept open for ``send(_:)`` and ``write(_:)`` until ``closeInput()``.
        case pipe
        /// A descriptor the caller owns and closes (one end of a socket pair, a file).
        case handle(FileHandle)
    }

    /// Where the program's standard output goes.
    package enum Output {
        /// A pipe read by a thread of its own into ``output`` and ``lines``.
        case collected
        /// `/dev/null`.
        case nullDevice
        /// A descriptor the caller owns and closes (a log file, `/dev/full`).
        case handle(FileHandle)
    }

    /// Where the program's standard error goes.
    package enum Errors {
        /// A pipe of its own, read by a thread of its own into ``errorOutput`` and ``errorLines``.
        case collected
        /// Wherever standard output goes, interleaved as the program writes them: collected
        /// together into ``output`` and ``lines`` when the output is.
        case mergedWithOutput
        /// `/dev/null`.
        case nullDevice
        /// A descriptor the caller owns and closes.
        case handle(FileHandle)
    }

    /// One of the two collected streams.
    package enum Stream: Sendable {
        /// Standard output (with standard error in it when ``Errors/mergedWithOutput``).
        case output
        /// Standard error, when ``Errors/collected``.
        case errors
    }

    /// A line the program wrote, without its newline, and when it was read.
    package struct Line: Sendable, Equatable, CustomStringConvertible {
        /// The line's text.
        package let text: String
        /// When the reading thread read it, by the monotonic clock.
        package let time: ContinuousClock.Instant
        /// The same moment by the wall clock, to compare with a file's times.
        package let date: Date

        package var description: String { text }
    }

    /// How long ``wait(timeout:)`` and ``nextLine(in:within:)`` wait unless told: long enough
    /// for any program a test runs on a loaded machine, short of hanging a whole test run.
    package static let defaultTimeout: Duration = .seconds(600)

    /// The program as given: a path, or a name looked up on `PATH`.
    package let executable: String
    /// Its arguments.
    package let arguments: [String]
    /// Its process ID.
    package let pid: pid_t

    private let process: Process
    private let state: State
    // The writing end of the ``Input/pipe`` input; closed only under the state's lock.
    private let input: FileHandle?

    /// Starts the program.
    ///
    /// - Parameters:
    ///   - executable: A path, or a name found on `PATH` by `/usr/bin/env` (the child's
    ///     `PATH`: `environment`'s when given).
    ///   - arguments: Its arguments.
    ///   - environment: Its whole environment; nil for the test process's.
    ///   - currentDirectory: Its working directory; nil for the test process's.
    ///   - input: Its standard input; `/dev/null` unless given.
    ///   - output: Where its standard output goes; collected unless given.
    ///   - errors: Where its standard error goes; collected apart unless given.
    /// - Throws: What `Process.run()` throws when the program cannot be started.
    package init(
        _ executable: String, _ arguments: [String] = [], environment: [String: String]? = nil,
        currentDirectory: String? = nil, input: Input = .nullDevice, output: Output = .collected,
        errors: Errors = .collected
    ) throws {
        self.executable = executable
        self.arguments = arguments
        let process = Process()
        if executable.contains("/") {
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
        } else {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = [executable] + arguments
        }
        if let environment { process.environment = environment }
        if let currentDirectory { process.currentDirectoryURL = URL(fileURLWithPath: currentDirectory) }

        var inputPipe: Pipe?
        switch input {
        case .nullDevice: process.standardInput = FileHandle.nullDevice
        case .data, .pipe:
            let pipe = Pipe()
            process.standardInput = pipe
            inputPipe = pipe
        case .handle(let handle): process.standardInput = handle
        }
        var outputPipe: Pipe?
        switch output {
        case .collected:
            let pipe = Pipe()
            process.standardOutput = pipe
            outputPipe = pipe
        case .nullDevice: process.standardOutput = FileHandle.nullDevice
        case .handle(let handle): process.standardOutput = handle
        }
        var errorPipe: Pipe?
        switch errors {
        case .collected:
            let pipe = Pipe()
            process.standardError = pipe
            errorPipe = pipe
        case .mergedWithOutput: process.standardError = process.standardOutput
        case .nullDevice: process.standardError = FileHandle.nullDevice
        case .handle(let handle): process.standardError = handle
        }

        let state = State(collectsOutput: outputPipe != nil, collectsErrors: errorPipe != nil)
        process.terminationHandler = { [state] finished in
            state.exited(status: finished.terminationStatus, reason: finished.terminationReason)
        }
        try process.run()
        self.process = process
        self.state = state
        pid = process.processIdentifier
        if let outputPipe { Self.collect(outputPipe.fileHandleForReading, .output, into: state) }
        if let errorPipe { Self.collect(errorPipe.fileHandleForReading, .errors, into: state) }
        if case .data(let data) = input, let inputPipe {
            Self.feed(data, to: inputPipe.fileHandleForWriting)
            self.input = nil
        } else {
            self.input = inputPipe?.fileHandleForWriting
        }
    }

    /// Runs the program to completion (see ``wait(timeout:)``) and returns it finished, its
    /// output whole; the arguments are ``init(_:_:environment:currentDirectory:input:output:errors:)``'s.
    package static func run(
        _ executable: String, _ arguments: [String] = [], environment: [String: String]? = nil,
        currentDirectory: String? = nil, input: Input = .nullDevice, errors: Errors = .collected,
        timeout: Duration = defaultTimeout
    ) throws -> Subprocess {
        let subprocess = try Subprocess(
            executable, arguments, environment: environment, currentDirectory: currentDirectory, input: input,
            errors: errors)
        subprocess.wait(timeout: timeout)
        return subprocess
    }

    deinit {
        if isRunning {
            signal(SIGKILL)
            _ = state.waitForExit(until: nil)
        }
        // A kept-open input still open is closed with its FileHandle.
    }

    // MARK: Input

    /// Writes `line` and a newline to the program's standard input (``Input/pipe``).
    package func send(_ line: String) throws {
        try write(Data((line + "\n").utf8))
    }

    /// Writes `data` to the program's standard input (``Input/pipe``).
    ///
    /// - Throws: If the program has closed its input or exited (`EPIPE`). SIGPIPE, which would
    ///   end the whole test process, is blocked on this thread during the write, and one the
    ///   write raised is taken back before it is unblocked.
    package func write(_ data: Data) throws {
        guard let input else { preconditionFailure("\(executable)'s standard input is not a kept-open pipe") }
        var pipeSignal = sigset_t()
        sigemptyset(&pipeSignal)
        sigaddset(&pipeSignal, SIGPIPE)
        var previous = sigset_t()
        pthread_sigmask(SIG_BLOCK, &pipeSignal, &previous)
        defer {
            var pending = sigset_t()
            sigpending(&pending)
            if sigismember(&pending, SIGPIPE) == 1 {
                var now = timespec()
                _ = sigtimedwait(&pipeSignal, nil, &now)
            }
            pthread_sigmask(SIG_SETMASK, &previous, nil)
        }
        try input.write(contentsOf: data)
    }

    /// Closes the program's standard input (``Input/pipe``), which it reads as end of file.
    /// Closing it again does nothing.
    package func closeInput() {
        guard let input else { return }
        let wasClosed = state.withLock { state in
            defer { state.inputClosed = true }
            return state.inputClosed
        }
        if !wasClosed { try? input.close() }
    }

    // MARK: Output

    /// Standard output so far (with standard error when merged), as UTF-8.
    package var output: String { String(decoding: outputData, as: UTF8.self) }
    /// Standard output's bytes so far.
    package var outputData: Data { state.withLock { $0.output.data } }
    /// Standard error so far, as UTF-8, when ``Errors/collected``.
    package var errorOutput: String { String(decoding: state.withLock { $0.errors.data }, as: UTF8.self) }
    /// The lines of standard output so far, without newlines; the last, unterminated one
    /// once the output has ended.
    package var lines: [String] { state.withLock { $0.output.lines.map(\.text) } }
    /// The lines of standard error so far, when ``Errors/collected``.
    package var errorLines: [String] { state.withLock { $0.errors.lines.map(\.text) } }

    /// The next line of `stream` not returned before, in order, blocking until it arrives;
    /// nil at the stream's end or when `limit` has passed.
    package func nextLine(in stream: Stream = .output, within limit: Duration = defaultTimeout) -> String? {
        BlockingWait.check("waiting for a line from \(executable)")
        let deadline = Self.date(after: limit)
        return state.withLock { state in
            while true {
                let next: String? = state.mutate(stream) { collected in
                    guard collected.cursor < collected.lines.count else { return nil }
                    collected.cursor += 1
                    return collected.lines[collected.cursor - 1].text
                }
                if let next { return next }
                if state[stream].ended || Date() >= deadline { return nil }
                _ = self.state.condition.wait(until: deadline)
            }
        }
    }

    /// Waits until `condition` holds for the lines of `stream` so far, blocking; false if the
    /// stream ended or `limit` passed first.
    @discardableResult
    package func waitForOutput(in stream: Stream = .output, within limit: Duration, until condition: ([String]) -> Bool) -> Bool {
        search(stream, until: Self.date(after: limit)) { lines in condition(lines.map(\.text)) ? true : nil } ?? false
    }

    /// ``waitForOutput(in:within:until:)`` without holding a thread.
    @discardableResult
    package func waitForOutput(in stream: Stream = .output, within limit: Duration, until condition: ([String]) -> Bool) async -> Bool {
        await search(stream, until: Self.date(after: limit)) { lines in condition(lines.map(\.text)) ? true : nil } ?? false
    }

    /// The first line of `stream` (from the start) matching `predicate`, waiting for it,
    /// blocking; nil if the stream ended or `limit` passed first.
    @discardableResult
    package func waitForLine(in stream: Stream = .output, within limit: Duration, where predicate: (String) -> Bool) -> Line? {
        search(stream, until: Self.date(after: limit)) { lines in lines.first { predicate($0.text) } }
    }

    /// ``waitForLine(in:within:where:)`` without holding a thread.
    @discardableResult
    package func waitForLine(in stream: Stream = .output, within limit: Duration, where predicate: (String) -> Bool) async -> Line? {
        await search(stream, until: Self.date(after: limit)) { lines in lines.first { predicate($0.text) } }
    }

    /// Looks for something in the lines of `stream` each time they change (outside the
    /// lock, so `find` may use this value), blocking, until it is found, the stream ended or
    /// `deadline` passed.
    private func search<Found>(_ stream: Stream, until deadline: Date, _ find: ([Line]) -> Found?) -> Found? {
        BlockingWait.check("waiting for output from \(executable)")
        while true {
            let (lines, ended, version) = state.withLock { ($0[stream].lines, $0[stream].ended, $0.version) }
            if let found = find(lines) { return found }
            if ended || Date() >= deadline { return nil }
            state.waitForChange(from: version, until: deadline)
        }
    }

    /// ``search(_:until:_:)`` without holding a thread.
    private func search<Found>(_ stream: Stream, until deadline: Date, _ find: ([Line]) -> Found?) async -> Found? {
        while true {
            let (lines, ended, version) = state.withLock { ($0[stream].lines, $0[stream].ended, $0.version) }
            if let found = find(lines) { return found }
            if ended || Date() >= deadline { return nil }
            await state.change(from: version, until: deadline)
        }
    }

    // MARK: Termination

    /// Whether the program has not exited yet.
    package var isRunning: Bool { state.withLock { $0.exit == nil } }

    /// Its exit status, or the number of the signal that ended it; only once it has exited.
    package var terminationStatus: Int32 {
        guard let exit = state.withLock({ $0.exit }) else { preconditionFailure("\(executable) is still running") }
        return exit.status
    }

    /// Whether it exited or a signal ended it; only once it has exited.
    package var terminationReason: Process.TerminationReason {
        guard let exit = state.withLock({ $0.exit }) else { preconditionFailure("\(executable) is still running") }
        return exit.reason
    }

    /// Whether a wait's limit passed while the program ran, so the wait killed it.
    package var timedOut: Bool { state.withLock { $0.timedOut } }

    /// Sends `signal` to the program, unless it has already exited.
    package func signal(_ signal: Int32) {
        state.withLock { state in
            if state.exit == nil { _ = kill(pid, signal) }
        }
    }

    /// Waits until the program has exited and its collected output has ended, blocking, and
    /// returns ``terminationStatus``. If `limit` passes first the program is killed with
    /// SIGKILL (``timedOut``), so the status says a signal ended it.
    @discardableResult
    package func wait(timeout limit: Duration = defaultTimeout) -> Int32 {
        BlockingWait.check("waiting for \(executable) to exit")
        let deadline = Self.date(after: limit)
        if !state.waitForExit(until: deadline) {
            state.withLock { $0.timedOut = true }
            signal(SIGKILL)
            _ = state.waitForExit(until: nil)
        }
        // A child of the program may still hold the pipes; that does not hold up the wait
        // long (what it writes is still collected).
        _ = state.waitForStreamsToEnd(until: max(deadline, Self.date(after: .seconds(10))))
        return terminationStatus
    }

    /// ``wait(timeout:)`` without holding a thread.
    @discardableResult
    package func wait(timeout limit: Duration = defaultTimeout) async -> Int32 {
        let deadline = Self.date(after: limit)
        if await !state.exitOrChange(until: deadline) {
            state.withLock { $0.timedOut = true }
            signal(SIGKILL)
            _ = await state.exitOrChange(until: nil)
        }
        let streamsDeadline = max(deadline, Self.date(after: .seconds(10)))
        while true {
            let (ended, version) = state.withLock { ($0.output.ended && $0.errors.ended, $0.version) }
            if ended || Date() >= streamsDeadline { break }
            await state.change(from: version, until: streamsDeadline)
        }
        return terminationStatus
    }

    // MARK: Internals

    private static func date(after duration: Duration) -> Date {
        let (seconds, attoseconds) = duration.components
        return Date().addingTimeInterval(Double(seconds) + Double(attoseconds) / 1e18)
    }

    /// Reads `handle` to its end on a thread of its own into `stream` of `state`.
    private static func collect(_ handle: FileHandle, _ stream: Stream, into state: State) {
        Thread {
            let descriptor = handle.fileDescriptor
            var buffer = [UInt8](repeating: 0, count: 1 << 16)
            while true {
                let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { break }
                state.append(buffer[..<count], to: stream)
            }
            state.end(stream)
            try? handle.close()
        }.start()
    }

    /// Writes `data` to `handle` on a thread of its own and closes it. SIGPIPE is blocked on
    /// that thread, so a program that exits without reading its input makes the write fail
    /// rather than end the test process.
    private static func feed(_ data: Data, to handle: FileHandle) {
        Thread {
            var signals = sigset_t()
            sigemptyset(&signals)
            sigaddset(&signals, SIGPIPE)
            pthread_sigmask(SIG_BLOCK, &signals, nil)
            try? handle.write(contentsOf: data)
            try? handle.close()
        }.start()
    }

    /// What the reading threads collected and whether the program exited, under one lock,
    /// with the waiters to wake when any of it changes.
    private final class State: @unchecked Sendable {
        // Safety: every stored property is read and written only with `condition` locked.

        /// One collected stream.
        struct Collected {
            var data = Data()
            var lines: [Line] = []
            /// Where in `data` the line being written starts.
            var lineStart = 0
            /// At end of file; true from the start for a stream that is not collected.
            var ended: Bool
            /// How many lines ``Subprocess/nextLine(in:within:)`` has returned.
            var cursor = 0
        }

        let condition = NSCondition()
        var output: Collected
        var errors: Collected
        var exit: (status: Int32, reason: Process.TerminationReason)?
        var timedOut = false
        var inputClosed = false
        /// Counts changes, so a waiter that looked outside the lock knows whether to wait.
        var version: UInt64 = 0
        private var asyncWaiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
        private var nextWaiter: UInt64 = 0

        init(collectsOutput: Bool, collectsErrors: Bool) {
            output = Collected(ended: !collectsOutput)
            errors = Collected(ended: !collectsErrors)
        }

        subscript(stream: Stream) -> Collected {
            stream == .output ? output : errors
        }

        /// Changes `stream` in place (a copy would copy its whole data on every append).
        func mutate<Result>(_ stream: Stream, _ body: (inout Collected) -> Result) -> Result {
            switch stream {
            case .output: body(&output)
            case .errors: body(&errors)
            }
        }

        func withLock<Result>(_ body: (State) throws -> Result) rethrows -> Result {
            condition.lock()
            defer { condition.unlock() }
            return try body(self)
        }

        func append(_ bytes: ArraySlice<UInt8>, to stream: Stream) {
            let time = ContinuousClock.now
            let date = Date()
            changing {
                mutate(stream) { collected in
                    // Where `bytes` begin in `data`.
                    let offset = collected.data.count - bytes.startIndex
                    collected.data.append(contentsOf: bytes)
                    var rest = bytes[...]
                    while let newline = rest.firstIndex(of: UInt8(ascii: "\n")) {
                        let end = offset + newline
                        let text = String(decoding: collected.data[collected.lineStart..<end], as: UTF8.self)
                        collected.lines.append(Line(text: text, time: time, date: date))
                        collected.lineStart = end + 1
                        rest = rest[(newline + 1)...]
                    }
                }
            }
        }

        func end(_ stream: Stream) {
            let time = ContinuousClock.now
            let date = Date()
            changing {
                mutate(stream) { collected in
                    if collected.lineStart < collected.data.count {
                        let text = String(decoding: collected.data[collected.lineStart...], as: UTF8.self)
                        collected.lines.append(Line(text: text, time: time, date: date))
                        collected.lineStart = collected.data.count
                    }
                    collected.ended = true
                }
            }
        }

        func exited(status: Int32, reason: Process.TerminationReason) {
            changing { exit = (status, reason) }
        }

        /// Makes a change under the lock and wakes every waiter.
        private func changing(_ change: () -> Void) {
            condition.lock()
            change()
            version &+= 1
            let waiters = asyncWaiters
            asyncWaiters = [:]
            condition.broadcast()
            condition.unlock()
            for waiter in waiters.values { waiter.resume() }
        }

        /// Blocks until something changed since `version`, or `deadline`.
        func waitForChange(from version: UInt64, until deadline: Date) {
            condition.lock()
            defer { condition.unlock() }
            if self.version == version { _ = condition.wait(until: deadline) }
        }

        /// Suspends until something changed since `version`, or `deadline` (nil: no limit).
        func change(from version: UInt64, until deadline: Date?) async {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                condition.lock()
                guard self.version == version, deadline.map({ Date() < $0 }) ?? true else {
                    condition.unlock()
                    continuation.resume()
                    return
                }
                let waiter = nextWaiter
                nextWaiter += 1
                asyncWaiters[waiter] = continuation
                condition.unlock()
                guard let deadline else { return }
                let nanoseconds = max(0, Int(deadline.timeIntervalSinceNow * 1e9))
                DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(nanoseconds)) { [self] in
                    condition.lock()
                    let expired = asyncWaiters.removeValue(forKey: waiter)
                    condition.unlock()
                    expired?.resume()
                }
            }
        }

        /// Whether the program exited by `deadline` (nil: no limit), blocking.
        func waitForExit(until deadline: Date?) -> Bool {
            condition.lock()
            defer { condition.unlock() }
            while exit == nil {
                if let deadline {
                    if Date() >= deadline { return false }
                    _ = condition.wait(until: deadline)
                } else {
                    condition.wait()
                }
            }
            return true
        }

        /// Whether the program exited by `deadline` (nil: no limit), suspending.
        func exitOrChange(until deadline: Date?) async -> Bool {
            while true {
                let (exited, version) = withLock { ($0.exit != nil, $0.version) }
                if exited { return true }
                if let deadline, Date() >= deadline { return false }
                await change(from: version, until: deadline)
            }
        }

        /// Whether every collected stream ended by `deadline`, blocking.
        func waitForStreamsToEnd(until deadline: Date) -> Bool {
            condition.lock()
            defer { condition.unlock() }
            while !(output.ended && errors.ended) {
                if Date() >= deadline { return false }
                _ = condition.wait(until: deadline)
            }
            return true
        }
    }
}
