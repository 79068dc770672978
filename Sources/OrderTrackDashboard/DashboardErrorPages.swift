import Hummingbird
import OrderTrackServer

/// Answers a page's errors as a page, with the status and message the API would give (``APIError/init(answering:)``),
/// rather than the JSON envelope a person cannot read. Server faults still reach the error envelope's log line.
struct DashboardErrorPages: RouterMiddleware {
    typealias Context = OrderTrackRequestContext

    let resources: WebResources

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch {
            let answer = APIError(answering: error)
            guard answer.status.kind == .clientError else { throw error }
            let heading = answer.status == .notFound ? "Not found" : answer.status.reasonPhrase
            return resources.page("error", ["title": heading, "heading": heading, "message": answer.message], status: answer.status)
        }
    }
}
