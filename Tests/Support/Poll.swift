/// Waiting for a condition that only an outside observer can see: another process's pushes, a server's HTTP API, what
/// a background writer has stored. Where the code under test can signal the event itself (a stream, a continuation,
/// ``TestClock/waitForSleepers(_:)``), await that instead: this is the one polling loop of the tests.
public enum Poll {
    /// Checks `condition` every `interval` of real time until it holds; returns whether it did within `timeout`.
    @discardableResult
    public static func until(
        timeout: Duration, every interval: Duration = .milliseconds(50), _ condition: () async throws -> Bool
    ) async throws -> Bool {
        let deadline = ContinuousClock.now + timeout
        while try await !condition() {
            guard ContinuousClock.now < deadline else { return false }
            try await Task.sleep(for: interval)
        }
        return true
    }
}
