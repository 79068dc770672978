import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import OrderModel
import OrderPersistence

/// Order lookup, wire-compatible with the App Store Server API's "Look Up Order ID": `GET /inApps/v1/lookup/{orderId}`
/// with an App Store Connect-style JWT; and the merchant API's lookup keys under `/api/v1/lookup-keys`.
///
/// The `/inApps` answers are Apple's, errors included (``AppStoreAPIError``), not OrderTrack's envelope.
struct LookupRoutes: Sendable {
    let lookup: TransactionLookupService
    let keys: LookupKeyService
    let maximumBodySize: Int

    /// Longest order id looked up, in UTF-8 bytes; order identifiers and numbers are at most 255.
    static let maximumOrderIDLength = 255

    /// Adds `GET /inApps/v1/lookup/{orderId}` to `router`, behind ``LookupAuthenticationMiddleware``.
    func add(to router: Router<OrderTrackRequestContext>) {
        let inApps = router.group("inApps/v1").add(middleware: AppStoreErrorMiddleware())
            .add(middleware: LookupAuthenticationMiddleware(lookup: lookup)).group(context: LookupRequestContext.self)
        inApps.get("lookup/:orderId") { _, context -> Response in
            guard let orderID = context.parameters.get("orderId")?.removingPercentEncoding, Self.isWellFormed(orderID) else {
                throw AppStoreAPIError.badRequest
            }
            return Response(
                status: .ok, headers: [.contentType: "application/json", .cacheControl: "no-store"],
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: try await lookup.answer(orderID: orderID, key: context.key))))
        }
    }

    /// Adds the lookup-key routes to the merchant API group, behind its authentication.
    func add(to merchantAPI: RouterGroup<MerchantRequestContext>) {
        merchantAPI.post("lookup-keys") { request, context -> Response in
            let body = try await RequestParsing.jsonBody(request, limit: maximumBodySize)
            guard body.objectValue != nil else { throw APIError.badRequest("body_not_object", "the body must be a JSON object") }
            guard let bundleID = body["bundleId"]?.stringValue else {
                throw APIError.badRequest("bundle_id_missing", "the body needs bundleId: the app's bundle identifier", param: "bundleId")
            }
            let created = try await keys.create(merchantID: context.merchant.id, bundleID: bundleID, issuerID: body["issuerId"]?.stringValue)
            var json = Self.json(created.record)
            json["privateKey"] = .string(created.privateKeyPEM)
            // The private key is in this answer only: never cached anywhere on the way.
            return Response(
                status: .created, headers: [.contentType: "application/json", .cacheControl: "no-store"],
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: JSONValue.object(json).serialized())))
        }
        merchantAPI.get("lookup-keys") { _, context -> JSONValue in
            ["data": .array(try await keys.list(merchantID: context.merchant.id).map { .object(Self.json($0)) })]
        }
        merchantAPI.get("lookup-keys/root-certificate") { _, _ -> Response in
            Response(
                status: .ok, headers: [.contentType: "application/x-pem-file"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: try await lookup.rootCertificatePEM())))
        }
        merchantAPI.delete("lookup-keys/:keyId") { _, context -> JSONValue in
            guard let keyID = context.parameters.get("keyId") else { throw APIError.notFound("no such lookup key") }
            return .object(Self.json(try await keys.revoke(merchantID: context.merchant.id, keyID: keyID)))
        }
    }

    /// 1–255 bytes without control characters; anything else is Apple's 400 (GeneralBadRequestError).
    static func isWellFormed(_ orderID: String) -> Bool {
        (1...maximumOrderIDLength).contains(orderID.utf8.count) && orderID.unicodeScalars.allSatisfy { !$0.properties.generalCategory.isControl }
    }

    static func json(_ record: LookupKeyRecord) -> [String: JSONValue] {
        var json: [String: JSONValue] = [
            "keyId": .string(record.keyID), "issuerId": .string(record.issuerID), "bundleId": .string(record.bundleID),
            "createdAt": .string(DateTimeFormat.formatRFC3339(record.createdAt)),
        ]
        json["revokedAt"] = record.revokedAt.map { .string(DateTimeFormat.formatRFC3339($0)) } ?? .null
        return json
    }
}

extension Unicode.GeneralCategory {
    fileprivate var isControl: Bool {
        switch self {
        case .control, .format, .lineSeparator, .paragraphSeparator, .surrogate, .unassigned: true
        default: false
        }
    }
}
