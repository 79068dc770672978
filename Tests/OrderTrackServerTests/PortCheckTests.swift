import Testing

@testable import OrderTrackServer

#if canImport(Glibc)
    import Glibc
#endif

@Suite struct PortCheckTests {
    /// A client that connects while the port is being checked is refused, as before the server starts: a check that
    /// listened accepted such a connection and left its request unanswered (a CI run's readiness poll of `/healthz`
    /// waited on it until the run's time ran out). Once something listens on the port, the check says it is in use.
    @Test func aConnectionDuringTheCheckIsRefusedAndAListenerMakesThePortBusy() throws {
        let descriptor = try PortCheck.bindWithoutListening(host: "127.0.0.1", port: 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { _ = getsockname(descriptor, $0, &length) }
        }
        let port = Int(UInt16(bigEndian: address.sin_port))
        #expect(port != 0)

        let client = socket(AF_INET, CInt(SOCK_STREAM.rawValue), 0)
        defer { close(client) }
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(client, $0, length) }
        }
        let refusal = errno
        #expect(connected == -1 && refusal == ECONNREFUSED, "connect answered \(connected), errno \(refusal)")

        #expect(listen(descriptor, 1) == 0)
        let busy = #expect(throws: ConfigurationError.self) { try PortCheck.requireAvailable(host: "127.0.0.1", port: port) }
        #expect(busy?.message.contains("port \(port) on 127.0.0.1 is already in use") == true, "\(String(describing: busy))")
    }
}
