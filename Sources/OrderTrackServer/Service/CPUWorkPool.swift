import NIOCore
import NIOPosix
@_spi(WorkTally) import OrderModel
import ServiceLifecycle
import Synchronization

/// A fixed set of threads for CPU-heavy work: validating large documents, signing packages, deriving keys.
///
/// Swift's cooperative pool has one thread per core and runs every request; work that holds one of them for a second
/// holds up `/healthz` and every device fetch queued behind it (audit H1, H2, M3). Work run here waits for one of
/// `threadCount` threads instead, so at most that many jobs compete with request handling for the cores, and the
/// operating system time-slices them fairly against it. The threads start on first use and stop when the server
/// shuts down, after the jobs already queued have run.
package final class CPUWorkPool: Service, Sendable {
    /// Why a job was not run.
    struct ShutDown: Error, CustomStringConvertible {
        var description: String { "the server is shutting down and runs no new CPU work" }
    }

    private enum State {
        case idle, running, stopped
    }

    /// How many jobs run at once.
    let threadCount: Int
    private let threads: NIOThreadPool
    private let state = Mutex(State.idle)

    /// `threadCount` defaults to the number of cores.
    init(threadCount: Int = System.coreCount) {
        self.threadCount = max(1, threadCount)
        threads = NIOThreadPool(numberOfThreads: self.threadCount)
    }

    /// Runs `work` on one of the pool's threads; waits for a free thread first if all are busy.
    package func run<Value: Sendable>(_ work: @escaping @Sendable () throws -> Value) async throws -> Value {
        try startIfIdle()
        // A measured operation's tally follows its work onto the pool's thread.
        guard let tally = WorkTally.current else { return try await threads.runIfActive(work) }
        tally.add(.cpuHop)
        return try await threads.runIfActive { try WorkTally.$current.withValue(tally, operation: work) }
    }

    /// Keeps the threads until graceful shutdown, then lets queued jobs finish and stops them.
    package func run() async throws {
        try startIfIdle()
        try? await gracefulShutdown()
        state.withLock { $0 = .stopped }
        try await threads.shutdownGracefully()
    }

    private func startIfIdle() throws(ShutDown) {
        // A request can arrive before the service group has called `run()`: whichever comes first starts the threads.
        try state.withLock { state throws(ShutDown) in
            switch state {
            case .idle:
                threads.start()
                state = .running
            case .running:
                break
            case .stopped:
                throw ShutDown()
            }
        }
    }
}
