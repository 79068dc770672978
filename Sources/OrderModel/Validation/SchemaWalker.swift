import Foundation

/// Walks a JSON tree along a schema, collecting every violation instead of stopping at the first.
struct SchemaWalker {
    var problems: [ValidationProblem] = []
    /// File names referenced from the document, with where and what kind.
    var fileReferences: [(path: String, name: String, kind: FileKind)] = []
    /// Localizable strings of the document with their paths: each may be a key of the packages' order.strings.
    var localizableStrings: [(path: String, text: String)] = []
    let options: ValidationOptions

    init(options: ValidationOptions) {
        self.options = options
    }

    mutating func error(_ path: String, _ message: String) {
        problems.append(ValidationProblem(path: path, message: message))
    }

    mutating func warning(_ path: String, _ message: String) {
        problems.append(ValidationProblem(path: path, message: message, severity: .warning))
    }

    mutating func note(_ path: String, _ message: String) {
        problems.append(ValidationProblem(path: path, message: message, severity: .note))
    }

    /// The JSON number literal a string holds (`"2"`, `"0.5"`, `"-3"`), or `nil`: plain decimals only, at most 32
    /// characters, so nothing Swift's `Double` also reads (`"0x10"`, `"inf"`, `" 2"`) slips through.
    static func numberInString(_ text: String) -> String? {
        guard (1...32).contains(text.utf8.count), text.wholeMatch(of: /-?(0|[1-9][0-9]*)(\.[0-9]+)?/) != nil else { return nil }
        return text
    }

    static func join(_ path: String, _ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    mutating func check(_ value: JSONValue, against node: SchemaNode, at path: String) {
        switch node {
        case .string(let format):
            guard let text = value.stringValue else { return mismatch(value, expected: "a string", at: path) }
            checkString(text, format: format, at: path)
        case .number(let minimum, let maximum):
            guard let literal = value.numberLiteral ?? value.stringValue.flatMap(Self.numberInString) else {
                return mismatch(value, expected: "a number", at: path)
            }
            if value.stringValue != nil {
                // Apple's own localization example writes "quantity": "2": accepted, and stored as a number.
                warning(
                    path, "is the string \"\(literal)\"; Wallet's schema has a number here, so it was stored as \(literal): write it without quotes")
            }
            let number = Double(literal) ?? .infinity
            if let minimum, !(number >= minimum) { error(path, "must be at least \(Self.format(minimum)), but is \(literal)") }
            if let maximum, !(number <= maximum) { error(path, "must be at most \(Self.format(maximum)), but is \(literal)") }
        case .integer(let minimum, let maximum):
            guard let literal = value.numberLiteral else {
                if let text = value.stringValue, Int(text) != nil {
                    return error(path, "must be a JSON number, not a string; write \(text) without quotes")
                }
                return mismatch(value, expected: "a whole number", at: path)
            }
            // The typed model holds an Int: a fraction, an exponent or more than 64 bits would not decode.
            guard let number = Int(literal) else {
                return error(path, "must be a whole number (no fraction or exponent, at most 64 bits), but is \(literal)")
            }
            if let minimum, number < minimum { error(path, "must be at least \(minimum), but is \(literal)") }
            if let maximum, number > maximum { error(path, "must be at most \(maximum), but is \(literal)") }
        case .boolean:
            if value.boolValue == nil { mismatch(value, expected: "true or false", at: path) }
        case .enumeration(let allowed):
            guard let text = value.stringValue else {
                return mismatch(value, expected: "one of \(Self.list(allowed))", at: path)
            }
            checkEnumeration(text, allowed: allowed, at: path)
        case .constant(let expected):
            if value != expected {
                error(path, "must be \(expected.serializedString()), but is \(value.serializedString())")
            }
        case .array(let element, let uniqueKey, let maximumCount):
            guard let elements = value.arrayValue else { return mismatch(value, expected: "an array", at: path) }
            // Elements beyond the cap are not checked: thousands of findings about them would only bury this one.
            guard elements.count <= maximumCount else {
                return error(path, "has \(elements.count) elements, but at most \(maximumCount) are allowed")
            }
            var seen: [String: Int] = [:]
            for (position, item) in elements.enumerated() {
                let itemPath = "\(path)[\(position)]"
                check(item, against: element, at: itemPath)
                guard let uniqueKey, let identifier = item[uniqueKey]?.stringValue else { continue }
                if let first = seen[identifier] {
                    error(Self.join(itemPath, uniqueKey), "\"\(identifier)\" is already used by \(path)[\(first)]; each \(uniqueKey) must be unique")
                } else {
                    seen[identifier] = position
                }
            }
        case .object(let schema):
            check(value, object: schema, at: path)
        case .tagged(let discriminator, let variants):
            guard let members = value.objectValue else { return mismatch(value, expected: "an object", at: path) }
            let tagPath = Self.join(path, discriminator)
            guard let tagValue = members[discriminator] else {
                error(tagPath, "missing required key; set it to one of \(Self.list(variants.keys.sorted()))")
                return checkSharedMembers(members, of: variants, except: discriminator, at: path)
            }
            guard let tag = tagValue.stringValue, let variant = variants[tag] else {
                checkEnumeration(tagValue.stringValue ?? tagValue.serializedString(), allowed: variants.keys.sorted(), at: tagPath)
                return checkSharedMembers(members, of: variants, except: discriminator, at: path)
            }
            check(value, object: variant, at: path)
        case .amount:
            checkAmount(value, at: path)
        }
    }

    /// Without a valid tag the variant is unknown, yet the members every variant has are still checked, so one report
    /// names every problem (a fulfillment's misspelt status along with its missing `fulfillmentType`). A value passes
    /// if some variant accepts it; otherwise the first variant's findings are reported, or for a choice of strings the
    /// choices of all variants.
    mutating func checkSharedMembers(_ members: [String: JSONValue], of variants: [String: ObjectSchema], except tag: String, at path: String) {
        let ordered = variants.keys.sorted().compactMap { variants[$0] }
        for key in members.keys.sorted() where key != tag {
            let nodes = ordered.compactMap { $0.property(named: key)?.node }
            guard nodes.count == ordered.count, let member = members[key], member != .null else { continue }
            let memberPath = Self.join(path, key)
            let attempts = nodes.map { node in
                var attempt = SchemaWalker(options: options)
                attempt.check(member, against: node, at: memberPath)
                return attempt
            }
            if let accepted = attempts.first(where: { !$0.problems.contains { $0.severity == .error } }) {
                adopt(accepted)
                continue
            }
            let choices = nodes.compactMap { node -> [String]? in
                if case .enumeration(let allowed) = node { return allowed }
                return nil
            }
            if choices.count == nodes.count, let text = member.stringValue {
                var union: [String] = []
                for choice in choices.joined() where !union.contains(choice) { union.append(choice) }
                checkEnumeration(text, allowed: union, at: memberPath)
            } else if let first = attempts.first {
                adopt(first)
            }
        }
    }

    /// Takes on what a walk of one member found.
    mutating func adopt(_ other: SchemaWalker) {
        problems += other.problems
        fileReferences += other.fileReferences
        localizableStrings += other.localizableStrings
    }

    mutating func check(_ value: JSONValue, object schema: ObjectSchema, at path: String) {
        guard let members = value.objectValue else { return mismatch(value, expected: "an object (\(schema.name))", at: path) }
        for property in schema.properties where property.isRequired && members[property.name] == nil {
            error(Self.join(path, property.name), "missing required key; \(schema.name) requires \(property.name)")
        }
        for key in members.keys.sorted() {
            let memberPath = Self.join(path, key)
            guard let property = schema.property(named: key) else {
                warning(memberPath, "unknown key for \(schema.name); it is kept as is, but Wallet may ignore it (check the spelling)")
                continue
            }
            let member = members[key]!
            if member == .null {
                error(memberPath, "must not be null; omit the key instead")
                continue
            }
            check(member, against: property.node, at: memberPath)
        }
        if schema.name == OrderSchema.currencyAmount.name { checkPrecision(members, at: path) }
    }

    mutating func mismatch(_ value: JSONValue, expected: String, at path: String) {
        error(path, "must be \(expected), but is \(value.kindName)")
    }

    mutating func checkEnumeration(_ text: String, allowed: [String], at path: String) {
        guard !allowed.contains(text) else { return }
        if let match = allowed.first(where: { $0.lowercased() == text.lowercased() }) {
            error(path, "\"\(text)\" is not allowed; values are case-sensitive: use \"\(match)\"")
        } else {
            error(path, "\"\(text)\" is not allowed; use one of \(Self.list(allowed))")
        }
    }

    mutating func checkString(_ text: String, format: StringFormat, at path: String) {
        switch format {
        case .text(let minimumLength):
            if text.count < minimumLength {
                error(path, minimumLength == 1 ? "must not be empty" : "must be at least \(minimumLength) characters, but has \(text.count)")
            }
        case .localizable:
            if text.isEmpty { error(path, "must not be empty") }
            localizableStrings.append((path, text))
        case .dateTime:
            if DateTimeFormat.parseRFC3339(text) == nil {
                error(path, "\"\(text)\" is not an RFC 3339 date-time; write it like 2024-05-01T14:30:00Z or 2024-05-01T16:30:00+02:00")
            }
        case .duration:
            if !DateTimeFormat.isISO8601Duration(text) {
                error(path, "\"\(text)\" is not an ISO 8601 duration; write it like PT30M or P0Y0M0DT2H0M0S")
            }
        case .uri:
            if !TextFormat.isAbsoluteURI(text) {
                error(
                    path,
                    "\"\(text)\" is not an absolute URI; write it like https://example.com/orders/1 (spaces and other special characters must be %-encoded)"
                )
            }
        case .httpsURI:
            if !TextFormat.isAbsoluteURI(text) {
                error(path, "\"\(text)\" is not an absolute URI; write it like https://example.com/wallet")
            } else if TextFormat.scheme(of: text) != "https" || !text.hasPrefix("https://") {
                if options.allowInsecureWebServiceURL, text.hasPrefix("http://") {
                    warning(path, "Wallet only calls https:// web services; \(text) works for local development only")
                } else {
                    error(path, "must start with https:// (Wallet only calls web services over HTTPS)")
                }
            }
        case .email:
            if !TextFormat.isEmailAddress(text) { error(path, "\"\(text)\" is not an e-mail address") }
        case .currencyCode:
            if !ISOCodes.currencies.contains(text) {
                let upper = text.uppercased()
                error(
                    path,
                    ISOCodes.currencies.contains(upper)
                        ? "currency codes are upper case: use \"\(upper)\""
                        : "\"\(text)\" is not an ISO 4217 currency code such as USD, EUR or JPY")
            }
        case .countryCode:
            if !ISOCodes.countries.contains(text) {
                let upper = text.uppercased()
                error(
                    path,
                    ISOCodes.countries.contains(upper)
                        ? "country codes are upper case: use \"\(upper)\""
                        : "\"\(text)\" is not an ISO 3166-1 alpha-2 country code such as US, FR or JP")
            }
        case .fileReference(let kind):
            if text.isEmpty {
                error(path, "must name a file in the package")
            } else {
                fileReferences.append((path, text, kind))
            }
        }
    }

    mutating func checkAmount(_ value: JSONValue, at path: String) {
        if let length = Self.oversizedAmountLength(value) {
            return error(
                path,
                "has \(length) characters, but an amount may have at most \(Amount.maximumLength) (sign, digits and decimal point); write it like 12.50"
            )
        }
        switch value {
        case .number(let literal):
            if literal.contains("e") || literal.contains("E") {
                error(path, "write the amount in plain decimal notation, not with an exponent (\(literal))")
            }
        case .string(let text):
            if Amount.decimalText(text) == nil {
                error(path, "\"\(text)\" is not a decimal amount; write it like 12.50")
            }
        default:
            mismatch(value, expected: "a number such as 12.50", at: path)
        }
        if let text = Amount.literal(of: value), Amount.exceedsMaximumMagnitude(text) {
            error(
                path,
                "\(text) is too large: an amount may be at most \(Amount.maximumMagnitude) either way (its thousandths must fit in a signed 64-bit integer)"
            )
        }
    }

    mutating func checkPrecision(_ members: [String: JSONValue], at path: String) {
        guard let currency = members["currency"]?.stringValue, ISOCodes.currencies.contains(currency),
            let amount = members["amount"], Self.oversizedAmountLength(amount) == nil,
            let text = Amount.literal(of: amount), Amount.normalized(text, currency: currency) == nil,
            let decimals = Amount.fractionDigits(text)
        else { return }
        let allowed = ISOCodes.minorUnits(of: currency)
        if decimals > allowed {
            error(Self.join(path, "amount"), "\(text) has \(decimals) decimal places, but \(currency) has \(allowed); round the amount")
        }
    }

    /// The length in bytes of an amount literal longer than ``Amount/maximumLength``, found without reading it;
    /// `nil` for every other value.
    static func oversizedAmountLength(_ value: JSONValue) -> Int? {
        guard let literal = value.numberLiteral ?? value.stringValue, literal.utf8.count > Amount.maximumLength else { return nil }
        return literal.utf8.count
    }

    static func list(_ values: [String]) -> String {
        values.map { "\"\($0)\"" }.joined(separator: ", ")
    }

    static func format(_ number: Double) -> String {
        number == number.rounded() ? String(Int(number)) : String(number)
    }
}
