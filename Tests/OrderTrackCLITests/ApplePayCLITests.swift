import Foundation
import OrderModel
import Testing

extension CLITests {
    static let applePayVectors = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("../shared/testdata/apple-pay/ec-v1-2021").standardizedFileURL

    func applePayDecrypt(_ token: String, at time: String) async throws -> Run {
        try await run([
            "apple-pay", "decrypt", token, "--certificate", Self.applePayVectors.appendingPathComponent("certificate.pem").path,
            "--key", Self.applePayVectors.appendingPathComponent("private_key.pem").path, "--at", time,
        ])
    }

    @Test func applePayDecryptPrintsThePublicVectorsPayment() async throws {
        let result = try await applePayDecrypt(Self.applePayVectors.appendingPathComponent("token.json").path, at: "2021-09-01T19:04:00Z")
        #expect(result.status == 0, "\(result.errors)")
        let output = try JSONValue.parse(Array(result.output.utf8))
        let expected = try JSONValue.parse(Array(try Data(contentsOf: Self.applePayVectors.appendingPathComponent("expected.json"))))
        #expect(output["paymentData"] == expected["decrypted"])
        #expect(output["merchantIdentifier"] == "merchant.test.spreedly.123merchant")
        #expect(output["version"] == "EC_v1")
    }

    @Test func applePayDecryptExitsOneOnATamperedToken() async throws {
        let original = try JSONValue.parse(Array(try Data(contentsOf: Self.applePayVectors.appendingPathComponent("token.json"))))
        let transactionId = original["header"]!["transactionId"]!.stringValue!
        let tampered = original.setting("header.transactionId", to: .string(String(transactionId.reversed())))
        try write("tampered.json", tampered.serialized())
        let result = try await applePayDecrypt(directory.appendingPathComponent("tampered.json").path, at: "2021-09-01T19:04:00Z")
        #expect(result.status == 1)
        #expect(result.errors.contains("invalid_signature"), "\(result.errors)")
        #expect(result.output.isEmpty)

        let stale = try await applePayDecrypt(Self.applePayVectors.appendingPathComponent("token.json").path, at: "2021-09-01T19:20:00Z")
        #expect(stale.status == 1)
        #expect(stale.errors.contains("signing_time_out_of_range"), "\(stale.errors)")
    }
}
