import FastCGIServer
import StorekeeperCore

extension FastCGIExchange: InputSource, OutputSink {}

extension RequestLoop {
    /// The FastCGI door: request after request on `listener`, each read from its own
    /// parameters (never the process environment, read once at start), routed to this
    /// function's own route whatever SCRIPT_FILENAME or PATH_INFO say, answered as a CGI
    /// response and logged like any other. A request that fails is answered and forgotten;
    /// a connection that breaks mid-answer costs that request only. Returns 0 once a stop
    /// signal has let the request in flight finish.
    func serveFastCGI(_ source: FastCGISource) -> Int32 {
        let listener: FastCGIListener
        do {
            listener = try Self.listener(source)
        } catch {
            // A socket that cannot be opened or served is the deployment's to fix.
            log.error("fastcgi_unavailable", ["error": String(describing: error)])
            return ErrorDisposition.configuration.exitCode
        }
        log.info("fastcgi_serving", ["socket": Int(listener.socket)])
        var served = 0
        while true {
            let exchange: FastCGIExchange
            do {
                guard let next = try listener.next() else { break }
                exchange = next
            } catch {
                log.error("fastcgi_failed", ["error": String(describing: error), "served": served])
                return Self.ioFailureExitCode
            }
            output = exchange
            serveOne(exchange)
            listener.finish()
            if case .success(let handler) = builtHandler { handler.inputEnded() }
            served += 1
        }
        log.info("fastcgi_stopped", ["signal": Int(listener.stopSignal ?? 0), "served": served])
        return 0
    }

    private static func listener(_ source: FastCGISource) throws -> FastCGIListener {
        switch source {
        case .standardInput: return try FastCGIListener(socket: 0)
        case .address(let address): return try FastCGIListener(socket: try ListeningSocket.open(address))
        }
    }

    private func serveOne(_ exchange: FastCGIExchange) {
        let started = clock.monotonic()
        do {
            let handler: Handler
            switch makeHandler() {
            case .success(let built): handler = built
            case .failure(let error):
                return try finish(errorResponse(error, door: .fastcgi), door: .fastcgi, request: nil, code: error.code, started: started)
            }
            let request: FunctionRequest
            do {
                request = try CGIRequest.read(environment: exchange.parameters, input: exchange, door: .fastcgi,
                                              path: descriptor.route ?? "/")
            } catch let error as FunctionError {
                return try finish(errorResponse(error, door: .fastcgi), door: .fastcgi, request: nil, code: error.code, started: started)
            }
            try answer(request, handler: handler, started: started)
        } catch {
            // The web server went away mid-request: nobody to answer, the process goes on.
            log.warning("fastcgi_connection_failed", ["error": String(describing: error)])
        }
    }
}
