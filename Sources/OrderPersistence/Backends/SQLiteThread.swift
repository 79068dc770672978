import Foundation
import NIOConcurrencyHelpers

/// A thread of one SQLite connection's own, and the task executor that runs there the tasks that prefer it
/// (`withTaskExecutorPreference`): a transaction's statements then run one after another on this thread, each a plain
/// function call, with no thread switch between them.
///
/// Written here, not taken from sqlite-nio, for a measured reason: sqlite-nio hands every statement to a thread pool
/// and its answer back through an event loop, three thread switches per statement, and compiles each statement anew.
/// In the 2026-11-29 soak profile its statements took 13 % of the samples and the kernel's thread switching 15 %; an
/// order update runs about 26 statements.
final class SQLiteThread: TaskExecutor, @unchecked Sendable {
    /// `true` while jobs wait or a stop was asked; guards `queue` and `stopping`.
    private let pending = ConditionLock(value: false)
    private var queue: [UnownedJob] = []
    private var stopping = false
    /// Set by the thread as it ends.
    private var stopped = false

    init(name: String) {
        // Named from inside, through the kernel: a name set before `start()` stays Foundation's, and the thread would
        // show in `top -H` and `perf` under the name of the thread that started it (one of Swift's, `…root.default-qos`).
        // The thread also writes its kernel name itself, so the name never rests on when Foundation passes it on
        // (`SQLiteDirectConnectionTests` saw a reader's scan on a thread with the inherited name twice in two days);
        // `pthread_setname_np` is not in Swift's Glibc module.
        let thread = Thread { [self] in
            try? String(name.prefix(15)).write(toFile: "/proc/thread-self/comm", atomically: false, encoding: .utf8)
            Thread.current.name = name
            run()
        }
        thread.start()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        pending.lock()
        guard !stopped else {
            pending.unlock()
            // A task that still prefers this executor after its connection closed runs on Swift's shared pool.
            globalConcurrentExecutor.enqueue(job)
            return
        }
        queue.append(job)
        pending.unlock(withValue: true)
    }

    /// Ends the thread once the jobs already queued have run; later jobs go to Swift's shared pool.
    func stop() {
        pending.lock()
        stopping = true
        pending.unlock(withValue: true)
    }

    private func run() {
        var batch: [UnownedJob] = []
        while true {
            pending.lock(whenValue: true)
            swap(&batch, &queue)
            let stop = stopping && batch.isEmpty
            if stop { stopped = true }
            pending.unlock(withValue: stopping)
            if stop { return }
            for job in batch {
                job.runSynchronously(on: asUnownedTaskExecutor())
            }
            batch.removeAll(keepingCapacity: true)
        }
    }
}
