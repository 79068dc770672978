import NIOCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Whether the server's address can be listened on, checked before anything is created: a first start on a busy port
/// would otherwise create a data directory, a database and a development identity, then fail on the bind.
///
/// The check binds a plain socket and never listens on it. A listening check (NIO's `ServerBootstrap`) accepted the
/// connection of a client that polled the port in that instant, gave it no handler and left it open: the client's
/// request was never answered (a CI run's readiness poll of `/healthz` waited for it until the run's time ran out).
/// Bound without listening, the port refuses connections, as it does before the server starts.
enum PortCheck {
    static func requireAvailable(host: String, port: Int) throws {
        guard port != 0 else { return }
        try close(bindWithoutListening(host: host, port: port))
    }

    /// A socket bound to the address and not listening; the caller closes it.
    static func bindWithoutListening(host: String, port: Int) throws -> CInt {
        let address = try SocketAddress.makeAddressResolvingHost(host, port: port)
        let descriptor = socket(CInt(address.protocol.rawValue), CInt(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw IOError(errnoCode: errno, reason: "socket") }
        var reuse: CInt = 1
        // As the server's own listener sets it: a port whose last connections are in TIME_WAIT is free to take.
        _ = setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<CInt>.size))
        let code = address.withSockAddr { pointer, size in bind(descriptor, pointer, socklen_t(size)) == 0 ? 0 : errno }
        guard code == 0 else {
            close(descriptor)
            switch code {
            case EADDRINUSE:
                throw ConfigurationError(
                    setting: "--port",
                    message:
                        "port \(port) on \(host) is already in use (another ordertrack serve?); stop that process or choose another port with --port"
                )
            case EACCES:
                throw ConfigurationError(
                    setting: "--port", message: "port \(port) on \(host) needs privileges this process lacks; choose a port above 1023")
            case EADDRNOTAVAIL:
                throw ConfigurationError(setting: "--host", message: "\(host) is not an address of this machine")
            default:
                throw IOError(errnoCode: code, reason: "bind")
            }
        }
        return descriptor
    }
}
