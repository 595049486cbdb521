/// A position in a text property list as a person finds it in an editor: 1-based line and
/// column, where the column counts Unicode scalars, not bytes.
///
/// Errors carry the byte offset for programs and this for people. It is computed only when
/// an error is made, by scanning from the start, so parsing never pays for it.
struct TextLocation: CustomStringConvertible {
    /// The line, counting from 1; a line ends at each `\n`.
    let line: Int
    /// The column, counting from 1, in Unicode scalars from the start of the line.
    let column: Int

    /// Locates byte `offset` (clamped to the text) in UTF-8 `bytes`.
    init(offset: Int, in bytes: UnsafeRawBufferPointer) {
        let end = min(max(offset, 0), bytes.count)
        var line = 1
        var column = 1
        var index = 0
        while index < end {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\n") {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                // Continuation bytes belong to the scalar their lead byte started.
                column += 1
            }
            index += 1
        }
        self.line = line
        self.column = column
    }

    /// "line L, column C".
    var description: String { "line \(line), column \(column)" }
}
