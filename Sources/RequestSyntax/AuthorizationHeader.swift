import Foundation

/// Credentials in an `Authorization` header (RFC 9110 §11.6.2), as OrderTrack's callers send them.
public enum AuthorizationCredentials: Sendable, Hashable {
    /// `Bearer <token>` (merchant API keys).
    case bearer(String)
    /// `Basic base64(user:password)` (curl's `-u sk_…:`).
    case basic(user: String, password: String)
    /// `AppleOrder <token>` (Wallet devices).
    case appleOrder(String)
}

extension AuthorizationCredentials {
    /// Longest header value looked at: far above a 256-bit key in base64, and bounded so parsing stays cheap.
    public static let maximumLength = 8 * 1024

    /// The credentials of `value`, or `nil` for a header that is not one of the three schemes.
    ///
    /// Scheme names are matched without regard to case, as RFC 9110 §11.1 requires (`bearer sk_…` works), followed by
    /// exactly one space. Basic credentials must be valid base64 of UTF-8 text; the user name ends at the first colon.
    public static func parse(_ value: String) -> AuthorizationCredentials? {
        guard value.utf8.count <= maximumLength, let space = value.firstIndex(of: " ") else { return nil }
        let scheme = value[..<space].lowercased()
        let credentials = String(value[value.index(after: space)...])
        switch scheme {
        case "bearer":
            return .bearer(credentials)
        case "appleorder":
            return .appleOrder(credentials)
        case "basic":
            guard let data = Data(base64Encoded: credentials), let text = String(data: data, encoding: .utf8) else { return nil }
            let parts = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            return .basic(user: String(parts[0]), password: parts.count > 1 ? String(parts[1]) : "")
        default:
            return nil
        }
    }
}
