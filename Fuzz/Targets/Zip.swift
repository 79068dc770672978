// libFuzzer: -max_len=16384
import OrderZip

// Order packages uploaded by merchants, read with the server's limits. Files that read cleanly, written again by
// ZipWriter, must read back identical.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let archive = Array(UnsafeBufferPointer(start: data, count: size))
    let limits = ZipReadLimits.orderPackage
    let inspection = ZipReader.inspect(archive, limits: limits)
    precondition(inspection.files.count <= limits.maxEntryCount, "more entries than the limit")
    precondition(inspection.files.allSatisfy { $0.data.count <= limits.maxEntrySize }, "entry larger than the limit")
    precondition(inspection.files.reduce(0) { $0 + $1.data.count } <= limits.maxTotalSize, "archive larger than the limit")
    let files = inspection.files.filter { !$0.isDirectory }
    do {
        let entries = try files.map { file throws(ZipWriteError) in try ZipEntry(name: file.name, data: file.data, method: file.method) }
        let rewritten = try ZipReader.read(ZipWriter.archive(entries), limits: limits)
        precondition(rewritten == files, "files differ after writing and reading again")
    } catch {
        preconditionFailure("files the reader accepted cannot be written and read again: \(error)")
    }
    return 0
}
