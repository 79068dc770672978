import Synchronization

/// Whether an enabled webhook endpoint may exist, as far as this process knows: while the last look found none and
/// none was added or enabled here since, committed events wake no webhook worker.
///
/// Without it every order write woke the worker for a look at the endpoints (one query per write, on PostgreSQL a
/// round trip; about one statement in five of a carrier scan) in databases that have none. It only decides wake-ups:
/// the worker's poll looks regardless (every second by default), which is how an endpoint added on another instance is
/// found, and what delivers the events committed here meanwhile.
final class WebhookEndpointPresence: Sendable {
    private struct State {
        var mayExist = true
        /// Counts additions, so a look that began before one cannot undo it.
        var additions = 0
    }

    private let state = Mutex(State())

    var mayExist: Bool { state.withLock { $0.mayExist } }

    /// An endpoint was added or enabled here, and committed: a look that began before the commit could not see it.
    func added() {
        state.withLock {
            $0.mayExist = true
            $0.additions += 1
        }
    }

    /// Where a look begins: pass it to ``looked(found:since:)``.
    var mark: Int { state.withLock { $0.additions } }

    /// What a look that began at `mark` found.
    func looked(found: Bool, since mark: Int) {
        state.withLock { state in
            if found || state.additions == mark { state.mayExist = found }
        }
    }
}
