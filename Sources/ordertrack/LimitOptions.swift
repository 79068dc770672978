import ArgumentParser
import Foundation
import OrderTrackServer

/// The `serve` options of the abuse limits ("Limits" in docs/security.md); each can also be set as ORDERTRACK_<NAME>.
struct LimitOptions: ParsableArguments {
    @Option(help: "Devices one order may have registered; the next registration is answered 429 (0: no cap; default 50)")
    var maxRegistrationsPerOrder: Int?

    @Option(help: "Requests per second of one client address, as RATE[:BURST] (0: off; default 200:400)")
    var rateLimitPerAddress: String?

    @Option(help: "Wallet requests per second with one order's AppleOrder token, as RATE[:BURST] (0: off; default 20:100)")
    var rateLimitPerOrderToken: String?

    @Option(help: "Merchant API requests per second with one API key, as RATE[:BURST] (0: off; default 200:1000)")
    var rateLimitPerApiKey: String?

    @Option(
        help: "401 answers per second one client address may get before its credentials are refused 429, as RATE[:BURST] (0: off; default 0.1667:20)")
    var rateLimitFailedAuth: String?

    @Option(help: "Device log requests per second of one client address, as RATE[:BURST] (0: off; default 1:10)")
    var rateLimitDeviceLog: String?

    @Option(help: "Bytes of device log one client address may write to the log per second, as RATE[:BURST] (0: no budget; default 256:16384)")
    var deviceLogBytes: String?

    @Flag(help: "Turn every request rate limit off (the registration cap stays): for load tests and fuzzing from one address")
    var noRateLimits = false

    @Option(
        help:
            "Header naming the client's address when every request comes through a reverse proxy, e.g. X-Forwarded-For (its last address counts); default: the TCP peer"
    )
    var clientAddressHeader: String?

    @Option(help: "Seconds a connection may stay without a request under way, headers still arriving included (default 75)")
    var idleTimeout: Int?

    /// The limits these options (or their environment variables) set over the defaults.
    func limits(environment: [String: String]) throws -> LimitsConfiguration {
        var limits = LimitsConfiguration()
        if noRateLimits || environment["ORDERTRACK_NO_RATE_LIMITS"].map({ ["1", "true", "yes"].contains($0.lowercased()) }) == true {
            let cap = limits.maximumRegistrationsPerOrder
            limits = .unlimited
            limits.maximumRegistrationsPerOrder = cap
        }
        if let text = maxRegistrationsPerOrder.map(String.init) ?? environment["ORDERTRACK_MAX_REGISTRATIONS_PER_ORDER"] {
            guard let cap = Int(text), (0...1_000_000).contains(cap) else {
                throw usageError("--max-registrations-per-order \"\(text)\" must be a whole number from 0 to 1000000")
            }
            limits.maximumRegistrationsPerOrder = cap == 0 ? nil : cap
        }
        func rate(_ value: String?, _ name: String, _ keyPath: WritableKeyPath<LimitsConfiguration, RateLimit?>) throws {
            guard let text = value ?? environment["ORDERTRACK_\(name)"] else { return }
            limits[keyPath: keyPath] = try Self.parseRate(text, flag: "--" + name.lowercased().replacingOccurrences(of: "_", with: "-"))
        }
        try rate(rateLimitPerAddress, "RATE_LIMIT_PER_ADDRESS", \.perClientAddress)
        try rate(rateLimitPerOrderToken, "RATE_LIMIT_PER_ORDER_TOKEN", \.perOrderToken)
        try rate(rateLimitPerApiKey, "RATE_LIMIT_PER_API_KEY", \.perAPIKey)
        try rate(rateLimitFailedAuth, "RATE_LIMIT_FAILED_AUTH", \.failedAuthentication)
        try rate(rateLimitDeviceLog, "RATE_LIMIT_DEVICE_LOG", \.deviceLogRequests)
        try rate(deviceLogBytes, "DEVICE_LOG_BYTES", \.deviceLogBytes)
        if let header = clientAddressHeader ?? environment["ORDERTRACK_CLIENT_ADDRESS_HEADER"] {
            guard !header.isEmpty, header.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }) else {
                throw usageError("--client-address-header \"\(header)\" must be a header name such as X-Forwarded-For")
            }
            limits.clientAddressHeader = header
        }
        return limits
    }

    /// The idle timeout these options set, if any.
    func idle(environment: [String: String]) throws -> Duration? {
        guard let text = idleTimeout.map(String.init) ?? environment["ORDERTRACK_IDLE_TIMEOUT"] else { return nil }
        guard let seconds = Int(text), (1...3600).contains(seconds) else { throw usageError("--idle-timeout \"\(text)\" must be 1 to 3600 seconds") }
        return .seconds(seconds)
    }

    /// `RATE[:BURST]`: requests (or bytes) per second, and the bucket size (default twice the rate, at least 1); `0`
    /// turns the limit off.
    static func parseRate(_ text: String, flag: String) throws -> RateLimit? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), let rate = Double(parts[0]), rate.isFinite, rate >= 0,
            let burst = parts.count == 2 ? Double(parts[1]) : max(1, 2 * rate), burst.isFinite, burst >= 1
        else { throw usageError("\(flag) \"\(text)\" must be RATE[:BURST], like 200:400 (requests per second, bucket size), or 0 for off") }
        return rate == 0 ? nil : RateLimit(perSecond: rate, burst: burst)
    }
}
