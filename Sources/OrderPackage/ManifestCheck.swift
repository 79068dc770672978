import Foundation
import OrderModel

/// Checks manifest.json against the package's files: completeness, no extras, digest format and every hash.
enum ManifestCheck {
    static func run(manifest: [UInt8], files: [String: [UInt8]], into report: inout ProblemList) {
        let path = PackageLayout.manifest
        // The project's parser, which refuses duplicate keys: a manifest listing a file twice is ambiguous.
        guard let object = (try? JSONValue.parse(manifest))?.objectValue else {
            report.error(path, "manifest.json is not a JSON object; map each file path to its SHA-256 hex digest")
            return
        }
        for (name, value) in object.sorted(by: { $0.key < $1.key }) {
            if name == PackageLayout.manifest || name == PackageLayout.signature {
                report.error(name, "manifest.json lists '\(name)'; the manifest excludes manifest.json and signature")
                continue
            }
            guard let digest = value.stringValue else {
                report.error(name, "the manifest value for '\(name)' is not a string; use the SHA-256 lowercase hex digest")
                continue
            }
            guard let bytes = files[name] else {
                report.error(name, "manifest.json lists '\(name)' but the package has no such file; remove it or add the file")
                continue
            }
            let expected = ManifestDigest.sha256Hex(bytes)
            switch digestFormat(digest) {
            case .sha1:
                report.error(
                    name, "the manifest has a SHA-1 digest for '\(name)' as in Passes; orders need SHA-256 (64 lowercase hex)"
                )
            case .other:
                report.error(name, "the manifest value for '\(name)' is not a SHA-256 hex digest (64 lowercase hex)")
            case .sha256Uppercase:
                if digest.lowercased() == expected {
                    report.warning(name, "the SHA-256 digest of '\(name)' is uppercase; write lowercase hex")
                } else {
                    report.error(name, mismatch(name))
                }
            case .sha256:
                if digest != expected { report.error(name, mismatch(name)) }
            }
        }
        for name in files.keys.sorted()
        where name != PackageLayout.manifest && name != PackageLayout.signature && object[name] == nil {
            report.error(
                name, "'\(name)' is not listed in manifest.json; every file, subdirectories included, must be listed"
            )
        }
    }

    private static func mismatch(_ name: String) -> String {
        "the SHA-256 of '\(name)' does not match manifest.json; the file changed after the manifest was made, rebuild the package"
    }

    private enum Format {
        case sha256, sha256Uppercase, sha1, other
    }

    private static func digestFormat(_ digest: String) -> Format {
        let bytes = Array(digest.utf8)
        let lowerHex = bytes.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
        let anyHex = bytes.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0 | 0x20) }
        switch (bytes.count, lowerHex, anyHex) {
        case (64, true, _): return .sha256
        case (64, false, true): return .sha256Uppercase
        case (40, _, true): return .sha1
        default: return .other
        }
    }
}
