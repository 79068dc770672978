import Foundation

/// Keys and certificates made by the openssl command line in a directory of their own: the one way the test PKIs
/// issue certificates, so that what our code reads comes from an independent implementation.
///
/// Files are named by role: `NAME.key` (PEM private key), `NAME.pem` (certificate), `NAME.csr`. Extensions come from
/// a file in the directory (``write(_:to:)``), as a whole or as one section of it.
public struct OpenSSLCertificates: Sendable {
    public enum KeyType: Sendable {
        /// P-256.
        case ec
        /// RSA 2048.
        case rsa
    }

    /// Extensions for a certificate: a file in the directory, or one section of it.
    public struct Extensions: Sendable {
        var file: String
        var section: String?

        public static func file(_ file: String, section: String? = nil) -> Extensions { Extensions(file: file, section: section) }
    }

    public let directory: URL

    /// A new, empty directory whose name starts with `prefix`.
    public init(_ prefix: String) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    /// The path of `name` in the directory.
    public func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    /// The text of `name` in the directory.
    public func text(_ name: String) throws -> String { try String(contentsOfFile: path(name), encoding: .utf8) }

    /// The bytes of `name` in the directory.
    public func bytes(_ name: String) throws -> [UInt8] { Array(try Data(contentsOf: directory.appendingPathComponent(name))) }

    /// Writes `text` to `name` in the directory (an extensions file, a configuration).
    public func write(_ text: String, to name: String) throws {
        try text.write(toFile: path(name), atomically: true, encoding: .utf8)
    }

    /// Runs openssl in the directory; its output. Throws when it fails.
    @discardableResult
    public func openssl(_ arguments: [String]) throws -> String {
        try ExternalTools.requireOpenSSL(arguments, in: directory)
    }

    /// Makes `NAME.key`.
    public func key(_ name: String, _ type: KeyType) throws {
        switch type {
        case .ec: try openssl(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", "\(name).key"])
        case .rsa: try openssl(["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", "\(name).key"])
        }
    }

    /// Makes `NAME.pem`, self-signed by `NAME.key` (made first as `keyType` unless `keyType` is `nil`), valid for
    /// `days` from now.
    public func selfSigned(_ name: String, subject: String, key keyType: KeyType? = nil, days: Int = 2, extensions: Extensions? = nil) throws {
        if let keyType { try key(name, keyType) }
        var arguments = ["req", "-x509", "-new", "-key", "\(name).key", "-subj", subject, "-days", String(days), "-sha256", "-out", "\(name).pem"]
        if let extensions {
            arguments += ["-config", extensions.file] + (extensions.section.map { ["-extensions", $0] } ?? [])
        }
        try openssl(arguments)
    }

    /// Makes `NAME.pem` for `NAME.key` (made first as `keyType` unless `keyType` is `nil`), issued by `ISSUER.pem`
    /// and `ISSUER.key`, valid for `days` from now, with a random serial number.
    public func issue(
        _ name: String, subject: String, key keyType: KeyType? = nil, by issuer: String, days: Int = 2, extensions: Extensions? = nil
    ) throws {
        if let keyType { try key(name, keyType) }
        try openssl(["req", "-new", "-key", "\(name).key", "-subj", subject, "-out", "\(name).csr"])
        var arguments = [
            "x509", "-req", "-in", "\(name).csr", "-CA", "\(issuer).pem", "-CAkey", "\(issuer).key",
            "-set_serial", String(UInt32.random(in: 1...UInt32.max)), "-days", String(days), "-sha256", "-out", "\(name).pem",
        ]
        if let extensions {
            arguments += ["-extfile", extensions.file] + (extensions.section.map { ["-extensions", $0] } ?? [])
        }
        try openssl(arguments)
    }

    /// Deletes the directory.
    public func remove() {
        try? FileManager.default.removeItem(at: directory)
    }
}
