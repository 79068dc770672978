/// Catches localization mistakes Wallet would show as raw text: a localizable string of order.json that is almost a key
/// of the order.strings files (differs only in case), or a key of only some of them; and keys no string uses.
enum LocalizationKeyRules {
    /// `strings`: the document's localizable strings; `keys`: the keys of each `<language>.lproj` folder's order.strings.
    static func check(_ strings: [(path: String, text: String)], against keys: [String: Set<String>], walker: inout SchemaWalker) {
        guard !keys.isEmpty else { return }
        let folders = keys.keys.sorted()
        var used: Set<String> = []
        for (path, text) in strings {
            let having = folders.filter { keys[$0]!.contains(text) }
            if having.count == folders.count {
                used.insert(text)
            } else if let first = having.first {
                used.insert(text)
                let lacking = folders.filter { !having.contains($0) }.map { "\($0)/\(PackageRules.stringsFileName)" }
                walker.warning(
                    path,
                    "\"\(text)\" is a key of \(first)/\(PackageRules.stringsFileName) but not of \(lacking.joined(separator: ", ")); "
                        + "add it there, or those languages show \"\(text)\" as is"
                )
            } else if let (folder, key) = closestKey(to: text, in: keys, folders: folders) {
                walker.warning(
                    path,
                    "\"\(text)\" is not a key of \(folder)/\(PackageRules.stringsFileName); did you mean \"\(key)\"?"
                )
            }
        }
        let unused = keys.values.reduce(into: Set<String>()) { $0.formUnion($1) }.subtracting(used).sorted()
        if !unused.isEmpty, let folder = folders.first {
            walker.note(
                "\(folder)/\(PackageRules.stringsFileName)",
                "defines \(unused.count) key(s) that no string of order.json uses: \(SchemaWalker.list(unused)); remove them or use them"
            )
        }
    }

    /// A key that differs from `text` only in case, and the first folder that has it.
    private static func closestKey(to text: String, in keys: [String: Set<String>], folders: [String]) -> (String, String)? {
        let lowered = text.lowercased()
        for folder in folders {
            if let key = keys[folder]!.sorted().first(where: { $0.lowercased() == lowered }) { return (folder, key) }
        }
        return nil
    }
}
