import Foundation

/// The files of a package source directory: order.json and every asset, hidden files left out.
public struct PackageSource: Sendable {
    /// The bytes of the top-level order.json.
    public var orderJSON: [UInt8]
    /// Every other file keyed by its path relative to the directory (`fr.lproj/order.strings`).
    public var assets: [String: [UInt8]]

    /// A source from bytes already in memory.
    public init(orderJSON: [UInt8], assets: [String: [UInt8]]) {
        self.orderJSON = orderJSON
        self.assets = assets
    }

    /// Reads `directory`. Skips hidden files and folders (`.DS_Store`, `.gitkeep`) and any stale top-level
    /// `manifest.json` or `signature`, which the builder regenerates.
    ///
    /// - Throws: ``OrderPackageError/unreadableSource(path:reason:)`` or ``OrderPackageError/missingOrderJSON(directory:)``.
    public init(directory: URL) throws(OrderPackageError) {
        let manager = FileManager.default
        let root = directory.standardizedFileURL
        guard
            let enumerator = manager.enumerator(
                at: root, includingPropertiesForKeys: [.isRegularFileKey, .isDirectoryKey], options: [.skipsHiddenFiles]
            )
        else { throw .unreadableSource(path: root.path, reason: "not a readable directory") }
        var order: [UInt8]?
        var assets: [String: [UInt8]] = [:]
        let rootComponents = root.pathComponents
        for case let url as URL in enumerator {
            let components = url.standardizedFileURL.pathComponents.dropFirst(rootComponents.count)
            let relative = components.joined(separator: "/")
            guard !components.contains(where: { PackageLayout.isIgnored(component: Substring($0)) }) else { continue }
            let values = try? url.resourceValues(forKeys: [.isRegularFileKey])
            guard values?.isRegularFile == true else { continue }
            let bytes: [UInt8]
            do {
                bytes = [UInt8](try Data(contentsOf: url))
            } catch {
                throw .unreadableSource(path: url.path, reason: error.localizedDescription)
            }
            switch relative {
            case PackageLayout.orderJSON: order = bytes
            case PackageLayout.manifest, PackageLayout.signature: continue
            default: assets[relative] = bytes
            }
        }
        guard let order else { throw .missingOrderJSON(directory: root.path) }
        self.init(orderJSON: order, assets: assets)
    }
}
