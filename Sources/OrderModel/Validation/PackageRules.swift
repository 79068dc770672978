/// Rules about the files beside order.json: referenced files, localizations, file types and size.
enum PackageRules {
    static let stringsFileName = "order.strings"

    static func check(
        _ package: PackageContents,
        references: [(path: String, name: String, kind: FileKind)],
        walker: inout SchemaWalker
    ) {
        let totalSize = package.files.values.reduce(0) { $0 + $1.count }
        if totalSize >= OrderValidator.maximumPackageSize {
            walker.error("", "the package holds \(totalSize) bytes; Wallet requires less than 5 MB (5,242,880 bytes): shrink or drop images")
        }

        var topLevel: Set<String> = []
        var localized: [String: Set<String>] = [:]
        for path in package.files.keys.sorted() {
            let components = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
            if components.last?.hasPrefix(".") == true {
                walker.warning(path, "hidden file; remove it from the package source")
            } else if components.count == 1 {
                topLevel.insert(path)
            } else if components.count == 2, components[0].hasSuffix(".lproj") {
                localized[components[0], default: []].insert(components[1])
            } else {
                walker.warning(path, "Wallet only reads files at the top level and directly inside <language>.lproj folders")
            }
        }
        topLevel.remove("order.json")

        let stringsKeys = checkLocalizationFolders(localized, package: package, walker: &walker)
        LocalizationKeyRules.check(walker.localizableStrings, against: stringsKeys, walker: &walker)
        var referenced: Set<String> = []
        for reference in references {
            referenced.insert(reference.name)
            checkReference(reference, package: package, topLevel: topLevel, localized: localized, walker: &walker)
        }
        for name in topLevel.union(localized.values.joined()).sorted() where name != stringsFileName && !name.hasPrefix(".") {
            if !referenced.contains(name), !referenced.contains(PackageFileName.unscaled(name)) {
                walker.warning(name, "not referenced by order.json; Wallet ignores it, so it only adds to the package size")
            }
        }
    }

    private static func checkLocalizationFolders(
        _ localized: [String: Set<String>],
        package: PackageContents,
        walker: inout SchemaWalker
    ) -> [String: Set<String>] {
        var stringsKeys: [String: Set<String>] = [:]
        for folder in localized.keys.sorted() {
            let language = String(folder.dropLast(".lproj".count))
            if !isLanguageTag(language) {
                walker.error(folder, "\"\(language)\" is not a language identifier; name the folder like en.lproj, fr-CA.lproj or zh-Hans.lproj")
            }
            let stringsPath = "\(folder)/\(stringsFileName)"
            guard let bytes = package.files[stringsPath] else {
                walker.error(stringsPath, "missing; every .lproj folder needs an order.strings file with the same keys")
                continue
            }
            do {
                stringsKeys[folder] = Set(try StringsFile.parse(bytes).keys)
            } catch {
                walker.error(stringsPath, "cannot be read: \(error)")
            }
        }
        let allKeys = stringsKeys.values.reduce(into: Set<String>()) { $0.formUnion($1) }
        for (folder, keys) in stringsKeys.sorted(by: { $0.key < $1.key }) where keys != allKeys {
            let missing = allKeys.subtracting(keys).sorted()
            walker.error(
                "\(folder)/\(stringsFileName)",
                "lacks \(missing.count) key(s) that other localizations have: \(SchemaWalker.list(missing)); every order.strings must have the same keys"
            )
        }
        let allImages = localized.values.reduce(into: Set<String>()) { $0.formUnion($1) }.subtracting([stringsFileName])
        for (folder, files) in localized.sorted(by: { $0.key < $1.key }) {
            let missing = allImages.subtracting(files).sorted()
            if !missing.isEmpty {
                walker.error(
                    folder,
                    "lacks localized file(s) \(SchemaWalker.list(missing)) that other .lproj folders have; every localization needs every localized image at the same resolutions"
                )
            }
        }
        return stringsKeys
    }

    private static func checkReference(
        _ reference: (path: String, name: String, kind: FileKind),
        package: PackageContents,
        topLevel: Set<String>,
        localized: [String: Set<String>],
        walker: inout SchemaWalker
    ) {
        let name = reference.name
        if name.contains("/") || name == "order.json" || name == "manifest.json" || name == "signature" {
            return walker.error(
                reference.path, "\"\(name)\" must be the plain name of a file at the top level of the package or in its .lproj folders")
        }
        let folders = localized.keys.sorted()
        let path: String
        if topLevel.contains(name) {
            path = name
        } else if let folder = folders.first(where: { localized[$0]!.contains(name) }) {
            path = "\(folder)/\(name)"
        } else {
            return walker.error(
                reference.path, "names \"\(name)\", but the package has no such file; add \(name) at the top level or to every .lproj folder")
        }
        guard let bytes = package.files[path] else { return }
        let detected = FileType.detect(bytes)
        let allowed: [FileType] = reference.kind == .image ? [.png, .jpeg] : [.pdf, .png, .jpeg]
        if !allowed.contains(detected) {
            walker.error(
                reference.path, "\"\(name)\" is \(detected.description), but this key needs \(allowed.map(\.description).joined(separator: " or "))")
        } else if !detected.extensions.contains(where: { name.lowercased().hasSuffix(".\($0)") }) {
            walker.warning(
                reference.path,
                "\"\(name)\" holds \(detected.description) data, but its extension does not say so; name it .\(detected.extensions[0])")
        }
    }

    /// BCP 47-style folder names: a 2–3 letter language, then optional script (4 letters) and region (2 letters or 3
    /// digits) joined by `-` or `_`.
    static func isLanguageTag(_ text: String) -> Bool {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false).flatMap {
            $0.split(separator: "_", omittingEmptySubsequences: false)
        }
        guard let language = parts.first, (2...3).contains(language.count), language.allSatisfy({ $0.isASCII && $0.isLowercase }) else {
            return false
        }
        return parts.dropFirst().allSatisfy { part in
            (part.count == 4 && part.allSatisfy { $0.isASCII && $0.isLetter })
                || (part.count == 2 && part.allSatisfy { $0.isASCII && $0.isLetter })
                || (part.count == 3 && part.allSatisfy { $0.isASCII && $0.isNumber })
        }
    }
}

/// What a file's first bytes say it is.
public enum FileType: Sendable, Equatable {
    /// A PNG image.
    case png
    /// A JPEG image.
    case jpeg
    /// A PDF document.
    case pdf
    /// Anything else.
    case other

    /// The type the signature bytes at the start of `bytes` announce; the rest of the file is not checked.
    public static func detect(_ bytes: [UInt8]) -> FileType {
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if bytes.starts(with: [0xFF, 0xD8, 0xFF]) { return .jpeg }
        if bytes.starts(with: Array("%PDF-".utf8)) { return .pdf }
        return .other
    }

    /// The type as a phrase for messages (`a PNG image`).
    public var description: String {
        switch self {
        case .png: "a PNG image"
        case .jpeg: "a JPEG image"
        case .pdf: "a PDF document"
        case .other: "neither PNG, JPEG nor PDF"
        }
    }

    /// File name extensions for the type, preferred first; empty for ``other``.
    public var extensions: [String] {
        switch self {
        case .png: ["png"]
        case .jpeg: ["jpg", "jpeg"]
        case .pdf: ["pdf"]
        case .other: []
        }
    }
}

extension FileType {
    /// The media type of the detected content, `nil` for ``other``.
    public var mediaType: String? {
        switch self {
        case .png: "image/png"
        case .jpeg: "image/jpeg"
        case .pdf: "application/pdf"
        case .other: nil
        }
    }
}

/// Names of files inside an order package.
public enum PackageFileName {
    /// `logo@2x.png` → `logo.png`: scaled variants belong to the image they scale.
    public static func unscaled(_ name: String) -> String {
        guard let dot = name.lastIndex(of: ".") else { return name }
        let stem = name[..<dot]
        for scale in ["@2x", "@3x"] where stem.hasSuffix(scale) {
            return String(stem.dropLast(scale.count)) + name[dot...]
        }
        return name
    }
}
