/// Who made a change the file layer publishes: this process, or whatever else changed the
/// file (another process, the `defaults` tool, a hand edit).
///
/// The store turns it into `PreferenceChange.Origin` for observers; it is a type of the
/// file layer so that the layer names nothing above it.
package enum ChangeOrigin: Sendable, Hashable {
    /// A store in this process made the change, on the calling thread.
    case thisProcess
    /// The change was found in the domain's file.
    case anotherProcess
}
