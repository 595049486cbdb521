extension DirectoryWatcher {
    /// Keeps a watch alive; `cancel()` or deinit ends it, after which the handler never runs
    /// again.
    ///
    /// A registration keeps its watcher alive. A handler that captures its own registration
    /// (to cancel itself, say) keeps both alive until it calls `cancel()`.
    package final class Registration: Sendable {
        /// The watcher, kept alive while the watch is.
        private let watcher: DirectoryWatcher
        /// The registration in the watcher's table.
        private let id: WatchTable.RegistrationID

        /// Wraps a registration recorded in `watcher`'s table.
        package init(watcher: DirectoryWatcher, id: WatchTable.RegistrationID) {
            self.watcher = watcher
            self.id = id
        }

        /// Ends the watch when the last reference goes.
        deinit {
            cancel()
        }

        /// Ends the watch; the handler is not started again once this returns.
        ///
        /// From the handler itself (or any handler: they share the watcher thread) it returns
        /// at once. From another thread while the handler runs, it waits for that call to
        /// return, so afterwards the handler is neither running nor ever called again: do not
        /// call it while holding a lock the handler takes. Calling it again does nothing.
        package func cancel() {
            watcher.loop.cancel(id)
        }
    }
}
