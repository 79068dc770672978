import ArgumentParser
import Foundation
import OrderSigning

/// Where a signing identity comes from: a directory, PEM files or a PKCS#12 bundle.
struct SigningOptions: ParsableArguments {
    @Option(help: "Directory with certificate.pem, key.pem and wwdr.pem (as `identity create-dev` writes)")
    var identity: String?

    @Option(help: "Order Type ID certificate (PEM; may include the chain)")
    var certificate: String?

    @Option(help: "Private key (PEM: PKCS#1, PKCS#8, SEC1 or encrypted PKCS#8)")
    var key: String?

    @Option(help: "Password of an encrypted key or of the .p12 (or set ORDERTRACK_KEY_PASSWORD, which keeps it out of the process list)")
    var keyPassword: String?

    @Option(help: "PKCS#12 bundle (.p12) with the certificate and key")
    var p12: String?

    @Option(help: "Apple WWDR intermediate certificate (PEM) to embed")
    var wwdr: String?

    var password: String? { keyPassword ?? ProcessInfo.processInfo.environment["ORDERTRACK_KEY_PASSWORD"] }

    /// Loads the identity once; a missing or contradictory choice is a usage error.
    func load() throws -> SigningIdentity {
        let chosen = [identity != nil, certificate != nil || key != nil, p12 != nil].filter { $0 }.count
        guard chosen == 1 else { throw usageError("choose exactly one of --identity DIR, --certificate FILE --key FILE, or --p12 FILE") }
        do {
            if let identity {
                return try SigningIdentity(directory: URL(fileURLWithPath: identity), password: password)
            }
            let wwdrPEM = try wwdr.map { try read($0) }
            if let p12 {
                guard let data = FileManager.default.contents(atPath: p12) else { throw usageError("cannot read \(p12)") }
                return try SigningIdentity(pkcs12: Array(data), password: password ?? "", intermediatesPEM: wwdrPEM)
            }
            guard let certificate, let key else { throw usageError("--certificate and --key go together") }
            return try SigningIdentity(
                certificatePEM: try read(certificate), privateKeyPEM: try read(key), keyPassword: password, intermediatesPEM: wwdrPEM)
        } catch let error as ExitCode {
            throw error
        } catch {
            throw usageError("cannot load the signing identity: \(error)")
        }
    }

    private func read(_ path: String) throws -> String {
        guard let data = FileManager.default.contents(atPath: path) else { throw usageError("cannot read \(path)") }
        return String(decoding: data, as: UTF8.self)
    }
}
