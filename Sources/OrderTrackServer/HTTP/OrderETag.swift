import HTTPTypes
import Hummingbird
import RequestSyntax

/// An order's entity tag is its version (`"7"`): every answer with one order carries it as `ETag`, and `PATCH` takes it
/// back in `If-Match`, so a client's change of the version it read never overwrites a change it has not seen.
package enum OrderETag {
    package static func value(version: Int) -> String { "\"\(version)\"" }

    /// The versions `If-Match` allows (every field of it), `nil` without the header (any version, as before), an empty
    /// set for tags that cannot be one of ours (`"bogus"`, weak tags): that condition is never met. `*` allows any.
    ///
    /// - Throws: 400 `if_match_invalid` for a value that is not `*` or a list of entity tags.
    package static func allowedVersions(_ request: Request) throws -> Set<Int>? {
        let fields = request.headers[values: .ifMatch]
        guard !fields.isEmpty else { return nil }
        guard let condition = EntityTagCondition.parse(fields.joined(separator: ", ")) else {
            throw APIError.badRequest(
                "if_match_invalid", #"If-Match must be * or entity tags in double quotes, such as "3" (the ETag of the order you read)"#,
                param: "If-Match")
        }
        switch condition {
        case .any: return nil
        case .tags(let tags): return Set(tags.filter { !$0.isWeak }.compactMap { Int($0.opaque) })
        }
    }
}
