/// What `--help` prints: the descriptor, the runtime's own variables, the front doors and
/// the exit codes, so an operator needs nothing but the binary.
enum HelpText {
    static func render(_ descriptor: FunctionDescriptor) -> String {
        var lines: [String] = []
        lines.append("\(descriptor.name) — \(descriptor.summary)")
        lines.append("")
        if let route = descriptor.route {
            lines.append("route:       \(descriptor.methods.joined(separator: ", ")) \(route)")
        } else {
            lines.append("route:       none (run directly, e.g. from cron; answers 404 over HTTP)")
        }
        lines.append("visibility:  \(descriptor.visibility.rawValue)"
            + (descriptor.visibility == .internal ? " (over HTTP: Authorization: Bearer <token>)" : ""))
        if descriptor.visibility == .internal {
            lines.append("scope:       \(descriptor.scope.rawValue) (a token of this scope or wider: $\(RuntimeVariable.adminToken) is admin, "
                + "$\(RuntimeVariable.tokens) names the others)")
        }
        lines.append("")
        lines.append("request:")
        lines.append(contentsOf: indented(descriptor.request))
        lines.append("")
        lines.append("response:")
        lines.append(contentsOf: indented(descriptor.response))
        lines.append("")
        lines.append("environment:")
        let width = descriptor.allVariables.map(\.name.count).max() ?? 0
        for variable in descriptor.allVariables {
            let padding = String(repeating: " ", count: width - variable.name.count)
            lines.append("  \(variable.name)\(padding)  \(variable.marker)  \(variable.meaning)")
        }
        lines.append("")
        lines.append("front doors (one handler, chosen per process or per document):")
        lines.append("  direct      stdin is the request object, stdout the response object and a newline;")
        lines.append("              several objects one a line (NDJSON) are answered one a line, in order")
        lines.append("  http event  stdin is an HTTP event, payload format 2.0 (version, rawPath, rawQueryString,")
        lines.append("              headers, requestContext.http.method, body, isBase64Encoded);")
        lines.append("              stdout is {statusCode, headers, body, isBase64Encoded}")
        lines.append("  cgi         when GATEWAY_INTERFACE is set: CGI/1.1 variables and CONTENT_LENGTH bytes of body in,")
        lines.append("              a CGI response out")
        lines.append("  fastcgi     when stdin is a listening socket (spawn-fcgi, lighttpd bin-path, systemd")
        lines.append("              StandardInput=socket) or with --fastcgi HOST:PORT|PATH: FastCGI requests, one after")
        lines.append("              another, until SIGTERM (the request in flight is finished first); configuration")
        lines.append("              comes from the process environment, read once, never from a request's parameters")
        lines.append("  Errors are {\"error\": {\"code\": ..., \"message\": ...}}. Bodies are limited to \(RuntimeLimits.maxBodyBytes) bytes.")
        lines.append("")
        lines.append("exit codes (for NDJSON, the largest of all answers):")
        lines.append("  0   done")
        lines.append("  65  bad input (any 4xx answer)")
        lines.append("  70  internal error")
        lines.append("  74  stdin or stdout failed")
        lines.append("  75  temporary failure, retry later (503)")
        lines.append("  78  configuration error")
        return lines.joined(separator: "\n") + "\n"
    }

    private static func indented(_ text: String) -> [String] {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { "  " + $0 }
    }
}
