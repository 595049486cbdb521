/// One layer of a store's search list that holds a value for a key: where the value comes
/// from, for tools that explain why a read returns what it does (`defaults explain`).
public struct PreferenceSource: Sendable, Hashable {
    /// The kind of layer, in precedence order: the first that holds a key wins.
    public enum Layer: String, Sendable, Hashable, CaseIterable {
        /// Administrator-forced values (`<system dir>/managed/<domain>.plist`).
        case forced
        /// `-Key value` launch arguments.
        case argument
        /// The store's domain for this machine only (`ByHost/<domain>.<machine-id>.plist`).
        case byHost = "by-host"
        /// The store's domain (`<domain>.plist`).
        case app
        /// A domain added with `addSuite(named:)`.
        case suite
        /// The global domain for this machine only.
        case globalByHost = "global by-host"
        /// The global domain (`.GlobalPreferences.plist`).
        case global
        /// System-wide defaults for the domain (`<system dir>/<domain>.plist`).
        case system
        /// System-wide defaults for every domain (`<system dir>/.GlobalPreferences.plist`).
        case systemGlobal = "system global"
        /// `register(defaults:)`, in memory only.
        case registration
        /// A default declared by the domain's schema (the path is the schema's).
        case declared
    }

    /// The kind of layer.
    public let layer: Layer
    /// The file behind the layer; nil for the argument and registration layers.
    public let path: String?
    /// The value this layer holds for the key.
    public let value: PropertyListValue
    /// The schema rule the value breaks, if it breaks one: reads pass over such a value.
    public let violation: SchemaViolation?
    /// The layer's file is corrupt and the value comes from this generation of it instead.
    public let recovery: DomainRecovery?
    /// Where the file's writer says the value came from (the fleet policy's etcd key and
    /// revision, for the forced layer; see ``CommitOrigin``), if it said.
    public let origin: String?

    /// Creates a source.
    public init(
        layer: Layer, path: String?, value: PropertyListValue, violation: SchemaViolation? = nil, recovery: DomainRecovery? = nil,
        origin: String? = nil
    ) {
        self.layer = layer
        self.path = path
        self.value = value
        self.violation = violation
        self.recovery = recovery
        self.origin = origin
    }
}

extension PreferenceSource.Layer {
    /// The public name of a layer of the global domain's own store, whose own, by-host and
    /// system layers are the global files.
    static func globalLayer(of layer: SearchLayer) -> Self {
        switch layer {
        case .app: .global
        case .appByHost: .globalByHost
        case .system: .systemGlobal
        default: Self(layer)
        }
    }

    /// The public name of an internal search-list layer.
    init(_ layer: SearchLayer) {
        switch layer {
        case .managed: self = .forced
        case .argument: self = .argument
        case .appByHost: self = .byHost
        case .app: self = .app
        case .suite: self = .suite
        case .globalByHost: self = .globalByHost
        case .global: self = .global
        case .system: self = .system
        case .systemGlobal: self = .systemGlobal
        case .registration: self = .registration
        case .declared: self = .declared
        }
    }
}
