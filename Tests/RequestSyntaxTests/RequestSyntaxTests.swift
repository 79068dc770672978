import Foundation
import RequestSyntax
import Testing

@Suite struct AuthorizationHeaderTests {
    @Test func theThreeSchemesAreReadWithoutRegardToTheSchemeNamesCase() {
        #expect(AuthorizationCredentials.parse("Bearer sk_abc") == .bearer("sk_abc"))
        #expect(AuthorizationCredentials.parse("bearer sk_abc") == .bearer("sk_abc"), "RFC 9110 §11.1: schemes are case-insensitive (audit L8)")
        #expect(AuthorizationCredentials.parse("AppleOrder token-1") == .appleOrder("token-1"))
        let basic = Data("sk_abc:".utf8).base64EncodedString()
        #expect(AuthorizationCredentials.parse("Basic \(basic)") == .basic(user: "sk_abc", password: ""))
        #expect(AuthorizationCredentials.parse("BASIC \(Data("a:b:c".utf8).base64EncodedString())") == .basic(user: "a", password: "b:c"))
        #expect(AuthorizationCredentials.parse("Basic \(Data("key-only".utf8).base64EncodedString())") == .basic(user: "key-only", password: ""))
    }

    @Test func anythingElseIsNoCredentials() {
        for value in [
            "", "Bearer", "Token abc", "Basic !!!notbase64", "Basic \(Data([0xFF, 0xFE]).base64EncodedString())", "Digest x",
            "AppleOrder" + String(repeating: "a", count: 9000),
        ] {
            #expect(AuthorizationCredentials.parse(value) == nil, "\(value.prefix(40))")
        }
        // Exactly one space after the scheme: the rest is the credential as sent.
        #expect(AuthorizationCredentials.parse("AppleOrder  token") == .appleOrder(" token"))
    }
}
