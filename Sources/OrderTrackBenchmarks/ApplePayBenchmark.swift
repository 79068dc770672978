import ApplePay
import Crypto
import Foundation
import OrderModel
import SwiftASN1
import WireFormats
@_spi(CMS) import X509

/// `ordertrack bench apple-pay`: EC_v1 tokens made like Apple's (a root, an intermediate and a signing leaf with
/// Apple's marker extensions, a merchant payment-processing certificate), then verified and decrypted on one core.
public enum ApplePayBenchmark {
    /// A stand-in for Apple's PKI and one merchant, all P-256.
    public struct Fixture: Sendable {
        public let root: Certificate
        public let intermediate: Certificate
        public let leaf: Certificate
        let leafKey: P256.Signing.PrivateKey
        public let merchantCertificate: Certificate
        public let merchantKey: P256.KeyAgreement.PrivateKey
        public let identity: ApplePayPaymentIdentity

        /// A fresh fixture valid for a day around `now`, for merchant `merchantIdentifier`. Without `subjectUID` the
        /// merchant certificate names its merchant only by the hash extension, as some Apple-issued ones do.
        public init(merchantIdentifier: String = "merchant.com.example.benchmark", subjectUID: Bool = true, now: Date = Date()) throws {
            let notBefore = now.addingTimeInterval(-3600)
            let notAfter = now.addingTimeInterval(86400)
            func name(_ commonName: String) throws -> DistinguishedName {
                try DistinguishedName {
                    CountryName("US")
                    OrganizationName("OrderTrack Benchmark")
                    CommonName(commonName)
                }
            }
            let rootKey = P256.Signing.PrivateKey()
            let rootName = try name("Benchmark Root CA")
            root = try Certificate(
                version: .v3, serialNumber: .init(), publicKey: .init(rootKey.publicKey), notValidBefore: notBefore,
                notValidAfter: notAfter, issuer: rootName, subject: rootName, signatureAlgorithm: .ecdsaWithSHA256,
                extensions: try Certificate.Extensions {
                    Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                    Critical(KeyUsage(keyCertSign: true, cRLSign: true))
                },
                issuerPrivateKey: .init(rootKey))
            let intermediateKey = P256.Signing.PrivateKey()
            let intermediateName = try name("Benchmark Application Integration CA")
            intermediate = try Certificate(
                version: .v3, serialNumber: .init(), publicKey: .init(intermediateKey.publicKey), notValidBefore: notBefore,
                notValidAfter: notAfter, issuer: rootName, subject: intermediateName, signatureAlgorithm: .ecdsaWithSHA256,
                extensions: try Certificate.Extensions {
                    Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                    Critical(KeyUsage(keyCertSign: true, cRLSign: true))
                    Certificate.Extension(oid: ApplePayOID.intermediateMarker, critical: false, value: [0x05, 0x00])
                },
                issuerPrivateKey: .init(rootKey))
            leafKey = P256.Signing.PrivateKey()
            leaf = try Certificate(
                version: .v3, serialNumber: .init(), publicKey: .init(leafKey.publicKey), notValidBefore: notBefore,
                notValidAfter: notAfter, issuer: intermediateName, subject: try name("ecc-smp-broker-sign_UC4-BENCH"),
                signatureAlgorithm: .ecdsaWithSHA256,
                extensions: try Certificate.Extensions {
                    Critical(BasicConstraints.notCertificateAuthority)
                    Critical(KeyUsage(digitalSignature: true))
                    Certificate.Extension(oid: ApplePayOID.leafMarker, critical: false, value: [0x05, 0x00])
                },
                issuerPrivateKey: .init(intermediateKey))
            merchantKey = P256.KeyAgreement.PrivateKey()
            let merchantHash = Hex.encode(SHA256.hash(data: Array(merchantIdentifier.utf8))).uppercased()
            var serializer = DER.Serializer()
            try serializer.serialize(ASN1UTF8String(merchantHash))
            merchantCertificate = try Certificate(
                version: .v3, serialNumber: .init(),
                publicKey: .init(try P256.Signing.PublicKey(x963Representation: merchantKey.publicKey.x963Representation)),
                notValidBefore: notBefore, notValidAfter: notAfter, issuer: rootName,
                subject: try DistinguishedName(
                    (subjectUID ? [RelativeDistinguishedName.Attribute(type: ApplePayOID.userID, utf8String: merchantIdentifier)] : []) + [
                        RelativeDistinguishedName.Attribute(
                            type: .RDNAttributeType.commonName, utf8String: "Apple Pay Payment Processing:\(merchantIdentifier)")
                    ]),
                signatureAlgorithm: .ecdsaWithSHA256,
                extensions: try Certificate.Extensions {
                    Certificate.Extension(
                        oid: ApplePayOID.merchantIdentifierHash, critical: false, value: serializer.serializedBytes[...])
                },
                issuerPrivateKey: .init(rootKey))
            identity = try ApplePayPaymentIdentity(certificate: merchantCertificate, privateKey: .p256(merchantKey))
        }

        /// An EC_v1 `paymentData` JSON object encrypting `payload` for the merchant, signed at `signingTime`.
        public func token(payload: [UInt8], signingTime: Date = Date()) throws -> JSONValue {
            let ephemeral = P256.KeyAgreement.PrivateKey()
            let shared = try ephemeral.sharedSecretFromKeyAgreement(with: merchantKey.publicKey)
            let key = ApplePayDecryptor.symmetricKey(sharedSecret: shared, merchantIdentifierHash: identity.merchantIdentifierHash)
            let sealed = try AES.GCM.seal(payload, using: key, nonce: AES.GCM.Nonce(data: [UInt8](repeating: 0, count: 16)))
            let transactionId = Hex.encode((0..<32).map { _ in UInt8.random(in: 0...255) })
            let paymentData = ApplePayPaymentData(
                version: .ecV1, data: [UInt8](sealed.ciphertext) + [UInt8](sealed.tag), signature: [],
                keyMaterial: .ephemeralPublicKey([UInt8](ephemeral.publicKey.derRepresentation)),
                publicKeyHash: identity.publicKeyHash, transactionId: transactionId, applicationData: nil)
            let signature = try CMS.sign(
                paymentData.signedBytes, signatureAlgorithm: .ecdsaWithSHA256, additionalIntermediateCertificates: [intermediate],
                certificate: leaf, privateKey: .init(leafKey), signingTime: signingTime)
            return [
                "version": "EC_v1", "data": .string(Data(paymentData.data).base64EncodedString()),
                "signature": .string(Data(signature).base64EncodedString()),
                "header": [
                    "ephemeralPublicKey": .string(ephemeral.publicKey.derRepresentation.base64EncodedString()),
                    "publicKeyHash": .string(Data(identity.publicKeyHash).base64EncodedString()),
                    "transactionId": .string(transactionId),
                ],
            ]
        }
    }

    /// A payload shaped like Apple's 3-D Secure payloads (test card data).
    public static func samplePayload(amount: Int) -> [UInt8] {
        let payload: JSONValue = [
            "applicationPrimaryAccountNumber": "4111111111111111", "applicationExpirationDate": "301231", "currencyCode": "840",
            "transactionAmount": .integer(amount), "deviceManufacturerIdentifier": "040010030273", "paymentDataType": "3DSecure",
            "paymentData": ["onlinePaymentCryptogram": "Af9x/QwAA/DjmU65oyc1MAABAAA=", "eciIndicator": "5"],
        ]
        return payload.serialized()
    }

    public struct Result: Sendable {
        public var tokens: Int
        public var seconds: Double
        public var tokensPerSecond: Double { Double(tokens) / seconds }
    }

    /// Parses, verifies and decrypts every token one after another (one core); throws on the first failure.
    public static func run(tokens: [[UInt8]], decryptor: ApplePayDecryptor) async throws -> Result {
        let clock = ContinuousClock()
        let start = clock.now
        for json in tokens {
            _ = try await decryptor.decrypt(try ApplePayToken(json: json))
        }
        let elapsed = clock.now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return Result(tokens: tokens.count, seconds: seconds)
    }
}
