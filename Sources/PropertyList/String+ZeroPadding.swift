extension String {
    /// The string with zeros in front up to `width` characters (`"7"` to width 3 is `"007"`),
    /// or as it is if it is that long already: the one zero-padding of the library's modules,
    /// for digits of times, code points, modes and hashes.
    package func zeroPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
