import Foundation

/// Reads one line (without its newline) from a pipe, blocking until it arrives; nil at end of
/// file.
func readLine(from handle: FileHandle) -> String? {
    var bytes: [UInt8] = []
    while true {
        guard let byte = try? handle.read(upToCount: 1), let first = byte.first else {
            return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self)
        }
        if first == UInt8(ascii: "\n") { return String(decoding: bytes, as: UTF8.self) }
        bytes.append(first)
    }
}
