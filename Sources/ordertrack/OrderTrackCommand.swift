// swift-format-ignore-file: OrderedImports
// The C library is imported before Foundation, which imports it too, so that `@preconcurrency` applies: `stdout`, a C
// global, is set once in `main` before any task runs.
#if canImport(Glibc)
    @preconcurrency import Glibc
#elseif canImport(Darwin)
    @preconcurrency import Darwin
#endif
import ArgumentParser
import Foundation
import OrderPersistence
import OrderTrackServer

/// `ordertrack`: validate, build and verify Wallet order packages, and run the OrderTrack server.
///
/// Exit status: 0 fine, 1 problems found, 2 usage error.
@main
struct OrderTrackCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ordertrack",
        abstract: "Apple Wallet order tracking: validate, build and verify signed .order packages, and serve the Wallet Orders web service.",
        subcommands: [
            ServeCommand.self, MigrateCommand.self, MerchantCommand.self, OrderTypeCommand.self, ValidateCommand.self, SchemaCommand.self,
            PackageCommand.self,
            IdentityCommand.self, BenchCommand.self, MockAPNsCommand.self,
            ApplePayCommand.self, LookupKeyCommand.self, CarrierCommand.self, WebhooksCommand.self, RotateMasterKeyCommand.self,
        ])

    static func main() async {
        // A line at a time into a file or a pipe too, so a long benchmark's progress can be followed as it runs; the
        // server's log lines are written with write(2) and are not affected.
        setvbuf(stdout, nil, _IOLBF, 0)
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            let code = exitCode(for: error)
            if code == .success || code == .failure || error is ExitCode {
                exit(withError: error)
            }
            // Usage errors: ArgumentParser's message, our exit status 2.
            FileHandle.standardError.write(Data((fullMessage(for: error) + "\n").utf8))
            Foundation.exit(2)
        }
    }
}

/// Writes a line to standard output at once, unbuffered even into a pipe: supervisors and tests read
/// the "listening on" line as it happens.
func announce(_ text: String) {
    FileHandle.standardOutput.write(Data((text + "\n").utf8))
}

/// Problems go to standard error, one per line.
func reportProblems(_ lines: [String]) {
    guard !lines.isEmpty else { return }
    FileHandle.standardError.write(Data((lines.joined(separator: "\n") + "\n").utf8))
}

/// Runs `body`; a store or configuration error it throws is reported as a problem and ends the command with status 1.
func reportingStoreProblems<Value>(_ body: () async throws -> Value) async throws -> Value {
    do {
        return try await body()
    } catch let error as OrderStoreError {
        reportProblems(["\(error)"])
        throw ExitCode(1)
    } catch let error as ConfigurationError {
        reportProblems(["\(error)"])
        throw ExitCode(1)
    }
}

/// Runs `body`, a service call of an admin command; a domain refusal (naming its field) or an unknown merchant is
/// reported as a problem and ends the command with status 1.
func reportingDomainProblems<Value>(_ body: () async throws -> Value) async throws -> Value {
    do {
        return try await body()
    } catch let error as OrderTrackError {
        reportProblems([error.field.map { "\($0): \(error.reason)" } ?? error.reason])
        throw ExitCode(1)
    } catch OrderStoreError.merchantNotFound(let id) {
        reportProblems(["no merchant \(id)"])
        throw ExitCode(1)
    }
}

/// A usage error raised after parsing (a file that cannot be read, conflicting options): exit status 2.
func usageError(_ message: String) -> ExitCode {
    FileHandle.standardError.write(Data("error: \(message)\n".utf8))
    return ExitCode(2)
}
