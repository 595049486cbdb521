extension PropertyListValue {
    /// Structural equality in which a real NaN equals a real NaN of the same width.
    ///
    /// A property list is data, not arithmetic: a file holding NaN holds the same value
    /// as another holding NaN, and a value must equal itself, or a set of NaN looks like a
    /// change forever (another commit, another callback) and a snapshot never equals the
    /// values it was made from. Everything else is as a synthesized `==` would be: `.float`
    /// never equals `.double`, `0.0` equals `-0.0`.
    public static func == (lhs: PropertyListValue, rhs: PropertyListValue) -> Bool {
        switch (lhs, rhs) {
        case (.bool(let a), .bool(let b)): a == b
        case (.integer(let a), .integer(let b)): a == b
        case (.float(let a), .float(let b)): a == b || (a.isNaN && b.isNaN)
        case (.double(let a), .double(let b)): a == b || (a.isNaN && b.isNaN)
        case (.date(let a), .date(let b)): a == b
        case (.data(let a), .data(let b)): a == b
        case (.string(let a), .string(let b)): a == b
        case (.array(let a), .array(let b)): a == b
        case (.dictionary(let a), .dictionary(let b)): a == b
        default: false
        }
    }

    /// Hashes the value consistently with ``==(_:_:)``: every NaN of one width hashes alike.
    public func hash(into hasher: inout Hasher) {
        switch self {
        case .bool(let value):
            hasher.combine(0 as UInt8)
            hasher.combine(value)
        case .integer(let value):
            hasher.combine(1 as UInt8)
            hasher.combine(value)
        case .float(let value):
            hasher.combine(2 as UInt8)
            if value.isNaN { hasher.combine(Float.nan.bitPattern) } else { hasher.combine(value) }
        case .double(let value):
            hasher.combine(3 as UInt8)
            if value.isNaN { hasher.combine(Double.nan.bitPattern) } else { hasher.combine(value) }
        case .date(let value):
            hasher.combine(4 as UInt8)
            hasher.combine(value)
        case .data(let value):
            hasher.combine(5 as UInt8)
            hasher.combine(value)
        case .string(let value):
            hasher.combine(6 as UInt8)
            hasher.combine(value)
        case .array(let value):
            hasher.combine(7 as UInt8)
            hasher.combine(value)
        case .dictionary(let value):
            hasher.combine(8 as UInt8)
            hasher.combine(value)
        }
    }
}
