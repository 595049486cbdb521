import Foundation
import PropertyList
import Testing

/// A property list is data: a NaN it holds equals itself, or a store sees a change in every
/// set of NaN and its debug checks find a snapshot unequal to its own values.
@Suite("PropertyListValue equality")
struct ValueEqualityTests {
    @Test("NaN equals NaN of the same width, nested or not, and hashes alike")
    func nanEqualsItself() {
        let values: [PropertyListValue] = [
            .double(.nan), .float(.nan), .double(-.nan), .double(.signalingNaN),
            .array([.double(.nan)]), .dictionary(["x": .float(.nan)]),
        ]
        for value in values {
            #expect(value == value, "\(value)")
            #expect(Set([value, value]).count == 1, "\(value)")
        }
        #expect(PropertyListValue.double(.nan) == .double(-.nan))
        #expect(PropertyListValue.double(.nan).hashValue == PropertyListValue.double(-.nan).hashValue)
        #expect(PropertyListValue.double(.nan) != .float(.nan))
        #expect(PropertyListValue.double(.nan) != .double(1))
    }

    @Test("everything else compares as before: widths apart, zero signs together, containers by element")
    func structural() {
        #expect(PropertyListValue.double(0) == .double(-0.0))
        #expect(PropertyListValue.double(0).hashValue == PropertyListValue.double(-0.0).hashValue)
        #expect(PropertyListValue.float(1) != .double(1))
        #expect(PropertyListValue.integer(1) != .double(1))
        #expect(PropertyListValue.bool(true) != .integer(1))
        #expect(PropertyListValue.array([1, "a"]) == .array([1, "a"]))
        #expect(PropertyListValue.array([1, "a"]) != .array(["a", 1]))
        #expect(PropertyListValue.dictionary(["a": 1]) != .dictionary(["a": 2]))
        #expect(PropertyListValue.date(Date(timeIntervalSinceReferenceDate: 5)) == .date(Date(timeIntervalSinceReferenceDate: 5)))
        #expect(PropertyListValue.data(Data([1])) != .string("\u{1}"))
    }
}
