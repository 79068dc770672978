import Foundation
import HTTPTypes
import Hummingbird
import Mustache
import NIOCore

/// A module's HTML templates and static files (a resource folder with `templates/` and `static/`), loaded once at
/// start: a page render is a dictionary lookup, and a missing template fails the start rather than a request. The Track
/// in Wallet pages load the server's (`Resources/Track`), the dashboard its own.
package struct WebResources: Sendable {
    /// A static file as served: its bytes, content type and entity tag.
    struct StaticFile: Sendable {
        var bytes: ByteBuffer
        var contentType: String
        var etag: String
    }

    /// Why the resources could not be loaded: the package was built or installed without them.
    enum LoadError: Error, CustomStringConvertible {
        case missing(String)
        case template(name: String, reason: String)

        var description: String {
            switch self {
            case .missing(let path): "the web resource \(path) is missing from its module's bundle"
            case .template(let name, let reason): "the template \(name) does not parse: \(reason)"
            }
        }
    }

    static let contentTypes = ["css": "text/css; charset=utf-8", "js": "text/javascript; charset=utf-8"]

    let library: MustacheLibrary
    let files: [String: StaticFile]

    /// Reads every template and static file of the folder `directory` of `bundle` (the calling module's
    /// `Bundle.module`).
    package static func load(_ directory: String, from bundle: Bundle) throws -> WebResources {
        guard let root = bundle.url(forResource: directory, withExtension: nil) else { throw LoadError.missing(directory) }
        var templates: [String: MustacheTemplate] = [:]
        for url in try contents(of: root.appendingPathComponent("templates")) where url.pathExtension == "mustache" {
            let name = url.deletingPathExtension().lastPathComponent
            do {
                templates[name] = try template(String(decoding: try Data(contentsOf: url), as: UTF8.self))
            } catch {
                throw LoadError.template(name: name, reason: "\(error)")
            }
        }
        var files: [String: StaticFile] = [:]
        for url in try contents(of: root.appendingPathComponent("static")) {
            guard let contentType = contentTypes[url.pathExtension] else { continue }
            let bytes = try Data(contentsOf: url)
            let etag = "\"" + String(Secrets.sha256Hex(bytes).prefix(16)) + "\""
            files[url.lastPathComponent] = StaticFile(bytes: ByteBuffer(bytes: bytes), contentType: contentType, etag: etag)
        }
        return WebResources(library: MustacheLibrary(templates: templates), files: files)
    }

    /// A template that escapes with ``HTMLText`` rather than Mustache's own HTML type; each template, partials
    /// included, declares it, since a partial starts again from Mustache's.
    package static func template(_ text: String) throws -> MustacheTemplate {
        HTMLText.register()
        return try MustacheTemplate(string: "{{% CONTENT_TYPE: \(HTMLText.contentTypeName)}}" + text)
    }

    private static func contents(of directory: URL) throws -> [URL] {
        do {
            return try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)
        } catch {
            throw LoadError.missing(directory.lastPathComponent)
        }
    }

    /// An HTML page from a template; pages hold per-merchant data, so nothing may cache them.
    package func page(_ template: String, _ values: [String: Any], status: HTTPResponse.Status = .ok) -> Response {
        let html = library.render(values, withTemplate: template) ?? ""
        return Response(
            status: status, headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: html)))
    }

    /// A static file, revalidated by its entity tag after five minutes (the files change only with a new build).
    package func staticFile(_ name: String, request: Request) -> Response? {
        guard let file = files[name] else { return nil }
        var headers: HTTPFields = [.contentType: file.contentType, .cacheControl: "public, max-age=300", .eTag: file.etag]
        if request.headers[.ifNoneMatch] == file.etag {
            headers[.contentType] = nil
            return Response(status: .notModified, headers: headers)
        }
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: file.bytes))
    }
}

/// Text escaped for HTML scalar by scalar. swift-mustache's HTML escaping (and Foundation's `replacingOccurrences`)
/// compares Characters, and a quote or bracket followed by a combining mark is one Character with it: `"` + U+0655
/// stayed a bare quote that closes the attribute it stands in, in a page showing another party's text (a carrier's
/// status description, a partner's line item).
package enum HTMLText {
    static let contentTypeName = "ORDERTRACK_HTML"

    /// `&`, `<`, `>`, `"` and `'` as entities; every other scalar as it is.
    package static func escaped(_ text: String) -> String {
        var escaped = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": escaped.append(contentsOf: "&amp;".unicodeScalars)
            case "<": escaped.append(contentsOf: "&lt;".unicodeScalars)
            case ">": escaped.append(contentsOf: "&gt;".unicodeScalars)
            case "\"": escaped.append(contentsOf: "&quot;".unicodeScalars)
            case "'": escaped.append(contentsOf: "&#39;".unicodeScalars)
            default: escaped.append(scalar)
            }
        }
        return String(escaped)
    }

    struct ContentType: MustacheContentType {
        func escapeText(_ text: String) -> String { HTMLText.escaped(text) }
    }

    /// Makes the content type known to the template parser; registering again replaces it with an equal one.
    static func register() { MustacheContentTypes.register(ContentType(), named: contentTypeName) }
}
