import NIOPosix

#if canImport(Glibc)
    import Glibc
#endif

/// A TCP connection to a local server over a plain socket: for bytes an HTTP client refuses to send (malformed
/// requests) and for pacing it cannot keep (a byte every 300 ms against the server's timeouts).
package final class RawSocket {
    package struct Failure: Error {
        package var operation: String
    }

    /// How one read ended.
    package enum Received {
        case bytes([UInt8])
        /// The server closed the connection (or reset it).
        case closed
        /// Nothing arrived within the receive timeout.
        case timedOut
    }

    private let socket: Int32
    private var buffer = [UInt8](repeating: 0, count: 65_536)

    /// Connects to 127.0.0.1:`port`; a read waits at most `receiveTimeout` (whole milliseconds).
    private init(port: Int, receiveTimeout: Duration) throws {
        socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw Failure(operation: "socket") }
        let milliseconds = Int(receiveTimeout.components.seconds * 1000 + receiveTimeout.components.attoseconds / 1_000_000_000_000_000)
        var timeout = timeval(tv_sec: milliseconds / 1000, tv_usec: __suseconds_t((milliseconds % 1000) * 1000))
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(socket)
            throw Failure(operation: "connect")
        }
    }

    deinit { close(socket) }

    /// Runs `body` with a new connection to `port`, on NIO's thread pool (the socket calls block), and closes it.
    package static func with<Value: Sendable>(
        port: Int, receiveTimeout: Duration, _ body: @escaping @Sendable (RawSocket) throws -> Value
    ) async throws -> Value {
        try await NIOThreadPool.singleton.runIfActive { try body(RawSocket(port: port, receiveTimeout: receiveTimeout)) }
    }

    /// Writes what the server takes of `bytes`: how many, 0 or less once it has closed the connection.
    package func send(_ bytes: ArraySlice<UInt8>) -> Int {
        bytes.withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// Waits up to the receive timeout for bytes or the close.
    package func receive() -> Received {
        let count = recv(socket, &buffer, buffer.count, 0)
        if count > 0 { return .bytes(Array(buffer[..<count])) }
        if count < 0, errno == EAGAIN || errno == EWOULDBLOCK { return .timedOut }
        return .closed
    }
}
