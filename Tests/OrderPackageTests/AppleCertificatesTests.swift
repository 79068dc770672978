import Testing
import X509

@testable import OrderPackage

@Suite("Apple's embedded certificates")
struct AppleCertificatesTests {
    @Test func fingerprintsAreTheConfirmedOnes() throws {
        let embedded = AppleCertificates.roots + AppleCertificates.intermediates
        #expect(try embedded.map(AppleCertificates.fingerprint) == AppleCertificates.fingerprints)
    }

    @Test func eachWWDRIntermediateIsSignedByAnAppleRoot() throws {
        let generations = AppleCertificates.intermediates.map { String(describing: $0.subject) }
        for (intermediate, generation) in zip(AppleCertificates.intermediates, ["G3", "G4", "G5", "G6"]) {
            #expect(String(describing: intermediate.subject).contains("OU=\(generation)"), "\(generations)")
            let root = try #require(AppleCertificates.roots.first { $0.subject == intermediate.issuer })
            #expect(root.publicKey.isValidSignature(intermediate.signature, for: intermediate))
        }
    }
}
