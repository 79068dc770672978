/// The files of an order package other than `manifest.json` and `signature`, keyed by path relative to the package root.
public struct PackageContents: Sendable {
    public var files: [String: [UInt8]]

    public init(files: [String: [UInt8]]) {
        self.files = files
    }
}

/// Validates order.json against the full Wallet Orders schema. API placeholder: the rules land with the model.
public enum OrderValidator {
    /// Validates raw order.json bytes; when `package` is given, also checks referenced files, localizations and size.
    public static func validate(orderJSON: some Collection<UInt8>, package: PackageContents? = nil) -> ValidationReport {
        ValidationReport()
    }
}
