extension String {
    /// The string with zeros in front up to `width` characters (`"7"` to width 3 is `"007"`),
    /// or as it is if it is that long already: the tools' one zero-padding, for times, hex
    /// digits and tokens. (The library's modules have their own, which is `package` to them.)
    package func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
