import Synchronization

/// Counts of the costly steps one operation takes (parses, schema walks, serializations, CPU-pool hops, asset
/// reads), so a test can hold a path such as a `PATCH` to its budget.
///
/// Counting happens only inside ``measure(_:)``: the steps look up the task-local tally, which is `nil` otherwise,
/// so production pays one task-local read per step. Work moved to other threads or tasks carries the tally along
/// where the code hands it on (the server's CPU pool and its background package builds do).
@_spi(WorkTally)
public final class WorkTally: Sendable {
    /// A counted step.
    public enum Step: Sendable, Hashable, CaseIterable {
        /// A JSON document parsed from bytes (``JSONValue/parse(_:)``).
        case parse
        /// A JSON tree serialized to bytes (``JSONValue/serialized(pretty:)``).
        case serialization
        /// A whole order walked along the schema: validation or normalization.
        case schemaWalk
        /// A job run on the server's CPU pool.
        case cpuHop
        /// A read of merchant assets from the store.
        case assetRead
    }

    /// The tally of the operation running in this task, if it is being measured.
    @TaskLocal public static var current: WorkTally?

    private let counts = Mutex<[Step: Int]>([:])

    /// An empty tally.
    public init() {}

    /// Counts one `step` in the current task's tally, if any.
    @inlinable
    public static func count(_ step: Step) {
        current?.add(step)
    }

    /// Adds one `step`.
    public func add(_ step: Step) {
        counts.withLock { $0[step, default: 0] += 1 }
    }

    /// How many times `step` was counted.
    public subscript(step: Step) -> Int {
        counts.withLock { $0[step, default: 0] }
    }

    /// Runs `operation` with this tally as the current one.
    public func measure<Value>(_ operation: () async throws -> Value) async rethrows -> Value {
        try await Self.$current.withValue(self, operation: operation)
    }
}
