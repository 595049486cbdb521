public import Foundation
public import PropertyList

/// The settings a domain declares: each key's type, default, allowed values and words,
/// read from a native schema file or an Apple Settings.bundle.
///
/// A store that opens a domain finds its schema by itself (see ``SchemaSearchPath``): the
/// declared defaults become its registration layer, writes that break a rule are refused,
/// and stored values that break one read as if absent (the file keeps them).
public struct PreferenceSchema: Sendable, Hashable {
    /// The format a schema was read from.
    public enum Format: String, Sendable, Hashable {
        /// A native schema file, `<domain>.plist` (see ``init(native:path:)``).
        case native
        /// An Apple Settings.bundle, `<domain>.bundle/Root.plist` with its child panes.
        case settingsBundle
    }

    /// The declared keys by name.
    public internal(set) var keys: [String: DeclaredKey]
    /// The file the schema was read from (a bundle's `Root.plist`), or a name given by code.
    public var path: String
    /// The format it was read from.
    public var format: Format
    /// Every file read to build it (a bundle's child panes too), for watching.
    public var files: [String]
    /// The domain the file says it is for, if it says.
    public var domain: String?

    /// Creates a schema from declarations; later declarations of a name replace earlier ones.
    public init(keys: [DeclaredKey], path: String, format: Format = .native, files: [String]? = nil, domain: String? = nil) {
        var table: [String: DeclaredKey] = [:]
        table.reserveCapacity(keys.count)
        for key in keys { table[key.name] = key }
        self.keys = table
        self.path = path
        self.format = format
        self.files = files ?? [path]
        self.domain = domain
    }

    /// A schema from declarations already keyed by their names (a parser's, whose names are
    /// unique): no second table is built and no declaration copied again.
    init(table: [String: DeclaredKey], path: String, format: Format, files: [String], domain: String?) {
        keys = table
        self.path = path
        self.format = format
        self.files = files
        self.domain = domain
    }

    /// The declaration of `name`, if any.
    public subscript(name: String) -> DeclaredKey? { keys[name] }

    /// The declared keys sorted by name.
    public var sortedKeys: [DeclaredKey] { keys.values.sorted { $0.name < $1.name } }

    /// Every declared default, by key: what the registration layer holds.
    public var defaults: [String: PropertyListValue] {
        var defaults: [String: PropertyListValue] = [:]
        defaults.reserveCapacity(keys.count)
        for (name, key) in keys {
            if let value = key.defaultValue { defaults[name] = value }
        }
        return defaults
    }

    /// The keys declared private (``DeclaredKey/isPrivate``).
    public var privateKeys: Set<String> {
        Set(keys.values.lazy.filter(\.isPrivate).map(\.name))
    }

    /// Old names to move, as (old, new) pairs sorted by old name.
    public var renames: [(old: String, new: String)] {
        keys.values.flatMap { key in key.renamedFrom.map { (old: $0, new: key.name) } }.sorted { $0.old < $1.old }
    }

    /// The violation `value` would be for `key`, or nil if it is allowed or `key` is not
    /// declared. Removing a key (nil) is always allowed.
    public func violation(setting value: PropertyListValue?, forKey key: String) -> SchemaViolation? {
        guard let value, let declared = keys[key], let (rule, path) = declared.firstViolation(of: value) else { return nil }
        return SchemaViolation(key: key, value: value, rule: rule, elementPath: path, schemaPath: self.path)
    }

    /// The largest schema file read: a schema is small, and this bounds memory.
    public static let sizeLimit = 4 << 20

    /// Reads the schema at `path`: a native schema file, or a Settings.bundle given as the
    /// bundle directory or its `Root.plist`. The files are read as they are, with no trust
    /// checks: a store reads schemas it finds through its own checked reader.
    public init(contentsOf path: String) throws(SchemaError) {
        let reader = SchemaFileReader.unchecked
        if let bundle = Self.settingsBundleDirectory(of: path) {
            self = try SettingsBundle.read(bundle: bundle, reader: reader)
        } else {
            self = try PreferenceSchema(native: reader.read(path), path: path)
        }
    }

    /// Reads the Settings.bundle directory `bundle` (its `Root.plist` and child panes),
    /// every file through `reader`.
    public init(settingsBundle bundle: String, reader: SchemaFileReader) throws(SchemaError) {
        self = try SettingsBundle.read(bundle: bundle, reader: reader)
    }

    /// The bundle directory when `path` names a Settings.bundle (`X.bundle`, `X.bundle/` or
    /// `X.bundle/Root.plist`), else nil.
    public static func settingsBundleDirectory(of path: String) -> String? {
        SettingsBundle.bundleDirectory(of: path)
    }
}

/// How schema files are read: plain reads for tools and code, checked reads (owner, mode,
/// no links, size) for the schemas a store finds on its own.
public struct SchemaFileReader: Sendable {
    /// Reads a file's bytes, or throws naming it.
    public let read: @Sendable (_ path: String) throws(SchemaError) -> Data

    /// Creates a reader.
    public init(read: @escaping @Sendable (_ path: String) throws(SchemaError) -> Data) {
        self.read = read
    }

    /// Reads files as they are, up to ``PreferenceSchema/sizeLimit``.
    public static let unchecked = SchemaFileReader { path throws(SchemaError) -> Data in
        guard let handle = FileHandle(forReadingAtPath: path) else {
            let exists = FileManager.default.fileExists(atPath: path)
            throw SchemaError(exists ? .unreadable : .missingFile, path: path,
                              exists ? "the file cannot be read" : "the file does not exist")
        }
        defer { try? handle.close() }
        let data: Data
        do {
            data = try handle.read(upToCount: PreferenceSchema.sizeLimit + 1) ?? Data()
        } catch {
            throw SchemaError(.unreadable, path: path, "the file cannot be read: \(error)")
        }
        guard data.count <= PreferenceSchema.sizeLimit else {
            throw SchemaError(.tooLarge, path: path, "the file is larger than \(PreferenceSchema.sizeLimit) bytes")
        }
        return data
    }

    /// Reads a file and decodes it as a property list.
    func propertyList(_ path: String) throws(SchemaError) -> PropertyListValue {
        let data = try read(path)
        do throws(PropertyListError) {
            return try PropertyListValue(decodingAnyFormat: data)
        } catch {
            throw SchemaError(.invalidPropertyList, path: path, "the file is not a property list: \(error)")
        }
    }
}
