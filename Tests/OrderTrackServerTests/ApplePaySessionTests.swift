import AsyncHTTPClient
import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import Logging
import NIOCore
import NIOSSL
import OrderModel
import ServerTestSupport
import Synchronization
import TestSupport
import Testing

@testable import OrderTrackServer

/// A stand-in for Apple's payment gateway: HTTPS that requires a client certificate issued by the merchant
/// identity CA (mutual TLS, as Apple does), records each session request and answers a fixed opaque session.
struct MockApplePayGateway {
    /// Certificates made by `openssl`: the gateway's CA and server certificate, the CA that issues merchant identity
    /// certificates, and one such certificate (RSA 2048, as Apple requires) as PKCS#12.
    struct PKI {
        let files: OpenSSLCertificates
        let gatewayRootPEM: String
        let merchantIdentityPKCS12: [UInt8]
        static let password = "merchant-identity-password"

        init() throws {
            let files = try OpenSSLCertificates("apple-pay-gateway")
            self.files = files
            try files.selfSigned("gateway-ca", subject: "/CN=Test Gateway CA", key: .rsa)
            try files.selfSigned("client-ca", subject: "/CN=Test Merchant Identity CA", key: .rsa)
            try files.write("subjectAltName=DNS:localhost,IP:127.0.0.1\n", to: "server.ext")
            try files.issue("server", subject: "/CN=localhost", key: .rsa, by: "gateway-ca", extensions: .file("server.ext"))
            try files.issue("client", subject: "/UID=merchant.test.ordertrack/CN=Merchant ID: merchant.test.ordertrack", key: .rsa, by: "client-ca")
            try files.openssl([
                "pkcs12", "-export", "-in", "client.pem", "-inkey", "client.key", "-out", "client.p12", "-passout", "pass:\(Self.password)",
            ])
            gatewayRootPEM = try files.text("gateway-ca.pem")
            merchantIdentityPKCS12 = try files.bytes("client.p12")
        }

        func remove() { files.remove() }

        func file(_ name: String) -> String { files.path(name) }
    }

    /// What the gateway answers and what it received.
    final class State: Sendable {
        struct Answer: Sendable {
            var status: HTTPResponse.Status
            var body: [UInt8]
            /// Sent as `Location`: the gateway redirects (audit L17).
            var location: String? = nil
        }

        private let answer: Mutex<Answer>
        private let received = Mutex<[(path: String, body: [UInt8])]>([])

        init(answer: Answer) { self.answer = Mutex(answer) }

        func answer(with new: Answer) { answer.withLock { $0 = new } }
        var current: Answer { answer.withLock { $0 } }
        func record(path: String, body: [UInt8]) { received.withLock { $0.append((path, body)) } }
        var requests: [(path: String, body: [UInt8])] { received.withLock { $0 } }
    }

    /// An opaque session with the shapes Apple's has (and bytes a re-encoding would change: spacing, escapes).
    static let session = Array(
        #"{"epochTimestamp":1700000000000, "expiresAt":1700000300000,"merchantSessionIdentifier":"SSH6C1B0F\u00e9","nonce":"a1b2c3","signature":"308006092a864886f70d01"}"#
            .utf8)

    let state = State(answer: .init(status: .ok, body: Self.session))

    /// Serves on a free loopback port until `body` returns.
    func run<Value: Sendable>(_ pki: PKI, _ body: @Sendable (_ origin: URL) async throws -> Value) async throws -> Value {
        var tls = TLSConfiguration.makeServerConfiguration(
            certificateChain: try NIOSSLCertificate.fromPEMFile(pki.file("server.pem")).map { .certificate($0) },
            privateKey: .privateKey(try NIOSSLPrivateKey(file: pki.file("server.key"), format: .pem)))
        tls.certificateVerification = .noHostnameVerification
        tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(pki.file("client-ca.pem")))
        let router = Router()
        let state = self.state
        router.post("**") { request, context -> Response in
            var request = request
            let bytes = try await request.collectBody(upTo: 64 * 1024)
            state.record(path: request.uri.path, body: Array(bytes.readableBytesView))
            let answer = state.current
            var headers: HTTPFields = [.contentType: "application/json"]
            headers[.location] = answer.location
            return Response(status: answer.status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: answer.body)))
        }
        return try await Loopback.serve(router, server: try .tls(.http1(), tlsConfiguration: tls)) { port in
            try await body(URL(string: "https://localhost:\(port)")!)
        }
    }
}

/// Servers on a free loopback port for the duration of a test.
enum Loopback {
    /// Serves `router` with `server` until `body`, which gets the bound port, returns.
    static func serve<Value: Sendable>(
        _ router: Router<BasicRequestContext>, server: HTTPServerBuilder, _ body: @Sendable (_ port: Int) async throws -> Value
    ) async throws -> Value {
        let port = AsyncStream<Int>.makeStream()
        let application = Application(
            router: router, server: server, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in port.continuation.yield(channel.localAddress?.port ?? 0) })
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await application.runService() }
            var ports = port.stream.makeAsyncIterator()
            let bound = try #require(await ports.next())
            defer { group.cancelAll() }
            return try await body(bound)
        }
    }

    /// A plain-HTTP service only the server's own network should reach: answers every GET and POST with a marker and
    /// records what it received.
    final class InternalService: Sendable {
        static let marker = "INTERNAL-ONLY-7f3c9a"
        private let received = Mutex<[String]>([])

        var requests: [String] { received.withLock { $0 } }

        func run<Value: Sendable>(_ body: @Sendable (_ port: Int) async throws -> Value) async throws -> Value {
            let router = Router()
            let handler: @Sendable (Request, BasicRequestContext) async throws -> Response = { request, _ in
                self.received.withLock { $0.append("\(request.method) \(request.uri.path)") }
                return Response(
                    status: .ok, headers: [.contentType: "application/json"],
                    body: ResponseBody(byteBuffer: ByteBuffer(string: #"{"internal":"\#(Self.marker)"}"#)))
            }
            router.get("**", use: handler)
            router.post("**", use: handler)
            return try await Loopback.serve(router, server: .http1(), body)
        }
    }
}

/// Merchant validation: the strict gateway allow-list, the Merchant Identity configuration, and the session relay
/// over mutual TLS against ``MockApplePayGateway``.
@Suite struct ApplePaySessionTests {
    static let validationURL = "https://apple-pay-gateway-cert.apple.com/paymentservices/startSession"

    @Test func onlyApplesGatewaysAreAllowed() {
        for allowed in [
            "https://apple-pay-gateway.apple.com/paymentservices/startSession", Self.validationURL,
            "https://cn-apple-pay-gateway.apple.com/paymentservices/paymentSession",
            "https://apple-pay-gateway-nc-pod5.apple.com/paymentservices/startSession",
            "https://APPLE-PAY-GATEWAY.apple.com:443/paymentservices/startSession",
        ] {
            #expect(MerchantValidation.allowedGatewayURL(allowed) != nil, "\(allowed)")
        }
        for refused in [
            "http://apple-pay-gateway.apple.com/paymentservices/startSession",
            "https://apple-pay-gateway.apple.com:8443/paymentservices/startSession",
            "https://apple-pay-gateway.apple.com.evil.example/paymentservices/startSession",
            "https://evil-apple-pay-gateway.apple.com/x", "https://apple-pay-gatewayx.apple.com/x", "https://apple-pay-gateway-.apple.com/x",
            "https://apple-pay-gateway.evil.apple.com/x", "https://user:pw@apple-pay-gateway.apple.com/x", "https://17.171.78.1/x",
            "https://[::1]/paymentservices/startSession", "https://localhost/x", "https://apple.com/x", "apple-pay-gateway.apple.com",
            "", "https://apple-pay-gateway.apple.com\u{0}.evil/x", "file:///etc/passwd",
        ] {
            #expect(MerchantValidation.allowedGatewayURL(refused) == nil, "\(refused)")
        }
    }

    /// Apple retired startSession: every allowed URL is asked at paymentSession on its own host, whatever its path,
    /// query or fragment; the host never changes.
    @Test func sessionsGoToPaymentSessionOnTheSameHost() throws {
        for (given, expected) in [
            (
                "https://apple-pay-gateway.apple.com/paymentservices/startSession",
                "https://apple-pay-gateway.apple.com/paymentservices/paymentSession"
            ),
            (
                "https://cn-apple-pay-gateway.apple.com/paymentservices/paymentSession",
                "https://cn-apple-pay-gateway.apple.com/paymentservices/paymentSession"
            ),
            (
                "https://apple-pay-gateway-nc-pod5.apple.com/other/path?x=1#y",
                "https://apple-pay-gateway-nc-pod5.apple.com/paymentservices/paymentSession"
            ),
        ] {
            let allowed = try #require(MerchantValidation.allowedGatewayURL(given))
            #expect(MerchantValidation.sessionURL(on: allowed).absoluteString == expected)
        }
    }

    @Test func sessionsAreRelayedByteForByteOverMutualTLS() async throws {
        let pki = try MockApplePayGateway.PKI()
        defer { pki.remove() }
        let gateway = MockApplePayGateway()
        try await gateway.run(pki) { origin in
            var server = try TestServer()
            server.applePay.testGateway = .init(origin: origin, trustRootPEM: pki.gatewayRootPEM)
            defer { server.remove() }
            try await server.run { client in
                let request: JSONValue = ["validationURL": .string(Self.validationURL), "domain": "shop.example.com"]
                let unconfigured = try await client.merchant(.post, "/api/v1/apple_pay/sessions", json: request)
                #expect(unconfigured.status == .conflict && unconfigured.json["error"]?["code"] == "apple_pay_not_configured")

                let identity: JSONValue = [
                    "pkcs12": .string(Data(pki.merchantIdentityPKCS12).base64EncodedString()),
                    "password": .string(MockApplePayGateway.PKI.password), "merchantIdentifier": "merchant.test.ordertrack",
                    "displayName": "Demo Shop", "domains": ["Shop.Example.com", "checkout.example.com"],
                ]
                let configured = try await client.merchant(.put, "/api/v1/apple_pay/merchant-identity", json: identity)
                #expect(configured.status == .ok, "\(configured.text)")
                #expect(configured.json["domains"] == ["shop.example.com", "checkout.example.com"])
                #expect(try await client.merchant(.get, "/api/v1/apple_pay/merchant-identity").json == configured.json)
                var wrongPassword = identity
                wrongPassword["password"] = "nope"
                let refused = try await client.merchant(.put, "/api/v1/apple_pay/merchant-identity", json: wrongPassword)
                #expect(refused.status == .unprocessableContent && refused.json["error"]?["param"] == "pkcs12")
                var longName = identity
                longName["displayName"] = .string(String(repeating: "é", count: 33))
                let tooLong = try await client.merchant(.put, "/api/v1/apple_pay/merchant-identity", json: longName)
                #expect(tooLong.status == .unprocessableContent && tooLong.json["error"]?["param"] == "displayName")

                let session = try await client.merchant(.post, "/api/v1/apple_pay/sessions", json: request)
                #expect(session.status == .ok, "\(session.text)")
                #expect(session.body == MockApplePayGateway.session, "Apple's session is relayed unchanged")
                #expect(session.headers[.cacheControl] == "no-store")
                let sent = try #require(gateway.state.requests.last)
                // Apple retired startSession: the session goes to paymentSession on the same host, whatever the path given.
                #expect(sent.path == "/paymentservices/paymentSession")
                #expect(
                    try JSONValue.parse(sent.body)
                        == [
                            "merchantIdentifier": "merchant.test.ordertrack", "displayName": "Demo Shop", "initiative": "web",
                            "initiativeContext": "shop.example.com",
                        ])

                let count = gateway.state.requests.count
                for url in [
                    "https://127.0.0.1/paymentservices/startSession", "https://apple-pay-gateway.apple.com.evil.example/x",
                    "http://apple-pay-gateway.apple.com/x",
                ] {
                    let ssrf = try await client.merchant(
                        .post, "/api/v1/apple_pay/sessions", json: ["validationURL": .string(url), "domain": "shop.example.com"])
                    #expect(ssrf.status == .badRequest && ssrf.json["error"]?["code"] == "validation_url_not_allowed", "\(url)")
                }
                let otherDomain = try await client.merchant(
                    .post, "/api/v1/apple_pay/sessions", json: ["validationURL": .string(Self.validationURL), "domain": "evil.example"])
                #expect(otherDomain.status == .badRequest && otherDomain.json["error"]?["code"] == "domain_not_registered")
                #expect(gateway.state.requests.count == count, "refused requests connect to nothing")

                gateway.state.answer(with: .init(status: .internalServerError, body: Array(#"{"statusMessage":"Payment Services Exception"}"#.utf8)))
                let failed = try await client.merchant(.post, "/api/v1/apple_pay/sessions", json: request)
                #expect(failed.status == .badGateway && failed.json["error"]?["code"] == "apple_pay_gateway_failed")
                #expect(failed.json["error"]?["message"]?.stringValue == Self.gatewayFailure, "the gateway's error is only logged")
            }

            // The gateway refuses a client without the merchant's certificate: the TLS handshake fails.
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMBytes(Array(pki.gatewayRootPEM.utf8)))
            var anonymous = HTTPClientRequest(url: origin.absoluteString + "/paymentservices/startSession")
            anonymous.method = .POST
            anonymous.tlsConfiguration = tls
            await #expect(throws: (any Error).self) {
                let response = try await HTTPClient.shared.execute(anonymous, timeout: .seconds(10))
                _ = try await response.body.collect(upTo: 1024)
            }
        }
    }

    @Test func anUnreachableGatewayIsABadGateway() async throws {
        let pki = try MockApplePayGateway.PKI()
        defer { pki.remove() }
        var server = try TestServer()
        // Nothing listens on port 9 of loopback.
        server.applePay.testGateway = .init(origin: URL(string: "https://localhost:9")!, trustRootPEM: pki.gatewayRootPEM)
        server.applePay.gatewayTimeout = .seconds(2)
        let log = RecordingLogHandler.Entries()
        defer { server.remove() }
        try await server.run(logger: Logger(label: "apple-pay", factory: { _ in RecordingLogHandler(entries: log) })) { client in
            let identity: JSONValue = [
                "pkcs12": .string(Data(pki.merchantIdentityPKCS12).base64EncodedString()), "password": .string(MockApplePayGateway.PKI.password),
                "merchantIdentifier": "merchant.test.ordertrack", "displayName": "Demo Shop", "domains": ["shop.example.com"],
            ]
            #expect(try await client.merchant(.put, "/api/v1/apple_pay/merchant-identity", json: identity).status == .ok)
            let failed = try await client.merchant(
                .post, "/api/v1/apple_pay/sessions", json: ["validationURL": .string(Self.validationURL), "domain": "shop.example.com"])
            #expect(failed.status == .badGateway && failed.json["error"]?["code"] == "apple_pay_gateway_failed", "\(failed.text)")
            #expect(failed.json["error"]?["message"]?.stringValue == Self.gatewayFailure, "a closed port is answered like any failure")
        }
        #expect(log.messages(atLeast: .warning).contains { $0.contains("--apple-pay-gateway-test-url") }, "a test gateway is warned about at start")
    }

    /// What the caller gets for every gateway failure (audit L17): one answer, the details only in the log.
    static let gatewayFailure = "Apple's payment gateway gave no merchant session; try again later (the server's log has the reason)"

    @Test func l17_aGatewayRedirectIsNeverFollowedAndEveryFailureLooksTheSame() async throws {
        let pki = try MockApplePayGateway.PKI()
        defer { pki.remove() }
        let gateway = MockApplePayGateway()
        let internalService = Loopback.InternalService()
        let log = RecordingLogHandler.Entries()
        try await internalService.run { internalPort in
            try await gateway.run(pki) { origin in
                var server = try TestServer()
                server.applePay.testGateway = .init(origin: origin, trustRootPEM: pki.gatewayRootPEM)
                defer { server.remove() }
                try await server.run(logger: Logger(label: "l17", factory: { _ in RecordingLogHandler(entries: log) })) { client in
                    let identity: JSONValue = [
                        "pkcs12": .string(Data(pki.merchantIdentityPKCS12).base64EncodedString()),
                        "password": .string(MockApplePayGateway.PKI.password), "merchantIdentifier": "merchant.test.ordertrack",
                        "displayName": "Demo Shop", "domains": ["shop.example.com"],
                    ]
                    #expect(try await client.merchant(.put, "/api/v1/apple_pay/merchant-identity", json: identity).status == .ok)
                    func session(_ answer: MockApplePayGateway.State.Answer) async throws -> Client.Reply {
                        gateway.state.answer(with: answer)
                        return try await client.merchant(
                            .post, "/api/v1/apple_pay/sessions", json: ["validationURL": .string(Self.validationURL), "domain": "shop.example.com"])
                    }
                    let internalURL = "http://127.0.0.1:\(internalPort)/internal"
                    // Rows 196-198: redirects to an internal service (POST kept by 307, GET after 302), to a closed port, and
                    // to another path of the gateway itself; then an error with a body (row 199).
                    let replies: [(String, Client.Reply)] = [
                        ("307 to an open port", try await session(.init(status: .temporaryRedirect, body: [], location: internalURL + "/307"))),
                        ("302 to an open port", try await session(.init(status: .found, body: [], location: internalURL + "/302"))),
                        (
                            "307 to a closed port",
                            try await session(.init(status: .temporaryRedirect, body: [], location: "http://127.0.0.1:9/closed"))
                        ),
                        (
                            "308 within the gateway",
                            try await session(.init(status: .permanentRedirect, body: [], location: origin.absoluteString + "/moved"))
                        ),
                        (
                            "500 with a body",
                            try await session(
                                .init(status: .internalServerError, body: Array(#"{"statusMessage":"Payment Services Exception"}"#.utf8)))
                        ),
                    ]
                    #expect(internalService.requests.isEmpty, "a redirect reaches nothing: \(internalService.requests)")
                    #expect(gateway.state.requests.map(\.path) == Array(repeating: "/paymentservices/paymentSession", count: replies.count))
                    for (name, reply) in replies {
                        #expect(reply.status == .badGateway, "\(name): \(reply.status)")
                        #expect(reply.json["error"]?["code"] == "apple_pay_gateway_failed", "\(name): \(reply.text)")
                        #expect(reply.json["error"]?["message"]?.stringValue == Self.gatewayFailure, "\(name): \(reply.text)")
                        #expect(reply.body == replies[0].1.body, "\(name) is answered like the others")
                        #expect(!reply.text.contains(Loopback.InternalService.marker))
                    }
                }
            }
        }
        let warnings = log.messages(atLeast: .warning)
        #expect(warnings.contains { $0.contains("307") && $0.contains("/internal/307") }, "the log names the redirect: \(warnings)")
        #expect(warnings.contains { $0.contains("Payment Services Exception") }, "and Apple's error")
    }
}
