import Foundation
import OrderPackage
import OrderSigning
@_spi(FixedExpiryValidationTime) import X509

/// Which certificates prove that a merchant owns an order type (audit finding M2).
///
/// Claiming an identifier is not enough: the Order Type ID certificate must name it (UID), be within its validity
/// period and chain to Apple, which issues it only to the developer account that registered the identifier.
public enum OrderTypeTrust: Sendable {
    /// Production: a chain through a WWDR intermediate (G3–G6) to Apple Root CA or Apple Root CA - G3.
    case apple
    /// Development mode as its operator uses it (the first start, `ordertrack order-type`): Apple's chains, and also a
    /// chain to the intermediate the identity carries (a development identity's stand-in WWDR). A self-signed
    /// certificate is refused even here.
    case development
    /// Development mode as merchants meet it (the API and the dashboard of a development server): ``development`` for
    /// the server's only merchant, ``apple`` once it serves several (audit L21). Anyone can make a development chain
    /// for any identifier, so on a shared server it would let one merchant claim another brand's order type before the
    /// brand signs up; a developer alone with the server still uploads what `ordertrack identity create-dev` makes.
    case developmentForSoleMerchant

    /// Why `identity` does not prove ownership of `orderTypeIdentifier` at `now`, or `nil` when it does.
    /// ``developmentForSoleMerchant`` asks `isSoleMerchant` whether the claiming merchant is the server's only one.
    /// The reason depends on the certificate and on whether the server has other merchants, never on what they
    /// configured.
    func refusal(
        of identity: SigningIdentity, for orderTypeIdentifier: String, now: Date, isSoleMerchant: () async throws -> Bool
    ) async rethrows -> String? {
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
        let acceptsDevelopmentChains =
            switch self {
            case .apple: false
            case .development: true
            case .developmentForSoleMerchant: try await isSoleMerchant()
            }
        let anchors = AppleCertificates.roots + (acceptsDevelopmentChains ? identity.intermediates : [])
        // The leaf's dates are judged above (with precise messages); the policy judges every certificate's at `now` too.
        var verifier = Verifier(rootCertificates: CertificateStore(anchors)) { RFC5280Policy(fixedExpiryValidationTime: now) }
        let intermediates = CertificateStore(AppleCertificates.intermediates + identity.intermediates)
        let unproven =
            acceptsDevelopmentChains
            ? "the certificate does not chain to Apple or to the intermediate the identity carries"
            : "the certificate does not chain to Apple (a WWDR intermediate under Apple Root CA): only the Order Type ID "
                + "certificate from the Apple developer account that registered the identifier proves it is yours"
        let refusal: String
        switch await verifier.validate(leaf: certificate, intermediates: intermediates) {
        case .validCertificate(let chain) where chain.count > 1:
            return nil
        case .validCertificate:
            // A "chain" of the leaf alone means it was given as its own anchor: self-signed proves nothing.
            refusal = unproven
        case .couldNotValidate(let failures):
            let reasons = Set(failures.map { String(describing: $0.policyFailureReason) }).sorted()
            refusal = unproven + (reasons.isEmpty ? "" : " (\(reasons.joined(separator: "; ")))")
        }
        guard self == .developmentForSoleMerchant, !acceptsDevelopmentChains else { return refusal }
        return refusal
            + "; this development server has several merchants, so only its operator configures development certificates (ordertrack order-type)"
    }

    /// ``refusal(of:for:now:isSoleMerchant:)`` for a merchant not known to be the server's only one.
    func refusal(of identity: SigningIdentity, for orderTypeIdentifier: String, now: Date) async -> String? {
        await refusal(of: identity, for: orderTypeIdentifier, now: now) { false }
    }

    static func day(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withFullDate]
        return formatter.string(from: date)
    }
}
