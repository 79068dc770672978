import Logging
import Synchronization

/// Keeps every log message, for tests that check what the code under test logged.
public struct RecordingLogHandler: LogHandler {
    /// The messages recorded so far, shared by every handler a logger factory makes.
    public final class Entries: Sendable {
        private struct Entry {
            var level: Logger.Level
            var message: Logger.Message
            var metadata: Logger.Metadata
        }

        private let entries = Mutex<[Entry]>([])

        public init() {}

        func append(_ level: Logger.Level, _ message: Logger.Message, _ metadata: Logger.Metadata) {
            entries.withLock { $0.append(Entry(level: level, message: message, metadata: metadata)) }
        }

        /// The messages at `level` or above, each followed by its metadata as a dictionary.
        public func messages(atLeast level: Logger.Level) -> [String] {
            entries.withLock { $0.filter { $0.level >= level }.map { "\($0.message) \($0.metadata)" } }
        }

        /// Every message with its metadata values as written (`message key=value …`, keys sorted), unescaped, the way a
        /// plain text log handler writes them to the stream.
        public var lines: [String] {
            entries.withLock { entries in
                entries.map { entry in
                    let values = entry.metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
                    return ([entry.message.description] + values).joined(separator: " ")
                }
            }
        }
    }

    let entries: Entries
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level

    /// A handler that records into `entries` the messages at `logLevel` and above.
    public init(entries: Entries, logLevel: Logger.Level = .info) {
        self.entries = entries
        self.logLevel = logLevel
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        // The logger's metadata too, as a log handler writes it: a request's id is set on the logger, not per call.
        entries.append(event.level, event.message, metadata.merging(event.metadata ?? [:]) { $1 })
    }
}
