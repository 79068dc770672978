import Foundation
import NIOConcurrencyHelpers
import NIOCore

/// Everything the mock remembers, behind one lock: shared by all connections and the test that reads it.
final class MockAPNsState: Sendable {
    private struct Values {
        var requests: [RecordedPush] = []
        var attempts: [String: Int] = [:]
        var revokedTokens: Set<String> = []
        var seenTokens: Set<String> = []
        var connections: [Int: any Channel] = [:]
        var nextConnectionID = 1
        var faultForEveryToken: MockAPNsFault?
    }

    private let values = NIOLockedValueBox(Values())

    func record(_ push: RecordedPush) {
        values.withLockedValue { $0.requests.append(push) }
    }

    /// A fault that answers every token's requests while set, before the per-token faults.
    var faultForEveryToken: MockAPNsFault? {
        get { values.withLockedValue { $0.faultForEveryToken } }
        set { values.withLockedValue { $0.faultForEveryToken = newValue } }
    }

    var requests: [RecordedPush] { values.withLockedValue { $0.requests } }

    /// Counts an attempt for a token and returns its 1-based number.
    func countAttempt(token: String) -> Int {
        values.withLockedValue { state in
            state.attempts[token, default: 0] += 1
            return state.attempts[token]!
        }
    }

    /// Remembers a provider token and tells whether it was revoked by `revokeSeenProviderTokens`.
    func noteProviderToken(_ token: String) -> Bool {
        values.withLockedValue { state in
            state.seenTokens.insert(token)
            return state.revokedTokens.contains(token)
        }
    }

    func revokeSeenProviderTokens() {
        values.withLockedValue { $0.revokedTokens.formUnion($0.seenTokens) }
    }

    func addConnection(_ channel: any Channel) -> Int {
        values.withLockedValue { state in
            let id = state.nextConnectionID
            state.nextConnectionID += 1
            state.connections[id] = channel
            return id
        }
    }

    func removeConnection(_ id: Int) {
        _ = values.withLockedValue { $0.connections.removeValue(forKey: id) }
    }

    var openConnections: [any Channel] { values.withLockedValue { Array($0.connections.values) } }
}
