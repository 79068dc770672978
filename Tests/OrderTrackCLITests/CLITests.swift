import Foundation
import OrderModel
import OrderSigning
import TestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The `ordertrack` command line, run as a process: exit statuses, messages, files.
@Suite(.serialized) final class CLITests {
    struct Run {
        var status: Int32
        var output: String
        var errors: String
    }

    static let binary: URL = {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return root.appendingPathComponent(".build/debug/ordertrack")
    }()

    let directory: URL

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("ordertrack-cli-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    func run(_ arguments: [String], environment: [String: String] = [:], executable: String? = nil) async throws -> Run {
        let outcome = try await ExternalTools.execute(executable ?? Self.binary.path, arguments, in: directory, environment: environment)
        return Run(status: outcome.status, output: String(decoding: outcome.stdout, as: UTF8.self), errors: outcome.stderr)
    }

    /// Starts `ordertrack` with `arguments` in the test's directory, its standard output to `output` (a `Pipe` or a
    /// `FileHandle`), without waiting for it.
    func start(_ arguments: [String], output: Any) throws -> (process: Process, exit: ProcessExit) {
        let process = Process()
        process.executableURL = Self.binary
        process.arguments = arguments
        process.currentDirectoryURL = directory
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        let exit = ProcessExit(process)
        try process.run()
        return (process, exit)
    }

    /// Starts `ordertrack serve` on a free port in the test's directory, its standard output to `output` (a `Pipe` or a
    /// `FileHandle`), and returns what stops it.
    func startServe(output: Any, arguments: [String] = []) throws -> () -> Void {
        let (process, exit) = try start(["serve", "--port", "0", "--data-dir", "data"] + arguments, output: output)
        return {
            process.terminate()
            exit.wait()
        }
    }

    /// Starts `ordertrack serve` with its standard output in `serve.log` and waits up to `startup` for its "listening
    /// on" line; returns what stops it, its port and the log read afresh.
    func startLoggedServe(arguments: [String] = [], startup: Duration) async throws -> (stop: () -> Void, port: Substring, log: () -> String) {
        let log = directory.appendingPathComponent("serve.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let stop = try startServe(output: try FileHandle(forWritingTo: log), arguments: arguments)
        let text = { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }
        do {
            #expect(try await Poll.until(timeout: startup) { text().contains("listening on") }, "\(text())")
            return (stop, try #require(text().firstMatch(of: /listening on 127\.0\.0\.1:(\d+)/)?.1), text)
        } catch {
            stop()
            throw error
        }
    }

    func write(_ path: String, _ bytes: [UInt8]) throws {
        let url = directory.appendingPathComponent(path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(bytes).write(to: url)
    }

    static let order: JSONValue = [
        "schemaVersion": 1, "orderTypeIdentifier": "order.com.example.cli", "orderIdentifier": "cli-1", "orderType": "ecommerce",
        "createdAt": "2026-11-20T10:00:00Z", "updatedAt": "2026-11-20T10:00:00Z", "status": "open",
        "merchant": [
            "displayName": "CLI Shop", "merchantIdentifier": "merchant.com.example.cli", "url": "https://shop.example.com", "logo": "logo.png",
        ],
        "orderManagementURL": "https://shop.example.com/orders/1",
        "webServiceURL": "https://orders.example.com/wallet", "authenticationToken": "c2VjcmV0LXRva2VuLTEyMzQ1Njc4",
    ]
    static let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13]

    @Test func validateReportsProblemsOnePerLine() async throws {
        try write("order.json", Self.order.serialized())
        let good = try await run(["validate", "order.json"])
        #expect(good.status == 0, "\(good.errors)")
        try write("bad.json", Self.order.setting("status", to: "shipped").setting("createdAt", to: "yesterday").serialized())
        let bad = try await run(["validate", "bad.json"])
        #expect(bad.status == 1)
        let lines = bad.errors.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.hasPrefix("status: \"shipped\" is not allowed") })
        #expect(lines.contains { $0.hasPrefix("createdAt: \"yesterday\" is not an RFC 3339 date-time") })
        #expect(try await run(["validate", "missing.json"]).status == 2)
        #expect(try await run(["validate"]).status == 2)
        #expect(try await run(["frobnicate"]).status == 2)
        #expect(try await run(["schema"]).output.contains("\"$schema\""))
    }

    /// The README's create body is valid as a create would fill it; --strict judges the file as a package's order.json.
    @Test func validateJudgesABodyAsACreateWouldStoreIt() async throws {
        let body: JSONValue = [
            "merchant": ["displayName": "Demo Shop", "merchantIdentifier": "merchant.dev.ordertrack.demo", "url": "https://shop.example.com"],
            "orderManagementURL": "https://shop.example.com/orders/1001", "orderNumber": "1001",
            "payment": ["total": ["amount": "42.00", "currency": "USD"], "status": "paid"],
            "lineItems": [["title": "Coffee beans", "quantity": 2, "price": ["amount": "21.00", "currency": "USD"]]],
            "fulfillments": [["fulfillmentType": "shipping", "fulfillmentIdentifier": "ship-1", "status": "processing"]],
        ]
        try write("body.json", body.serialized())
        let filled = try await run(["validate", "body.json"])
        #expect(filled.status == 0, "\(filled.errors)")
        #expect(
            filled.errors.contains("filled as POST /api/v1/orders fills them: orderIdentifier, schemaVersion, orderTypeIdentifier"),
            "\(filled.errors)")
        let strict = try await run(["validate", "--strict", "body.json"])
        #expect(strict.status == 1 && strict.errors.contains("createdAt: missing required key"), "\(strict.errors)")

        // The simplified form: a missing default is named, and the option supplies it as the server's default would.
        let simplified: JSONValue = [
            "merchant": ["displayName": "Demo Shop", "merchantIdentifier": "merchant.dev.ordertrack.demo", "url": "https://shop.example.com"],
            "status": "in_progress", "total": ["label": "Total", "price": "42.00", "currencyCode": "USD"],
            "lineItems": [["label": "Coffee beans", "quantity": 2, "price": "21.00", "currencyCode": "USD"]],
        ]
        try write("simplified.json", simplified.serialized())
        let lacking = try await run(["validate", "simplified.json"])
        #expect(lacking.status == 1 && lacking.errors.contains("orderManagementURL"), "\(lacking.errors)")
        let defaulted = try await run([
            "validate", "simplified.json", "--order-management-url", "https://shop.example.com/orders/{orderIdentifier}", "--payment-status", "paid",
        ])
        #expect(defaulted.status == 0, "\(defaulted.errors)")

        // Every problem at once: a fulfillment without its type still has its status checked.
        try write("untyped.json", body.setting("fulfillments", to: [["fulfillmentIdentifier": "ship-1", "status": "shiped"]]).serialized())
        let untyped = try await run(["validate", "untyped.json"])
        #expect(untyped.errors.contains("fulfillments[0].fulfillmentType: missing required key"), "\(untyped.errors)")
        #expect(untyped.errors.contains("fulfillments[0].status: \"shiped\" is not allowed"), "\(untyped.errors)")
    }

    @Test func buildAndVerifyAPackageWithADevelopmentIdentity() async throws {
        let identity = try await run(["identity", "create-dev", "--order-type-identifier", "order.com.example.cli", "--out", "identity"])
        #expect(identity.status == 0, "\(identity.errors)")
        #expect(identity.output.contains("does not trust"))
        #expect(try await run(["identity", "create-dev", "--order-type-identifier", "com.example", "--out", "x"]).status == 2)

        try write("source/order.json", Self.order.serialized())
        try write("source/logo.png", Self.png)
        let built = try await run(["package", "build", "source", "--identity", "identity", "-o", "cli.order"])
        #expect(built.status == 0, "\(built.errors)")
        let verified = try await run(["package", "verify", "cli.order", "--root", "identity/root-ca.pem"])
        #expect(verified.status == 0, "\(verified.errors)")
        #expect(verified.output.contains("anchored to the given root"))
        let unanchored = try await run(["package", "verify", "cli.order"])
        #expect(unanchored.output.contains("NOT anchored"))

        // A development server's package: plain HTTP and the development root are what Wallet would refuse, as warnings.
        try write("dev/order.json", Self.order.setting("webServiceURL", to: "http://localhost:8080/wallet").serialized())
        try write("dev/logo.png", Self.png)
        #expect(try await run(["package", "build", "dev", "--identity", "identity", "--allow-http", "-o", "dev.order"]).status == 0)
        let development = try await run(["package", "verify", "dev.order", "--allow-http", "--root", "identity/root-ca.pem"])
        #expect(development.status == 0, "\(development.errors)")
        #expect(development.errors.contains("webServiceURL: warning: Wallet only calls https:// web services"), "\(development.errors)")
        #expect(development.errors.contains("which is not an Apple root"), "\(development.errors)")
        #expect(try await run(["package", "verify", "dev.order", "--root", "identity/root-ca.pem"]).status == 1, "without --allow-http")

        var bytes = Array(try Data(contentsOf: directory.appendingPathComponent("cli.order")))
        bytes[bytes.count / 2] ^= 0xFF
        try write("tampered.order", bytes)
        let tampered = try await run(["package", "verify", "tampered.order", "--root", "identity/root-ca.pem"])
        #expect(tampered.status == 1)
        #expect(!tampered.errors.isEmpty)

        try write("other/order.json", Self.order.setting("orderTypeIdentifier", to: "order.com.example.other").serialized())
        try write("other/logo.png", Self.png)
        let mismatch = try await run(["package", "build", "other", "--identity", "identity", "-o", "other.order"])
        #expect(mismatch.status == 1)
        #expect(mismatch.errors.contains("order.com.example.other"))
        #expect(try await run(["package", "build", "source", "-o", "x.order"]).status == 2, "no identity is a usage error")
        #expect(try await run(["package", "build", "nowhere", "--identity", "identity", "-o", "x.order"]).status == 2)
    }

    @Test func administersMerchantsAndOrderTypes() async throws {
        let created = try await run(["merchant", "create", "--name", "Platform Shop", "--data-dir", "data"])
        #expect(created.status == 0, "\(created.errors)")
        let merchant = try #require(created.output.split(separator: "\n").first?.split(separator: " ").last.map(String.init))
        #expect(created.output.contains("api key:  sk_"))
        _ = try await run(["identity", "create-dev", "--order-type-identifier", "order.com.example.platform", "--out", "platform-identity"])
        let configured = try await run([
            "order-type", "--merchant", merchant, "--order-type-identifier", "order.com.example.platform", "--identity", "platform-identity",
            "--data-dir", "data",
        ])
        #expect(configured.status == 0, "\(configured.errors)")
        let mismatch = try await run([
            "order-type", "--merchant", merchant, "--order-type-identifier", "order.com.example.wrong", "--identity", "platform-identity",
            "--data-dir", "data",
        ])
        #expect(mismatch.status == 1 && mismatch.errors.contains("not order.com.example.wrong"))
        #expect(try await run(["merchant", "api-key", "--merchant", "no-such-merchant", "--data-dir", "data"]).status == 1)
        // Issue #20: a restricted key for a partner, listed without its secret, then revoked.
        let restricted = try await run([
            "merchant", "api-key", "--merchant", merchant, "--scope", "orders:read", "--scope", "fulfillments:write", "--order-type",
            "order.com.example.platform", "--expires-at", "2099-01-01T00:00:00Z", "--name", "carrier", "--data-dir", "data",
        ])
        #expect(restricted.status == 0, "\(restricted.errors)")
        let secret = restricted.output.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(secret.hasPrefix("rk_") && restricted.errors.contains("scopes: fulfillments:write orders:read"))
        let keyID = try #require(restricted.errors.split(separator: " ").dropFirst().first.map(String.init))
        let keys = try await run(["merchant", "keys", "--merchant", merchant, "--data-dir", "data"])
        #expect(keys.output.contains("\(keyID)  carrier") && keys.output.contains("expires: 2099-01-01T00:00:00") && !keys.output.contains(secret))
        let badScope = try await run(["merchant", "api-key", "--merchant", merchant, "--scope", "orders:everything", "--data-dir", "data"])
        #expect(badScope.status == 1 && badScope.errors.contains("orders:everything"))
        let revoked = try await run(["merchant", "revoke-key", "--merchant", merchant, "--key", keyID, "--data-dir", "data"])
        #expect(revoked.status == 0 && revoked.output.contains("revoked \(keyID) (carrier)"), "\(revoked.errors)")
        #expect(try await run(["merchant", "revoke-key", "--merchant", merchant, "--key", "key_unknown", "--data-dir", "data"]).status == 1)
        let listed = try await run(["merchant", "list", "--data-dir", "data"])
        #expect(listed.output.contains("Platform Shop") && listed.output.contains("order.com.example.platform"))

        let defaults = try await run([
            "merchant", "order-defaults", "--merchant", merchant, "--order-management-url", "https://shop.example.com/orders",
            "--fulfillment-type", "shipping", "--payment-status", "paid", "--data-dir", "data",
        ])
        #expect(defaults.status == 0, "\(defaults.errors)")
        let shown = try await run(["merchant", "order-defaults", "--merchant", merchant, "--data-dir", "data"])
        #expect(shown.output.contains("orderManagementURL: https://shop.example.com/orders") && shown.output.contains("paymentStatus:      paid"))
        let refused = try await run(["merchant", "order-defaults", "--merchant", merchant, "--fulfillment-type", "drone", "--data-dir", "data"])
        #expect(refused.status == 1 && refused.errors.contains("fulfillmentType must be"))
        let typed = try await run([
            "merchant", "order-defaults", "--merchant", merchant, "--order-type", "order.com.example.platform",
            "--order-management-url", "https://brand.example.com/orders/{orderNumber}", "--data-dir", "data",
        ])
        #expect(typed.status == 0, "\(typed.errors)")
        #expect(typed.output.contains("orderManagementURL: https://brand.example.com/orders/{orderNumber}"), "\(typed.output)")
        #expect(typed.output.contains("paymentStatus:      paid (merchant default)"), "\(typed.output)")
        let unknownType = try await run([
            "merchant", "order-defaults", "--merchant", merchant, "--order-type", "order.com.example.nope", "--payment-status", "paid", "--data-dir",
            "data",
        ])
        #expect(unknownType.status == 1 && unknownType.errors.contains("no order type order.com.example.nope"), "\(unknownType.errors)")

        let deletedType = try await run([
            "order-type", "delete", "--merchant", merchant, "--order-type-identifier", "order.com.example.platform", "--data-dir", "data",
        ])
        #expect(deletedType.status == 0, "\(deletedType.errors)")
        #expect(deletedType.output.contains("deleted order type order.com.example.platform and 0 order(s)"))
        let deletedMerchant = try await run(["merchant", "delete", "--merchant", merchant, "--data-dir", "data"])
        #expect(deletedMerchant.status == 0, "\(deletedMerchant.errors)")
        #expect(!(try await run(["merchant", "list", "--data-dir", "data"]).output.contains("Platform Shop")))
        let again = try await run(["merchant", "delete", "--merchant", merchant, "--data-dir", "data"])
        #expect(again.status == 1 && again.errors.contains("does not exist"), "\(again.errors)")
    }

    @Test func benchPackageRunsAndReportsTheRatio() async throws {
        let bench = try await run(["bench", "package", "--orders", "20", "--assets", "light"])
        #expect(bench.status == 0, "\(bench.errors)")
        #expect(bench.output.contains("packages/s:") && bench.output.contains("raw signatures"))
        #expect(try await run(["bench", "package", "--orders", "0"]).status == 2)
    }

    @Test func benchServeComparesThePackageWithHealthzInAlternatingRounds() async throws {
        let bench = try await run([
            "bench", "serve", "--connections", "2", "--seconds", "0.5", "--small-rows", "10", "--large-rows", "20", "--samples", "10",
        ])
        #expect(bench.status == 0, "\(bench.errors)")
        #expect(bench.output.contains("0.5 s each in 10 alternating rounds, same run"), "\(bench.output)")
        let ratio = try #require(bench.output.split(separator: "\n").first { $0.contains("ratio package / healthz") }, "\(bench.output)")
        #expect(ratio.wholeMatch(of: /\s*ratio package \/ healthz\s+\d+\.\d\d \(rounds \d+\.\d\d to \d+\.\d\d\)/) != nil, "\(ratio)")
        #expect(bench.output.contains(/CPU per request\s+\d+ µs against \d+ µs: \d+\.\d\dx \(this process/), "\(bench.output)")
        #expect(bench.output.contains("20 orders+registrations: 10 changed p50"), "\(bench.output)")
        #expect(try await run(["bench", "serve", "--small-rows", "20", "--large-rows", "10"]).status == 2)
    }

    @Test func benchInsightsSeedsAYearOfRollUpsAndMeasuresThePages() async throws {
        // Two merchants, three orders an hour each for a year.
        let bench = try await run(["bench", "insights", "--orders", "52560", "--merchants", "2", "--samples", "10"])
        #expect(bench.status == 0, "\(bench.errors)")
        #expect(bench.output.contains("seeded 122640 hourly roll-up rows and their daily sums (52560 orders)"), "\(bench.output)")
        #expect(bench.output.contains("insights: 48 hours, hourly") && bench.output.contains("worst insights p99"), "\(bench.output)")
        #expect(try await run(["bench", "insights", "--orders", "1000"]).status == 2)
    }

    @Test func benchCarrierMeasuresIngestAndScanToAPNsAndWritesItsProgressAsItGoes() async throws {
        // 10 orders × 2 devices; 10 events in a quarter of a second, one per order, each heard by both devices. Standard
        // output into a file, as one follows a long benchmark: each line is there once printed, not at the exit.
        let log = directory.appendingPathComponent("bench.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let (process, exit) = try start(
            [
                "bench", "carrier", "--connections", "2", "--seconds", "3", "--ingest-orders", "10", "--devices", "20", "--devices-per-order", "2",
                "--rate", "40", "--scan-seconds", "0.25",
            ], output: try FileHandle(forWritingTo: log))
        let text = { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }
        // Ten rounds of /healthz and the webhook, 3 s of each, come after this line.
        #expect(try await Poll.until(timeout: .seconds(120)) { text().contains("seeded 10 tracked orders") }, "\(text())")
        #expect(process.isRunning, "the line was written before the benchmark ended")
        #expect(await exit.exit(timeout: .seconds(300)))
        #expect(process.terminationStatus == 0)
        let output = text()
        #expect(output.contains("ratio events / healthz") && output.contains("worker on"), "\(output)")
        #expect(output.contains("10 alternating rounds") && output.contains("(rounds "), "\(output)")
        let cpu = try #require(output.split(separator: "\n").first { $0.contains("CPU per request") }, "\(output)")
        #expect(cpu.contains(/CPU per request\s+\d+ µs against \d+ µs: \d+\.\d\dx \(this process: server, client, the worker/), "\(cpu)")
        #expect(output.contains("pushed                 10 of 10 events to every device of their order"), "\(output)")
        #expect(output.contains(/CPU per event\s+\d+ µs: \d+\.\d\d cores at 40 events\/s/), "\(output)")
        #expect(try await run(["bench", "carrier", "--devices", "10", "--devices-per-order", "3"]).status == 2)
        #expect(try await run(["bench", "carrier", "--devices", "10", "--rate", "1000", "--scan-seconds", "1"]).status == 2)
    }

    @Test func migrateBringsADatabaseToTheLatestSchemaAndRefusesANewerOne() async throws {
        let first = try await run(["migrate", "--data-dir", "data"])
        #expect(first.status == 0, "\(first.errors)")
        let reported = first.output.firstMatch(of: /schema is at version (\d+), the latest this ordertrack knows \((\d+)\)/)
        #expect(reported.map { $0.1 == $0.2 } == true, "\(first.output)")
        #expect(try await run(["migrate", "--data-dir", "data"]).output == first.output, "migrating twice changes nothing")

        // A newer ordertrack migrated this database: this one must not touch it.
        let database = directory.appendingPathComponent("data/ordertrack.sqlite").path
        _ = try await run(
            [
                "python3", "-c",
                "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute(\"INSERT INTO schema_migrations VALUES (99, 'future', 0)\"); c.commit()",
                database,
            ], executable: "/usr/bin/env")
        let refused = try await run(["migrate", "--data-dir", "data"])
        #expect(refused.status == 1)
        #expect(refused.errors.contains("schema version 99 is newer than this ordertrack"), "\(refused.errors)")
    }

    @Test func badOrUnreachableDatabasesAreReportedPrecisely() async throws {
        let malformed = try await run(["migrate", "--database", "postgres://localhost/orders"])
        #expect(malformed.status == 2)
        #expect(malformed.errors.contains("user name is missing"), "\(malformed.errors)")
        let unreachable = try await run(
            ["migrate", "--database", "postgres://app:secret@127.0.0.1:1/orders?sslmode=disable"],
            environment: ["ORDERTRACK_MASTER_KEY": Self.masterKey])
        #expect(unreachable.status == 1)
        #expect(unreachable.errors.contains("cannot connect to PostgreSQL"), "\(unreachable.errors)")
        #expect(!unreachable.errors.contains("secret"), "passwords never reach messages")
    }

    /// A master key as `openssl rand -base64 32` makes one.
    static let masterKey = Data((0..<32).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()

    @Test func h3_productionCommandsWithoutAMasterKeyExplainWhatToSet() async throws {
        let refused = try await run(["migrate", "--data-dir", "data", "--no-dev"])
        #expect(refused.status == 1)
        #expect(refused.errors.contains("no master key") && refused.errors.contains("ORDERTRACK_MASTER_KEY"), "\(refused.errors)")
        let withKey = try await run(["migrate", "--data-dir", "data", "--no-dev"], environment: ["ORDERTRACK_MASTER_KEY": Self.masterKey])
        #expect(withKey.status == 0, "\(withKey.errors)")
        let wrongKey = try await run(
            ["merchant", "list", "--data-dir", "data", "--no-dev"],
            environment: ["ORDERTRACK_MASTER_KEY": Data(repeating: 1, count: 32).base64EncodedString()])
        #expect(wrongKey.status == 1)
        #expect(wrongKey.errors.contains("master key does not open this database's secrets"), "\(wrongKey.errors)")
    }

    @Test func h3_rotateMasterKeySwitchesTheDatabaseToTheNewKey() async throws {
        let created = try await run(
            ["merchant", "create", "--name", "Rotating", "--data-dir", "data", "--no-dev"], environment: ["ORDERTRACK_MASTER_KEY": Self.masterKey])
        #expect(created.status == 0, "\(created.errors)")
        try write("new.key", Array(Self.newMasterKey.utf8))
        let rotated = try await run(
            ["rotate-master-key", "--data-dir", "data", "--no-dev", "--new-master-key-file", "new.key"],
            environment: ["ORDERTRACK_MASTER_KEY": Self.masterKey])
        #expect(rotated.status == 0, "\(rotated.errors)")
        let old = try await run(["merchant", "list", "--data-dir", "data", "--no-dev"], environment: ["ORDERTRACK_MASTER_KEY": Self.masterKey])
        #expect(old.status == 1, "the old key no longer opens the database")
        let new = try await run(["merchant", "list", "--data-dir", "data", "--no-dev", "--master-key-file", "new.key"])
        #expect(new.status == 0, "\(new.errors)")
        #expect(new.output.contains("Rotating"))
        let missing = try await run(["rotate-master-key", "--data-dir", "data", "--no-dev", "--master-key-file", "new.key"])
        #expect(missing.status == 2)
        #expect(missing.errors.contains("--new-master-key-file"), "\(missing.errors)")
    }

    static let newMasterKey = Data((0..<32).map { _ in UInt8.random(in: 0...255) }).base64EncodedString() + "\n"

    @Test func m8_serveWritesTheDemoKeyOnlyToItsCredentialsFileWhenStdoutIsNotATerminal() async throws {
        let output = Pipe()
        let stop = try startServe(output: output)
        defer { stop() }
        var text = ""
        while !text.contains("listening on") {
            let chunk = output.fileHandleForReading.availableData
            guard !chunk.isEmpty else { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        let credentials = try JSONValue.parse(Array(try Data(contentsOf: directory.appendingPathComponent("data/dev-credentials.json"))))
        let apiKey = try #require(credentials["apiKey"]?.stringValue)
        #expect(text.contains("dev-credentials.json"), "\(text)")
        #expect(!text.contains(apiKey), "the key stays out of a piped (logged) stdout")
    }

    @Test func serveRefusesBadPushSettingsBeforeStarting() async throws {
        let cases: [(arguments: [String], environment: [String: String], message: String)] = [
            (["--push-max-attempts", "0"], [:], "--push-max-attempts 0 must be from 1 to 100"),
            (["--push-concurrency", "20000"], [:], "--push-concurrency 20000 must be from 1 to 10000"),
            (["--apns-timeout", "0"], [:], "--apns-timeout 0 must be from 1 to 300"),
            (["--apns-expiration", "0"], [:], "--apns-expiration 0 must be from 1 to 2592000"),
            (["--push-log-retention-days=-1"], [:], "--push-log-retention-days -1 must be from 0 to 36500"),
            ([], ["ORDERTRACK_APNS_EXPIRATION": "soon"], "ORDERTRACK_APNS_EXPIRATION \"soon\" is not a whole number"),
            ([], ["ORDERTRACK_PUSH_LEASE_SECONDS": "-5"], "ORDERTRACK_PUSH_LEASE_SECONDS -5 must be from 1 to 3600"),
            ([], ["ORDERTRACK_PORT": "http"], "ORDERTRACK_PORT \"http\" is not a whole number"),
            (["--rate-limit-per-address", "fast"], [:], "--rate-limit-per-address \"fast\" must be RATE[:BURST]"),
            (["--rate-limit-per-api-key", "10:0"], [:], "--rate-limit-per-api-key \"10:0\" must be RATE[:BURST]"),
            ([], ["ORDERTRACK_RATE_LIMIT_DEVICE_LOG": "-1"], "--rate-limit-device-log \"-1\" must be RATE[:BURST]"),
            (["--max-registrations-per-order=-3"], [:], "--max-registrations-per-order \"-3\" must be a whole number from 0 to 1000000"),
            (["--idle-timeout", "0"], [:], "--idle-timeout \"0\" must be 1 to 3600 seconds"),
            (["--package-cache-mb", "0"], [:], "--package-cache-mb 0 must be from 1 to 65536"),
            ([], ["ORDERTRACK_ORDER_CACHE_MB": "lots"], "ORDERTRACK_ORDER_CACHE_MB \"lots\" is not a whole number"),
            (["--order-cache-mb", "70000"], [:], "--order-cache-mb 70000 must be from 1 to 65536"),
            (["--client-address-header", "X Forwarded"], [:], "--client-address-header \"X Forwarded\" must be a header name"),
        ]
        for (arguments, environment, message) in cases {
            // A free port, except where the port itself is the bad value.
            let port = environment["ORDERTRACK_PORT"] == nil ? ["--port", "0"] : []
            let result = try await run(["serve", "--data-dir", directory.path] + port + arguments, environment: environment)
            #expect(result.status == 2, "\(arguments) \(environment)")
            #expect(result.errors.contains(message), "\(result.errors)")
            #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("ordertrack.sqlite").path), "nothing is created")
        }
    }
}

extension CLITests {
    /// A busy port is reported before anything is created: no data directory, database or identity is left behind.
    @Test func serveOnABusyPortSaysSoAndCreatesNothing() async throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(listener) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        try withUnsafeMutablePointer(to: &address) { pointer in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
                #expect(bind(listener, raw, length) == 0)
                #expect(listen(listener, 1) == 0)
                #expect(getsockname(listener, raw, &length) == 0)
                _ = try #require(Optional(raw))
            }
        }
        let port = Int(UInt16(bigEndian: address.sin_port))
        let run = try await run(["serve", "--port", String(port), "--data-dir", "data"])
        #expect(run.status != 0)
        #expect(run.errors.contains("port \(port) on 127.0.0.1 is already in use"), "\(run.errors)")
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("data").path), "nothing was created")
    }
}

extension CLITests {
    /// `serve` logs in swift-log's stream format, which operators and the soak read: the local time to the second with
    /// its offset, the level, the label, the metadata sorted by key, the module in brackets, then the message; a device
    /// call is one line with its method, path, route, status and latency, and never the token it sent.
    @Test func serveLogsADeviceCallAsOneLineInTheStreamFormat() async throws {
        let (stop, port, text) = try await startLoggedServe(startup: .seconds(30))
        defer { stop() }
        #expect(text().contains("package signatures with RSA keys by \(SigningIdentity.rsaSignatureLibrary)"), "\(text())")
        #expect(!text().contains("tasks run on the event loops"), "SQLite keeps Swift's own pool: \(text())")
        let token = "logged-token-\(UUID().uuidString)"
        var request = URLRequest(url: try #require(URL(string: "http://127.0.0.1:\(port)/wallet/v1/orders/order.dev.ordertrack.demo/no-such-order")))
        request.setValue("AppleOrder \(token)", forHTTPHeaderField: "Authorization")
        let (_, response) = try await URLSession.shared.data(for: request)
        #expect((response as? HTTPURLResponse)?.statusCode == 401)
        #expect(try await Poll.until(timeout: .seconds(10)) { text().contains("wallet call") }, "\(text())")
        let lines = text().split(separator: "\n").filter { $0.hasSuffix("] wallet call") }
        #expect(lines.count == 1, "\(lines)")
        let line = String(try #require(lines.first))
        let format = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d{4} info ordertrack: (.+) \[OrderTrackServer\] wallet call$/
        let metadata = try #require(line.wholeMatch(of: format)?.1, "\(line)")
        let keys = metadata.split(separator: " ").map { String($0.prefix { $0 != "=" }) }
        #expect(keys == keys.sorted(), "metadata sorted by key: \(line)")
        #expect(Set(keys).isSuperset(of: ["latency_ms", "method", "path", "route", "status"]), "\(line)")
        #expect(metadata.contains("method=GET") && metadata.contains("path=/wallet/v1/orders/order.dev.ordertrack.demo/no-such-order"))
        #expect(metadata.contains("status=401"), "\(line)")
        #expect(!text().contains(token), "the device's token is never logged")
    }
}

extension CLITests {
    /// The benchmarks' servers run tasks where `serve` runs them: on Swift's pool for SQLite, on the event loops for
    /// PostgreSQL, which `bench carrier` compares in one process (SQLite first).
    @Test(.enabled(if: TestDatabase.postgresURL != nil, Comment(rawValue: TestDatabase.skipReason)))
    func benchOnBothDatabasesRunsTasksAsServeDoesOnEach() async throws {
        let bench = try await run([
            "bench", "carrier", "--postgres", try #require(TestDatabase.postgresURL), "--connections", "2", "--seconds", "0.5",
            "--ingest-orders", "10", "--devices", "20", "--devices-per-order", "2", "--rate", "40", "--scan-seconds", "0.25",
        ])
        #expect(bench.status == 0, "\(bench.errors)")
        let sections = bench.output.components(separatedBy: "== PostgreSQL ==")
        #expect(sections.count == 2, "\(bench.output)")
        let line = "tasks run on the event loops, as serve runs them on PostgreSQL"
        #expect(!sections[0].contains(line), "\(bench.output)")
        #expect(sections.last?.components(separatedBy: line).count == 3, "once for ingest, once for the scan: \(bench.output)")
        #expect(bench.output.contains("PostgreSQL: scan to APNs"), "\(bench.output)")
        // Each PostgreSQL pass drops the schema it made, once its server has stopped.
        let dropped = bench.output.matches(of: /dropped the benchmark's schema (bench_[0-9a-f]{12})/).map { String($0.1) }
        #expect(dropped.count == 2 && Set(dropped).count == 2, "\(bench.output)")
        let names = try #require(dropped.isEmpty ? nil : dropped.map { "'\($0)'" }.joined(separator: ", "))
        let left = try await run(
            ["psql", try #require(TestDatabase.postgresURL), "-Atc", "SELECT count(*) FROM pg_namespace WHERE nspname IN (\(names))"],
            executable: "/usr/bin/env")
        #expect(left.status == 0 && left.output.trimmingCharacters(in: .whitespacesAndNewlines) == "0", "\(left.output) \(left.errors)")
    }

    /// On PostgreSQL `serve` runs Swift's tasks on NIO's event loops (docs/deployment.md) and says so; its statements
    /// and requests then still answer: a device call that reads the database, and `/healthz`.
    @Test(.enabled(if: TestDatabase.postgresURL != nil, Comment(rawValue: TestDatabase.skipReason)))
    func serveOnPostgreSQLRunsTasksOnTheEventLoopsAndAnswers() async throws {
        let (stop, port, text) = try await startLoggedServe(
            arguments: ["--database", try TestDatabase.freshPostgresURL(), "--dev"], startup: .seconds(60))
        defer { stop() }
        #expect(text().contains("tasks run on the event loops"), "\(text())")
        var request = URLRequest(url: try #require(URL(string: "http://127.0.0.1:\(port)/wallet/v1/orders/order.dev.ordertrack.demo/no-such-order")))
        request.setValue("AppleOrder some-token-\(UUID().uuidString)", forHTTPHeaderField: "Authorization")
        for _ in 0..<20 {
            let (_, response) = try await URLSession.shared.data(for: request)
            #expect((response as? HTTPURLResponse)?.statusCode == 401)
        }
        let (body, health) = try await URLSession.shared.data(from: try #require(URL(string: "http://127.0.0.1:\(port)/healthz")))
        #expect((health as? HTTPURLResponse)?.statusCode == 200, "\(String(decoding: body, as: UTF8.self))")
    }
}
