import Foundation
import OrderModel
import OrderTrackBenchmarks
import TestSupport
import Testing
import X509

@testable import ApplePay

/// Tokens made by independent tools (Python `cryptography` encrypts, `openssl cms -sign` signs) under a test PKI
/// with Apple's marker extensions; EC_v1 tokens are also decrypted by PyPI `applepay`.
@Suite struct GeneratedTokenTests {
    static let payload = String(decoding: ApplePayBenchmark.samplePayload(amount: 4250), as: UTF8.self)

    let pki: OpenSSLPKI

    init() throws { pki = try OpenSSLPKI.shared.get() }

    func decryptor(merchants: [String] = ["ec", "rsa"], trustTestRoot: Bool = true) throws -> ApplePayDecryptor {
        let identities = try merchants.map { kind in
            try ApplePayPaymentIdentity(certificatePEM: try pki.text("merchant-\(kind).pem"), privateKeyPEM: try pki.text("merchant-\(kind).key"))
        }
        let roots = trustTestRoot ? [try Certificate(pemEncoded: try pki.text("root.pem"))] : []
        return ApplePayDecryptor(identities: identities, additionalTrustRoots: roots)
    }

    func expectFailure(_ code: ApplePayError.Code, _ token: [UInt8], _ decryptor: ApplePayDecryptor) async {
        do {
            _ = try await decryptor.decrypt(try ApplePayToken(json: token))
            Issue.record("expected \(code), got success")
        } catch {
            #expect(error.code == code, "\(error)")
        }
    }

    @Test(arguments: ["ec", "rsa"]) func decryptsTokensSignedByOpenSSL(merchant: String) async throws {
        let token = try pki.token(payload: Self.payload, merchant: merchant)
        let result = try await decryptor().decrypt(try ApplePayToken(json: token))
        #expect(result.version == (merchant == "ec" ? .ecV1 : .rsaV1))
        #expect(result.merchantIdentifier == OpenSSLPKI.merchantIdentifier)
        #expect(result.payload.json == (try JSONValue.parse(Array(Self.payload.utf8))))
        #expect(result.payload.transactionAmount == 4250)
        #expect(result.payload.eciIndicator == "5")
        try result.payload.check(amount: ApplePayAmount(decimal: "42.50", currency: "USD")!)
    }

    @Test func pypiApplepayDecryptsTheSameECToken() async throws {
        let token = try pki.token(payload: Self.payload, merchant: "ec")
        let ours = try await decryptor().decrypt(try ApplePayToken(json: token))
        // applepay 0.3.0 insists on two DER certificates it never uses; it checks no signature (spec §1.8).
        let script = """
            import json, sys
            from applepay.payment import Payment
            from cryptography import x509
            from cryptography.hazmat.primitives.serialization import Encoding
            certificate = open("\(pki.path("merchant-ec.pem"))", "rb").read()
            unused = x509.load_pem_x509_certificate(open("\(pki.path("root.pem"))", "rb").read()).public_bytes(Encoding.DER)
            payment = Payment(certificate, open("\(pki.path("merchant-ec.key"))", "rb").read(), root_ca_der=unused, aai_ca_der=unused)
            token = json.load(sys.stdin)
            sys.stdout.buffer.write(payment.decrypt(token["header"]["ephemeralPublicKey"], token["data"]))
            """
        let theirs = try await ExternalTools.python(script, input: token)
        #expect(try JSONValue.parse(theirs) == ours.payload.json)
    }

    @Test func missingMarkerExtensionsFail() async throws {
        let decryptor = try decryptor()
        await expectFailure(.missingMarkerExtension, try pki.token(payload: Self.payload, merchant: "ec", signer: "leaf-unmarked"), decryptor)
        await expectFailure(
            .missingMarkerExtension,
            try pki.token(payload: Self.payload, merchant: "ec", signer: "leaf-under-unmarked", chain: "intermediate-unmarked"), decryptor)
    }

    @Test func foreignRootFails() async throws {
        // Signed under a root nobody trusts, and our test root is only trusted when added.
        await expectFailure(
            .untrustedChain, try pki.token(payload: Self.payload, merchant: "ec", signer: "leaf-foreign", chain: "foreign-root"), try decryptor())
        await expectFailure(.untrustedChain, try pki.token(payload: Self.payload, merchant: "ec"), try decryptor(trustTestRoot: false))
    }

    @Test func tamperedGeneratedTokensFail() async throws {
        let decryptor = try decryptor()
        for merchant in ["ec", "rsa"] {
            let token = try JSONValue.parse(try pki.token(payload: Self.payload, merchant: merchant))
            let keyField = merchant == "ec" ? "header.ephemeralPublicKey" : "header.wrappedKey"
            for (path, change) in [("data", Vectors.flippingByte(0)), (keyField, Vectors.flippingByte(60))] {
                await expectFailure(.invalidSignature, Vectors.modifying(token, path, change).serialized(), decryptor)
            }
        }
        await expectFailure(.noMatchingKey, try pki.token(payload: Self.payload, merchant: "rsa"), try self.decryptor(merchants: ["ec"]))
    }
}
