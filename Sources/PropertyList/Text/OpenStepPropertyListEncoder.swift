#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Prints values as macOS `defaults read` does: old-style property-list text in the layout
/// of `NSDictionary` and `NSArray` descriptions.
///
/// ```
/// {
///     NSNavLastRootDirectory = "~/Documents";
///     "NSWindow Frame" = "1 2 3 4";
///     arr =     (
///         1,
///         2
///     );
///     flag = 1;
/// }
/// ```
///
/// The layout, matched to macOS's output:
/// - each level indents 4 spaces; a nested container starts with its own level's
///   indentation, which is why `arr =     (` has five spaces after `=`; array elements are
///   separated by `,`, dictionary entries end with `;`; an empty container prints as its
///   brackets on two lines;
/// - dictionary keys are sorted by UTF-16 code units, as `-[NSString compare:]` orders them
///   (`B` before `a`);
/// - strings are quoted unless they are non-empty and made only of ASCII letters and digits:
///   macOS quotes `"com.apple.Safari"`, `"mod-count"`, `"_CFURLString"` and `"zh_CN:CN"`,
///   so `.`, `-`, `_`, `:`, `/`, `$` and every other character force quotes. Inside quotes
///   `"` and `\` are escaped with a backslash, newline and tab as `\n` and `\t`, and every
///   other character outside printable ASCII as `\U` and four lowercase hex digits per UTF-16
///   code unit (`"caf\U00e9"`);
/// - numbers print as `NSNumber` describes them and are then quoted by the same rule:
///   booleans `1` and `0`, integers in decimal (`"-5"` is quoted for its `-`), reals in
///   their shortest digits without a trailing `.0` (`2`, `"0.5"`, `"1e+20"`, `inf`);
/// - dates print in UTC as `"2024-01-02 03:04:05 +0000"` (whole seconds);
/// - data prints unquoted as `{length = 4, bytes = 0x01020304}`; data longer than 24 bytes is
///   abbreviated as macOS abbreviates it: the first 16 bytes and the last 8, in groups of 4
///   bytes each followed by a space, with `... ` between them:
///   `{length = 32, bytes = 0x00010203 04050607 08090a0b 0c0d0e0f ... 18191a1b 1c1d1e1f }`.
///
/// The output has no trailing newline; `defaults` adds one when it prints.
///
/// Printing a value that ``OpenStepPropertyListDecoder`` decoded gives text that decodes to
/// the same value again (strings, arrays and dictionaries are all that format holds). Other
/// scalars print as text and so read back as strings, and data's abbreviated form does not
/// read back at all: this is a printer for people, like `defaults read`, not a storage format.
public struct OpenStepPropertyListEncoder: Sendable {
    /// How a value that is not a container is written when it is the whole output.
    public enum TopLevelScalarStyle: Sendable, Hashable {
        /// Quoted and escaped when needed, exactly as inside a container, so the text
        /// always decodes back.
        case quotedIfNeeded
        /// Bare, as `defaults read domain key` prints a single string, number or date:
        /// no quotes and no escapes.
        case raw
    }

    /// How a top-level string, number or date is written; data and containers are the same
    /// either way.
    public var topLevelScalarStyle: TopLevelScalarStyle

    /// Creates a printer.
    public init(topLevelScalarStyle: TopLevelScalarStyle = .quotedIfNeeded) {
        self.topLevelScalarStyle = topLevelScalarStyle
    }

    /// The text of a value.
    public func encode(_ value: PropertyListValue) -> String {
        var output = ""
        switch value {
        case .array, .dictionary, .data:
            Self.append(value, level: 0, to: &output)
        default:
            let text = Self.scalarText(value)
            output = topLevelScalarStyle == .raw ? text : Self.quotedIfNeeded(text)
        }
        return output
    }

    // MARK: Layout

    private static func append(_ value: PropertyListValue, level: Int, to output: inout String) {
        switch value {
        case .dictionary(let entries):
            output += indentation(level) + "{\n"
            let keys = entries.keys.sorted { $0.utf16.lexicographicallyPrecedes($1.utf16) }
            for key in keys {
                output += indentation(level + 1) + quotedIfNeeded(key) + " = "
                append(entries[key]!, level: level + 1, to: &output)
                output += ";\n"
            }
            output += indentation(level) + "}"
        case .array(let elements):
            output += indentation(level) + "(\n"
            for (index, element) in elements.enumerated() {
                output += indentation(level + 1)
                append(element, level: level + 1, to: &output)
                output += index == elements.count - 1 ? "\n" : ",\n"
            }
            output += indentation(level) + ")"
        case .data(let data):
            output += dataDescription(data)
        default:
            output += quotedIfNeeded(scalarText(value))
        }
    }

    private static func indentation(_ level: Int) -> String {
        String(repeating: " ", count: 4 * level)
    }

    // MARK: Scalars

    /// A scalar's unquoted text, as its Foundation object's description gives it.
    private static func scalarText(_ value: PropertyListValue) -> String {
        switch value {
        case .bool(let bool): bool ? "1" : "0"
        case .integer(let integer): integer.description
        case .float(let float): RealNumberText.shortest(float)
        case .double(let double): RealNumberText.shortest(double)
        case .date(let date): CalendarTime(date).descriptionStyle
        case .string(let string): string
        case .data(let data): dataDescription(data)
        case .array, .dictionary: preconditionFailure("containers have no scalar text")
        }
    }

    /// The text alone if it is non-empty ASCII letters and digits, else quoted and escaped.
    static func quotedIfNeeded(_ text: String) -> String {
        let bare = !text.isEmpty && text.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"):
                true
            default:
                false
            }
        }
        if bare { return text }
        var quoted = "\""
        for unit in text.utf16 {
            switch unit {
            case 0x22: quoted += "\\\""
            case 0x5C: quoted += "\\\\"
            case 0x0A: quoted += "\\n"
            case 0x09: quoted += "\\t"
            case 0x20...0x7E: quoted.unicodeScalars.append(Unicode.Scalar(UInt8(unit)))
            default:
                let hex = String(unit, radix: 16, uppercase: false)
                quoted += "\\U" + hex.zeroPadded(to: 4)
            }
        }
        return quoted + "\""
    }

    /// `{length = N, bytes = 0x...}`, abbreviated past 24 bytes as macOS does.
    static func dataDescription(_ data: Data) -> String {
        let bytes = [UInt8](data)
        var text = "{length = \(bytes.count), bytes = 0x"
        if bytes.count <= 24 {
            for byte in bytes { text += hex(byte) }
        } else {
            for group in stride(from: 0, to: 16, by: 4) {
                for byte in bytes[group..<(group + 4)] { text += hex(byte) }
                text += " "
            }
            text += "... "
            for group in stride(from: bytes.count - 8, to: bytes.count, by: 4) {
                for byte in bytes[group..<(group + 4)] { text += hex(byte) }
                text += " "
            }
        }
        return text + "}"
    }

    private static func hex(_ byte: UInt8) -> String {
        let digits = String(byte, radix: 16, uppercase: false)
        return byte < 0x10 ? "0" + digits : digits
    }
}
