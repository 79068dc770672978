/// How an entry's bytes are stored in the archive.
public enum ZipMethod: UInt16, Sendable, Hashable {
    /// Bytes as they are (method 0): for data that does not compress, such as PNG, JPEG and PDF.
    case stored = 0
    /// Raw deflate (method 8).
    case deflated = 8
}
