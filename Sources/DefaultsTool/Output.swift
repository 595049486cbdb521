import Foundation

/// Standard output and error, written unbuffered: `watch` output must reach a pipe at
/// once, line by line, and the C `stdout` is not available in Swift 6 mode.
enum Output {
    /// Writes `text` and a newline to standard output.
    static func line(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    /// Writes bytes to standard output as they are.
    static func bytes(_ bytes: [UInt8]) {
        FileHandle.standardOutput.write(Data(bytes))
    }

    /// Writes `text` and a newline to standard error.
    static func error(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }
}
