import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOSSL
import OrderModel
import OrderPersistence
import OrderSigning

/// Merchant validation: asks Apple's gateway for a payment session over mutual TLS with the merchant's Merchant
/// Identity certificate, and relays Apple's opaque answer unchanged.
///
/// The browser supplies the validation URL, so it is an SSRF vector: only `https` URLs on Apple's gateway hosts, on
/// the default port, without user info, are ever connected to (``allowedGatewayURL(_:)``), and a redirect is never
/// followed (``GatewayHTTPClient``). Every failure is answered with the same ``failureMessage`` (audit L17): a caller
/// who could tell a refused connection from a timeout or read the gateway's error would have a port scanner; the
/// reason goes to the log.
struct MerchantValidation: Sendable {
    /// Largest session Apple's gateway may answer; real ones are about 2 KB.
    static let maximumSessionSize = 64 * 1024
    /// What the caller learns of any failure to get a session from the gateway.
    static let failureMessage = "Apple's payment gateway gave no merchant session; try again later (the server's log has the reason)"

    let configuration: ApplePayConfiguration
    let client: GatewayHTTPClient
    let logger: Logger

    /// The URL if it is one of Apple's payment gateways: `https://` + optional `cn-` + `apple-pay-gateway` + optional
    /// `-suffix` labels + `.apple.com`, default port, no user info. IP literals and other hosts never match.
    static func allowedGatewayURL(_ text: String) -> URL? {
        guard text.utf8.count <= 2048, let components = URLComponents(string: text), components.scheme == "https",
            components.user == nil, components.password == nil, components.port == nil || components.port == 443,
            let host = components.host?.lowercased(), isGatewayHost(host), let url = components.url
        else { return nil }
        return url
    }

    /// Apple's current session endpoint on the allowed gateway host: Apple retired `/paymentservices/startSession`
    /// (it answers 400), yet Apple Pay JS builds still hand it out, so whatever path the browser gave, the session is
    /// asked of `/paymentservices/paymentSession` on the same host, never another.
    static let sessionPath = "/paymentservices/paymentSession"

    /// The session endpoint on `allowed`'s host (an ``allowedGatewayURL(_:)``): its path replaced, query and fragment
    /// dropped.
    static func sessionURL(on allowed: URL) -> URL {
        var components = URLComponents(url: allowed, resolvingAgainstBaseURL: false)
        components?.path = sessionPath
        components?.query = nil
        components?.fragment = nil
        return components?.url ?? allowed
    }

    private static func isGatewayHost(_ host: String) -> Bool {
        guard host.hasSuffix(".apple.com") else { return false }
        var label = Substring(host.dropLast(".apple.com".count))
        if label.hasPrefix("cn-") { label = label.dropFirst(3) }
        guard label.hasPrefix("apple-pay-gateway") else { return false }
        let suffix = label.dropFirst("apple-pay-gateway".count)
        guard !suffix.isEmpty else { return true }
        // `-cert`, `-nc-pod5` and the like: hyphen-separated lowercase letters and digits, no dots.
        return suffix.hasPrefix("-")
            && suffix.dropFirst().split(separator: "-", omittingEmptySubsequences: false).allSatisfy { part in
                !part.isEmpty && part.utf8.allSatisfy { (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) }
            }
    }

    /// Requests a session for `domain` from the gateway host of `url` (already allowed), at its session endpoint
    /// (``sessionURL(on:)``), and returns Apple's body byte for byte.
    func requestSession(url given: URL, domain: String, identity: ApplePayMerchantIdentityRecord, signing: SigningIdentity) async throws
        -> [UInt8]
    {
        let url = Self.sessionURL(on: given)
        var target = url
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.minimumTLSVersion = .tlsv12
        do {
            tls.certificateChain = try ([signing.certificate] + signing.intermediates).map {
                .certificate(try NIOSSLCertificate(bytes: Array($0.serializeAsPEM().pemString.utf8), format: .pem))
            }
            tls.privateKey = .privateKey(try NIOSSLPrivateKey(bytes: Array(signing.privateKey.serializeAsPEM().pemString.utf8), format: .pem))
            if let test = configuration.testGateway {
                var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
                components?.scheme = test.origin.scheme
                components?.host = test.origin.host
                components?.port = test.origin.port
                target = components?.url ?? url
                tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMBytes(Array(test.trustRootPEM.utf8)))
            }
        } catch {
            throw OrderTrackError(.applePayNotConfigured, "the Merchant Identity certificate cannot be used for TLS: \(error)")
        }
        let body: JSONValue = [
            "merchantIdentifier": .string(identity.merchantIdentifier), "displayName": .string(identity.displayName),
            "initiative": "web", "initiativeContext": .string(domain),
        ]
        var request = HTTPClientRequest(url: target.absoluteString)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(bytes: body.serialized()))
        request.tlsConfiguration = tls
        let response: HTTPClientResponse
        let bytes: ByteBuffer
        do {
            response = try await client.execute(request, timeout: .init(configuration.gatewayTimeout))
            bytes = try await response.body.collect(upTo: Self.maximumSessionSize)
        } catch {
            throw failure(url, "no answer", ["error": .string("\(error)")])
        }
        guard response.status == .ok else {
            var details: Logger.Metadata = [
                "status": .stringConvertible(response.status.code),
                "body": .string(String(decoding: bytes.readableBytesView.prefix(300), as: UTF8.self).debugDescription),
            ]
            if let location = response.headers.first(name: "Location") {
                details["location"] = .string(location.debugDescription)
            }
            throw failure(url, response.status.code / 100 == 3 ? "a redirect, not followed" : "an error", details)
        }
        return Array(bytes.readableBytesView)
    }

    /// Logs why the gateway at `url` gave no session and returns the one error every such failure is answered with.
    private func failure(_ url: URL, _ what: String, _ details: Logger.Metadata) -> OrderTrackError {
        logger.warning(
            "merchant validation failed: Apple's payment gateway gave \(what)",
            metadata: details.merging(["gateway": .string(url.absoluteString)]) { own, _ in own })
        return OrderTrackError(.applePayGatewayFailed, Self.failureMessage)
    }
}
