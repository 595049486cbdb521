#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One pass of ``OpenStepPropertyListDecoder`` over one text's UTF-8 bytes.
///
/// A recursive-descent parser that recurses once per open container, after checking the
/// depth limit, so its stack use is bounded by the limit and not by the input.
struct OpenStepPropertyListParser {
    private let bytes: UnsafeRawBufferPointer
    private let limits: PropertyListLimits
    private var position = 0
    private var valueCount = 0
    /// Reused for quoted strings that contain escapes, so each does not allocate afresh.
    private var scratch: [UInt8] = []

    init(bytes: UnsafeRawBufferPointer, limits: PropertyListLimits) {
        self.bytes = bytes
        self.limits = limits
    }

    /// Parses the whole text: one value, surrounded only by whitespace and comments.
    mutating func parseDocument() throws(PropertyListError) -> PropertyListValue {
        try skipTrivia()
        guard position < bytes.count else {
            throw error(.truncated, at: position, "the text holds no value")
        }
        let value = try parseValue(depth: 0)
        try skipTrivia()
        guard position == bytes.count else {
            throw error(.trailingContent, at: position, "unexpected \(character(at: position)) after the top-level value")
        }
        return value
    }

    // MARK: Values

    /// Parses the value at `position`, inside `depth` enclosing containers.
    private mutating func parseValue(depth: Int) throws(PropertyListError) -> PropertyListValue {
        guard position < bytes.count else {
            throw error(.truncated, at: position, "expected a value, but the text ends")
        }
        switch bytes[position] {
        case UInt8(ascii: "{"):
            return try parseDictionary(depth: depth)
        case UInt8(ascii: "("):
            return try parseArray(depth: depth)
        case UInt8(ascii: "<"):
            try countValue()
            return .data(Data(try parseData()))
        case UInt8(ascii: "\""), UInt8(ascii: "'"):
            try countValue()
            return .string(try parseQuotedString())
        case let byte where Self.isUnquoted(byte):
            try countValue()
            return .string(parseUnquotedString())
        default:
            throw error(.syntax, at: position, "unexpected \(character(at: position)) where a value was expected")
        }
    }

    private mutating func parseDictionary(depth: Int) throws(PropertyListError) -> PropertyListValue {
        try enterContainer(depth: depth, what: "dictionary")
        let start = position
        position += 1
        var entries: [String: PropertyListValue] = [:]
        while true {
            try skipTrivia()
            guard position < bytes.count else {
                throw error(
                    .truncated, at: position,
                    "the dictionary opened at \(location(start)) is not closed: expected a key or '}', but the text ends")
            }
            if bytes[position] == UInt8(ascii: "}") {
                position += 1
                return .dictionary(entries)
            }
            let key = try parseKey()
            try skipTrivia()
            try expect(UInt8(ascii: "="), "'='", after: "key \(Self.quoted(key))")
            try skipTrivia()
            entries[key] = try parseValue(depth: depth + 1)
            try skipTrivia()
            if position < bytes.count, bytes[position] == UInt8(ascii: "}") {
                // The last entry's ';' may be left out.
                position += 1
                return .dictionary(entries)
            }
            try expect(UInt8(ascii: ";"), "';'", after: "the value of key \(Self.quoted(key))")
        }
    }

    private mutating func parseArray(depth: Int) throws(PropertyListError) -> PropertyListValue {
        try enterContainer(depth: depth, what: "array")
        let start = position
        position += 1
        var elements: [PropertyListValue] = []
        while true {
            try skipTrivia()
            guard position < bytes.count else {
                throw error(
                    .truncated, at: position,
                    "the array opened at \(location(start)) is not closed: expected a value or ')', but the text ends")
            }
            if bytes[position] == UInt8(ascii: ")") {
                position += 1
                return .array(elements)
            }
            elements.append(try parseValue(depth: depth + 1))
            try skipTrivia()
            if position < bytes.count, bytes[position] == UInt8(ascii: ",") {
                // A comma may also end the list: `(a, b,)`.
                position += 1
                continue
            }
            if position < bytes.count, bytes[position] == UInt8(ascii: ")") {
                position += 1
                return .array(elements)
            }
            throw expected("',' or ')'", after: "array element \(elements.count)")
        }
    }

    /// A dictionary key: a quoted or unquoted string, never a container or data.
    private mutating func parseKey() throws(PropertyListError) -> String {
        let byte = bytes[position]
        if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
            try countValue()
            return try parseQuotedString()
        }
        if Self.isUnquoted(byte) {
            try countValue()
            return parseUnquotedString()
        }
        let kind: String? =
            switch byte {
            case UInt8(ascii: "{"): "a dictionary"
            case UInt8(ascii: "("): "an array"
            case UInt8(ascii: "<"): "data"
            default: nil
            }
        if let kind {
            throw error(.invalidKey, at: position, "expected a string as dictionary key, found \(kind)")
        }
        throw error(.syntax, at: position, "unexpected \(character(at: position)) where a key or '}' was expected")
    }

    // MARK: Scalars

    private mutating func parseUnquotedString() -> String {
        let start = position
        while position < bytes.count, Self.isUnquoted(bytes[position]) {
            position += 1
        }
        return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
    }

    private mutating func parseQuotedString() throws(PropertyListError) -> String {
        let quote = bytes[position]
        let start = position
        position += 1
        // Fast path: no escapes, so the string is the bytes between the quotes.
        var scan = position
        while scan < bytes.count, bytes[scan] != quote, bytes[scan] != UInt8(ascii: "\\") {
            scan += 1
        }
        guard scan < bytes.count else {
            throw error(.truncated, at: start, "unterminated quoted string, opened")
        }
        if bytes[scan] == quote {
            let string = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[position..<scan]), as: UTF8.self)
            position = scan + 1
            return string
        }
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[position..<scan]))
        position = scan
        while position < bytes.count {
            let byte = bytes[position]
            if byte == quote {
                position += 1
                return String(decoding: scratch, as: UTF8.self)
            }
            if byte == UInt8(ascii: "\\") {
                try parseEscape()
            } else {
                scratch.append(byte)
                position += 1
            }
        }
        throw error(.truncated, at: start, "unterminated quoted string, opened")
    }

    /// Reads the escape at `position` (a backslash) into `scratch`.
    private mutating func parseEscape() throws(PropertyListError) {
        let start = position
        position += 1
        guard position < bytes.count else {
            throw error(.truncated, at: start, "the text ends inside an escape")
        }
        let byte = bytes[position]
        position += 1
        switch byte {
        case UInt8(ascii: "a"): scratch.append(0x07)
        case UInt8(ascii: "b"): scratch.append(0x08)
        case UInt8(ascii: "f"): scratch.append(0x0C)
        case UInt8(ascii: "n"): scratch.append(0x0A)
        case UInt8(ascii: "r"): scratch.append(0x0D)
        case UInt8(ascii: "t"): scratch.append(0x09)
        case UInt8(ascii: "v"): scratch.append(0x0B)
        case UInt8(ascii: "0")...UInt8(ascii: "7"):
            var value = UInt32(byte - UInt8(ascii: "0"))
            var digits = 1
            while digits < 3, position < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "7")).contains(bytes[position]) {
                value = value * 8 + UInt32(bytes[position] - UInt8(ascii: "0"))
                position += 1
                digits += 1
            }
            guard value <= 0o377 else {
                throw error(.syntax, at: start, "the octal escape is above \\377")
            }
            appendScalar(Unicode.Scalar(UInt8(value)))
        case UInt8(ascii: "U"), UInt8(ascii: "u"):
            let unit = try hexEscapeValue(escapeStart: start)
            switch unit {
            case 0xD800...0xDBFF:
                let lowStart = position
                guard position + 1 < bytes.count, bytes[position] == UInt8(ascii: "\\"),
                    bytes[position + 1] == UInt8(ascii: "U") || bytes[position + 1] == UInt8(ascii: "u")
                else {
                    throw error(.invalidString, at: start, "the escape names a high surrogate with no low surrogate escape after it")
                }
                position += 2
                let low = try hexEscapeValue(escapeStart: lowStart)
                guard (0xDC00...0xDFFF).contains(low) else {
                    throw error(.invalidString, at: start, "the escape names a high surrogate followed by a non-surrogate")
                }
                // Always valid: the pair encodes a scalar in U+10000...U+10FFFF.
                appendScalar(Unicode.Scalar(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))!)
            case 0xDC00...0xDFFF:
                throw error(.invalidString, at: start, "the escape names a low surrogate with no high surrogate before it")
            default:
                appendScalar(Unicode.Scalar(unit)!)
            }
        default:
            // `\"`, `\'`, `\\` and any other character stand for themselves; a multi-byte
            // character's continuation bytes are copied by the caller's loop.
            scratch.append(byte)
        }
    }

    /// The one to four hexadecimal digits after `\U`, read from `position`.
    private mutating func hexEscapeValue(escapeStart: Int) throws(PropertyListError) -> UInt32 {
        var value: UInt32 = 0
        var digits = 0
        while digits < 4, position < bytes.count, let digit = Self.hexValue(bytes[position]) {
            value = value << 4 | UInt32(digit)
            position += 1
            digits += 1
        }
        guard digits > 0 else {
            if position >= bytes.count {
                throw error(.truncated, at: escapeStart, "the text ends inside a \\U escape")
            }
            throw error(.syntax, at: escapeStart, "a \\U escape needs one to four hexadecimal digits")
        }
        return value
    }

    private mutating func appendScalar(_ scalar: Unicode.Scalar) {
        scratch.append(contentsOf: UTF8.encode(scalar)!)
    }

    /// Data: `<`, pairs of hex digits with whitespace anywhere between them, `>`.
    private mutating func parseData() throws(PropertyListError) -> [UInt8] {
        let start = position
        position += 1
        var data: [UInt8] = []
        var high: UInt8? = nil
        var digits = 0
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: ">") {
                guard high == nil else {
                    throw error(.invalidData, at: start, "the data has an odd number of hexadecimal digits (\(digits))")
                }
                position += 1
                return data
            }
            if let value = Self.hexValue(byte) {
                digits += 1
                if let first = high {
                    data.append(first << 4 | value)
                    high = nil
                } else {
                    high = value
                }
            } else if !Self.isWhitespace(byte) {
                throw error(.invalidData, at: position, "unexpected \(character(at: position)) in data, which holds only hexadecimal digits")
            }
            position += 1
        }
        throw error(.truncated, at: start, "unterminated data (no '>'), opened")
    }

    // MARK: Trivia, limits, errors

    /// Skips whitespace, `//` comments and `/* */` comments.
    private mutating func skipTrivia() throws(PropertyListError) {
        while position < bytes.count {
            let byte = bytes[position]
            if Self.isWhitespace(byte) {
                position += 1
            } else if byte == UInt8(ascii: "/"), position + 1 < bytes.count, bytes[position + 1] == UInt8(ascii: "/") {
                position += 2
                while position < bytes.count, bytes[position] != UInt8(ascii: "\n"), bytes[position] != UInt8(ascii: "\r") {
                    position += 1
                }
            } else if byte == UInt8(ascii: "/"), position + 1 < bytes.count, bytes[position + 1] == UInt8(ascii: "*") {
                let start = position
                position += 2
                while true {
                    guard position + 1 < bytes.count else {
                        throw error(.truncated, at: start, "unterminated comment (no '*/'), opened")
                    }
                    if bytes[position] == UInt8(ascii: "*"), bytes[position + 1] == UInt8(ascii: "/") {
                        position += 2
                        break
                    }
                    position += 1
                }
            } else {
                return
            }
        }
    }

    /// Consumes `byte` at `position` or fails saying what was expected after what.
    private mutating func expect(_ byte: UInt8, _ name: String, after what: String) throws(PropertyListError) {
        guard position < bytes.count, bytes[position] == byte else {
            throw expected(name, after: what)
        }
        position += 1
    }

    private func expected(_ name: String, after what: String) -> PropertyListError {
        if position >= bytes.count {
            return error(.truncated, at: position, "expected \(name) after \(what), but the text ends")
        }
        return error(.syntax, at: position, "expected \(name) after \(what)")
    }

    /// Checks the depth limit before a container at `depth` is opened, and counts it.
    private mutating func enterContainer(depth: Int, what: String) throws(PropertyListError) {
        guard depth < limits.depth else {
            throw error(.tooDeep, at: position, "the \(what) here nests deeper than \(limits.depth) containers")
        }
        try countValue()
    }

    private mutating func countValue() throws(PropertyListError) {
        valueCount += 1
        guard valueCount <= limits.expandedObjectCount else {
            throw error(.tooManyExpandedObjects, at: position, "the text holds more than \(limits.expandedObjectCount) values; the limit is reached")
        }
    }

    private func error(_ code: PropertyListError.Code, at offset: Int, _ reason: String) -> PropertyListError {
        .text(code, at: offset, in: bytes, reason)
    }

    private func location(_ offset: Int) -> TextLocation {
        TextLocation(offset: offset, in: bytes)
    }

    /// The character at `offset`, quoted, or its code point if it is not printable.
    private func character(at offset: Int) -> String {
        PropertyListError.describeCharacter(at: offset, in: bytes)
    }

    private static func quoted(_ key: String) -> String {
        let shown = key.count > 40 ? String(key.prefix(40)) + "…" : key
        return "\"\(shown)\""
    }

    static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || (0x09...0x0D).contains(byte)
    }

    /// The characters an unquoted string may hold: `A-Z a-z 0-9 _ $ + / : . -`.
    static func isUnquoted(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "_"), UInt8(ascii: "$"), UInt8(ascii: "+"), UInt8(ascii: "/"), UInt8(ascii: ":"), UInt8(ascii: "."),
            UInt8(ascii: "-"):
            true
        default:
            false
        }
    }

    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
