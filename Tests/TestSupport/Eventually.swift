/// Polls `condition` every few milliseconds without holding a thread until it holds; false
/// once `limit` has passed. The limit bounds a failure (a hang, an event that never comes);
/// it is not a timing check.
///
/// A cancelled task stops polling at once and answers with one last look, since its sleep
/// would return at once and the loop would only spin.
package func eventually(within limit: Duration = .seconds(30), _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + limit
    while !condition() {
        if ContinuousClock.now >= deadline { return false }
        do { try await Task.sleep(for: .milliseconds(5)) } catch { return condition() }
    }
    return true
}
