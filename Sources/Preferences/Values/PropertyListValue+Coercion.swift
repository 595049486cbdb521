#if canImport(FoundationEssentials)
package import FoundationEssentials
#else
package import Foundation
#endif

// The typed getters of `PreferenceStore` (`bool(forKey:)`, `integer(forKey:)`, ...) read
// through these members, so that every getter coerces exactly the way `UserDefaults`
// documents and one set of tests pins that down. None of them allocates unless it
// returns a new string or collection: reads of cached values must stay allocation-free.

extension PropertyListValue {
    /// The value as `bool(forKey:)` reads it.
    ///
    /// A `.bool` is itself; a number is true when it is not zero (NaN is not zero, so it is
    /// true); a string is true when, after leading whitespace, one optional `+` or `-` and
    /// any leading zeros, its next character is `Y`, `y`, `T`, `t` or a digit 1-9, which
    /// is how `NSString.boolValue` reads it on Apple platforms ("YES", "true", "1", "01",
    /// " t" are true; "NO", "false", "0", "" are false). Dates, data and collections are
    /// false.
    package var coercedBool: Bool {
        switch self {
        case .bool(let value): value
        case .integer(let value): value != 0
        case .float(let value): value != 0
        case .double(let value): value != 0
        case .string(let text): Self.scanBool(text)
        case .date, .data, .array, .dictionary: false
        }
    }

    /// The value as `integer(forKey:)` reads it.
    ///
    /// An `.integer` outside `Int`'s range is clamped to `Int.min` or `Int.max`; reals are
    /// truncated toward zero (12.34 gives 12, -12.9 gives -12), NaN gives 0 and values
    /// beyond `Int`'s range (infinities included) clamp; a `.bool` is 1 or 0; a string is
    /// read like `NSString.integerValue`: leading whitespace, an optional sign, then
    /// decimal digits up to the first other character ("1.0" gives 1, "12abc" gives 12,
    /// "abc" gives 0), clamping on overflow. Dates, data and collections are 0.
    package var coercedInteger: Int {
        switch self {
        case .bool(let value): value ? 1 : 0
        case .integer(let value): Self.clamped(value)
        case .float(let value): Self.truncated(Double(value))
        case .double(let value): Self.truncated(value)
        case .string(let text): Self.scanInteger(text)
        case .date, .data, .array, .dictionary: 0
        }
    }

    /// The value as `double(forKey:)` reads it.
    ///
    /// Numbers convert (a `.float` keeps its own precision: `.float(12.34)` gives
    /// `Double(Float(12.34))`, not 12.34; integers beyond 2^53 round to the nearest
    /// double); a `.bool` is 1 or 0; a string is read like `NSString.doubleValue`: leading
    /// whitespace, then the longest prefix that is a decimal number with an optional
    /// exponent (" 1.5e3x" gives 1500; overflow gives an infinity, as Apple documents);
    /// anything else is 0.
    package var coercedDouble: Double {
        switch self {
        case .bool(let value): value ? 1 : 0
        case .integer(let value): value.doubleValue
        case .float(let value): Double(value)
        case .double(let value): value
        case .string(let text): Self.numericPrefix(of: text).flatMap { Double($0) } ?? 0
        case .date, .data, .array, .dictionary: 0
        }
    }

    /// The value as `float(forKey:)` reads it.
    ///
    /// As ``coercedDouble``, but rounded to the nearest `Float`; a numeric string is parsed
    /// straight to `Float` rather than through `Double`, so it is rounded only once.
    package var coercedFloat: Float {
        switch self {
        case .bool(let value): value ? 1 : 0
        case .integer(let value):
            if let signed = value.int64Value { Float(signed) } else { Float(value.uint64Value ?? 0) }
        case .float(let value): value
        case .double(let value): Float(value)
        case .string(let text): Self.numericPrefix(of: text).flatMap { Float($0) } ?? 0
        case .date, .data, .array, .dictionary: 0
        }
    }

    /// The value as `string(forKey:)` reads it: strings, and numbers in their shortest
    /// form; nil for anything else.
    ///
    /// A `.bool` is "1" or "0" (what `NSNumber.stringValue` prints for a boolean); an
    /// integer is its decimal digits, `UInt64.max` included. A real prints the shortest
    /// decimal that reads back as the same value at its own precision, so `Float(12.34)`
    /// is "12.34" rather than "12.3400001525879". Integral reals have no ".0" ("12").
    /// Magnitudes from 1e-4 up to 2^53 print in positional notation, others with an
    /// exponent in C's `%g` style ("1e+20", "1.5e-07"); NaN and the infinities are
    /// "nan", "inf" and "-inf". Dates, data and collections are nil, as on Apple.
    package var coercedString: String? {
        switch self {
        case .string(let text): text
        case .bool(let value): value ? "1" : "0"
        case .integer(let value): value.description
        case .float(let value): Self.shortestString(value)
        case .double(let value): Self.shortestString(value)
        case .date, .data, .array, .dictionary: nil
        }
    }

    /// The value as `stringArray(forKey:)` reads it: an array whose elements are all
    /// strings; nil for a mixed array or anything that is not an array.
    ///
    /// Apple does not coerce elements here (an array holding a number is nil), so neither
    /// do we.
    package var coercedStringArray: [String]? {
        guard case .array(let elements) = self else { return nil }
        var strings: [String] = []
        strings.reserveCapacity(elements.count)
        for element in elements {
            guard case .string(let text) = element else { return nil }
            strings.append(text)
        }
        return strings
    }

    /// The value as `array(forKey:)` reads it: the elements of an array as native values
    /// (see ``bridged``); nil for anything that is not an array.
    package var coercedArray: [Any]? {
        guard case .array(let elements) = self else { return nil }
        return elements.map(\.bridged)
    }

    /// The value as `dictionary(forKey:)` reads it: the entries of a dictionary as native
    /// values (see ``bridged``); nil for anything that is not a dictionary.
    package var coercedDictionary: [String: Any]? {
        guard case .dictionary(let entries) = self else { return nil }
        return entries.mapValues(\.bridged)
    }

    /// The value as `data(forKey:)` reads it: the bytes of a `.data`; nil for anything
    /// else, strings included, as on Apple.
    package var coercedData: Data? {
        dataValue
    }
}

// MARK: - Numbers

extension PropertyListValue {
    /// An integer clamped into `Int`'s range.
    static func clamped(_ value: PropertyListInteger) -> Int {
        if let int = value.intValue { return int }
        return value.isNegative ? Int.min : Int.max
    }

    /// A real truncated toward zero and clamped into `Int`'s range; NaN is 0.
    static func truncated(_ value: Double) -> Int {
        if value.isNaN { return 0 }
        // Double(Int.max) rounds up to 2^63, which does not fit, so compare with >=.
        if value >= Double(Int.max) { return Int.max }
        if value <= Double(Int.min) { return Int.min }
        return Int(value.rounded(.towardZero))
    }

    /// The shortest decimal form of a `Float`, read at the `Float`'s own precision.
    static func shortestString(_ value: Float) -> String {
        // Swift prints the shortest digits that round-trip the Float; reading those digits
        // as a Double and printing that applies the one layout rule for both widths
        // (Float and Double switch to exponents at different magnitudes otherwise).
        guard value.isFinite, let widened = Double(value.description) else {
            return shortestString(Double(value))
        }
        return shortestString(widened)
    }

    /// The shortest decimal form of a `Double`: Swift's round-trip digits without a
    /// trailing ".0", and "nan" for every NaN.
    static func shortestString(_ value: Double) -> String {
        if value.isNaN { return "nan" }
        let text = value.description
        // Swift's description already gives "1e+20", "1e-05", "inf" and "-inf"; only the
        // ".0" it puts on integral values in positional notation differs from NSNumber.
        if text.hasSuffix(".0") { return String(text.dropLast(2)) }
        return text
    }
}

// MARK: - Scanning strings the way NSString does

extension PropertyListValue {
    /// `NSString.boolValue`: after whitespace, one optional sign and leading zeros, true
    /// when the next character is `Y y T t` or `1`-`9`.
    static func scanBool(_ text: String) -> Bool {
        var scalars = text.unicodeScalars[...]
        skipWhitespace(&scalars)
        if let sign = scalars.first, sign == "+" || sign == "-" { scalars.removeFirst() }
        while scalars.first == "0" { scalars.removeFirst() }
        switch scalars.first {
        case "Y", "y", "T", "t", "1", "2", "3", "4", "5", "6", "7", "8", "9": return true
        default: return false
        }
    }

    /// `NSString.integerValue`: whitespace, an optional sign, then decimal digits up to
    /// the first other character; clamps to `Int.min` or `Int.max` on overflow.
    static func scanInteger(_ text: String) -> Int {
        var scalars = text.unicodeScalars[...]
        skipWhitespace(&scalars)
        var negative = false
        if let sign = scalars.first, sign == "+" || sign == "-" {
            negative = sign == "-"
            scalars.removeFirst()
        }
        var result = 0
        for scalar in scalars {
            guard let digit = asciiDigit(scalar) else { break }
            // Accumulate toward the sign so that Int.min, whose magnitude Int cannot hold,
            // still parses exactly.
            let (shifted, overflowTimes) = result.multipliedReportingOverflow(by: 10)
            let (next, overflowAdd) =
                negative ? shifted.subtractingReportingOverflow(digit) : shifted.addingReportingOverflow(digit)
            if overflowTimes || overflowAdd { return negative ? Int.min : Int.max }
            result = next
        }
        return result
    }

    /// The longest prefix of `text`, after leading whitespace, that reads as a decimal
    /// number: an optional sign, digits with at most one decimal point (at least one
    /// digit), and an exponent only when it has digits ("1e" reads as 1, like `strtod`).
    /// Nil when there is no such prefix; "inf", "nan" and hexadecimal are not numbers
    /// here, as for `NSString.doubleValue`.
    static func numericPrefix(of text: String) -> Substring? {
        let scalars = text.unicodeScalars
        var index = scalars.startIndex
        while index < scalars.endIndex, scalars[index].properties.isWhitespace {
            index = scalars.index(after: index)
        }
        let start = index
        func peek() -> Unicode.Scalar? { index < scalars.endIndex ? scalars[index] : nil }
        if let sign = peek(), sign == "+" || sign == "-" { index = scalars.index(after: index) }
        var digits = 0
        while let scalar = peek(), asciiDigit(scalar) != nil {
            digits += 1
            index = scalars.index(after: index)
        }
        if peek() == "." {
            index = scalars.index(after: index)
            while let scalar = peek(), asciiDigit(scalar) != nil {
                digits += 1
                index = scalars.index(after: index)
            }
        }
        guard digits > 0 else { return nil }
        var end = index
        if let marker = peek(), marker == "e" || marker == "E" {
            index = scalars.index(after: index)
            if let sign = peek(), sign == "+" || sign == "-" { index = scalars.index(after: index) }
            var exponentDigits = 0
            while let scalar = peek(), asciiDigit(scalar) != nil {
                exponentDigits += 1
                index = scalars.index(after: index)
            }
            if exponentDigits > 0 { end = index }
        }
        // Positions in the scalar view are valid String indices: they fall on scalar
        // boundaries, and the characters of a numeric prefix are all ASCII.
        return text[start..<end]
    }

    /// Drops leading Unicode whitespace (spaces, tabs, newlines and the like).
    private static func skipWhitespace(_ scalars: inout Substring.UnicodeScalarView) {
        while let first = scalars.first, first.properties.isWhitespace { scalars.removeFirst() }
    }

    /// The value of an ASCII decimal digit; other digits (Arabic-Indic, full-width) are
    /// not digits to NSString's scanner either.
    private static func asciiDigit(_ scalar: Unicode.Scalar) -> Int? {
        guard scalar.isASCII, scalar.value >= 0x30, scalar.value <= 0x39 else { return nil }
        return Int(scalar.value - 0x30)
    }
}
