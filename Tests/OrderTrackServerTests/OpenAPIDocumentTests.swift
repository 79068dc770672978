import Foundation
import OrderModel
import Testing

@testable import OrderTrackServer

/// The published OpenAPI document describes orders with the same schema the validator enforces.
@Suite struct OpenAPIDocumentTests {
    /// The order JSON Schema with its `$defs` references pointing where OpenAPI keeps shared schemas.
    func orderSchemaAsOpenAPI() throws -> [String: JSONValue] {
        let text = OrderSchema.jsonSchema().serializedString(pretty: false).replacingOccurrences(of: "#/$defs/", with: "#/components/schemas/")
        guard case .object(let schema) = try JSONValue.parse(Array(text.utf8)) else { throw OpenAPIDriftError.notAnObject("order schema") }
        return schema
    }

    func components() throws -> [String: JSONValue] {
        guard case .object(let schemas)? = try JSONValue.parse(OpenAPIDocument.bytes)["components"]?["schemas"] else {
            throw OpenAPIDriftError.notAnObject("components.schemas")
        }
        return schemas
    }

    @Test func everyOrderDefinitionMatchesTheValidatorsSchema() throws {
        let schema = try orderSchemaAsOpenAPI()
        let components = try components()
        guard case .object(let definitions)? = schema["$defs"] else { throw OpenAPIDriftError.notAnObject("$defs") }
        #expect(!definitions.isEmpty)
        for (name, definition) in definitions {
            #expect(components[name] == definition, "components.schemas.\(name) drifted from `ordertrack schema`; regenerate it")
        }
    }

    @Test func orderAndOrderContentCarryTheValidatorsProperties() throws {
        var root = try orderSchemaAsOpenAPI()
        for key in ["$defs", "$schema", "$id"] { root[key] = nil }
        let components = try components()
        guard case .object(var order)? = components["Order"] else { throw OpenAPIDriftError.notAnObject("Order") }
        order["description"] = nil
        #expect(order == root, "components.schemas.Order drifted from `ordertrack schema`")
        #expect(components["OrderContent"]?["properties"] == root["properties"], "OrderContent takes the same properties as an order")
    }
}

enum OpenAPIDriftError: Error {
    case notAnObject(String)
}
