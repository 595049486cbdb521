import Foundation
import PackagePlugin

/// Generates typed `PreferenceKey` declarations from the preference schemas in a target, so
/// code reads settings through keys whose names, types and defaults come from the schema,
/// and a schema change that breaks that code fails the build.
///
/// Apply it to a target: `plugins: [.plugin(name: "PreferenceKeys", package: "swift-preferences")]`.
///
/// ## Which files are schemas
///
/// - every file whose name ends in `.schema.plist` (a native schema), and
/// - every `Root.plist` directly inside a directory whose name ends in `.bundle` (a
///   Settings.bundle); the bundle's other `.plist` files (its child panes) are inputs too,
///   so editing a child pane regenerates the keys.
///
/// Other `.plist` files are left alone. All schemas of the target make one file,
/// `PreferenceKeys.swift`, compiled into the target; a target with no schema gets no
/// command. The keys are `internal`: each module declares the keys it reads.
///
/// SwiftPM itself does nothing with a `.plist` it is not told about: it hands the file to
/// the plugin (as an unknown file) and, because the target uses a build-tool plugin, does
/// not warn that it is unhandled. Do not `exclude:` the schemas: excluded files are not
/// shown to plugins. Declaring them as resources also works, but copies them into a
/// resource bundle the program does not need.
@main
struct PreferenceKeys: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) async throws -> [Command] {
        guard let target = target as? SourceModuleTarget else { return [] }
        let selection = SchemaSelection(files: target.sourceFiles.map(\.url))
        guard !selection.schemas.isEmpty else { return [] }
        let output = context.pluginWorkDirectoryURL.appending(path: "PreferenceKeys.swift")
        let tool = try context.tool(named: "preferences-keygen")
        let count = selection.schemas.count
        return [
            .buildCommand(
                displayName: "Generating PreferenceKeys.swift for \(target.name) from \(count) schema\(count == 1 ? "" : "s")",
                executable: tool.url,
                arguments: ["--output", output.path(percentEncoded: false), "--access", "internal", "--"]
                    + selection.schemas.map { $0.path(percentEncoded: false) },
                inputFiles: selection.inputs,
                outputFiles: [output])
        ]
    }
}

/// The schema files among a target's files (see ``PreferenceKeys`` for the rule).
struct SchemaSelection {
    /// What the generator reads: native schemas and bundles' `Root.plist`, sorted by path so
    /// the command line, and so the output, does not depend on the order files are listed.
    var schemas: [URL] = []
    /// Every file the output depends on: the schemas and the bundles' other `.plist` files.
    var inputs: [URL] = []

    init(files: [URL]) {
        for file in files {
            let name = file.lastPathComponent
            let parent = file.deletingLastPathComponent()
            if name.hasSuffix(".schema.plist") {
                schemas.append(file)
                inputs.append(file)
            } else if parent.lastPathComponent.hasSuffix(".bundle") {
                // A file of a bundle; the bundle is a schema when it has a Root.plist.
                if name.hasSuffix(".plist") { inputs.append(file) }
                if name == "Root.plist" { schemas.append(file) }
            } else if name.hasSuffix(".bundle") {
                // A bundle listed as one item (as SwiftPM lists some package-like
                // directories): look inside it for Root.plist and its panes.
                let root = file.appending(path: "Root.plist")
                guard FileManager.default.fileExists(atPath: root.path(percentEncoded: false)) else { continue }
                schemas.append(root)
                let panes = (try? FileManager.default.contentsOfDirectory(at: file, includingPropertiesForKeys: nil)) ?? []
                inputs += panes.filter { $0.pathExtension == "plist" }
            }
        }
        schemas.sort { $0.path < $1.path }
        inputs.sort { $0.path < $1.path }
    }
}
