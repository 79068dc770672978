import Foundation

/// The data directory: database, keys and credentials, readable by the server's user only.
enum DataDirectory {
    /// Creates the directory with mode 0700, or narrows an existing one to 0700 (older versions created it with the
    /// umask's mode, usually 0755).
    static func prepare(_ url: URL) throws {
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let current = try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? Int
        if current.map({ $0 & 0o077 != 0 }) ?? true {
            try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: url.path)
        }
    }
}
