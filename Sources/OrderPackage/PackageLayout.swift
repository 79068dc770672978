import OrderZip

/// Names and storage rules of an order package.
public enum PackageLayout {
    public static let orderJSON = "order.json"
    public static let manifest = "manifest.json"
    public static let signature = "signature"

    /// Names the builder writes itself; assets may not use them.
    static let reservedNames: Set<String> = [orderJSON, manifest, signature]

    /// Already-compressed formats are stored; deflating them only costs time.
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
