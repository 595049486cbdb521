/// The text of real numbers in the shortest digits that read back to the same value.
///
/// Swift's `description` already gives the shortest round-trip digits; the one change is
/// that whole values lose their `.0` (`2`, not `2.0`), as `NSNumber` prints them and as
/// Apple's XML writer has always written them. Infinities and NaN are `inf`, `-inf` and
/// `nan`; the XML encoder spells the infinities its own way.
enum RealNumberText {
    /// The shortest text of a 64-bit real.
    static func shortest(_ value: Double) -> String {
        trimmed(value.description)
    }

    /// The shortest text of a 32-bit real: the fewest digits that read back to the same
    /// `Float`, so `0.1` rather than the `0.10000000149011612` its widening to `Double` shows.
    static func shortest(_ value: Float) -> String {
        trimmed(value.description)
    }

    private static func trimmed(_ text: String) -> String {
        text.hasSuffix(".0") ? String(text.dropLast(2)) : text
    }
}
