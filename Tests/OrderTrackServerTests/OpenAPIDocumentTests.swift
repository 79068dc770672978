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

/// Every merchant API operation of the OpenAPI document states the scope it needs, and it is the scope the server
/// enforces: the document's role lists and ``RouteScopes/table`` name the same operations with the same scopes.
@Suite struct OpenAPIScopeTests {
    @Test func everyMerchantOperationStatesTheScopeTheServerEnforces() throws {
        guard case .object(let paths)? = try JSONValue.parse(OpenAPIDocument.bytes)["paths"] else { throw OpenAPIDriftError.notAnObject("paths") }
        var documented: Set<String> = []
        var operations = 0
        for (path, item) in paths {
            for method in ["get", "put", "post", "patch", "delete"] {
                guard let operation = item[method] else { continue }
                operations += 1
                let security = try #require(operation["security"]?.arrayValue, "\(method) \(path) states no security")
                guard path.hasPrefix("/api/v1/") else { continue }
                // The router's pattern for the two documented asset paths is one catch-all.
                let route = path.hasPrefix("/api/v1/assets/") ? "/api/v1/assets/**" : path
                let key = "\(method.uppercased()) \(route)"
                documented.insert(key)
                let rule = try #require(RouteScopes.table[key], "\(key) is documented but has no scope in RouteScopes")
                // One requirement per alternative of anyOf, each with the allOf scopes too.
                let expected = Set(rule.anyOf.map { Set(([$0] + rule.allOf).map(\.rawValue)) })
                for scheme in ["MerchantBearer", "MerchantBasic"] {
                    let roles = security.compactMap { $0[scheme]?.arrayValue }.map { Set($0.compactMap(\.stringValue)) }
                    #expect(Set(roles) == expected, "\(key) via \(scheme)")
                }
                let description = operation["description"]?.stringValue ?? ""
                #expect((rule.anyOf + rule.allOf).allSatisfy { description.contains("`\($0.rawValue)`") }, "\(key)'s description names its scope")
                #expect(operation["responses"]?["403"] != nil, "\(key) documents the 403 of a key without the scope")
            }
        }
        #expect(operations > 40)
        #expect(documented == Set(RouteScopes.table.keys), "every rule documented, every documented operation ruled")
    }

    @Test func writeScopesIncludeTheirReadScopeAndNothingElse() {
        #expect(APIScope.assetsWrite.grants(.assetsRead))
        #expect(APIScope.ordersWrite.grants(.ordersRead))
        #expect(!APIScope.fulfillmentsWrite.grants(.ordersRead))
        #expect(!APIScope.fulfillmentsWrite.grants(.ordersWrite))
        #expect(!APIScope.ordersRead.grants(.ordersWrite))
        #expect(!APIScope.grantable.contains(.apiKeysWrite))
    }
}

enum OpenAPIDriftError: Error {
    case notAnObject(String)
}
