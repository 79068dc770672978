// libFuzzer: -max_len=4096
import Foundation
import WireFormats

// The dashboard's fulfillment updates are a CSV file from a browser. Reading must stay within its limits, and a text
// read as records must read the same once written back (quoted as RFC 4180 writes fields) and read again.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let limits = CSV.Limits(records: 64, fieldsPerRecord: 8, fieldBytes: 256)
    guard let records = try? CSV.records(bytes, limits: limits) else { return 0 }
    precondition(records.count <= limits.records, "more records than the limit")
    var previousLine = 0
    for record in records {
        precondition(record.fields.count <= limits.fieldsPerRecord, "more fields than the limit")
        precondition(record.fields.allSatisfy { $0.utf8.count <= limits.fieldBytes * 3 }, "a field past the byte limit")
        precondition(record.line > previousLine, "records out of line order")
        previousLine = record.line
    }
    // Written back with every field quoted, comma-separated, the records read the same (invalid UTF-8 has become
    // U+FFFD, which reads as itself). Quotes are doubled scalar by scalar: a quote followed by a combining mark is one
    // Character with it, which a Character-wise replacement (Foundation's replacingOccurrences) leaves undoubled.
    func quoted(_ field: String) -> String {
        var scalars = String.UnicodeScalarView()
        scalars.append("\"")
        for scalar in field.unicodeScalars {
            scalars.append(scalar)
            if scalar == "\"" { scalars.append(scalar) }
        }
        scalars.append("\"")
        return String(scalars)
    }
    let written = records.map { record in record.fields.map(quoted).joined(separator: ",") }.joined(separator: "\r\n")
    let reread = try? CSV.records(Array(written.utf8), limits: CSV.Limits(records: 64, fieldsPerRecord: 8, fieldBytes: 1024))
    precondition(reread?.map(\.fields) == records.map(\.fields), "records do not survive writing back")
    return 0
}
