import ArgumentParser

/// The file formats `export` writes.
enum ExportFormat: String, ExpressibleByArgument, CaseIterable {
    case xml, binary, json
}
