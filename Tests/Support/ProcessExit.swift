import Foundation
import Synchronization

/// A child process's exit, told by its termination handler.
///
/// Not `Process.waitUntilExit()`: on Linux that spins the calling thread's run loop until Foundation notices the exit
/// there, and with many children started from several threads at once it can miss an exit and block for ever (a
/// fresh-clone CI run hung 80 minutes in it, after a `merchant create` that had already finished).
public final class ProcessExit: Sendable {
    private let exited = DispatchSemaphore(value: 0)
    /// Whether the child has ended, and the tasks waiting for it meanwhile.
    private let state = Mutex<(ended: Bool, waiters: [Int: CheckedContinuation<Void, Never>])>((false, [:]))
    private let nextWaiter = Atomic<Int>(0)

    /// Installs the handler: before `run()`, so that a child that ends at once is not missed.
    public init(_ process: Process) {
        process.terminationHandler = { [self] _ in
            exited.signal()
            let waiters = state.withLock { state in
                state.ended = true
                defer { state.waiters = [:] }
                return state.waiters.values
            }
            for waiter in waiters { waiter.resume() }
        }
    }

    /// Waits up to `timeout` for the exit; false if the child is still running.
    @discardableResult
    public func wait(timeout: Duration = .seconds(300)) -> Bool {
        let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        guard exited.wait(timeout: .now() + seconds) == .success else { return false }
        exited.signal() // later waits return at once too
        return true
    }

    /// ``wait(timeout:)`` for a task: it suspends instead of holding one of Swift's cooperative threads, which the
    /// other tests running in parallel need while a long child (a benchmark, say) runs.
    public func exit(timeout: Duration = .seconds(300)) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                await self.ended()
                return true
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return false
            }
            let ended = await group.next() ?? false
            group.cancelAll()
            return ended
        }
    }

    /// Returns once the child has ended, or at once when the task is cancelled.
    private func ended() async {
        let id = nextWaiter.add(1, ordering: .relaxed).newValue
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let waiting = state.withLock { state in
                    guard !state.ended, !Task.isCancelled else { return false }
                    state.waiters[id] = continuation
                    return true
                }
                if !waiting { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
        }
    }
}
