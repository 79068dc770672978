import Foundation

/// A child process's exit, told by its termination handler.
///
/// Not `Process.waitUntilExit()`: on Linux that spins the calling thread's run loop until Foundation notices the exit
/// there, and with many children started from several threads at once it can miss an exit and block for ever (a
/// fresh-clone CI run hung 80 minutes in it, after a `merchant create` that had already finished).
public final class ProcessExit: Sendable {
    private let exited = DispatchSemaphore(value: 0)

    /// Installs the handler: before `run()`, so that a child that ends at once is not missed.
    public init(_ process: Process) {
        process.terminationHandler = { [exited] _ in exited.signal() }
    }

    /// Waits up to `timeout` for the exit; false if the child is still running.
    @discardableResult
    public func wait(timeout: Duration = .seconds(300)) -> Bool {
        let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        guard exited.wait(timeout: .now() + seconds) == .success else { return false }
        exited.signal() // later waits return at once too
        return true
    }

    /// Waits like ``wait(timeout:)`` on a thread of its own, so a long-running child (a benchmark, say) holds none of
    /// Swift's cooperative threads, which the other tests running in parallel need.
    public func exit(timeout: Duration = .seconds(300)) async -> Bool {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: self.wait(timeout: timeout)) }
        }
    }
}
