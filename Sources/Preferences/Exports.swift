// The store's values are property-list values; users of `Preferences` get them without a
// second import.
@_exported import PropertyList
@_exported import DeclaredSettings
// The file layer's public types (`PreferencesError`, `DomainGeneration`, `DomainRecovery`,
// `CommitOrigin`) are part of this module's API; the rest of that layer is `package`.
@_exported import DomainStorage
