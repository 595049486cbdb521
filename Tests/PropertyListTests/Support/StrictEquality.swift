import Foundation
import PropertyList

/// Equality that also tells `0.0` from `-0.0` and compares NaN by bits, so a codec that
/// loses a sign bit fails; `==` on `PropertyListValue` would let it pass.
func isIdentical(_ lhs: PropertyListValue, _ rhs: PropertyListValue) -> Bool {
    switch (lhs, rhs) {
    case (.float(let a), .float(let b)): a.bitPattern == b.bitPattern
    case (.double(let a), .double(let b)): a.bitPattern == b.bitPattern
    case (.date(let a), .date(let b)):
        a.timeIntervalSinceReferenceDate.bitPattern == b.timeIntervalSinceReferenceDate.bitPattern
    case (.array(let a), .array(let b)): a.count == b.count && zip(a, b).allSatisfy(isIdentical)
    case (.dictionary(let a), .dictionary(let b)):
        a.count == b.count && a.allSatisfy { key, value in b[key].map { isIdentical(value, $0) } ?? false }
    default: lhs == rhs
    }
}
