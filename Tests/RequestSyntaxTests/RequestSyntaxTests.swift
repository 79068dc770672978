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

@Suite struct EntityTagConditionTests {
    @Test func starAndListsOfStrongAndWeakTagsAreRead() {
        #expect(EntityTagCondition.parse("*") == .any)
        #expect(EntityTagCondition.parse("  * ") == .any)
        #expect(EntityTagCondition.parse(#""3""#) == .tags([EntityTag(opaque: "3", isWeak: false)]))
        #expect(
            EntityTagCondition.parse(#"W/"3" , "4",,"x!#~""#)
                == .tags([EntityTag(opaque: "3", isWeak: true), EntityTag(opaque: "4", isWeak: false), EntityTag(opaque: "x!#~", isWeak: false)]))
        #expect(EntityTagCondition.parse(#""""#) == .tags([EntityTag(opaque: "", isWeak: false)]))
    }

    @Test func anythingElseIsRefused() {
        for value in ["", " ", ",", "3", #""3"#, #""3" "4""#, #""3"x"#, "W/3", #"w/"3""#, #""a b""#, "**", #"*, "3""#] {
            #expect(EntityTagCondition.parse(value) == nil, "\(value.debugDescription)")
        }
        let many = Array(repeating: #""1""#, count: EntityTagCondition.maximumTags + 1).joined(separator: ",")
        #expect(EntityTagCondition.parse(many) == nil)
        #expect(EntityTagCondition.parse(String(repeating: " ", count: EntityTagCondition.maximumLength) + #""1""#) == nil)
    }

    @Test func ifMatchComparesStrongly() {
        let condition = EntityTagCondition.parse(#"W/"3", "4""#)
        #expect(condition?.isMet(byCurrent: "4") == true)
        #expect(condition?.isMet(byCurrent: "3") == false, "a weak tag never matches")
        #expect(EntityTagCondition.any.isMet(byCurrent: "9"))
    }
}
