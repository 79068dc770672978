import Foundation
import OrderZip

/// One static file of a package, hashed and compressed once and reused by every build.
public struct PreparedAsset: Sendable {
    /// Path relative to the package root, e.g. `logo@2x.png` or `fr.lproj/order.strings`.
    public let path: String
    /// SHA-256 of `bytes`, 64 lowercase hex digits, as the manifest lists it.
    public let sha256Hex: String
    /// The file's content.
    public let bytes: [UInt8]
    let entry: ZipEntry
}

/// The files of a package besides order.json, manifest.json and signature, ready to be copied into many packages.
public struct AssetSet: Sendable {
    /// Sorted by path.
    public let assets: [PreparedAsset]
    /// Path to bytes, as the validator wants them.
    let contents: [String: [UInt8]]

    /// No assets: a package of order.json alone.
    public static let empty = AssetSet(assets: [])

    private init(assets: [PreparedAsset]) {
        self.assets = assets
        self.contents = Dictionary(uniqueKeysWithValues: assets.map { ($0.path, $0.bytes) })
    }

    /// Hashes and compresses every file; `cache` shares the work across sets with the same contents.
    ///
    /// PNG, JPEG and PDF files are stored as they are, others deflated (see ``PackageLayout/method(forPath:)``).
    ///
    /// - Parameters:
    ///   - files: Bytes by path relative to the package root, e.g. `logo.png` or `fr.lproj/order.strings`.
    ///   - cache: Compressed contents shared with other sets; by default a new cache that no other set uses.
    /// - Throws: ``OrderPackageError/reservedAssetName(_:)`` for `order.json`, `manifest.json` or `signature`,
    ///   ``OrderPackageError/invalidAssetPath(_:)`` for a path that is not a safe relative file path.
    public init(files: [String: [UInt8]], cache: AssetCache = AssetCache()) throws(OrderPackageError) {
        var prepared: [PreparedAsset] = []
        prepared.reserveCapacity(files.count)
        for (path, bytes) in files.sorted(by: { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }) {
            guard !PackageLayout.reservedNames.contains(path) else { throw .reservedAssetName(path) }
            let digest = ManifestDigest.sha256Hex(bytes)
            let entry: ZipEntry
            do {
                entry = try cache.entry(path: path, bytes: bytes, sha256Hex: digest)
            } catch {
                throw error == .invalidName(path) ? .invalidAssetPath(path) : .archiveFailed(error)
            }
            prepared.append(PreparedAsset(path: path, sha256Hex: digest, bytes: bytes, entry: entry))
        }
        self.init(assets: prepared)
    }
}
