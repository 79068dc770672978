import Foundation
import NIOCore
import NIOPosix
import Synchronization

/// Runs Swift Concurrency's tasks on NIO's event loops instead of a pool of their own: `ordertrack serve` does so on
/// PostgreSQL, and so do the benchmarks' servers on PostgreSQL, unless `ORDERTRACK_EVENT_LOOP_EXECUTOR=0`.
///
/// On PostgreSQL every statement is I/O on an event loop, and with a pool of its own each statement's continuation
/// hopped from the event loop to the pool's thread. In the soak on PostgreSQL (three instances, 100 updates/s; four
/// alternated pairs, 2026-12-02) the servers took 11 to 16 % less CPU per update on the event loops. On SQLite, whose
/// statements run on threads of their own, it did not help: the soak's CPU per update was unchanged, and a device fetch
/// cost the server more in two of three alternated pairs (a task resumed from SQLite's thread wakes an event loop).
/// Nothing `serve` runs blocks a thread while it waits, which would now hold an event loop's I/O.
///
/// The executor is the process's for good once installed, so a second call answers what the first did.
///
/// - Returns: whether tasks now run on the event loops.
func runTasksOnEventLoops() -> Bool {
    eventLoopExecutor.withLock { installed in
        if let installed { return installed }
        let now =
            ProcessInfo.processInfo.environment["ORDERTRACK_EVENT_LOOP_EXECUTOR"] != "0"
            && NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
        installed = now
        return now
    }
}

/// Whether the event loops run tasks now: `nil` until ``runTasksOnEventLoops()`` was first called.
private let eventLoopExecutor = Mutex<Bool?>(nil)

/// Whether ``runTasksOnEventLoops()`` installed the executor.
var tasksRunOnEventLoops: Bool { eventLoopExecutor.withLock { $0 ?? false } }
