import Foundation

/// Standard output and error, written unbuffered: `watch` output must reach a pipe at
/// once, line by line, and the C `stdout` is not available in Swift 6 mode.
///
/// A failed write to standard output (a closed pipe, a full disk behind a redirection)
/// ends the program with status 1 and a message, as other tools do, rather than trapping
/// or carrying on as if the output had been written.
enum Output {
    /// Writes `text` and a newline to standard output.
    static func line(_ text: String) {
        write(Data((text + "\n").utf8))
    }

    /// Writes bytes to standard output as they are.
    static func bytes(_ bytes: [UInt8]) {
        write(Data(bytes))
    }

    /// Writes `text` and a newline to standard error; a failure there has nowhere to go.
    static func error(_ text: String) {
        try? FileHandle.standardError.write(contentsOf: Data((text + "\n").utf8))
    }

    private static func write(_ data: Data) {
        do {
            try FileHandle.standardOutput.write(contentsOf: data)
        } catch {
            Output.error("defaults: standard output could not be written: \(error.localizedDescription)")
            exit(1)
        }
    }
}
