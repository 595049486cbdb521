// The store's values are property-list values; users of `Preferences` get them without a
// second import.
@_exported import PropertyList
@_exported import DeclaredSettings
