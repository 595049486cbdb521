// libFuzzer entry point for `BinaryPropertyListDecoder`: any input must decode or throw a
// typed `PropertyListError`; a trap, an ASan report, a timeout or a memory blow-up
// (`-rss_limit_mb`) is a finding. Decoded values are re-encoded and decoded again, so the
// encoder is exercised on every shape the decoder accepts.
//
// Built by `bash Tests/Scripts/fuzz.sh` with `-sanitize=fuzzer,address` on every target, so
// the decoder is instrumented; libFuzzer's own `main` is not used (SwiftPM links this one),
// so this file hands the arguments to `LLVMFuzzerRunDriver`.
import Glibc
import PropertyList

@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    let decoder = BinaryPropertyListDecoder()
    guard let value = try? decoder.decode(bytes) else { return 0 }
    // NaN is never equal to itself, so a value holding one cannot be compared. (`value ==
    // value` is no test for that: a dictionary equals itself by identity, NaN or not.)
    guard !containsNaN(value) else { return 0 }
    // A value the decoder accepted must survive a round trip unchanged, unless it is
    // beyond what the encoder may write (which it reports as a typed error).
    guard let encoded = try? BinaryPropertyListEncoder().encode(value) else { return 0 }
    guard let again = try? decoder.decode(encoded), again == value else {
        fatalError("a round trip changed a decoded value of \(size) input bytes")
    }
    return 0
}

/// Whether a NaN float or double sits anywhere in the value.
func containsNaN(_ value: PropertyListValue) -> Bool {
    switch value {
    case .float(let number): number.isNaN
    case .double(let number): number.isNaN
    case .array(let elements): elements.contains(where: containsNaN)
    case .dictionary(let entries): entries.values.contains(where: containsNaN)
    default: false
    }
}

@_silgen_name("LLVMFuzzerRunDriver")
func runDriver(
    _ argc: UnsafeMutablePointer<Int32>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
) -> Int32

var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(runDriver(&argc, &argv, fuzzOne))
