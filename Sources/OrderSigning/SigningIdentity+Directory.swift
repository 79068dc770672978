import Foundation

extension SigningIdentity {
    /// Loads an identity from a directory holding either
    /// - `certificate.pem` and `key.pem`, plus `wwdr.pem` for the intermediate if present (the layout
    ///   `DevelopmentIdentity.create` writes), or
    /// - exactly one `.p12`/`.pfx` file, plus `wwdr.pem` if present.
    ///
    /// - Parameters:
    ///   - directory: The directory to read; only the file names above are looked at.
    ///   - password: The key or PKCS#12 password; a PKCS#12 file without one is tried with "".
    /// - Throws: ``SigningError/fileAccess(path:reason:)`` when the files are missing or unreadable, or the error of
    ///   loading them.
    public init(directory: URL, password: String? = nil) throws(SigningError) {
        let certificateURL = directory.appendingPathComponent("certificate.pem")
        let keyURL = directory.appendingPathComponent("key.pem")
        let wwdrURL = directory.appendingPathComponent("wwdr.pem")
        let manager = FileManager.default
        let intermediates = manager.fileExists(atPath: wwdrURL.path) ? try Self.readText(wwdrURL) : nil

        if manager.fileExists(atPath: certificateURL.path) || manager.fileExists(atPath: keyURL.path) {
            try self.init(
                certificatePEM: try Self.readText(certificateURL), privateKeyPEM: try Self.readText(keyURL),
                keyPassword: password, intermediatesPEM: intermediates)
            return
        }
        let entries: [String]
        do {
            entries = try manager.contentsOfDirectory(atPath: directory.path)
        } catch {
            throw .fileAccess(path: directory.path, reason: "cannot list the directory (\(error.localizedDescription))")
        }
        let containers = entries.filter { ["p12", "pfx"].contains(($0 as NSString).pathExtension.lowercased()) }.sorted()
        guard containers.count == 1 else {
            throw .fileAccess(
                path: directory.path,
                reason: containers.isEmpty
                    ? "expected certificate.pem and key.pem (optionally wwdr.pem), or one .p12 file"
                    : "found several PKCS#12 files (\(containers.joined(separator: ", "))); keep exactly one")
        }
        let url = directory.appendingPathComponent(containers[0])
        let bytes: Data
        do {
            bytes = try Data(contentsOf: url)
        } catch {
            throw .fileAccess(path: url.path, reason: error.localizedDescription)
        }
        try self.init(pkcs12: Array(bytes), password: password ?? "", intermediatesPEM: intermediates)
    }

    private static func readText(_ url: URL) throws(SigningError) -> String {
        do {
            return try String(contentsOf: url, encoding: .utf8)
        } catch {
            throw .fileAccess(path: url.path, reason: "cannot read it as UTF-8 text (\(error.localizedDescription))")
        }
    }
}
