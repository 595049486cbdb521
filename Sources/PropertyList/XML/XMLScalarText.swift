/// Reads the text of `<integer>`, `<real>` and `<date>` elements.
///
/// Each reader takes the element's character data (entities already replaced) and either
/// returns the value or throws a ``Failure`` saying why, which the parser turns into a
/// ``PropertyListError`` placed in the document.
enum XMLScalarText {
    /// Why a scalar's text was refused.
    struct Failure: Error {
        /// The error code to report.
        let code: PropertyListError.Code
        /// What was wrong.
        let reason: String
    }

    /// The longest `<real>` text read; no real number needs more, and a cap keeps the
    /// conversion's cost bounded.
    static let maximumRealLength = 1024

    /// An integer: optional sign, then decimal digits or `0x` and hexadecimal digits,
    /// whitespace around it allowed; any value from `Int64.min` through `UInt64.max`.
    static func integer(_ text: ArraySlice<UInt8>) throws(Failure) -> PropertyListInteger {
        let body = trimmed(text)
        guard !body.isEmpty else {
            throw Failure(code: .invalidNumber, reason: "the <integer> is empty")
        }
        var index = body.startIndex
        var negative = false
        if body[index] == UInt8(ascii: "-") || body[index] == UInt8(ascii: "+") {
            negative = body[index] == UInt8(ascii: "-")
            index += 1
        }
        var radix: UInt64 = 10
        if body.endIndex - index >= 2, body[index] == UInt8(ascii: "0"),
            body[index + 1] == UInt8(ascii: "x") || body[index + 1] == UInt8(ascii: "X")
        {
            radix = 16
            index += 2
        }
        guard index < body.endIndex else {
            throw Failure(code: .invalidNumber, reason: "\(quoted(body)) is not an integer: it has no digits")
        }
        var magnitude: UInt64 = 0
        var overflow = false
        while index < body.endIndex {
            guard let digit = digitValue(body[index]), UInt64(digit) < radix else {
                throw Failure(code: .invalidNumber, reason: "\(quoted(body)) is not an integer")
            }
            let (shifted, overflowed) = magnitude.multipliedReportingOverflow(by: radix)
            let (sum, carried) = shifted.addingReportingOverflow(UInt64(digit))
            // Keep checking the remaining digits so a typo is reported as such, not as a range error.
            overflow = overflow || overflowed || carried
            magnitude = sum
            index += 1
        }
        let range = "outside Int64.min...UInt64.max (-9223372036854775808...18446744073709551615)"
        guard !overflow else {
            throw Failure(code: .integerOutOfRange, reason: "\(quoted(body)) is \(range)")
        }
        if !negative {
            return PropertyListInteger(magnitude)
        }
        guard magnitude <= UInt64(Int64.max) + 1 else {
            throw Failure(code: .integerOutOfRange, reason: "\(quoted(body)) is \(range)")
        }
        return PropertyListInteger(magnitude == UInt64(Int64.max) + 1 ? Int64.min : -Int64(magnitude))
    }

    /// A real: a decimal number with optional fraction and exponent, or `nan`, `inf`,
    /// `infinity` with an optional sign, in any case (Apple writes `+infinity`, Python
    /// `inf`); whitespace around it allowed. Hexadecimal reals are refused, as Apple refuses them.
    static func real(_ text: ArraySlice<UInt8>) throws(Failure) -> Double {
        let body = trimmed(text)
        guard !body.isEmpty else {
            throw Failure(code: .invalidNumber, reason: "the <real> is empty")
        }
        guard body.count <= maximumRealLength else {
            throw Failure(code: .invalidNumber, reason: "the <real> is \(body.count) characters long; at most \(maximumRealLength) are read")
        }
        var index = body.startIndex
        var negative = false
        if body[index] == UInt8(ascii: "-") || body[index] == UInt8(ascii: "+") {
            negative = body[index] == UInt8(ascii: "-")
            index += 1
        }
        let word = String(decoding: body[index...], as: UTF8.self).lowercased()
        switch word {
        case "nan": return .nan
        case "inf", "infinity": return negative ? -.infinity : .infinity
        default: break
        }
        // digits [. digits] | . digits, then optional e[+-]digits.
        var integerDigits = 0
        while index < body.endIndex, isDigit(body[index]) {
            index += 1
            integerDigits += 1
        }
        var fractionDigits = 0
        if index < body.endIndex, body[index] == UInt8(ascii: ".") {
            index += 1
            while index < body.endIndex, isDigit(body[index]) {
                index += 1
                fractionDigits += 1
            }
        }
        var valid = integerDigits + fractionDigits > 0
        if valid, index < body.endIndex, body[index] == UInt8(ascii: "e") || body[index] == UInt8(ascii: "E") {
            index += 1
            if index < body.endIndex, body[index] == UInt8(ascii: "+") || body[index] == UInt8(ascii: "-") {
                index += 1
            }
            var exponentDigits = 0
            while index < body.endIndex, isDigit(body[index]) {
                index += 1
                exponentDigits += 1
            }
            valid = exponentDigits > 0
        }
        guard valid, index == body.endIndex, let value = Double(String(decoding: body, as: UTF8.self)) else {
            throw Failure(code: .invalidNumber, reason: "\(quoted(body)) is not a real number")
        }
        return value
    }

    /// A date: `yyyy-MM-ddTHH:mm:ssZ` in UTC, with optional fractional seconds before the
    /// `Z` (`2024-01-02T03:04:05.25Z`); the year may have up to six digits and a `-`.
    static func date(_ text: ArraySlice<UInt8>) throws(Failure) -> CalendarTime {
        let body = trimmed(text)
        let failure = Failure(
            code: .invalidDate, reason: "\(quoted(body)) is not a date of the form 2024-01-02T03:04:05Z")
        var index = body.startIndex
        func number(_ minimumDigits: Int, _ maximumDigits: Int) throws(Failure) -> Int {
            var value = 0
            var digits = 0
            while digits < maximumDigits, index < body.endIndex, isDigit(body[index]) {
                value = value * 10 + Int(body[index] - UInt8(ascii: "0"))
                index += 1
                digits += 1
            }
            guard digits >= minimumDigits else { throw failure }
            return value
        }
        func literal(_ byte: UInt8) throws(Failure) {
            guard index < body.endIndex, body[index] == byte else { throw failure }
            index += 1
        }
        var yearSign = 1
        if index < body.endIndex, body[index] == UInt8(ascii: "-") {
            yearSign = -1
            index += 1
        }
        let year = yearSign * (try number(4, 6))
        try literal(UInt8(ascii: "-"))
        let month = try number(2, 2)
        try literal(UInt8(ascii: "-"))
        let day = try number(2, 2)
        try literal(UInt8(ascii: "T"))
        let hour = try number(2, 2)
        try literal(UInt8(ascii: ":"))
        let minute = try number(2, 2)
        try literal(UInt8(ascii: ":"))
        let second = try number(2, 2)
        var fractionDigits = ""
        if index < body.endIndex, body[index] == UInt8(ascii: ".") {
            index += 1
            let start = index
            // Enough for the exact digits of any double's fraction; more is not a date.
            while index < body.endIndex, index - start < 400, isDigit(body[index]) {
                index += 1
            }
            guard index > start else { throw failure }
            fractionDigits = String(decoding: body[start..<index], as: UTF8.self)
        }
        try literal(UInt8(ascii: "Z"))
        guard index == body.endIndex else { throw failure }
        guard
            let time = CalendarTime(
                year: year, month: month, day: day, hour: hour, minute: minute, second: second,
                fractionDigits: fractionDigits)
        else {
            throw Failure(code: .invalidDate, reason: "\(quoted(body)) names no real time (a field is out of range)")
        }
        return time
    }

    // MARK: Characters

    /// XML's whitespace: space, tab, newline, carriage return.
    static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    static func trimmed(_ text: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var start = text.startIndex
        var end = text.endIndex
        while start < end, isWhitespace(text[start]) { start += 1 }
        while end > start, isWhitespace(text[end - 1]) { end -= 1 }
        return text[start..<end]
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }

    private static func digitValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// The text in quotes for a message, shortened if long.
    private static func quoted(_ text: ArraySlice<UInt8>) -> String {
        let shown = String(decoding: text.prefix(60), as: UTF8.self)
        return "\"\(shown)\(text.count > 60 ? "…" : "")\""
    }
}
