import Crypto
import Foundation
import OrderModel
import OrderTrackBenchmarks
import SwiftASN1
import Testing
import WireFormats
import X509

@testable import ApplePay

/// Real Apple-signed tokens from the public vectors: the full EC_v1 vector decrypts to the expected values, the
/// signature-only vector verifies, and tampered copies fail with the right code.
@Suite struct PublicVectorTests {
    static let signingTime = Vectors.date("2021-09-01T19:03:06Z")
    static let signatureOnlyTime = Vectors.date("2017-02-01T18:45:06Z")

    func identity() throws -> ApplePayPaymentIdentity {
        try ApplePayPaymentIdentity(
            certificatePEM: try Vectors.text("ec-v1-2021/certificate.pem"), privateKeyPEM: try Vectors.text("ec-v1-2021/private_key.pem"))
    }

    func decryptor(at time: Date, identities: [ApplePayPaymentIdentity]? = nil) throws -> ApplePayDecryptor {
        ApplePayDecryptor(identities: try identities ?? [identity()], now: { time })
    }

    func expectFailure(_ code: ApplePayError.Code, _ body: () async throws -> Void) async {
        do {
            try await body()
            Issue.record("expected \(code), got success")
        } catch let error as ApplePayError {
            #expect(error.code == code, "\(error)")
        } catch {
            Issue.record("expected \(code), got \(error)")
        }
    }

    @Test func pinnedRootIsAppleRootCAG3() throws {
        #expect(
            AppleRootCA.g3PEM.trimmingCharacters(in: .whitespacesAndNewlines)
                == (try Vectors.text("AppleRootCA-G3.pem")).trimmingCharacters(in: .whitespacesAndNewlines))
        var serializer = DER.Serializer()
        try serializer.serialize(AppleRootCA.g3)
        #expect(
            Hex.encode(SHA256.hash(data: serializer.serializedBytes)).uppercased()
                == "63343ABFB89A6A03EBB57E9B3F5FA7BE7C4F5C756F3017B3A8C488C3653E9179")
    }

    @Test func identityReadsMerchantAndKeyHash() throws {
        let identity = try identity()
        let expected = try Vectors.json("ec-v1-2021/expected.json")
        #expect(identity.merchantIdentifier == "merchant.test.spreedly.123merchant")
        #expect(Hex.encode(identity.merchantIdentifierHash).uppercased() == expected["merchantIdentifierHash"]?.stringValue)
        let token = try ApplePayToken(json: try Vectors.bytes("ec-v1-2021/token.json"))
        #expect(identity.publicKeyHash == token.paymentData.publicKeyHash)
    }

    @Test func fullVectorDecryptsToExpectedValues() async throws {
        let expected = try Vectors.json("ec-v1-2021/expected.json")
        let token = try ApplePayToken(json: try Vectors.bytes("ec-v1-2021/token.json"))
        let result = try await decryptor(at: Self.signingTime.addingTimeInterval(120)).decrypt(token)
        #expect(result.version == .ecV1)
        #expect(result.merchantIdentifier == "merchant.test.spreedly.123merchant")
        #expect(result.signingTime == Self.signingTime)
        #expect(result.payload.json == expected["decrypted"])
        let payload = result.payload
        #expect(payload.applicationPrimaryAccountNumber == "5353756319181169")
        #expect(payload.applicationExpirationDate == "240930")
        #expect(payload.currencyCode == "840")
        #expect(payload.transactionAmount == 100)
        #expect(payload.deviceManufacturerIdentifier == "050110030273")
        #expect(payload.paymentDataType == .threeDSecure)
        #expect(payload.onlinePaymentCryptogram == "AMwBRjPWDnAgAA7Rls7mAoABFA==")
        #expect(payload.eciIndicator == nil)
        try payload.check(amount: ApplePayAmount(currency: "USD", minorUnits: 100))
        #expect(ApplePayAmount(decimal: "1.00", currency: "USD") == ApplePayAmount(currency: "USD", minorUnits: 100))
    }

    @Test func payloadDescriptionsRedactCardData() async throws {
        let token = try ApplePayToken(json: try Vectors.bytes("ec-v1-2021/token.json"))
        let payload = try await decryptor(at: Self.signingTime).decrypt(token).payload
        var dumped = ""
        dump(payload, to: &dumped)
        for text in [payload.description, String(reflecting: payload), "\(payload)", dumped] {
            #expect(!text.contains("5353756319181169"), "\(text)")
            #expect(!text.contains("AMwBRjPWDnAgAA7Rls7mAoABFA=="), "\(text)")
        }
    }

    @Test func amountAndCurrencyChecks() async throws {
        let token = try ApplePayToken(json: try Vectors.bytes("ec-v1-2021/token.json"))
        let payload = try await decryptor(at: Self.signingTime).decrypt(token).payload
        await expectFailure(.amountMismatch) { try payload.check(amount: .init(currency: "USD", minorUnits: 101)) }
        await expectFailure(.currencyMismatch) { try payload.check(amount: .init(currency: "EUR", minorUnits: 100)) }
        #expect(ApplePayAmount(decimal: "12.5", currency: "JPY") == nil)
        #expect(ApplePayAmount(decimal: "1.250", currency: "BHD")?.minorUnits == 1250)
        #expect(ISO4217.numericCodes.count == ISOCodes.currencies.count)
    }

    @Test func kdfMatchesExpectedKeys() throws {
        let expected = try Vectors.json("ec-v1-2021/expected.json")
        let z = [UInt8](Data(base64Encoded: expected["sharedSecretBase64"]!.stringValue!)!)
        let key = ApplePayDecryptor.symmetricKey(sharedSecret: z, merchantIdentifierHash: try identity().merchantIdentifierHash)
        #expect(key.withUnsafeBytes { Data($0) }.base64EncodedString() == expected["symmetricKeyBase64"]?.stringValue)

        // PayU's component vector: Z, the whole OtherInfo (Party V is its last 32 bytes), key, ciphertext, plaintext.
        let component = try Vectors.json("kdf-aes-component-vector.json")
        let otherInfo = [UInt8](Data(base64Encoded: component["kdfOtherInfoBase64"]!.stringValue!)!)
        let componentKey = ApplePayDecryptor.symmetricKey(
            sharedSecret: Hex.decode(component["sharedSecretHex"]!.stringValue!)!, merchantIdentifierHash: Array(otherInfo.suffix(32)))
        #expect(componentKey.withUnsafeBytes { Data($0) }.base64EncodedString() == component["symmetricKeyBase64"]?.stringValue)
        let sealed = [UInt8](Data(base64Encoded: component["ciphertextWithTagBase64"]!.stringValue!)!)
        let box = try AES.GCM.SealedBox(
            nonce: AES.GCM.Nonce(data: [UInt8](repeating: 0, count: 16)), ciphertext: sealed.dropLast(16), tag: sealed.suffix(16))
        #expect(String(decoding: try AES.GCM.open(box, using: componentKey), as: UTF8.self) == component["plaintext"]?.stringValue)
    }

    @Test func signatureOnlyVectorVerifiesAtItsSigningTime() async throws {
        let token = try ApplePayToken(json: try Vectors.bytes("ec-v1-signature-only/token.json"))
        #expect(token.paymentMethod?.network == "Visa")
        #expect(token.transactionIdentifier == token.paymentData.transactionId.uppercased())
        let signature = try await decryptor(at: Self.signatureOnlyTime, identities: []).verifySignature(of: token.paymentData)
        #expect(signature.signingTime == Self.signatureOnlyTime)
        #expect(signature.signer.subject.description.contains("ecc-smp-broker-sign_UC4-PROD"))
        // Verifying again takes the remembered chain and still checks the signature.
        let again = try await decryptor(at: Self.signatureOnlyTime, identities: []).verifySignature(of: token.paymentData)
        #expect(again.signingTime == Self.signatureOnlyTime)
    }

    @Test func tamperedTokensFailTheSignature() async throws {
        let verifier = try decryptor(at: Self.signatureOnlyTime, identities: [])
        // paymentData alone: the object around it repeats transactionId, which would make the token malformed instead.
        let original = try Vectors.json("ec-v1-signature-only/token.json")["paymentData"]!
        for (path, change) in [
            ("data", Vectors.flippingByte(10)),
            ("header.ephemeralPublicKey", Vectors.flippingByte(40)),
            ("header.transactionId", { (text: String) in String(text.reversed()) }),
        ] {
            let token = try ApplePayToken(json: Vectors.modifying(original, path, change))
            await expectFailure(.invalidSignature) { _ = try await verifier.verifySignature(of: token.paymentData) }
        }
        // The EC_v1 vector with one flipped byte of data: the signature check fails before decryption.
        let full = try Vectors.json("ec-v1-2021/token.json")
        let flipped = try ApplePayToken(json: Vectors.modifying(full, "data", Vectors.flippingByte(3)))
        await expectFailure(.invalidSignature) { _ = try await decryptor(at: Self.signingTime).decrypt(flipped) }
        // ... and its GCM tag does not match either.
        await expectFailure(.decryptionFailed) {
            _ = try ApplePayDecryptor.decrypt(flipped.paymentData, with: try identity())
        }
    }

    @Test func staleOrEarlySigningTimeFails() async throws {
        let token = try ApplePayToken(json: try Vectors.bytes("ec-v1-2021/token.json"))
        for time in [Self.signingTime.addingTimeInterval(301), Self.signingTime.addingTimeInterval(-301)] {
            await expectFailure(.signingTimeOutOfRange) { _ = try await decryptor(at: time).decrypt(token) }
        }
        // Today the vector's certificates have expired as well: the chain check says so first.
        await expectFailure(.untrustedChain) { _ = try await decryptor(at: Date()).decrypt(token) }
    }

    @Test func wrongKeyFails() async throws {
        let token = try ApplePayToken(json: try Vectors.bytes("ec-v1-2021/token.json"))
        let other = try ApplePayBenchmark.Fixture().identity
        await expectFailure(.noMatchingKey) {
            _ = try await decryptor(at: Self.signingTime, identities: [other]).decrypt(token)
        }
        await expectFailure(.decryptionFailed) { _ = try ApplePayDecryptor.decrypt(token.paymentData, with: other) }
    }

    @Test func rotationPicksTheIdentityByKeyHash() async throws {
        let token = try ApplePayToken(json: try Vectors.bytes("ec-v1-2021/token.json"))
        let identities = [try ApplePayBenchmark.Fixture().identity, try identity(), try ApplePayBenchmark.Fixture().identity]
        let result = try await decryptor(at: Self.signingTime, identities: identities).decrypt(token)
        #expect(result.merchantIdentifier == "merchant.test.spreedly.123merchant")
    }

    @Test func malformedTokensAreRejected() async throws {
        let full = try Vectors.json("ec-v1-2021/token.json")
        let cases: [[UInt8]] = [
            Array("not json".utf8), Array("[]".utf8), [UInt8](repeating: 0x20, count: ApplePayToken.maximumSize + 1),
            full.setting("version", to: "EC_v2").serialized(), full.setting("data", to: "***").serialized(),
            full.setting("header.transactionId", to: "xyz").serialized(), full.setting("header.publicKeyHash", to: "AAAA").serialized(),
            full.setting("header.ephemeralPublicKey", to: nil).serialized(),
        ]
        for bytes in cases {
            await expectFailure(.malformedToken) { _ = try ApplePayToken(json: bytes) }
        }
        let wrapped: JSONValue = ["paymentData": full, "transactionIdentifier": "ABCD"]
        await expectFailure(.malformedToken) { _ = try ApplePayToken(json: wrapped.serialized()) }
    }
}
