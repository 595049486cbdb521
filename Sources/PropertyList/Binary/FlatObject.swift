#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One object of the file, in the form the writer needs.
///
/// Containers name their children by a run of `ObjectFlattener.references` rather than by
/// arrays of their own, so flattening allocates nothing per container, and two containers
/// are identical exactly when their kinds and runs are; a string carries what writing it
/// takes, learnt while it was hashed.
enum FlatObject {
    case bool(Bool)
    case integer(PropertyListInteger)
    case float(UInt32)
    case double(UInt64)
    case date(UInt64)
    case data(Data)
    case asciiString(String)
    /// A string with non-ASCII characters, written as `units` big-endian UTF-16 code units.
    case utf16String(String, units: Int)
    /// The children are `references[first ..< first + count]`.
    case array(first: Int, count: Int)
    /// The keys are `references[first ..< first + count]`, the values the `count` after them.
    case dictionary(first: Int, count: Int)
}
