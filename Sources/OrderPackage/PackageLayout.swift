import OrderZip

/// Names and storage rules of an order package.
public enum PackageLayout {
    /// The order document at the package root.
    public static let orderJSON = "order.json"
    /// The SHA-256 digest of every other file, as a JSON object.
    public static let manifest = "manifest.json"
    /// The detached CMS signature over manifest.json, DER.
    public static let signature = "signature"

    /// Names the builder writes itself; assets may not use them.
    static let reservedNames: Set<String> = [orderJSON, manifest, signature]

    /// How a file at `path` goes into the zip: PNG, JPEG and PDF are stored, since deflating already-compressed data
    /// only costs time; everything else is deflated.
    public static func method(forPath path: String) -> ZipMethod {
        guard let dot = path.lastIndex(of: ".") else { return .deflated }
        switch path[path.index(after: dot)...].lowercased() {
        case "png", "jpg", "jpeg", "pdf": return .stored
        default: return .deflated
        }
    }

    /// Files that are not part of a package: `.DS_Store`, `.gitkeep` and any other hidden file or folder.
    static func isIgnored(component: Substring) -> Bool {
        component.hasPrefix(".")
    }
}
