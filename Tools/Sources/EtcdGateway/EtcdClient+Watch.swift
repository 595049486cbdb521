import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1

extension EtcdClient {
    /// Watches every key starting with `prefix` from revision `fromRevision` on.
    ///
    /// One HTTP stream to one endpoint (the first that accepts the watch, trying them as
    /// unary requests do). It yields each batch of changes in revision order; etcd's
    /// responses without events (creation, progress) are skipped. It finishes by throwing:
    ///
    /// - ``EtcdError/compacted(compactRevision:)`` when `fromRevision` was compacted away:
    ///   read the prefix again and watch from the range's revision + 1.
    /// - ``EtcdError/unavailable(_:)`` when no endpoint accepted the watch, or when the
    ///   stream dropped after it began (the member died, the connection broke), naming the
    ///   transport error.
    /// - ``EtcdError/server(status:message:)`` when etcd cancelled the watch for another
    ///   reason (permission denied, for one).
    ///
    /// It does not resume by itself: the caller watches again from the last revision it
    /// applied + 1, and that call tries the endpoints again. Cancelling the task that
    /// consumes the stream (or dropping the stream) ends the HTTP request.
    ///
    /// Responses are buffered without limit while the consumer is busy; etcd sends each
    /// change once, so a consumer that falls behind holds them in memory rather than lose them.
    package func watch(prefix: [UInt8], fromRevision: Int64) -> AsyncThrowingStream<EtcdWatchResponse, any Error> {
        watch(from: prefix, to: Gateway.rangeEnd(ofPrefix: prefix), fromRevision: fromRevision)
    }

    /// Watches every key from `key` up to `rangeEnd` (exclusive) from revision `fromRevision`
    /// on, as ``watch(prefix:fromRevision:)`` watches a prefix.
    package func watch(from key: [UInt8], to rangeEnd: [UInt8], fromRevision: Int64) -> AsyncThrowingStream<EtcdWatchResponse, any Error> {
        let (stream, continuation) = AsyncThrowingStream<EtcdWatchResponse, any Error>.makeStream()
        let task = Task {
            do {
                try await self.runWatch(key: key, rangeEnd: rangeEnd, fromRevision: fromRevision, into: continuation)
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    /// An open watch stream: the body being read and the bytes of its unfinished line.
    private struct OpenWatch {
        var endpoint: String
        var body: HTTPClientResponse.Body.AsyncIterator
        var lines = LineSplitter()
    }

    private func runWatch(
        key: [UInt8], rangeEnd: [UInt8], fromRevision: Int64, into continuation: AsyncThrowingStream<EtcdWatchResponse, any Error>.Continuation
    ) async throws {
        let request = Gateway.WatchRequest(
            createRequest: .init(
                key: Gateway.base64(key.isEmpty ? [0] : key), rangeEnd: Gateway.base64(rangeEnd),
                startRevision: String(fromRevision)))
        let body = try JSONEncoder().encode(request)
        var renewed = false
        while true {
            var watch = try await withEndpoints { endpoint in
                try await self.openWatch(body: body, at: endpoint, renewToken: renewed)
            }
            // Read until the stream ends or etcd cancels the watch.
            let failure: GatewayFailure
            do {
                failure = try await forward(&watch, into: continuation)
            } catch let error as EtcdError {
                throw error
            } catch {
                try Task.checkCancellation()
                throw EtcdError.unavailable("the watch stream from \(watch.endpoint) dropped: \(error)")
            }
            // Only a refused token is worth another try: it is refused when the watch is
            // created, before any event went out, so starting again skips nothing.
            if failure.isTokenRefused && configuration.credentials != nil && !renewed {
                logger.notice(
                    "etcd refused the watch's authentication token; authenticating again",
                    metadata: ["error": "\(failure.message)"])
                renewed = true
                continue
            }
            throw failure.error
        }
    }

    /// Starts the watch at `endpoint` and reads up to etcd's "created" response, so an
    /// endpoint that fails before the watch exists counts as unreachable and the next is tried.
    ///
    /// Bounded by the request timeout, after the token is had (authenticating has its own):
    /// a member whose kernel accepts the connection but that never answers (SIGSTOPped, a paused machine) would otherwise hold the watch open and
    /// silent for as long as it stays so, while the rest of the cluster goes on. Once the
    /// watch exists it has no bound: it is idle for as long as nothing changes.
    private func openWatch(body: Data, at endpoint: String, renewToken: Bool) async throws -> OpenWatch {
        // Authenticating is a request of its own, with its own limit, as before a unary
        // request: etcd's password check is slow by design, and under load one limit for
        // both could run out in the check alone.
        let token = try await token(at: endpoint, renew: renewToken)
        let limit = configuration.requestTimeout
        return try await withThrowingTaskGroup(of: OpenedWatch?.self) { group in
            group.addTask { OpenedWatch(try await self.openWatchUnbounded(body: body, at: endpoint, token: token)) }
            group.addTask {
                try await Task.sleep(for: limit)
                return nil
            }
            // Cancelling the opening child ends its HTTP request too.
            defer { group.cancelAll() }
            guard let first = try await group.next(), let opened = first else {
                throw EndpointFailure(reason: "etcd did not create the watch within \(limit)")
            }
            return opened.watch
        }
    }

    /// An opened watch handed from the task that opened it to the one that reads it.
    // Safety: the opening task has finished when the reader takes it; one task at a time
    // ever touches the iterator.
    private final class OpenedWatch: @unchecked Sendable {
        let watch: OpenWatch
        init(_ watch: OpenWatch) { self.watch = watch }
    }

    /// ``openWatch(body:at:renewToken:)`` once it has the token, without its bound.
    private func openWatchUnbounded(body: Data, at endpoint: String, token: String?) async throws -> OpenWatch {
        var request = Self.request("/v3/watch", body: body, at: endpoint, token: token)
        // etcd's "require leader" (gRPC metadata `hasleader`, which the gateway takes from this
        // header): a member cut off from the others cancels the watch once it has no leader,
        // instead of keeping it open and silent while the cluster goes on without it.
        request.headers.add(name: "Grpc-Metadata-Hasleader", value: "true")
        let response: HTTPClientResponse
        do {
            response = try await stream(request)
        } catch {
            try Task.checkCancellation()
            throw EndpointFailure(reason: "\(error)")
        }
        guard response.status.code == 200 else {
            let data = try? await response.body.collect(upTo: 1024 * 1024)
            let failure = GatewayFailure(status: Int(response.status.code), body: data.map { Data($0.readableBytesView) } ?? Data())
            if failure.isUnavailable { throw EndpointFailure(reason: failure.message) }
            throw failure.error
        }
        var watch = OpenWatch(endpoint: endpoint, body: response.body.makeAsyncIterator())
        // The created response is kept in the line buffer for `forward` to handle: it may
        // itself say the watch was cancelled.
        do {
            while !watch.lines.hasLine() {
                guard let chunk = try await watch.body.next(isolation: #isolation) else {
                    throw EndpointFailure(reason: "the watch stream ended before etcd created the watch")
                }
                watch.lines.append(chunk.readableBytesView)
            }
        } catch let failure as EndpointFailure {
            throw failure
        } catch {
            try Task.checkCancellation()
            throw EndpointFailure(reason: "\(error)")
        }
        return watch
    }

    /// Yields the stream's responses that carry events until etcd cancels the watch, whose
    /// reason it returns (a compaction throws at once). Transport errors propagate.
    private func forward(
        _ watch: inout OpenWatch, into continuation: AsyncThrowingStream<EtcdWatchResponse, any Error>.Continuation
    ) async throws -> GatewayFailure {
        while true {
            guard let line = try await nextLine(&watch) else {
                throw EtcdError.unavailable("the watch stream from \(watch.endpoint) ended")
            }
            let envelope: Gateway.WatchEnvelope
            do {
                envelope = try JSONDecoder().decode(Gateway.WatchEnvelope.self, from: Data(line))
            } catch {
                throw EtcdError.malformed("/v3/watch: \(error); line \(String(decoding: line.prefix(200), as: UTF8.self))")
            }
            if let error = envelope.error {
                return GatewayFailure(status: error.httpCode ?? 200, code: error.grpcCode, message: error.message ?? "watch stream error")
            }
            guard let result = envelope.result else { continue }
            if result.canceled {
                if result.compactRevision > 0 { throw EtcdError.compacted(compactRevision: result.compactRevision) }
                let reason = result.cancelReason.isEmpty ? "etcd cancelled the watch" : result.cancelReason
                return GatewayFailure(status: 200, code: nil, message: reason)
            }
            guard !result.events.isEmpty else { continue }
            let events = try result.events.map { event in
                guard let keyValue = event.kv else { throw EtcdError.malformed("/v3/watch: an event without a key") }
                return EtcdEvent(kind: event.type == "DELETE" ? .delete : .put, keyValue: try keyValue.decoded())
            }
            let revision = result.header?.revision ?? events.last?.keyValue.modRevision ?? 0
            continuation.yield(EtcdWatchResponse(revision: revision, events: events))
        }
    }

    /// The next non-empty line of the stream, reading chunks as needed; nil when it ended.
    private func nextLine(_ watch: inout OpenWatch) async throws -> [UInt8]? {
        while true {
            if let line = watch.lines.nextLine() {
                if line.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\r") }) { continue }
                return line
            }
            guard let chunk = try await watch.body.next(isolation: #isolation) else {
                let rest = watch.lines.takeRemainder()
                return rest.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\r") }) ? nil : rest
            }
            watch.lines.append(chunk.readableBytesView)
        }
    }
}
