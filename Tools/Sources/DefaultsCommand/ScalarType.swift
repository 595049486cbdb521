import Foundation
import PropertyList

/// A typed scalar flag of `defaults write` and the parsing of its text.
enum ScalarType: Sendable, Hashable {
    case string, data, integer, float, boolean, date

    /// The type a flag names (`-int` and `-integer`, `-bool` and `-boolean` are the same).
    init?(flag: String) {
        switch flag {
        case "-string": self = .string
        case "-data": self = .data
        case "-int", "-integer": self = .integer
        case "-float": self = .float
        case "-bool", "-boolean": self = .boolean
        case "-date": self = .date
        default: return nil
        }
    }

    /// The value of `text` as this type, or a failure saying why it does not fit.
    func parse(_ text: String) throws(DefaultsFailure) -> PropertyListValue {
        let quoted = PropertyListText.quoted(text)
        switch self {
        case .string:
            return .string(text)
        case .integer:
            if let value = Int64(text) { return .integer(PropertyListInteger(value)) }
            if let value = UInt64(text) { return .integer(PropertyListInteger(value)) }
            throw DefaultsFailure("\(quoted) is not an integer (-int takes whole numbers from -9223372036854775808 to 18446744073709551615)")
        case .float:
            guard let value = Double(text), !text.isEmpty, text.first?.isWhitespace == false else {
                throw DefaultsFailure("\(quoted) is not a number (-float takes a decimal number such as 1.5 or -2e3)")
            }
            return .double(value)
        case .boolean:
            switch text.lowercased() {
            case "true", "yes": return .bool(true)
            case "false", "no": return .bool(false)
            default: throw DefaultsFailure("\(quoted) is not a boolean (-bool takes true, false, yes or no)")
            }
        case .data:
            return .data(try Self.hexBytes(text))
        case .date:
            guard let date = Self.date(text) else {
                throw DefaultsFailure("\(quoted) is not a date (-date takes 2024-01-02 03:04:05 +0000, 2024-01-02T03:04:05Z or 2024-01-02)")
            }
            return .date(date)
        }
    }

    /// Hexadecimal digits, an even number of them; spaces, a `0x` prefix and `<...>` are
    /// allowed around and between them.
    static func hexBytes(_ text: String) throws(DefaultsFailure) -> Data {
        var digits = Substring(text.filter { !$0.isWhitespace })
        if digits.hasPrefix("<") && digits.hasSuffix(">") { digits = digits.dropFirst().dropLast() }
        if digits.hasPrefix("0x") || digits.hasPrefix("0X") { digits = digits.dropFirst(2) }
        var bytes: [UInt8] = []
        var high: UInt8?
        for character in digits {
            guard let nibble = character.hexDigitValue else {
                throw DefaultsFailure("\(PropertyListText.quoted(text)) is not hexadecimal data: \(String(reflecting: character)) is not a hex digit")
            }
            if let pending = high {
                bytes.append(pending << 4 | UInt8(nibble))
                high = nil
            } else {
                high = UInt8(nibble)
            }
        }
        guard high == nil else {
            throw DefaultsFailure("\(PropertyListText.quoted(text)) is not hexadecimal data: it has an odd number of digits")
        }
        return Data(bytes)
    }

    /// `2024-01-02 03:04:05 +0000` (how `defaults read` prints dates), ISO 8601
    /// `2024-01-02T03:04:05Z` (fractions allowed), or a day `2024-01-02` (midnight UTC).
    static func date(_ text: String) -> Date? {
        if text.contains("T") {
            let xml = "<date>\(text.replacingOccurrences(of: "<", with: ""))</date>"
            return (try? XMLPropertyListDecoder().decode(Array(xml.utf8)))?.dateValue
        }
        let parts = text.split(separator: " ")
        guard parts.count == 1 || parts.count == 3 else { return nil }
        let day = parts[0].split(separator: "-", omittingEmptySubsequences: false).map { Int($0) }
        guard day.count == 3, let year = day[0], let month = day[1], let dayOfMonth = day[2],
            parts[0].count == 10, (1...12).contains(month), (1...31).contains(dayOfMonth)
        else { return nil }
        var hour = 0, minute = 0, second = 0, offset = 0
        if parts.count == 3 {
            let time = parts[1].split(separator: ":", omittingEmptySubsequences: false).map { Int($0) }
            guard time.count == 3, let h = time[0], let m = time[1], let s = time[2],
                (0...23).contains(h), (0...59).contains(m), (0...60).contains(s)
            else { return nil }
            (hour, minute, second) = (h, m, s)
            let zone = parts[2]
            guard zone.count == 5, let sign = zone.first, sign == "+" || sign == "-",
                let hours = Int(zone.dropFirst().prefix(2)), let minutes = Int(zone.suffix(2))
            else { return nil }
            offset = (sign == "-" ? -1 : 1) * (hours * 3600 + minutes * 60)
        }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let components = DateComponents(year: year, month: month, day: dayOfMonth, hour: hour, minute: minute, second: second)
        guard let date = calendar.date(from: components),
            calendar.component(.day, from: date) == dayOfMonth
        else { return nil }
        return date.addingTimeInterval(TimeInterval(-offset))
    }
}
