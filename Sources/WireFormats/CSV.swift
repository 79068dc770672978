/// Comma-separated values (RFC 4180) as spreadsheets export them: quoted fields with `""` for a quote, CRLF or LF line
/// ends, an optional UTF-8 byte order mark, and the semicolon that spreadsheets in comma-decimal locales separate with
/// (chosen when the first line has semicolons and no comma). Bounded: reading stops with an error at the first record,
/// field or byte count past the limits, so an upload costs at most what the limits allow.
public enum CSV {
    /// One record: the line it starts on (from 1; a quoted field may span lines) and its fields.
    public struct Record: Sendable, Equatable {
        /// The line the record starts on, from 1.
        public var line: Int
        /// The fields, quotes undone.
        public var fields: [String]

        /// A record starting on `line`.
        public init(line: Int, fields: [String]) {
            self.line = line
            self.fields = fields
        }
    }

    /// Why the text is not CSV, and the line where that shows.
    public struct SyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
        /// The line where the text stops being CSV, from 1.
        public var line: Int
        /// What is wrong there.
        public var reason: String

        /// A syntax error on `line`.
        public init(line: Int, reason: String) {
            self.line = line
            self.reason = reason
        }

        /// The line and the reason, as a person reads them.
        public var description: String { "line \(line): \(reason)" }
    }

    /// How much one text may hold.
    public struct Limits: Sendable {
        /// The most records, the header included.
        public var records: Int
        /// The most fields in one record.
        public var fieldsPerRecord: Int
        /// The longest field, in bytes as written (quotes undone).
        public var fieldBytes: Int

        /// Limits of `records` records (the header included), `fieldsPerRecord` fields and `fieldBytes` bytes a field.
        public init(records: Int, fieldsPerRecord: Int, fieldBytes: Int) {
            self.records = records
            self.fieldsPerRecord = fieldsPerRecord
            self.fieldBytes = fieldBytes
        }
    }

    /// The records of `bytes`; blank lines are skipped. Fields are UTF-8 (invalid sequences read as U+FFFD).
    ///
    /// - Throws: ``SyntaxError`` for a quote inside an unquoted field, text after a closing quote, a quoted field that
    ///   never closes, or a limit exceeded.
    public static func records(_ bytes: [UInt8], limits: Limits) throws(SyntaxError) -> [Record] {
        var index = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        let separator = separator(bytes[index...])
        var records: [Record] = []
        var fields: [String] = []
        var field: [UInt8] = []
        var line = 1
        var recordLine = 1
        var quoted = false
        /// Whether the current field began with a quote (and so ends at the closing one).
        var wasQuoted = false

        func endField() throws(SyntaxError) {
            guard fields.count < limits.fieldsPerRecord else {
                throw SyntaxError(line: recordLine, reason: "a record has more than \(limits.fieldsPerRecord) fields")
            }
            fields.append(String(decoding: field, as: UTF8.self))
            field.removeAll(keepingCapacity: true)
            wasQuoted = false
        }
        func endRecord() throws(SyntaxError) {
            try endField()
            // A line with nothing on it is no record.
            if !(fields.count == 1 && fields[0].isEmpty) {
                guard records.count < limits.records else {
                    throw SyntaxError(line: recordLine, reason: "the file has more than \(limits.records) lines")
                }
                records.append(Record(line: recordLine, fields: fields))
            }
            fields.removeAll(keepingCapacity: true)
        }

        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            if quoted {
                if byte == UInt8(ascii: "\"") {
                    if index < bytes.count, bytes[index] == UInt8(ascii: "\"") {
                        field.append(byte)
                        index += 1
                    } else {
                        quoted = false
                    }
                    continue
                }
                if byte == UInt8(ascii: "\n") { line += 1 }
                field.append(byte)
            } else if byte == separator {
                try endField()
                continue
            } else if byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") {
                if byte == UInt8(ascii: "\r"), index < bytes.count, bytes[index] == UInt8(ascii: "\n") { index += 1 }
                try endRecord()
                line += 1
                recordLine = line
                continue
            } else if byte == UInt8(ascii: "\"") {
                guard field.isEmpty, !wasQuoted else {
                    throw SyntaxError(
                        line: line, reason: "a quote inside a field that does not start with one; quote the whole field and double the quote")
                }
                quoted = true
                wasQuoted = true
                continue
            } else {
                guard !wasQuoted else {
                    throw SyntaxError(line: line, reason: "text after a quoted field's closing quote; a quote inside a quoted field is written twice")
                }
                field.append(byte)
            }
            guard field.count <= limits.fieldBytes else {
                throw SyntaxError(line: line, reason: "a field is longer than \(limits.fieldBytes) bytes")
            }
        }
        guard !quoted else { throw SyntaxError(line: recordLine, reason: "a quoted field is never closed") }
        if !field.isEmpty || !fields.isEmpty || wasQuoted { try endRecord() }
        return records
    }

    /// `;` when the first line has a semicolon outside quotes and no comma, otherwise `,`.
    static func separator(_ bytes: ArraySlice<UInt8>) -> UInt8 {
        var quoted = false
        var semicolon = false
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "\""): quoted.toggle()
            case UInt8(ascii: ",") where !quoted: return UInt8(ascii: ",")
            case UInt8(ascii: ";") where !quoted: semicolon = true
            case UInt8(ascii: "\n") where !quoted, UInt8(ascii: "\r") where !quoted: return semicolon ? UInt8(ascii: ";") : UInt8(ascii: ",")
            default: break
            }
        }
        return semicolon ? UInt8(ascii: ";") : UInt8(ascii: ",")
    }
}
