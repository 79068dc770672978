import HTTPTypes
import Hummingbird

extension Router {
    /// Answers 405 with an `Allow` header for a method a known path does not take (RFC 9110 §15.5.6), where the router
    /// alone would answer 404 as if the path did not exist. Call it after every route is added.
    func answerUnsupportedMethods() {
        for routes in Dictionary(grouping: routes, by: \.path.description).values {
            let methods = Set(routes.map(\.method))
            let allow = methods.map(\.rawValue).sorted().joined(separator: ", ")
            for method in Self.answeredMethods where !methods.contains(method) {
                on(routes[0].path, method: method) { request, _ -> Response in
                    throw APIError(
                        status: .methodNotAllowed, kind: .invalidRequest, code: "method_not_allowed",
                        message: "\(request.method) is not allowed on \(request.uri.path); this path takes \(allow)", extraHeaders: [.allow: allow])
                }
            }
        }
    }

    /// The methods a 405 is given for; others keep the router's own answer.
    static var answeredMethods: [HTTPRequest.Method] { [.get, .post, .put, .patch, .delete] }
}
