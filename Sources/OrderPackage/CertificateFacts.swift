import SwiftASN1
import X509

extension Certificate {
    /// The subject's UID attribute (OID 0.9.2342.19200300.100.1.1), where Apple puts the order type ID.
    var subjectUserID: String? {
        let userID: ASN1ObjectIdentifier = [0, 9, 2342, 19_200_300, 100, 1, 1]
        for rdn in subject {
            for attribute in rdn where attribute.type == userID {
                return String(attribute.value) ?? attribute.value.description
            }
        }
        return nil
    }
}
