// libFuzzer: -max_len=8192
import OrderModel

// order.strings files from merchant packages. Parsed entries written back as UTF-8 and as UTF-16 must parse to
// the same entries.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard let entries = try? StringsFile.parse(Array(UnsafeBufferPointer(start: data, count: size))) else { return 0 }
    // Escapes per scalar: a quote followed by a combining mark is one Character but still a quote to the parser.
    func quoted(_ text: String) -> String {
        var result = String.UnicodeScalarView(["\""])
        for scalar in text.unicodeScalars {
            if scalar == "\"" || scalar == "\\" { result.append("\\") }
            result.append(scalar)
        }
        result.append("\"")
        return String(result)
    }
    let text = entries.map { "\(quoted($0.key)) = \(quoted($0.value));\n" }.joined()
    precondition((try? StringsFile.parse(Array(text.utf8))) == entries, "entries do not round-trip through UTF-8")
    let utf16: [UInt8] = [0xFF, 0xFE] + text.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
    precondition((try? StringsFile.parse(utf16)) == entries, "entries do not round-trip through UTF-16")
    return 0
}
