/// One thing wrong (or worth a look) in an order document or package.
public struct ValidationProblem: Sendable, Hashable, CustomStringConvertible {
    /// Whether a problem blocks the order.
    public enum Severity: String, Sendable, Hashable, Codable {
        /// The order or package is invalid; Wallet would reject it or show it wrongly.
        case error
        /// The order is valid, but something is probably unintended (unknown key, unused file, weak token).
        case warning
        /// Worth knowing, nothing to fix for Wallet (a localization key no field uses).
        case note
    }

    /// JSON path of the offending value (`fulfillments[1].status`), or a file path inside the package
    /// (`fr.lproj/order.strings`), or `""` for the document as a whole.
    public var path: String
    /// A sentence that states the rule and how to fix it.
    public var message: String
    /// Whether the problem blocks the order.
    public var severity: Severity

    /// A problem at `path`; an error unless `severity` says otherwise.
    public init(path: String, message: String, severity: Severity = .error) {
        self.path = path
        self.message = message
        self.severity = severity
    }

    /// `path: message`, the form the CLI prints one per line.
    public var description: String {
        let prefix = severity == .error ? "" : "\(severity.rawValue): "
        return path.isEmpty ? "\(prefix)\(message)" : "\(path): \(prefix)\(message)"
    }
}

/// Every problem found at once, errors and warnings.
public struct ValidationReport: Sendable, Hashable {
    /// Every problem, in the order found.
    public var problems: [ValidationProblem]

    /// A report of `problems`; empty means valid.
    public init(problems: [ValidationProblem] = []) {
        self.problems = problems
    }

    /// The problems that make the order invalid.
    public var errors: [ValidationProblem] { problems.filter { $0.severity == .error } }
    /// The problems that do not.
    public var warnings: [ValidationProblem] { problems.filter { $0.severity == .warning } }
    /// No errors (warnings allowed).
    public var isValid: Bool { !problems.contains { $0.severity == .error } }
}
