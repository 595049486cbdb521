// libFuzzer entry point for schema reading (`DeclaredSettings`): any input must give a schema
// or a typed `SchemaError`, never a trap, an ASan report, a hang or a memory blow-up.
//
// The first byte chooses the reader. Even: the rest is one native schema file. Odd: the rest
// is a Settings.bundle, split at 0xFF bytes into Root.plist and the child panes A, B and C
// (served from memory, so panes can name each other, themselves, or files that are missing).
// A schema that is accepted must keep its own rules: every declared default passes its key's
// check, so a store would never refuse the value it reads by default.
//
// Built and run like DecoderFuzzer: `bash Tests/Scripts/fuzz.sh SECONDS schema`.
import DeclaredSettings
import Foundation
import Glibc
import PropertyList

@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard size > 0, let data else { return 0 }
    let bytes = UnsafeBufferPointer(start: data, count: size)
    let body = Array(bytes.dropFirst())
    let schema: PreferenceSchema
    do throws(SchemaError) {
        if bytes[0] & 1 == 0 {
            schema = try PreferenceSchema(native: Data(body), path: "/fuzz/native.plist")
        } else {
            var files: [String: Data] = [:]
            for (index, part) in body.split(separator: 0xFF, maxSplits: 3, omittingEmptySubsequences: false).enumerated() {
                files["/fuzz/x.bundle/" + ["Root", "A", "B", "C"][index] + ".plist"] = Data(part)
            }
            let table = files
            let reader = SchemaFileReader { path throws(SchemaError) -> Data in
                guard let data = table[path] else { throw SchemaError(.missingFile, path: path, "no such file") }
                return data
            }
            schema = try PreferenceSchema(settingsBundle: "/fuzz/x.bundle", reader: reader)
        }
    } catch {
        return 0
    }
    for key in schema.keys.values {
        guard let value = key.defaultValue else { continue }
        if let violation = schema.violation(setting: value, forKey: key.name) {
            fatalError("an accepted schema's default breaks its own rule: \(violation)")
        }
    }
    return 0
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
