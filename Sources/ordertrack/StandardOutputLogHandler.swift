import Logging
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writes `ordertrack serve`'s log to standard output, a line per entry in swift-log's `StreamLogHandler` format
/// (`2026-12-02T01:19:05+0000 info ordertrack: method=GET route=… [OrderTrackServer] wallet call`), which operators,
/// the soak and the tests read.
///
/// Ours rather than `StreamLogHandler` because every device call writes a line, and a profile of the server answering
/// cached package fetches put `StreamLogHandler` at 6.6 % of its CPU and formatting the metadata of each request's
/// logger at 3.9 %: it formats the logger's metadata again each time a key is set (Hummingbird and our error envelope
/// set a request id on every request's logger), calls `localtime` (which makes glibc `stat` /etc/localtime) and
/// `strftime` for each line, and writes through a locked `FILE` followed by `fflush`. Here metadata is formatted only
/// for a line that is written, the time's text is made once a second, and a line is one `write(2)`.
struct StandardOutputLogHandler: LogHandler {
    var logLevel: Logger.Level
    var metadata: Logger.Metadata = [:]
    var metadataProvider: Logger.MetadataProvider?
    private let label: String

    init(label: String, level: Logger.Level) {
        self.label = label
        self.logLevel = level
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var entries = metadata
        if let provided = metadataProvider?.get(), !provided.isEmpty { entries.merge(provided) { $1 } }
        if let explicit = event.metadata, !explicit.isEmpty { entries.merge(explicit) { $1 } }
        if let error = event.error {
            entries["error.message"] = "\(error)"
            entries["error.type"] = "\(String(reflecting: type(of: error)))"
        }
        var line = Self.timestamp()
        line.reserveCapacity(line.utf8.count + 160)
        line += " \(event.level)"
        if !label.isEmpty { line += " \(label)" }
        line += ":"
        for (key, value) in entries.sorted(by: { $0.key < $1.key }) {
            line += " \(key)=\(value)"
        }
        line += " [\(event.source)] \(event.message)\n"
        Self.emit(line)
    }

    /// The local time's text of the current second, as `strftime("%Y-%m-%dT%H:%M:%S%z")` writes it.
    private static let second = Mutex<(time: time_t, text: String)>((-1, ""))

    private static func timestamp() -> String {
        let now = time(nil)
        return second.withLock { cached in
            if cached.time != now {
                var parts = tm()
                var moment = now
                var buffer = [CChar](repeating: 0, count: 64)
                if localtime_r(&moment, &parts) != nil, strftime(&buffer, buffer.count, "%Y-%m-%dT%H:%M:%S%z", &parts) > 0 {
                    cached = (now, String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
                } else {
                    cached = (now, "<unknown>")
                }
            }
            return cached.text
        }
    }

    /// Serializes lines so that two threads' lines never interleave, as `StreamLogHandler`'s `flockfile` did.
    private static let output = Mutex(())

    private static func emit(_ line: String) {
        var line = line
        line.withUTF8 { bytes in
            output.withLock { _ in
                var offset = 0
                while offset < bytes.count {
                    let written = write(STDOUT_FILENO, bytes.baseAddress! + offset, bytes.count - offset)
                    if written > 0 {
                        offset += written
                    } else if written < 0, errno == EINTR {
                        continue
                    } else {
                        return
                    }
                }
            }
        }
    }
}
