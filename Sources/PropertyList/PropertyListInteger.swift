/// A property-list integer: any value from `Int64.min` through `UInt64.max`.
///
/// The binary format stores integers up to 64 bits signed, plus unsigned values above
/// `Int64.max` in a 16-byte form; no single Swift integer type covers that range, so this
/// type does. Every value has exactly one representation, so equal numbers compare and
/// hash equal however they were created.
public struct PropertyListInteger: Sendable, Hashable, Comparable, CustomStringConvertible,
    ExpressibleByIntegerLiteral
{
    /// The value's bits: the value itself when `isAboveInt64Max` is false, else the bit
    /// pattern of an unsigned value greater than `Int64.max`.
    @usableFromInline let bits: Int64
    /// True only for values in `Int64.max + 1 ... UInt64.max`; keeps the form canonical.
    @usableFromInline let isAboveInt64Max: Bool

    /// The smallest representable value, `Int64.min`.
    public static let min = PropertyListInteger(Int64.min)
    /// The largest representable value, `UInt64.max`.
    public static let max = PropertyListInteger(UInt64.max)

    /// Creates an integer from a signed 64-bit value.
    @inlinable
    public init(_ value: Int64) {
        self.init(bits: value, isAboveInt64Max: false)
    }

    /// Creates an integer from an unsigned 64-bit value.
    @inlinable
    public init(_ value: UInt64) {
        if value > UInt64(Int64.max) {
            self.init(bits: Int64(bitPattern: value), isAboveInt64Max: true)
        } else {
            self.init(bits: Int64(value), isAboveInt64Max: false)
        }
    }

    /// Creates an integer from any `Int`.
    @inlinable
    public init(_ value: Int) {
        self.init(Int64(value))
    }

    /// Creates an integer from any binary integer, or nil if it lies outside
    /// `Int64.min ... UInt64.max`.
    @inlinable
    public init?(exactly value: some BinaryInteger) {
        if let signed = Int64(exactly: value) {
            self.init(signed)
        } else if let unsigned = UInt64(exactly: value) {
            self.init(unsigned)
        } else {
            return nil
        }
    }

    /// Creates an integer from a literal.
    @inlinable
    public init(integerLiteral value: Int64) {
        self.init(value)
    }

    @usableFromInline
    init(bits: Int64, isAboveInt64Max: Bool) {
        self.bits = bits
        self.isAboveInt64Max = isAboveInt64Max
    }

    /// The value as an `Int64`, or nil if it is greater than `Int64.max`.
    @inlinable
    public var int64Value: Int64? { isAboveInt64Max ? nil : bits }

    /// The value as a `UInt64`, or nil if it is negative.
    @inlinable
    public var uint64Value: UInt64? {
        if isAboveInt64Max { return UInt64(bitPattern: bits) }
        return bits < 0 ? nil : UInt64(bits)
    }

    /// The value as an `Int`, or nil if it does not fit.
    @inlinable
    public var intValue: Int? { int64Value.flatMap { Int(exactly: $0) } }

    /// The value as a `Double`, rounded to the nearest representable value.
    @inlinable
    public var doubleValue: Double {
        isAboveInt64Max ? Double(UInt64(bitPattern: bits)) : Double(bits)
    }

    /// True if the value is less than zero.
    @inlinable
    public var isNegative: Bool { !isAboveInt64Max && bits < 0 }

    /// The value in decimal.
    public var description: String {
        isAboveInt64Max ? String(UInt64(bitPattern: bits)) : String(bits)
    }

    /// Orders integers by numeric value.
    public static func < (lhs: PropertyListInteger, rhs: PropertyListInteger) -> Bool {
        switch (lhs.isAboveInt64Max, rhs.isAboveInt64Max) {
        case (false, false): lhs.bits < rhs.bits
        case (true, true): UInt64(bitPattern: lhs.bits) < UInt64(bitPattern: rhs.bits)
        case (false, true): true
        case (true, false): false
        }
    }
}
