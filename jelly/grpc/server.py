"""The ``RdfStreamService`` server: a broker of Jelly streams over grpcio (threads,
:class:`Server`) or ``grpc.aio`` (asyncio, :class:`AsyncServer`).

Frames travel as the bytes of ``RdfStreamFrame`` messages: no generated protobuf classes, the
method handlers get and return bytes (``RdfStreamSubscribe`` is read by
:mod:`jelly._streaming`).  What happens to streams is the broker's business
(:mod:`jelly.grpc.broker`): topics from the stream name, validation by the core decoder,
requested options through the transcoder, bounded queues, clean shutdown.

Security: TLS with a certificate chain and key (and, optionally, a CA whose client
certificates are required), and an optional bearer token checked on every call
(``authorization: Bearer TOKEN`` metadata; a missing or wrong one ends the call with
``UNAUTHENTICATED``).  ``max_message_size`` caps frames both ways (gRPC's default is 4 MiB;
the spec recommends frames well under 1 MB).  The server pings idle connections every
``keepalive`` seconds so that quiet topics are not cut by the network (as jelly-jvm does).
"""

from __future__ import annotations

import concurrent.futures
import hmac
import os
import threading
from typing import Any, AsyncIterator, Iterable, Iterator

import grpc
from grpc import aio

from .._streaming import decode_subscribe
from ..errors import JellyError
from ..options import ReaderLimits
from .broker import (LINGER, MAX_BATCH_BYTES, MAX_QUEUE_BYTES, MAX_QUEUE_FRAMES, Broker,
                     BrokerError, Subscription)

#: Full name of the service in grpc.proto.
SERVICE = "eu.ostrzyciel.jelly.core.proto.v1.RdfStreamService"
SUBSCRIBE = f"/{SERVICE}/SubscribeRdf"
PUBLISH = f"/{SERVICE}/PublishRdf"
#: gRPC's own default limit on a message, in bytes.
DEFAULT_MAX_MESSAGE_SIZE = 4 * 1024 * 1024
#: ``RdfStreamReceived`` (an empty message).
RECEIVED = b""


def _read(value: bytes | str | os.PathLike[str] | None) -> bytes | None:
    """PEM data given as bytes, or read from a path."""
    if value is None or isinstance(value, bytes):
        return value
    try:
        with open(value, "rb") as f:
            return f.read()
    except OSError as exc:
        raise JellyError(f"cannot read {os.fspath(value)!r}: {exc.strerror or exc}") from None


def channel_options(max_message_size: int) -> list[tuple[str, Any]]:
    return [("grpc.max_send_message_length", max_message_size),
            ("grpc.max_receive_message_length", max_message_size)]


def _server_options(max_message_size: int, keepalive: float | None) -> list[tuple[str, Any]]:
    # gRPC shares ports (SO_REUSEPORT) by default: a second broker on a port in use would
    # start, and the kernel would split the clients between two brokers that never meet.
    options = channel_options(max_message_size) + [("grpc.so_reuseport", 0)]
    if keepalive:
        options += [("grpc.keepalive_time_ms", int(keepalive * 1000)),
                    ("grpc.keepalive_timeout_ms", int(max(keepalive, 10) * 2000)),
                    ("grpc.http2.max_pings_without_data", 0),
                    ("grpc.keepalive_permit_without_calls", 1),
                    ("grpc.http2.min_recv_ping_interval_without_data_ms", 5000)]
    return options


class _Service:
    """What both transports share: configuration, the broker and the token check."""

    def __init__(self, *, host: str, port: int, tls_cert: Any, tls_key: Any, tls_client_ca: Any,
                 token: str | None, max_message_size: int, limits: ReaderLimits | None,
                 max_queue_frames: int, max_queue_bytes: int, keepalive: float | None,
                 drop_grace: float, linger: float) -> None:
        self.broker = Broker(limits=limits, max_queue_frames=max_queue_frames,
                             max_queue_bytes=max_queue_bytes,
                             max_batch_bytes=min(max_message_size, MAX_BATCH_BYTES),
                             linger=linger)
        self._expected = f"Bearer {token}".encode() if token else None
        self.drop_grace = drop_grace
        self.max_message_size = max_message_size
        self.options = _server_options(max_message_size, keepalive)
        if not 0 <= port <= 65535:              # gRPC would take it modulo 65536
            raise JellyError(f"port {port} is not in 0..65535")
        self.address = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
        self.host = host
        if (tls_cert is None) != (tls_key is None):
            raise JellyError("TLS needs both a certificate chain and a private key")
        self.credentials = None
        if tls_cert is not None:
            client_ca = _read(tls_client_ca)
            self.credentials = grpc.ssl_server_credentials(
                [(_read(tls_key), _read(tls_cert))], root_certificates=client_ca,
                require_client_auth=client_ca is not None)
        #: The port the server listens on (known once created; ``port=0`` picks a free one).
        self.port = 0

    def _bind(self, server: Any) -> None:
        try:
            if self.credentials is not None:
                self.port = server.add_secure_port(self.address, self.credentials)
            else:
                self.port = server.add_insecure_port(self.address)
        except RuntimeError:                # grpcio's "Failed to bind to address ..."
            self.port = 0
        if not self.port:
            why = "the port is in use, or the address is not this machine's"
            if self.credentials is not None:
                why += ", or the TLS certificate and key do not load"
            raise JellyError(f"cannot listen on {self.address} ({why})")

    def denied(self, context: Any) -> bool:
        if self._expected is None:
            return False
        for key, value in context.invocation_metadata() or ():
            if key == "authorization":
                given = value.encode() if isinstance(value, str) else value
                return not hmac.compare_digest(given, self._expected)
        return True

    @property
    def target(self) -> str:
        """``host:port`` to connect to."""
        host = "127.0.0.1" if self.host in ("0.0.0.0", "") else \
            "[::1]" if self.host == "::" else self.host
        return f"{host}:{self.port}"


_UNAUTHENTICATED = "missing or wrong bearer token (metadata 'authorization: Bearer TOKEN')"


def _code(name: str) -> grpc.StatusCode:
    code: grpc.StatusCode = getattr(grpc.StatusCode, name)
    return code


def _handlers(publish: Any, subscribe: Any) -> grpc.GenericRpcHandler:
    # Bytes in, bytes out: no (de)serializer on frames.
    return grpc.method_handlers_generic_handler(SERVICE, {
        "SubscribeRdf": grpc.unary_stream_rpc_method_handler(subscribe),
        "PublishRdf": grpc.stream_unary_rpc_method_handler(publish),
    })


class Server(_Service):
    """The broker server on grpcio's thread pool: every open call holds a thread, so
    ``max_workers`` bounds the publishers and subscribers served at once (later calls wait).

    ``host`` / ``port`` (0: a free port, see :attr:`port`); ``tls_cert`` / ``tls_key`` (PEM bytes
    or paths) turn TLS on, ``tls_client_ca`` also requires client certificates signed by it;
    ``token``: the bearer token every call must carry; ``limits``: what a published stream may
    declare; ``max_queue_frames`` / ``max_queue_bytes``: how far a subscriber may fall behind
    before it is dropped (``RESOURCE_EXHAUSTED``), ``drop_grace``: seconds after which a dropped
    subscriber that does not read at all is cancelled; ``linger``: seconds a subscriber of a busy
    flat stream waits to merge frames into one message (0: never waits).  Use as a context manager or call
    :meth:`start` and :meth:`stop`.
    """

    def __init__(self, host: str = "127.0.0.1", port: int = 0, *, tls_cert: Any = None,
                 tls_key: Any = None, tls_client_ca: Any = None, token: str | None = None,
                 max_message_size: int = DEFAULT_MAX_MESSAGE_SIZE,
                 limits: ReaderLimits | None = None, max_queue_frames: int = MAX_QUEUE_FRAMES,
                 max_queue_bytes: int = MAX_QUEUE_BYTES, max_workers: int = 64,
                 keepalive: float | None = 10.0, drop_grace: float = 10.0,
                 linger: float = LINGER) -> None:
        super().__init__(host=host, port=port, tls_cert=tls_cert, tls_key=tls_key,
                         tls_client_ca=tls_client_ca, token=token,
                         max_message_size=max_message_size, limits=limits,
                         max_queue_frames=max_queue_frames, max_queue_bytes=max_queue_bytes,
                         keepalive=keepalive, drop_grace=drop_grace, linger=linger)
        self._pool = concurrent.futures.ThreadPoolExecutor(max_workers,
                                                           thread_name_prefix="jelly-grpc")
        self._server = grpc.server(self._pool, options=self.options)
        self._server.add_generic_rpc_handlers((_handlers(self._publish, self._subscribe),))
        self._bind(self._server)

    def start(self) -> Server:
        self._server.start()
        return self

    def stop(self, grace: float | None = 5.0) -> threading.Event:
        """Graceful shutdown: no new calls or frames; subscribers get what is queued and a
        clean end of stream; calls still open after ``grace`` seconds are cancelled.  Returns an
        event set when everything has stopped."""
        self.broker.close()
        done: threading.Event = self._server.stop(grace)
        self._pool.shutdown(wait=False)
        return done

    def wait_for_termination(self, timeout: float | None = None) -> bool:
        return bool(self._server.wait_for_termination(timeout))

    def __enter__(self) -> Server:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop().wait()

    # -- handlers ------------------------------------------------------------------------------

    def _publish(self, request_iterator: Iterable[bytes], context: grpc.ServicerContext) -> bytes:
        if self.denied(context):
            context.abort(grpc.StatusCode.UNAUTHENTICATED, _UNAUTHENTICATED)
        broker = self.broker
        try:
            pub = broker.publication()
            try:
                for data in request_iterator:
                    broker.publish(pub, data)
            finally:
                broker.end_publication(pub)
        except BrokerError as exc:
            context.abort(_code(exc.code), exc.message)
        if pub.frames == 0:
            context.abort(grpc.StatusCode.INVALID_ARGUMENT,
                          "a published stream must hold at least one frame")
        return RECEIVED

    def _subscribe(self, request: bytes, context: grpc.ServicerContext) -> Iterator[bytes]:
        if self.denied(context):
            context.abort(grpc.StatusCode.UNAUTHENTICATED, _UNAUTHENTICATED)
        try:
            topic, requested = decode_subscribe(request)
        except JellyError as exc:
            context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(exc))
        try:
            sub = self.broker.subscribe(topic, requested)
        except BrokerError as exc:
            context.abort(_code(exc.code), exc.message)
        context.add_callback(sub.close)
        sub.on_drop = lambda: self._cancel_later(sub, context)
        # Headers now: the client knows it is subscribed before the first frame.
        context.send_initial_metadata(())
        try:
            while True:
                frame = sub.get()
                if frame is None:
                    return
                yield frame
        except BrokerError as exc:
            context.abort(_code(exc.code), exc.message)
        finally:
            sub.close()

    def _cancel_later(self, sub: Subscription, context: grpc.ServicerContext) -> None:
        # A dropped subscriber learns why when it reads again; one that does not read at all
        # holds a thread, so it is cancelled after the grace period.
        def cancel() -> None:
            if context.is_active():
                context.cancel()
        timer = threading.Timer(self.drop_grace, cancel)
        timer.daemon = True
        timer.start()


class AsyncServer(_Service):
    """The broker server on ``grpc.aio`` (one event loop serves every call); the arguments are
    those of :class:`Server` except ``max_workers``.  ``await start()``, ``await stop()``, or
    ``async with``.  A dropped subscriber that never reads again keeps its call (not its
    queue) until its client goes away."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0, *, tls_cert: Any = None,
                 tls_key: Any = None, tls_client_ca: Any = None, token: str | None = None,
                 max_message_size: int = DEFAULT_MAX_MESSAGE_SIZE,
                 limits: ReaderLimits | None = None, max_queue_frames: int = MAX_QUEUE_FRAMES,
                 max_queue_bytes: int = MAX_QUEUE_BYTES, keepalive: float | None = 10.0,
                 linger: float = LINGER) -> None:
        super().__init__(host=host, port=port, tls_cert=tls_cert, tls_key=tls_key,
                         tls_client_ca=tls_client_ca, token=token,
                         max_message_size=max_message_size, limits=limits,
                         max_queue_frames=max_queue_frames, max_queue_bytes=max_queue_bytes,
                         keepalive=keepalive, drop_grace=0.0, linger=linger)
        self._server = aio.server(options=self.options)
        self._server.add_generic_rpc_handlers((_handlers(self._publish, self._subscribe),))
        self._bind(self._server)

    async def start(self) -> AsyncServer:
        await self._server.start()
        return self

    async def stop(self, grace: float | None = 5.0) -> None:
        """Graceful shutdown, as :meth:`Server.stop`; returns when everything has stopped."""
        self.broker.close()
        await self._server.stop(grace)

    async def wait_for_termination(self, timeout: float | None = None) -> bool:
        return bool(await self._server.wait_for_termination(timeout))

    async def __aenter__(self) -> AsyncServer:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    async def _publish(self, request_iterator: AsyncIterator[bytes],
                       context: aio.ServicerContext[bytes, bytes]) -> bytes:
        if self.denied(context):
            await context.abort(grpc.StatusCode.UNAUTHENTICATED, _UNAUTHENTICATED)
        broker = self.broker
        try:
            pub = broker.publication()
            try:
                async for data in request_iterator:
                    broker.publish(pub, data)
            finally:
                broker.end_publication(pub)
        except BrokerError as exc:
            await context.abort(_code(exc.code), exc.message)
        if pub.frames == 0:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT,
                                "a published stream must hold at least one frame")
        return RECEIVED

    async def _subscribe(self, request: bytes,
                         context: aio.ServicerContext[bytes, bytes]) -> AsyncIterator[bytes]:
        if self.denied(context):
            await context.abort(grpc.StatusCode.UNAUTHENTICATED, _UNAUTHENTICATED)
        try:
            topic, requested = decode_subscribe(request)
        except JellyError as exc:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(exc))
        try:
            sub = self.broker.subscribe(topic, requested)
        except BrokerError as exc:
            await context.abort(_code(exc.code), exc.message)
        context.add_done_callback(lambda _: sub.close())
        await context.send_initial_metadata(())
        try:
            while True:
                frame = await sub.aget()
                if frame is None:
                    return
                yield frame
        except BrokerError as exc:
            await context.abort(_code(exc.code), exc.message)
        finally:
            sub.close()
