import Testing
import WireFormats

/// The CSV reader of the dashboard's fulfillment updates: RFC 4180 as spreadsheets write it, and bounded.
@Suite struct CSVTests {
    static let limits = CSV.Limits(records: 10, fieldsPerRecord: 5, fieldBytes: 16)

    static func read(_ text: String, limits: CSV.Limits = limits) throws(CSV.SyntaxError) -> [CSV.Record] {
        try CSV.records(Array(text.utf8), limits: limits)
    }

    @Test func fieldsQuotesAndLineEndsReadAsSpreadsheetsWriteThem() throws {
        let records = try Self.read("\u{FEFF}a,b,c\r\n1,\"two, \"\"2\"\"\",3\n\n\"multi\nline\",,\"\"\r\nlast,row")
        #expect(
            records == [
                CSV.Record(line: 1, fields: ["a", "b", "c"]), CSV.Record(line: 2, fields: ["1", "two, \"2\"", "3"]),
                CSV.Record(line: 4, fields: ["multi\nline", "", ""]), CSV.Record(line: 6, fields: ["last", "row"]),
            ])
    }

    @Test func aFirstLineOfSemicolonsSeparatesBySemicolons() throws {
        #expect(try Self.read("a;b\n1,5;\"x;y\"\n") == [CSV.Record(line: 1, fields: ["a", "b"]), CSV.Record(line: 2, fields: ["1,5", "x;y"])])
        #expect(try Self.read("\"a;b\",c\n").first?.fields == ["a;b", "c"], "a semicolon inside quotes chooses nothing")
    }

    @Test func malformedTextSaysWhereAndWhy() {
        #expect(throws: CSV.SyntaxError(line: 2, reason: "a quoted field is never closed")) { try Self.read("a\n\"open,b\nc") }
        #expect(throws: CSV.SyntaxError.self) { try Self.read("a,b\"c\n") }
        #expect(throws: CSV.SyntaxError.self) { try Self.read("\"a\"b,c\n") }
        #expect(throws: CSV.SyntaxError(line: 1, reason: "a field is longer than 16 bytes")) { try Self.read(String(repeating: "x", count: 17)) }
        #expect(throws: CSV.SyntaxError(line: 1, reason: "a record has more than 5 fields")) { try Self.read("1,2,3,4,5,6") }
        #expect(throws: CSV.SyntaxError(line: 11, reason: "the file has more than 10 lines")) {
            try Self.read((1...11).map(String.init).joined(separator: "\n"))
        }
        // A quoted field is bounded as it is read, however long its line.
        #expect(throws: CSV.SyntaxError.self) { try Self.read("\"" + String(repeating: "y", count: 1_000_000) + "\"") }
    }

    @Test func emptyTextHasNoRecords() throws {
        #expect(try Self.read("").isEmpty)
        #expect(try Self.read("\r\n\n").isEmpty)
    }
}
