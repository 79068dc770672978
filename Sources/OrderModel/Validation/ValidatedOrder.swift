/// An order.json walked along the schema once, waiting for the files beside it: what a server knows after the walk,
/// before it reads the assets the document names (``OrderValidator/check(document:options:)``).
public struct SchemaCheckedOrder: Sendable {
    /// The document as walked.
    public let document: JSONValue
    /// The walk's state: its problems, and the file references and localizable strings the package rules check.
    private let walker: SchemaWalker

    init(document: JSONValue, walker: SchemaWalker) {
        self.document = document
        self.walker = walker
    }

    /// The names of the files the document references (merchant logo, line-item images, labels, receipts).
    public var referencedFiles: Set<String> { Set(walker.fileReferences.map(\.name)) }

    /// Every problem: the walk's and, with `package`, those of the files beside order.json.
    public func report(package: PackageContents?) -> ValidationReport {
        var walker = walker
        if let package { PackageRules.check(package, references: walker.fileReferences, walker: &walker) }
        return ValidationReport(problems: walker.problems)
    }

    /// The order normalized (``OrderNormalizer/normalize(order:)``) and serialized once, checked with the files of
    /// `package` and its own bytes as order.json, so the size rule counts exactly what a package of it holds.
    ///
    /// - Throws: ``OrderDecodingError`` with every problem, warnings included, when the order or its package is
    ///   invalid.
    public func validated(package: PackageContents) throws(OrderDecodingError) -> ValidatedOrder {
        guard !walker.problems.contains(where: { $0.severity == .error }) else { throw OrderDecodingError(report: report(package: package)) }
        let normalized = OrderNormalizer.normalize(order: document)
        let bytes = normalized.serialized()
        var files = package.files
        files["order.json"] = bytes
        let report = report(package: PackageContents(files: files))
        guard report.isValid else { throw OrderDecodingError(report: report) }
        return ValidatedOrder(json: normalized, bytes: bytes, assets: package.files, warnings: report.warnings)
    }
}

/// An order that passed validation with the files it references: the normalized tree, its order.json bytes, those
/// files and the warnings. Made once per change and handed on, as a parsed certificate is: the store keeps
/// ``bytes``, answers read ``json``, and the package builder signs exactly this, without parsing or validating again.
///
/// A valid document always decodes to the typed ``Order`` (the `OrderValidation` fuzz target holds the validator to
/// it), so no typed decode stands in the way here.
public struct ValidatedOrder: Sendable {
    /// order.json normalized: amounts in their currency's minor units, numbers written as strings read as numbers.
    public let json: JSONValue
    /// ``json`` serialized (keys sorted, compact): the order.json that is stored and signed.
    public let bytes: [UInt8]
    /// The package's other files, by path, as validated with the order.
    public let assets: [String: [UInt8]]
    /// The validation warnings of the order and its files.
    public let warnings: [ValidationProblem]

    /// The order type; a valid order always names one.
    public var orderTypeIdentifier: String { json["orderTypeIdentifier"]?.stringValue ?? "" }
}
