import CZlib

/// Thin wrappers over system zlib: CRC-32 and raw (headerless) deflate/inflate as zip uses them.
enum Zlib {
    /// Raw deflate (negative window bits), no zlib header, as zip stores it. Inflate accepts any window size.
    private static let rawWindowBits: Int32 = -15

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        bytes.withUnsafeBufferPointer { buffer in
            var crc: UInt = 0
            var offset = 0
            // zlib takes a 32-bit length; walk larger buffers in chunks.
            while offset < buffer.count {
                let chunk = min(buffer.count - offset, Int(Int32.max))
                crc = CZlib.crc32(crc, buffer.baseAddress! + offset, UInt32(chunk))
                offset += chunk
            }
            return UInt32(truncatingIfNeeded: crc)
        }
    }

    /// Compresses `bytes` in one call into a buffer sized by `deflateBound`.
    static func deflate(_ bytes: [UInt8], level: Int32) throws(ZipWriteError) -> [UInt8] {
        var stream = z_stream()
        var status = deflateInit2_(
            &stream, level, Z_DEFLATED, -windowBits(forInputSize: bytes.count), memoryLevel(forInputSize: bytes.count),
            Z_DEFAULT_STRATEGY,
            zlibVersion(), Int32(MemoryLayout<z_stream>.size)
        )
        guard status == Z_OK else { throw .compressionFailed(status: status) }
        defer { deflateEnd(&stream) }
        let bound = Int(deflateBound(&stream, UInt(bytes.count)))
        var output = [UInt8](repeating: 0, count: bound)
        var produced = 0
        bytes.withUnsafeBufferPointer { input in
            output.withUnsafeMutableBufferPointer { out in
                stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
                stream.avail_in = UInt32(input.count)
                stream.next_out = out.baseAddress
                stream.avail_out = UInt32(out.count)
                status = CZlib.deflate(&stream, Z_FINISH)
                produced = out.count - Int(stream.avail_out)
            }
        }
        guard status == Z_STREAM_END else { throw .compressionFailed(status: status) }
        output.removeLast(bound - produced)
        return output
    }

    /// The smallest window (9...15 bits) that still reaches back over the whole input: matches are found exactly
    /// as with the full 32 KB window, without allocating and touching 128 KB of window and chain buffers.
    /// zlib keeps 262 bytes of lookahead out of the usable distance.
    static func windowBits(forInputSize size: Int) -> Int32 {
        var bits: Int32 = 9
        while bits < 15 && (1 << bits) - 262 < size { bits += 1 }
        return bits
    }

    /// zlib's memLevel sizes the hash table and the symbol buffer (2^(memLevel+6) symbols). The default 8 costs
    /// ~200 KB of allocation and a 64 KB memset per stream, which dominates small inputs such as order.json;
    /// the smallest level whose buffer holds the whole input compresses a small input as well, much faster.
    static func memoryLevel(forInputSize size: Int) -> Int32 {
        var level: Int32 = 1
        while level < 8 && (1 << (level + 6)) < size { level += 1 }
        return level
    }

    enum InflateOutcome {
        case inflated([UInt8], consumed: Int)
        /// The stream holds more than `capacity` bytes.
        case exceedsCapacity
        /// The stream ended early or is corrupt; zlib's message.
        case corrupt(String)
    }

    /// Inflates a raw deflate stream, producing at most `capacity` bytes; never allocates beyond that bound.
    static func inflate(_ input: ArraySlice<UInt8>, capacity: Int) -> InflateOutcome {
        var stream = z_stream()
        guard inflateInit2_(&stream, rawWindowBits, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            return .corrupt("zlib could not start inflating")
        }
        defer { inflateEnd(&stream) }
        // One spare byte tells "exactly capacity" apart from "more than capacity".
        var output = [UInt8](repeating: 0, count: capacity + 1)
        var status: Int32 = Z_OK
        var produced = 0
        var consumed = 0
        input.withUnsafeBufferPointer { inBuffer in
            output.withUnsafeMutableBufferPointer { out in
                stream.next_in = UnsafeMutablePointer(mutating: inBuffer.baseAddress)
                stream.avail_in = UInt32(clamping: inBuffer.count)
                stream.next_out = out.baseAddress
                stream.avail_out = UInt32(clamping: out.count)
                // Z_FINISH with a large enough buffer completes in one call; loop only while zlib makes progress.
                repeat {
                    let before = stream.total_out
                    status = CZlib.inflate(&stream, Z_FINISH)
                    if stream.total_out == before && status != Z_STREAM_END { break }
                } while status == Z_OK
                produced = Int(stream.total_out)
                consumed = Int(stream.total_in)
            }
        }
        if produced > capacity { return .exceedsCapacity }
        guard status == Z_STREAM_END else {
            if let message = stream.msg { return .corrupt(String(cString: message)) }
            return .corrupt(status == Z_BUF_ERROR ? "the deflate stream ends early" : "zlib status \(status)")
        }
        output.removeLast(output.count - produced)
        return .inflated(output, consumed: consumed)
    }
}
