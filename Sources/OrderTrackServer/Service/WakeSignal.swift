/// Wake-ups of a background loop (the push dispatcher, the carrier event worker): new work, poll ticks, shutdown.
/// At most one waits, so a burst of them costs the loop one round, and one that arrives while the loop is busy is kept
/// for its next wait. Made before the loop, so that the services that give it work can hold it.
struct WakeSignal: Sendable {
    let wakeups: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation

    init() {
        (wakeups, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    func wake() {
        continuation.yield()
    }
}
