import DeclaredSettings
import Foundation
import PropertyList
import PreferenceKeyGeneration
import TestSupport

/// The generated text for `keys`, declared in one native schema at `path`.
func generated(
    _ keys: [DeclaredKey], path: String = "/schemas/app.schema.plist", domain: String? = nil,
    access: KeyGenerator.Access = .internal
) throws(SchemaError) -> String {
    let schema = PreferenceSchema(keys: keys, path: path, format: .native, domain: domain)
    return try KeyGenerator(access: access).generate([KeyGenerator.Source(schema: schema, displayName: (path as NSString).lastPathComponent)])
}

/// The generated text without its header (the comment and imports): the declarations.
func declarations(_ keys: [DeclaredKey], path: String = "/schemas/app.schema.plist") throws(SchemaError) -> String {
    let text = try generated(keys, path: path)
    guard let start = text.range(of: "\nextension ") else { return "" }
    return String(text[text.index(after: start.lowerBound)...])
}

/// A native schema file whose `Keys` dictionary holds `keys` (XML for the entries).
func nativeSchema(_ keys: String, domain: String? = nil) -> String {
    """
    <?xml version="1.0" encoding="UTF-8"?>
    <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
    <plist version="1.0">
    <dict>
    \(domain.map { "<key>Domain</key><string>\($0)</string>" } ?? "")
    <key>Keys</key>
    <dict>
    \(keys)
    </dict>
    </dict>
    </plist>
    """
}

/// Runs the command in this process, collecting what it prints.
func runCommand(_ arguments: [String]) -> (status: Int32, output: String, errors: String) {
    var output = "", errors = ""
    let status = KeyGeneratorCommand.run(
        arguments, standardOutput: { output += $0 + "\n" }, standardError: { errors += $0 + "\n" })
    return (status, output, errors)
}

/// The built `preferences-keygen` executable.
let keygenPath = builtProductsDirectory.appendingPathComponent("preferences-keygen").path
