import Foundation
import OrderPackage
import OrderSigning
import X509

/// Which certificates prove that a merchant owns an order type (audit finding M2).
///
/// Claiming an identifier is not enough: the Order Type ID certificate must name it (UID), be within its validity
/// period and chain to Apple, which issues it only to the developer account that registered the identifier.
public enum OrderTypeTrust: Sendable {
    /// Production: a chain through a WWDR intermediate (G3–G6) to Apple Root CA or Apple Root CA - G3.
    case apple
    /// Development mode: Apple's chains, and also a chain to the intermediate the identity carries (a development
    /// identity's stand-in WWDR). A self-signed certificate is refused even here.
    case development

    /// Why `identity` does not prove ownership of `orderTypeIdentifier` at `now`, or `nil` when it does. The reason
    /// depends on the certificate alone, never on what other merchants configured.
    func refusal(of identity: SigningIdentity, for orderTypeIdentifier: String, now: Date) async -> String? {
        guard let certified = identity.orderTypeIdentifier else {
            return "the certificate is not an Order Type ID certificate: its subject names no order type (UID)"
        }
        guard certified == orderTypeIdentifier else { return "the certificate is for \(certified), not \(orderTypeIdentifier)" }
        let certificate = identity.certificate
        // Wallet refuses packages signed with an expired certificate: storing one would break every order of the type.
        guard certificate.notValidAfter > now else {
            return "the certificate expired on \(Self.day(certificate.notValidAfter)); renew it in the Apple developer account"
        }
        guard certificate.notValidBefore <= now else { return "the certificate is not valid before \(Self.day(certificate.notValidBefore))" }
        let anchors: [Certificate]
        switch self {
        case .apple: anchors = AppleCertificates.roots
        case .development: anchors = AppleCertificates.roots + identity.intermediates
        }
        // The leaf's dates are judged above (with precise messages); the policy judges every certificate's at the current time.
        var verifier = Verifier(rootCertificates: CertificateStore(anchors)) { RFC5280Policy() }
        let intermediates = CertificateStore(AppleCertificates.intermediates + identity.intermediates)
        switch await verifier.validate(leaf: certificate, intermediates: intermediates) {
        case .validCertificate(let chain):
            // A "chain" of the leaf alone means it was given as its own anchor: self-signed proves nothing.
            guard chain.count > 1 else { return Self.unproven(self) }
            return nil
        case .couldNotValidate(let failures):
            let reasons = Set(failures.map { String(describing: $0.policyFailureReason) }).sorted()
            return Self.unproven(self) + (reasons.isEmpty ? "" : " (\(reasons.joined(separator: "; ")))")
        }
    }

    static func unproven(_ trust: OrderTypeTrust) -> String {
        switch trust {
        case .apple:
            "the certificate does not chain to Apple (a WWDR intermediate under Apple Root CA): only the Order Type ID "
                + "certificate from the Apple developer account that registered the identifier proves it is yours"
        case .development:
            "the certificate does not chain to Apple or to the intermediate the identity carries"
        }
    }

    static func day(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withFullDate]
        return formatter.string(from: date)
    }
}
