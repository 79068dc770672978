import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Creates files with their final permissions from the start, so a private key is never briefly
/// readable by others, and never replaces an existing file.
public enum SecureFile {
    /// Writes `text` to a new file at `url` created with `mode`.
    ///
    /// - Throws: ``SigningError/fileAccess(path:reason:)`` when the file exists already or cannot be written.
    public static func create(_ text: String, to url: URL, mode: mode_t) throws(SigningError) {
        let descriptor = open(url.path, O_WRONLY | O_CREAT | O_EXCL, mode)
        guard descriptor >= 0 else {
            throw .fileAccess(path: url.path, reason: String(cString: strerror(errno)))
        }
        defer { close(descriptor) }
        let bytes = Array(text.utf8)
        var written = 0
        while written < bytes.count {
            let result = bytes[written...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            guard result > 0 else {
                throw .fileAccess(path: url.path, reason: String(cString: strerror(errno)))
            }
            written += result
        }
    }
}
