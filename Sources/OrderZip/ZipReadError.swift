/// A rule an archive broke, naming the entry where there is one.
public enum ZipReadError: Error, Sendable, Hashable, CustomStringConvertible {
    /// No end-of-central-directory record: not a zip, or cut off at the end.
    case notAnArchive
    /// The archive's structure is inconsistent (`reason` says where); it cannot be read safely.
    case malformed(reason: String)
    /// The archive spans several disks or needs zip64; neither occurs in order packages.
    case unsupportedFormat(reason: String)
    /// The central directory lists more entries than ``ZipReadLimits/maxEntryCount``.
    case tooManyEntries(count: Int, limit: Int)
    /// The name is empty, not UTF-8, or has an empty, `.` or NUL-containing component.
    case invalidName(entry: String)
    /// The name starts with `/` or a drive letter.
    case absolutePath(entry: String)
    /// The name has a `..` component, which could escape the extraction directory.
    case parentDirectoryComponent(entry: String)
    /// The name has a backslash, which some tools read as a directory separator.
    case backslashInName(entry: String)
    /// Another entry has the same name; which one a reader keeps would be undefined.
    case duplicateName(entry: String)
    /// Another entry's name differs only by case (or Unicode normalization): on case-insensitive file systems (macOS,
    /// Windows) the two are one file, so which one survives extraction would depend on the machine.
    case caseInsensitiveDuplicate(entry: String, other: String)
    /// The entry is encrypted.
    case encrypted(entry: String)
    /// The entry uses a compression method other than stored (0) or deflate (8).
    case unsupportedMethod(entry: String, method: UInt16)
    /// The local header disagrees with the central directory (`field` says which value).
    case headerMismatch(entry: String, field: String)
    /// The declared `field` size disagrees with the data actually present.
    case sizeMismatch(entry: String, field: String, declared: Int, actual: Int)
    /// The CRC-32 of the decompressed data differs from the declared one.
    case checksumMismatch(entry: String, declared: UInt32, actual: UInt32)
    /// The deflate stream is corrupt or ends early.
    case corruptData(entry: String, reason: String)
    /// The entry expands beyond ``ZipReadLimits/maxEntrySize``.
    case entryTooLarge(entry: String, size: Int, limit: Int)
    /// The entries together expand beyond ``ZipReadLimits/maxTotalSize``.
    case archiveTooLarge(size: Int, limit: Int)

    /// The entry the rule concerns, nil for archive-wide problems.
    public var entry: String? {
        switch self {
        case .notAnArchive, .malformed, .unsupportedFormat, .tooManyEntries, .archiveTooLarge:
            nil
        case .invalidName(let entry), .absolutePath(let entry), .parentDirectoryComponent(let entry),
            .backslashInName(let entry), .duplicateName(let entry), .caseInsensitiveDuplicate(let entry, _), .encrypted(let entry),
            .unsupportedMethod(let entry, _), .headerMismatch(let entry, _), .sizeMismatch(let entry, _, _, _),
            .checksumMismatch(let entry, _, _), .corruptData(let entry, _), .entryTooLarge(let entry, _, _):
            entry
        }
    }

    /// What is wrong and, where it helps, how to fix it.
    public var description: String {
        switch self {
        case .notAnArchive:
            "not a zip archive: no end-of-central-directory record (the file is truncated or not a zip)"
        case .malformed(let reason):
            "malformed zip archive: \(reason); re-create the archive with a standard zip tool"
        case .unsupportedFormat(let reason):
            "unsupported zip format: \(reason); write a single-disk archive without zip64"
        case .tooManyEntries(let count, let limit):
            "the archive lists \(count) entries, more than the limit of \(limit)"
        case .invalidName(let entry):
            "entry '\(entry)': the name is empty, not UTF-8, or has an empty, '.' or NUL component"
        case .absolutePath(let entry):
            "entry '\(entry)': absolute paths are not allowed; store paths relative to the package root"
        case .parentDirectoryComponent(let entry):
            "entry '\(entry)': '..' components are not allowed (path traversal)"
        case .backslashInName(let entry):
            "entry '\(entry)': backslashes are not allowed; separate directories with '/'"
        case .duplicateName(let entry):
            "entry '\(entry)' appears more than once; every path must be unique"
        case .caseInsensitiveDuplicate(let entry, let other):
            "entry '\(entry)' differs from '\(other)' only by case, so the two collide on case-insensitive file systems; rename one"
        case .encrypted(let entry):
            "entry '\(entry)' is encrypted; packages must not be encrypted"
        case .unsupportedMethod(let entry, let method):
            "entry '\(entry)' uses compression method \(method); only stored (0) and deflate (8) are supported"
        case .headerMismatch(let entry, let field):
            "entry '\(entry)': the local header's \(field) differs from the central directory"
        case .sizeMismatch(let entry, let field, let declared, let actual):
            "entry '\(entry)': declared \(field) size \(declared) but the data has \(actual) bytes"
        case .checksumMismatch(let entry, let declared, let actual):
            "entry '\(entry)': CRC-32 is \(hex(actual)) but the archive declares \(hex(declared)) (corrupted data)"
        case .corruptData(let entry, let reason):
            "entry '\(entry)': the compressed data is corrupt (\(reason))"
        case .entryTooLarge(let entry, let size, let limit):
            "entry '\(entry)' expands to \(size) bytes, more than the per-entry limit of \(limit)"
        case .archiveTooLarge(let size, let limit):
            "the entries expand to at least \(size) bytes, more than the limit of \(limit) (possible zip bomb)"
        }
    }
}

private func hex(_ value: UInt32) -> String {
    let digits = String(value, radix: 16)
    return "0x" + String(repeating: "0", count: 8 - digits.count) + digits
}
