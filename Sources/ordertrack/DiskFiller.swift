import Foundation

/// The soak's full disk: a file that takes every free byte of a file system until it is released, so that the server's
/// next write fails with `ENOSPC` as on a real full disk.
struct DiskFiller {
    /// The most free space the soak fills: beyond it, the file system is not one of its own.
    static let largestFilled = 4 << 30

    private let file: URL

    /// The bytes an unprivileged writer may still use on `path`'s file system, or `nil` when it cannot be read.
    static func availableBytes(at path: String) -> Int? {
        var stats = statvfs()
        guard statvfs(path, &stats) == 0 else { return nil }
        return Int(stats.f_bavail) * Int(stats.f_frsize)
    }

    /// Writes a file beside `directory` until the file system refuses more.
    static func fill(_ directory: URL) throws -> DiskFiller {
        let file = directory.deletingLastPathComponent().appendingPathComponent("disk-filler-\(UUID().uuidString)")
        let descriptor = open(file.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        guard descriptor >= 0 else { throw usageError("could not create \(file.path): errno \(errno)") }
        defer { close(descriptor) }
        let chunk = [UInt8](repeating: 0, count: 1 << 20)
        var remaining = (availableBytes(at: directory.path) ?? 0) + chunk.count
        // Whole chunks, then smaller ones, until a write fails: the last free blocks go too.
        var size = chunk.count
        while size > 0 {
            let written = chunk.withUnsafeBytes { write(descriptor, $0.baseAddress, size) }
            if written < size {
                size /= 2
                continue
            }
            remaining -= written
            guard remaining > -(64 << 20) else { break } // a file system that never fills (not the one asked for)
        }
        return DiskFiller(file: file)
    }

    /// Frees the space again.
    func release() {
        try? FileManager.default.removeItem(at: file)
    }
}
