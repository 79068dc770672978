import Crypto
import Foundation
import HTTPTypes
import OrderModel
import ServerTestSupport
import Testing

/// The order types page's uploads: a PKCS#12 adds or replaces an order type's certificate, a .p8 makes its pushes use
/// a token key, each refused with the merchant API's precise message, and only with the page's CSRF token.
@Suite struct DashboardOrderTypesTests {
    static let newType = "order.com.example.uploaded"

    @Test func aCertificateAndAnAPNsKeyAreUploadedThroughThePage() async throws {
        let server = try TestServer()
        defer { server.remove() }
        let pkcs12 = try DevelopmentPKCS12.make(orderTypeIdentifier: Self.newType, iterations: 2048)
        try await server.run { client in
            let browser = try await DashboardTests.signIn(client, apiKey: client.apiKey)
            let headers: HTTPFields = [.cookie: browser.cookie, .contentType: "application/json", DashboardTests.csrfHeader: browser.csrfToken]
            let path = "/dashboard/api/order-types/\(Self.newType)"
            let certificate: JSONValue = ["pkcs12": .string(Data(pkcs12).base64EncodedString()), "password": "pw"]

            var unsigned = headers
            unsigned[DashboardTests.csrfHeader] = nil
            let forged = try await client.call(.put, path, headers: unsigned, body: certificate.serialized())
            #expect(forged.status == .forbidden)

            var wrong = certificate
            wrong["password"] = "not-it"
            let refused = try await client.call(.put, path, headers: headers, body: wrong.serialized())
            #expect(refused.status == .unprocessableContent)
            #expect(refused.json["error"]?["message"]?.stringValue?.contains("password") == true, "\(refused.text)")
            #expect(!refused.text.contains("not-it"), "the password is never echoed")
            let mismatched = try await client.call(
                .put, "/dashboard/api/order-types/order.com.example.other", headers: headers, body: certificate.serialized())
            #expect(
                mismatched.json["error"]?["message"]?.stringValue
                    == "the certificate does not prove ownership of order type order.com.example.other: the certificate is for \(Self.newType), not order.com.example.other"
            )
            let empty = try await client.call(.put, path, headers: headers, body: Array("{}".utf8))
            #expect(empty.status == .badRequest && empty.json["error"]?["param"] == "pkcs12")

            let uploaded = try await client.call(.put, path, headers: headers, body: certificate.serialized())
            #expect(uploaded.status == .ok, "\(uploaded.text)")
            let page = try await client.call(.get, "/dashboard/order-types", headers: [.cookie: browser.cookie])
            #expect(page.text.contains(#"<span class="mono">\#(Self.newType)</span>"#))
            #expect(page.text.contains("Order Type ID: \(Self.newType)"))

            let key = P256.Signing.PrivateKey().pemRepresentation
            let badID = try await client.call(
                .put, "\(path)/apns-key", headers: headers,
                body: (["p8": .string(key), "keyID": "short", "teamID": "DEF123GHIJ"] as JSONValue).serialized())
            #expect(badID.status == .unprocessableContent)
            #expect(badID.json["error"]?["message"]?.stringValue?.contains("10 letters or digits") == true)
            let notKey = try await client.call(
                .put, "\(path)/apns-key", headers: headers,
                body: (["p8": "hello", "keyID": "ABC123DEFG", "teamID": "DEF123GHIJ"] as JSONValue).serialized())
            #expect(notKey.json["error"]?["message"]?.stringValue?.contains("not a .p8") == true)
            let unknown = try await client.call(
                .put, "/dashboard/api/order-types/order.com.example.none/apns-key", headers: headers,
                body: (["p8": .string(key), "keyID": "ABC123DEFG", "teamID": "DEF123GHIJ"] as JSONValue).serialized())
            #expect(unknown.status == .notFound)
            let keyed = try await client.call(
                .put, "\(path)/apns-key", headers: headers,
                body: (["p8": .string(key), "keyID": "ABC123DEFG", "teamID": "DEF123GHIJ"] as JSONValue).serialized())
            #expect(keyed.status == .ok, "\(keyed.text)")
            let renewed = try await client.call(.put, path, headers: headers, body: certificate.serialized())
            #expect(renewed.status == .ok)
            let after = try await client.call(.get, "/dashboard/order-types", headers: [.cookie: browser.cookie])
            #expect(after.text.contains("Token key (.p8), key ID ABC123DEFG"), "a new certificate keeps the APNs key")
            #expect(!after.text.contains("PRIVATE KEY"))
        }
    }
}
