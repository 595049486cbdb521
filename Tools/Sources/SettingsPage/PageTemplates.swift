import Mustache

/// The pages' markup: the Mustache templates of `Resources/Templates`, compiled into the
/// binary, drawn with the markup types (``ListPage``, ``DomainPage``, ``RowMarkup``, ...).
///
/// Every template is parsed under ``PageEscaping``, so `{{name}}` is escaped in all of them
/// and no template can forget it; raw output (`{{{name}}}`) is used nowhere. Mustache reads
/// the markup types' stored fields by name, and an enum as a field named after its case.
/// A name not found in the current object is looked for in the ones around it, so a
/// template writes `{{#.name}}` where an optional field left out must stay out.
enum PageTemplates {
    /// A template: a page, or a part of one (a part is also a partial, `{{>row}}`).
    enum Name: String, CaseIterable {
        case document, list, domain, section, row, control, node, entry, additions, history, error

        /// The template's text, as compiled in (see Package.swift).
        var bytes: [UInt8] {
            switch self {
            case .document: PackageResources.document_mustache
            case .list: PackageResources.list_mustache
            case .domain: PackageResources.domain_mustache
            case .section: PackageResources.section_mustache
            case .row: PackageResources.row_mustache
            case .control: PackageResources.control_mustache
            case .node: PackageResources.node_mustache
            case .entry: PackageResources.entry_mustache
            case .additions: PackageResources.additions_mustache
            case .history: PackageResources.history_mustache
            case .error: PackageResources.error_mustache
            }
        }
    }

    /// `markup` drawn with template `name`.
    static func render(_ markup: Any, _ name: Name) -> String {
        guard let text = library.render(markup, withTemplate: name.rawValue) else {
            preconditionFailure("the template \(name.rawValue) is not registered")
        }
        return text
    }

    /// Every template, parsed once. A file's last newline is dropped, so that a part (a row
    /// sent alone to the page) ends where its markup does.
    private static let library: MustacheLibrary = {
        MustacheContentTypes.register(PageEscaping(), named: PageEscaping.name)
        var library = MustacheLibrary()
        for name in Name.allCases {
            var text = String(decoding: name.bytes, as: UTF8.self)
            if text.hasSuffix("\n") { text.removeLast() }
            do {
                try library.register("{{% CONTENT_TYPE: \(PageEscaping.name)}}\n" + text, named: name.rawValue)
            } catch {
                preconditionFailure("Resources/Templates/\(name.rawValue).mustache does not parse: \(error)")
            }
        }
        return library
    }()
}
