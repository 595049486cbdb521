import DomainStorage

extension PreferenceFiles {
    /// The version of the on-disk protocol (`PROTOCOL.md`) this library follows and writes.
    ///
    /// A preferences directory that follows a newer version is read as far as its files can
    /// be read and never written: every write there throws
    /// ``PreferencesError/Code-swift.struct/unsupportedProtocolVersion``, and nothing in the
    /// directory changes, not even a lock file.
    public static let supportedProtocolVersion: Int = ProtocolVersion.known

    /// The protocol version the preferences directory at `path` follows, from its
    /// `.swift-preferences-protocol` marker: 1 when there is none; nil when the marker names
    /// no version (this library then treats the directory as newer than it knows).
    ///
    /// The marker of a user or system directory also covers its `ByHost` and `managed`
    /// subdirectories.
    public static func protocolVersion(ofDirectory path: String) -> Int? {
        ProtocolVersion.marker(ofDirectory: path).version
    }

    /// The protocol version the user directory (the domains' files) follows; nil when its
    /// marker names no version. See ``protocolVersion(ofDirectory:)``.
    public var userDirectoryProtocolVersion: Int? {
        Self.protocolVersion(ofDirectory: layout.locations.userDirectory)
    }

    /// The protocol version the system directory (system defaults and the managed layer)
    /// follows; nil when its marker names no version. See ``protocolVersion(ofDirectory:)``.
    public var systemDirectoryProtocolVersion: Int? {
        Self.protocolVersion(ofDirectory: layout.locations.systemDirectory)
    }
}
