import Foundation

/// Reads a pipe to its end on a thread of its own.
final class ErrorCollector: @unchecked Sendable {
    // Safety: `data` is written by the reading thread only before `done` is signalled and
    // read by `finish()` only after waiting for it.
    private var data = Data()
    private let done = DispatchSemaphore(value: 0)

    init(_ handle: FileHandle) {
        Thread { [self] in
            data = handle.readDataToEndOfFile()
            done.signal()
        }.start()
    }

    func finish() -> Data {
        done.wait()
        return data
    }
}
