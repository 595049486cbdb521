#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A point in time as proleptic Gregorian calendar fields in UTC, for writing and reading
/// the text forms of dates without Foundation's calendars or formatters.
///
/// The arithmetic is exact integer day counting and the sub-second part is kept as decimal
/// digits, chosen so that a date written and read back gives the same `Double` bit for bit.
/// Years run from -999,999 through 999,999 (about ±3·10¹³ seconds around 2001); a date
/// outside that range, or one that is not finite, cannot be written as text, and
/// ``init(_:)`` moves it to the nearest end of the range (NaN to the reference date
/// 2001-01-01T00:00:00Z) rather than failing, so that any value can be printed.
struct CalendarTime: Equatable {
    /// The year, astronomical numbering (year 0 is 1 BC).
    var year: Int
    /// The month, 1...12.
    var month: Int
    /// The day of the month, 1...31.
    var day: Int
    /// The hour, 0...23.
    var hour: Int
    /// The minute, 0...59.
    var minute: Int
    /// The whole second, 0...59.
    var second: Int
    /// The decimal digits of the part of a second after the point; empty for a whole second.
    var fractionDigits: String

    /// The greatest distance from the reference date, in seconds, that text dates cover.
    static let maximumMagnitude: Double = 30_000_000_000_000
    /// Days from 1970-01-01 to 2001-01-01, the reference date of `Date`.
    private static let referenceDay: Int = 11_323

    /// The fields of a date, in UTC. Out-of-range and non-finite dates are clamped (see the
    /// type's documentation).
    init(_ date: Date) {
        var seconds = date.timeIntervalSinceReferenceDate
        if seconds.isNaN { seconds = 0 }
        seconds = min(max(seconds, -Self.maximumMagnitude), Self.maximumMagnitude)
        let whole = seconds.rounded(.down)
        if whole == -1 {
            // In the second before the reference date the fraction 1 + t is not always a
            // double, so it is kept as the decimal complement of t's digits (see `date`).
            fractionDigits = seconds == -1 ? "" : Self.complement(Self.shortestDigits(-seconds)) ?? ""
        } else {
            // Exact: t and floor(t) are within a factor of two of each other (or t < 1), so
            // their difference is a double, and its shortest digits read back to it.
            let fraction = seconds - whole
            fractionDigits = fraction == 0 ? "" : Self.shortestDigits(fraction)
        }
        let total = Int(whole)
        let (days, secondOfDay) = Self.floorDivide(total, 86_400)
        (year, month, day) = Self.civil(fromDaysSince1970: days + Self.referenceDay)
        hour = secondOfDay / 3600
        minute = secondOfDay / 60 % 60
        second = secondOfDay % 60
    }

    /// Fields read from text, or nil if they do not name a real time (month 13, February
    /// 30th, hour 24, second 60, a year beyond ±999,999) or the fraction is not digits.
    init?(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int, fractionDigits: String) {
        guard (-999_999...999_999).contains(year), (1...12).contains(month),
            (1...Self.daysIn(month: month, year: year)).contains(day),
            (0...23).contains(hour), (0...59).contains(minute), (0...59).contains(second),
            fractionDigits.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
        else { return nil }
        self.year = year
        self.month = month
        self.day = day
        self.hour = hour
        self.minute = minute
        self.second = second
        self.fractionDigits = fractionDigits
    }

    /// The date these fields name.
    var date: Date {
        let days = Self.daysSince1970(year: year, month: month, day: day) - Self.referenceDay
        let whole = days * 86_400 + hour * 3600 + minute * 60 + second
        guard !fractionDigits.isEmpty else {
            return Date(timeIntervalSinceReferenceDate: Double(whole))
        }
        if whole == -1 {
            // t = -(1 - 0.D): one correctly rounded conversion of the exact decimal.
            let magnitude = Self.complement(fractionDigits).map { Double("0." + $0) ?? 0 } ?? 1
            return Date(timeIntervalSinceReferenceDate: -magnitude)
        }
        // Exact for what `init(_:)` wrote: whole + fraction was a double.
        let fraction = Double("0." + fractionDigits) ?? 0
        return Date(timeIntervalSinceReferenceDate: Double(whole) + fraction)
    }

    /// The year as at least four digits, with a leading `-` before year 0.
    var paddedYear: String {
        let digits = String(year.magnitude)
        let padded = digits.zeroPadded(to: 4)
        return year < 0 ? "-" + padded : padded
    }

    /// `yyyy-MM-ddTHH:mm:ss`, then `.` and the shortest digits of the fraction if it is not
    /// zero, then `Z`: ISO 8601 as XML property lists write it.
    var iso8601: String {
        var text = "\(paddedYear)-\(Self.two(month))-\(Self.two(day))T\(Self.two(hour)):\(Self.two(minute)):\(Self.two(second))"
        if !fractionDigits.isEmpty {
            text += "." + fractionDigits
        }
        return text + "Z"
    }

    /// `yyyy-MM-dd HH:mm:ss +0000`, as `NSDate`'s description prints a date (whole seconds).
    var descriptionStyle: String {
        "\(paddedYear)-\(Self.two(month))-\(Self.two(day)) \(Self.two(hour)):\(Self.two(minute)):\(Self.two(second)) +0000"
    }

    // MARK: Arithmetic

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    static func isLeap(_ year: Int) -> Bool {
        year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
    }

    /// Days from 1970-01-01 to the given day, counting in 400-year eras so that negative
    /// years need no special case (the method of H. Hinnant's `days_from_civil`).
    static func daysSince1970(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = floorDivide(y, 400).quotient
        let yearOfEra = y - era * 400
        let shiftedMonth = (month + 9) % 12
        let dayOfYear = (153 * shiftedMonth + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The inverse of ``daysSince1970(year:month:day:)``.
    static func civil(fromDaysSince1970 days: Int) -> (year: Int, month: Int, day: Int) {
        let shifted = days + 719_468
        let era = floorDivide(shifted, 146_097).quotient
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// Division rounding toward negative infinity, with a remainder in `0 ..< divisor`.
    static func floorDivide(_ value: Int, _ divisor: Int) -> (quotient: Int, remainder: Int) {
        let quotient = value >= 0 ? value / divisor : -((-value + divisor - 1) / divisor)
        return (quotient, value - quotient * divisor)
    }

    private static func two(_ value: Int) -> String {
        value < 10 ? "0\(value)" : "\(value)"
    }

    /// The digits after the point of a value in (0, 1), the fewest that read back to it
    /// exactly (Swift's shortest round-trip digits, written out without an exponent).
    static func shortestDigits(_ fraction: Double) -> String {
        let text = fraction.description
        guard let exponentIndex = text.firstIndex(where: { $0 == "e" || $0 == "E" }) else {
            // "0.25": everything after the point.
            return String(text.drop(while: { $0 != "." }).dropFirst())
        }
        // "2.5e-07": the mantissa's digits, moved right by the exponent.
        let mantissa = text[..<exponentIndex].filter { $0 != "." }
        let exponent = Int(text[text.index(after: exponentIndex)...]) ?? 0
        return String(repeating: "0", count: max(0, -exponent - 1)) + mantissa
    }

    /// The digits E with 0.E = 1 - 0.D exactly, as many as D has; nil if D is all zeros
    /// (then 1 - 0.D is 1).
    static func complement(_ digits: String) -> String? {
        var result = [UInt8](digits.utf8)
        guard result.contains(where: { $0 != UInt8(ascii: "0") }) else { return nil }
        // 10^n - D: subtract from the right, the first non-zero digit from 10, the rest from 9.
        var index = result.count - 1
        while result[index] == UInt8(ascii: "0") { index -= 1 }
        result[index] = UInt8(ascii: "0") + 10 - (result[index] - UInt8(ascii: "0"))
        while index > 0 {
            index -= 1
            result[index] = UInt8(ascii: "0") + 9 - (result[index] - UInt8(ascii: "0"))
        }
        return String(decoding: result, as: UTF8.self)
    }
}
