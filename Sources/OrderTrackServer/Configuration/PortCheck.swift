import NIOCore
import NIOPosix

/// Whether the server's address can be listened on, checked before anything is created: a first start on a busy port
/// would otherwise create a data directory, a database and a development identity, then fail on the bind.
enum PortCheck {
    static func requireAvailable(host: String, port: Int) async throws {
        guard port != 0 else { return }
        do {
            let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .bind(host: host, port: port).get()
            try await channel.close()
        } catch let error as IOError where error.errnoCode == EADDRINUSE {
            throw ConfigurationError(
                setting: "--port",
                message: "port \(port) on \(host) is already in use (another ordertrack serve?); stop that process or choose another port with --port"
            )
        } catch let error as IOError where error.errnoCode == EACCES {
            throw ConfigurationError(
                setting: "--port", message: "port \(port) on \(host) needs privileges this process lacks; choose a port above 1023")
        } catch let error as IOError where error.errnoCode == EADDRNOTAVAIL {
            throw ConfigurationError(setting: "--host", message: "\(host) is not an address of this machine")
        }
    }
}
