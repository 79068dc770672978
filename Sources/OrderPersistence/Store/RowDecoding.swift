import Foundation
import SQLKit

extension Date {
    /// Milliseconds since 1970, the precision the store keeps. Rounded to nearest, not truncated, so that
    /// a stored value read back as a `Date` (a binary double) converts to the same integer again.
    var millisecondsSince1970: Int64 {
        Int64((timeIntervalSince1970 * 1000).rounded())
    }

    init(millisecondsSince1970 milliseconds: Int64) {
        self.init(timeIntervalSince1970: Double(milliseconds) / 1000)
    }
}

extension SQLRow {
    func string(_ column: String) throws -> String {
        try decode(column: column, as: String.self)
    }

    func optionalString(_ column: String) throws -> String? {
        try decodeNil(column: column) ? nil : decode(column: column, as: String.self)
    }

    func int64(_ column: String) throws -> Int64 {
        try decode(column: column, as: Int64.self)
    }

    func int(_ column: String) throws -> Int {
        try decode(column: column, as: Int.self)
    }

    func date(_ column: String) throws -> Date {
        Date(millisecondsSince1970: try int64(column))
    }

    func bytes(_ column: String) throws -> [UInt8] {
        [UInt8](try decode(column: column, as: Data.self))
    }
}
