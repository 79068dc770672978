import Foundation

/// The OpenAPI 3.1 description of every endpoint, `Resources/openapi.json`, served at `/openapi.json`.
enum OpenAPIDocument {
    static let bytes: [UInt8] = {
        guard let url = Bundle.module.url(forResource: "openapi", withExtension: "json"), let data = try? Data(contentsOf: url) else {
            return Array(#"{"openapi":"3.1.0","info":{"title":"OrderTrack","version":"unavailable"},"paths":{}}"#.utf8)
        }
        return Array(data)
    }()
}
