import DevServerBase
import Hummingbird
import Logging

/// Turns every failure into problem details: an `APIProblem` as itself, an
/// unknown route as 404, anything unexpected as the hosted API's 500 (its
/// type logged, never its content).
struct ProblemMiddleware<Context: RequestContext>: RouterMiddleware {
    let logger: Logger

    func handle(_ request: Request, context: Context,
                next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let problem as APIProblem {
            return JSONResponse.problem(problem)
        } catch let error as any HTTPResponseError where error.status == .notFound {
            return JSONResponse.problem(.notFound(request.uri.path))
        } catch let error as any HTTPResponseError where error.status == .contentTooLarge {
            return JSONResponse.problem(.bodyTooLarge(limit: RequestJSON.maxBodySize))
        } catch {
            logger.error("unexpected error", metadata: ["path": "\(request.uri.path)", "error.type": "\(type(of: error))"])
            return JSONResponse.problem(.internalError)
        }
    }
}

/// One line per request: method, path (no query), status, duration.
/// Headers and bodies are never logged: they carry the secret and tokens.
struct RequestLogMiddleware<Context: RequestContext>: RouterMiddleware {
    let logger: Logger

    func handle(_ request: Request, context: Context,
                next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        let response = try await next(request, context)
        let elapsed = ContinuousClock.now - start
        let milliseconds = Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000
        logger.info("\(request.method) \(request.uri.path) \(response.status.code) \(Int(milliseconds.rounded())) ms")
        return response
    }
}
