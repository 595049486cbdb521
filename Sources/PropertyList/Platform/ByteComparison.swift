// The one file of this module that calls the C library.
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Compares `count` bytes at two addresses as `memcmp` does: negative, zero or positive.
///
/// The encoder sorts dictionary keys by their bytes; `memcmp` is vectorised, a Swift loop
/// over the bytes is not.
@inline(__always)
func compareBytes(_ lhs: UnsafePointer<UInt8>, _ rhs: UnsafePointer<UInt8>, count: Int) -> Int32 {
    memcmp(lhs, rhs, count)
}
