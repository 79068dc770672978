import ArgumentParser
import Foundation
import OrderModel
import OrderPackage

struct ValidateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Validate an order.json, or a package source directory (order.json, images, *.lproj), against the full schema.")

    @Argument(help: "order.json, or a directory holding order.json and its files")
    var path: String

    @Flag(help: "Accept an http:// webServiceURL with a warning (local development)")
    var allowHTTP = false

    func run() async throws {
        let options = ValidationOptions(allowInsecureWebServiceURL: allowHTTP)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { throw usageError("no such file or directory: \(path)") }
        let report: ValidationReport
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
            report = OrderValidator.validate(orderJSON: Array(data), options: options)
        }
        reportProblems(report.problems.map(\.description))
        guard report.isValid else { throw ExitCode(1) }
        print("valid (\(report.warnings.count) warning\(report.warnings.count == 1 ? "" : "s"))")
    }
}

struct SchemaCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schema", abstract: "Print the JSON Schema (draft 2020-12) of order.json that the validator enforces.")

    func run() throws {
        print(OrderSchema.jsonSchema().serializedString(pretty: true))
    }
}
