/// Encodes ``PropertyListValue``s in Apple's binary property-list format (`bplist00`).
///
/// The output is compact and deterministic: integers, offsets and references use the
/// fewest bytes that hold them; identical values are written once and shared, containers
/// included, so a value that repeats one small array or dictionary many times stays
/// small; dictionary keys are written in sorted order, so equal values always encode to
/// equal bytes. The encoder refuses values that the default decoder would refuse to read
/// back (too deep, too many objects, too many values once shared references are
/// expanded), so it never writes a file that this library cannot open.
public struct BinaryPropertyListEncoder: Sendable {
    /// Creates an encoder.
    public init() {}

    /// Encodes a value as a complete `bplist00` file.
    public func encode(_ value: PropertyListValue) throws(PropertyListError) -> [UInt8] {
        var flattener = ObjectFlattener()
        _ = try flattener.add(value, depth: 0)
        return BinaryPropertyListWriter(flattener: flattener).write()
    }
}
