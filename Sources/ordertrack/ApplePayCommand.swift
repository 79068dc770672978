import ApplePay
import ArgumentParser
import Foundation
import OrderModel
import X509

struct ApplePayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apple-pay", abstract: "Apple Pay payment tokens.", subcommands: [ApplePayDecryptCommand.self])
}

/// `ordertrack apple-pay decrypt`: verifies and decrypts one token; exit 1 names the check that failed.
struct ApplePayDecryptCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decrypt",
        abstract: "Verify an Apple Pay payment token (signature, chain to Apple Root CA - G3, signing time) and print the decrypted payment as JSON.",
        discussion: "Exit status 1 with the failed check (e.g. invalid_signature, signing_time_out_of_range) on a bad token.")

    @Argument(help: "Token JSON: paymentData, or the ApplePayPayment.token object around it")
    var token: String

    @Option(help: "Payment Processing certificate (PEM)")
    var certificate: String

    @Option(help: "Its private key (PEM: SEC 1 or PKCS#8 EC, PKCS#1 or PKCS#8 RSA)")
    var key: String

    @Option(help: "A root certificate (PEM) trusted next to Apple Root CA - G3; for tests and certification only (repeatable)")
    var root: [String] = []

    @Option(help: "Check the token as of this time (RFC 3339, e.g. 2021-09-01T19:03:06Z) instead of now")
    var at: String?

    @Option(help: "Largest accepted difference between the signing time and now, in seconds")
    var maxAge: Int = 300

    func run() async throws {
        let time = try at.map { text in
            guard let date = Self.rfc3339(text) else { throw usageError("--at: '\(text)' is not an RFC 3339 time") }
            return date
        }
        let identity: ApplePayPaymentIdentity
        let roots: [Certificate]
        let tokenBytes: [UInt8]
        do {
            identity = try ApplePayPaymentIdentity(certificatePEM: try read(certificate), privateKeyPEM: try read(key))
            roots = try root.map { try Certificate(pemEncoded: try read($0)) }
            tokenBytes = Array(try Data(contentsOf: URL(fileURLWithPath: token)))
        } catch {
            throw usageError("\(error)")
        }
        let decryptor = ApplePayDecryptor(
            identities: [identity], additionalTrustRoots: roots, signingTimeTolerance: TimeInterval(maxAge),
            now: { time ?? Date() })
        do {
            let decrypted = try await decryptor.decrypt(try ApplePayToken(json: tokenBytes))
            let output: JSONValue = [
                "transactionId": .string(decrypted.transactionId), "merchantIdentifier": .string(decrypted.merchantIdentifier),
                "version": .string(decrypted.version.rawValue), "signingTime": .string(decrypted.signingTime.formatted(.iso8601)),
                "paymentData": decrypted.payload.json,
            ]
            print(output.serializedString(pretty: true))
        } catch {
            reportProblems(["error: \(error)"])
            throw ExitCode.failure
        }
    }

    private func read(_ path: String) throws -> String {
        try String(contentsOf: URL(fileURLWithPath: path), encoding: .utf8)
    }

    static func rfc3339(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions.insert(.withFractionalSeconds)
        return formatter.date(from: text)
    }
}
