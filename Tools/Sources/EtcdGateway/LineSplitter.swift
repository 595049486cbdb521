/// Cuts a byte stream into lines: the watch stream is one JSON object per line, but its body
/// arrives in chunks that split objects anywhere (and may hold several).
struct LineSplitter {
    private var buffer: [UInt8] = []
    /// How far `buffer` is known to hold no newline, so a long line arriving in many chunks
    /// is scanned once, not once per chunk.
    private var scanned = 0

    /// Adds the next chunk of the stream.
    mutating func append(_ bytes: some Sequence<UInt8>) {
        buffer.append(contentsOf: bytes)
    }

    /// The next complete line without its newline, or nil until a newline arrives.
    mutating func nextLine() -> [UInt8]? {
        guard let newline = buffer[scanned...].firstIndex(of: UInt8(ascii: "\n")) else {
            scanned = buffer.count
            return nil
        }
        let line = Array(buffer[..<newline])
        buffer.removeSubrange(...newline)
        scanned = 0
        return line
    }

    /// Whether a complete line is waiting, without taking it.
    mutating func hasLine() -> Bool {
        if buffer[scanned...].contains(UInt8(ascii: "\n")) { return true }
        scanned = buffer.count
        return false
    }

    /// Takes what is left after the last newline, when the stream ended without one.
    mutating func takeRemainder() -> [UInt8] {
        defer {
            buffer = []
            scanned = 0
        }
        return buffer
    }
}
