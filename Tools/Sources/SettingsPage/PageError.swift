/// A page or change that cannot be served: the HTTP status and the reason.
package struct PageError: Error, Sendable, Equatable {
    /// 400, 404, 409, 422 or 500.
    package var status: Int
    /// What went wrong, in words.
    package var message: String

    /// Creates an error.
    package init(status: Int, _ message: String) {
        self.status = status
        self.message = message
    }
}
