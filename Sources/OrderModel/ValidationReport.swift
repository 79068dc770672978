/// One thing wrong (or worth a look) in an order document or package.
public struct ValidationProblem: Sendable, Hashable, CustomStringConvertible {
    public enum Severity: String, Sendable, Hashable, Codable {
        case error
        case warning
    }

    /// JSON path of the offending value (`fulfillments[1].status`), or a file path inside the package
    /// (`fr.lproj/order.strings`), or `""` for the document as a whole.
    public var path: String
    /// A sentence that states the rule and how to fix it.
    public var message: String
    public var severity: Severity

    public init(path: String, message: String, severity: Severity = .error) {
        self.path = path
        self.message = message
        self.severity = severity
    }

    /// `path: message`, the form the CLI prints one per line.
    public var description: String {
        let prefix = severity == .warning ? "warning: " : ""
        return path.isEmpty ? "\(prefix)\(message)" : "\(path): \(prefix)\(message)"
    }
}

/// Every problem found at once, errors and warnings.
public struct ValidationReport: Sendable, Hashable {
    public var problems: [ValidationProblem]

    public init(problems: [ValidationProblem] = []) {
        self.problems = problems
    }

    public var errors: [ValidationProblem] { problems.filter { $0.severity == .error } }
    public var warnings: [ValidationProblem] { problems.filter { $0.severity == .warning } }
    public var isValid: Bool { !problems.contains { $0.severity == .error } }
}
