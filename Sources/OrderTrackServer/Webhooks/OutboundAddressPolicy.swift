import NIOCore

/// Which addresses the server's own outbound requests to merchant-chosen URLs (webhooks) may connect to. Checked on
/// every address a host name resolves to and again on the address actually connected, so a name that resolves to an
/// internal address (DNS rebinding included) never reaches it. Tests inject their own.
package protocol OutboundAddressPolicy: Sendable {
    /// Why `address` is refused, or `nil` when it is allowed.
    func refusal(of address: SocketAddress) -> String?
}

/// Public unicast addresses only: not loopback, private (10/8, 172.16/12, 192.168/16, fc00::/7), link-local
/// (169.254/16, where cloud metadata services answer, fe80::/10), shared CGNAT (100.64/10), "this network" (0/8),
/// multicast, broadcast or reserved, nor any of those inside an IPv4-mapped IPv6 address. Development mode allows
/// loopback, so a merchant can receive on its own machine.
package struct PublicAddressPolicy: OutboundAddressPolicy {
    package var allowsLoopback = false

    package init(allowsLoopback: Bool = false) { self.allowsLoopback = allowsLoopback }

    package func refusal(of address: SocketAddress) -> String? {
        switch address {
        case .v4(let v4):
            return refusal(ipv4: withUnsafeBytes(of: v4.address.sin_addr) { Array($0) }, shown: address.ipAddress ?? "?")
        case .v6(let v6):
            let bytes = withUnsafeBytes(of: v6.address.sin6_addr) { Array($0) }
            let shown = address.ipAddress ?? "?"
            // ::ffff:a.b.c.d is a.b.c.d; ::a.b.c.d (deprecated IPv4-compatible) as well.
            if bytes[0..<10].allSatisfy({ $0 == 0 }), (bytes[10] == 0xff && bytes[11] == 0xff) || (bytes[10] == 0 && bytes[11] == 0 && bytes[12] != 0)
            {
                return refusal(ipv4: Array(bytes[12..<16]), shown: shown)
            }
            if bytes.dropLast().allSatisfy({ $0 == 0 }) {
                if bytes[15] == 1 { return allowsLoopback ? nil : "\(shown) is a loopback address" }
                return "\(shown) is the unspecified address"
            }
            if bytes[0] & 0xfe == 0xfc { return "\(shown) is a private (unique local) address" }
            if bytes[0] == 0xfe, bytes[1] & 0xc0 == 0x80 { return "\(shown) is a link-local address" }
            if bytes[0] == 0xff { return "\(shown) is a multicast address" }
            return nil
        case .unixDomainSocket:
            return "a Unix domain socket is not a network address"
        }
    }

    private func refusal(ipv4 bytes: [UInt8], shown: String) -> String? {
        let (a, b) = (bytes[0], bytes[1])
        if a == 127 { return allowsLoopback ? nil : "\(shown) is a loopback address" }
        if a == 0 { return "\(shown) is in 0.0.0.0/8 (this network)" }
        if a == 10 || (a == 172 && b & 0xf0 == 16) || (a == 192 && b == 168) { return "\(shown) is a private address" }
        if a == 169 && b == 254 { return "\(shown) is a link-local address (cloud metadata services answer there)" }
        if a == 100 && b & 0xc0 == 64 { return "\(shown) is a shared (CGNAT) address" }
        if a >= 224 { return "\(shown) is a multicast, reserved or broadcast address" }
        return nil
    }
}
