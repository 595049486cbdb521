/// One endpoint could not serve a request (no connection, a timeout, no leader): the client
/// tries the next one, and reports all of them in ``EtcdError/unavailable(_:)`` when none could.
struct EndpointFailure: Error {
    /// What went wrong at that endpoint.
    var reason: String
}
