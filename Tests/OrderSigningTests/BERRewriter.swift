/// Re-encodes the outer layers of a DER PKCS#12 file as BER, the way macOS Keychain exports look:
/// indefinite lengths for the PFX, the authSafe ContentInfo and its `[0]`, and the authSafe
/// OCTET STRING split into a constructed string of chunks. The MAC stays valid because it covers
/// only the OCTET STRING's content.
enum BERRewriter {
    struct Element {
        var tag: UInt8
        var content: ArraySlice<UInt8>
        var encoded: ArraySlice<UInt8>
    }

    enum Failure: Error { case malformed }

    static func indefiniteLengthPFX(_ der: [UInt8]) throws -> [UInt8] {
        let pfx = try elements(der[...])
        guard pfx.count == 1, pfx[0].tag == 0x30 else { throw Failure.malformed }
        let parts = try elements(pfx[0].content)
        guard parts.count == 3 else { throw Failure.malformed }
        let authSafe = try elements(parts[1].content)
        guard authSafe.count == 2 else { throw Failure.malformed }
        let wrapped = try elements(authSafe[1].content)
        guard wrapped.count == 1, wrapped[0].tag == 0x04 else { throw Failure.malformed }

        var chunks: [UInt8] = [0x24, 0x80]
        var rest = wrapped[0].content
        while !rest.isEmpty {
            let chunk = rest.prefix(100)
            chunks += [0x04] + length(chunk.count) + chunk
            rest = rest.dropFirst(chunk.count)
        }
        chunks += [0, 0]
        let contentInfo = [0x30, 0x80] + Array(authSafe[0].encoded) + [0xA0, 0x80] + chunks + [0, 0, 0, 0]
        return [0x30, 0x80] + Array(parts[0].encoded) + contentInfo + Array(parts[2].encoded) + [0, 0]
    }

    private static func length(_ count: Int) -> [UInt8] {
        count < 0x80 ? [UInt8(count)] : [0x81, UInt8(count)]
    }

    private static func elements(_ bytes: ArraySlice<UInt8>) throws -> [Element] {
        var result: [Element] = []
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let start = index
            let tag = bytes[index]
            index += 1
            guard index < bytes.endIndex else { throw Failure.malformed }
            var count = Int(bytes[index])
            index += 1
            if count & 0x80 != 0 {
                let octets = count & 0x7F
                count = 0
                for _ in 0..<octets {
                    guard index < bytes.endIndex else { throw Failure.malformed }
                    count = count << 8 | Int(bytes[index])
                    index += 1
                }
            }
            guard index + count <= bytes.endIndex else { throw Failure.malformed }
            result.append(Element(tag: tag, content: bytes[index..<index + count], encoded: bytes[start..<index + count]))
            index += count
        }
        return result
    }
}
