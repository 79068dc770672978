import ArgumentParser
import Foundation
import OrderModel
import OrderPackage

struct ValidateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Validate an order as POST /api/v1/orders would take it, or a package source directory, against the full schema.",
        discussion: """
            A file is judged as the body of POST /api/v1/orders: in Apple's vocabulary or the payment providers' simplified one \
            (translated with the defaults given as options), with what creation fills filled in (identifiers, token, dates, \
            web service URL) and each filled field named. --strict judges the file as a package's complete order.json instead. \
            A directory (order.json, images, *.lproj) is always a package source, judged as it is.
            """)

    @Argument(help: "order.json or a request body, or a directory holding order.json and its files")
    var path: String

    @Flag(help: "Accept an http:// webServiceURL with a warning (local development)")
    var allowHTTP = false

    @Flag(help: "Judge the file as a package's order.json: nothing is filled or translated")
    var strict = false

    @Option(help: "The order type a body without orderTypeIdentifier gets (on the server, the merchant's default order type)")
    var orderTypeIdentifier = "order.com.example.default"

    @Option(help: "The server's web service URL, for a body without one")
    var webServiceURL = "https://localhost/wallet"

    @Option(help: "Order default: orderManagementURL of an order that names none, as on the server")
    var orderManagementURL: String?

    @Option(help: "Order default: fulfillmentType of fulfillments that name none (shipping or pickup)")
    var fulfillmentType: String?

    @Option(help: "Order default: payment.status of a total given without one (e.g. paid)")
    var paymentStatus: String?

    func run() async throws {
        let options = ValidationOptions(allowInsecureWebServiceURL: allowHTTP || webServiceURL.hasPrefix("http://"))
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { throw usageError("no such file or directory: \(path)") }
        var report: ValidationReport
        if isDirectory.boolValue {
            let source: PackageSource
            do {
                source = try PackageSource(directory: URL(fileURLWithPath: path))
            } catch {
                throw usageError("\(error)")
            }
            var files = source.assets
            files["order.json"] = source.orderJSON
            report = OrderValidator.validate(orderJSON: source.orderJSON, package: PackageContents(files: files), options: options)
        } else {
            guard let data = FileManager.default.contents(atPath: path) else { throw usageError("cannot read \(path)") }
            report = strict ? OrderValidator.validate(orderJSON: Array(data), options: options) : asCreated(Array(data), options: options)
        }
        reportProblems(report.problems.map(\.description))
        guard report.isValid else { throw ExitCode(1) }
        print("valid (\(report.warnings.count) warning\(report.warnings.count == 1 ? "" : "s"))")
    }

    /// The report on the order a create would store from this body: translated, then filled as the server fills it.
    func asCreated(_ bytes: [UInt8], options: ValidationOptions) -> ValidationReport {
        // A body that is not a JSON object gets the validator's own words for what is wrong with it.
        guard let parsed = try? JSONValue.parse(bytes),
            let (identified, generated) = OrderCreation.identified(parsed, orderIdentifier: { UUID().uuidString.lowercased() })
        else {
            return OrderValidator.validate(orderJSON: bytes, options: options)
        }
        let defaults = ProviderVocabulary.Defaults(
            orderManagementURL: orderManagementURL, fulfillmentType: fulfillmentType, paymentStatus: paymentStatus)
        let translation = ProviderVocabulary.translate(identified, defaults: defaults)
        guard translation.errors.isEmpty, let content = translation.document.objectValue else {
            return ValidationReport(problems: translation.errors + translation.warnings)
        }
        let (document, filled) = OrderCreation.filled(
            content, orderTypeIdentifier: orderTypeIdentifier, webServiceURL: webServiceURL, now: Date(),
            authenticationToken: { "ordertrack-validate-placeholder-token-0001" })
        let report = OrderValidator.validate(document: .object(document), options: options)
        let named = (generated ? ["orderIdentifier"] : []) + filled
        let note =
            named.isEmpty
            ? []
            : [
                ValidationProblem(
                    path: "",
                    message: "filled as POST /api/v1/orders fills them: \(named.joined(separator: ", ")) (--strict to judge the file as it is)",
                    severity: .note)
            ]
        return ValidationReport(problems: translation.warnings + note + report.problems)
    }
}

struct SchemaCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schema", abstract: "Print the JSON Schema (draft 2020-12) of order.json that the validator enforces.")

    func run() throws {
        print(OrderSchema.jsonSchema().serializedString(pretty: true))
    }
}
