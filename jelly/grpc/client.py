"""Clients of the ``RdfStreamService``: publish and subscribe, on threads (:class:`Client`) or
asyncio (:class:`AsyncClient`).

Publishing takes frames (bytes of ``RdfStreamFrame`` messages, e.g. from a Jelly file) or
statements, which are encoded here with the given options.  The topic travels as the stream
name of the stream's options row, the way jelly-jvm's gRPC service reads it: statements are
encoded with ``stream_name=topic``, and frames whose options row names another stream get that
row rewritten: the first frame's, and the repeats of it that start later frames (the segment
starts of a segmented file), which must stay identical to it; nothing else is touched.

Subscribing yields frames as bytes, decoded :class:`jelly.Frame` objects, or statements.  With
``reconnect`` (a :class:`Backoff`), a subscription that loses its server (``UNAVAILABLE``, or a
clean end when the server shuts down) connects again after a growing delay and goes on; each
connection is a new stream (decoded output carries on seamlessly, frames as bytes start again
with an options row), and what is published while it is away is not seen.
"""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
import random
import time
from typing import (Any, AsyncIterable, AsyncIterator, Callable, Iterable, Iterator, Mapping,
                    Sequence, cast)

import grpc
from grpc import aio

from .._decoder import Decoder, Frame
from .._encoder import Encoder
from .._streaming import encode_subscribe, first_options, with_stream_name
from ..errors import JellyError
from ..options import ReaderLimits, StreamOptions, make_options
from .server import DEFAULT_MAX_MESSAGE_SIZE, PUBLISH, SUBSCRIBE, _read, channel_options

#: Rows per frame when publishing statements (the spec recommends small frames for streams).
DEFAULT_ROWS_PER_FRAME = 256
#: Status codes after which a reconnecting subscriber tries again.
RETRY_CODES = frozenset({grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.UNKNOWN,
                         grpc.StatusCode.INTERNAL, grpc.StatusCode.CANCELLED})
OUTPUTS = ("bytes", "frames", "statements")


class RpcFailed(JellyError):
    """A call ended with a gRPC error: ``code`` (a ``grpc.StatusCode``) and ``details``."""

    def __init__(self, code: grpc.StatusCode, details: str | None) -> None:
        self.code = code
        self.details = details or ""
        super().__init__(f"{self.details or 'call failed'} (gRPC status {code.name})")

    def __reduce__(self) -> Any:
        return (RpcFailed, (self.code, self.details))


def _failed(exc: grpc.RpcError) -> RpcFailed:
    call = cast(grpc.Call, exc)
    return RpcFailed(call.code(), call.details())


@dataclasses.dataclass(frozen=True)
class Backoff:
    """Delays between reconnection attempts: ``initial`` seconds, times ``multiplier`` after
    each failure up to ``maximum``, each varied by up to ±``jitter`` (a fraction);
    ``attempts`` in a row before giving up (None: never).  A frame received resets it."""

    initial: float = 0.5
    maximum: float = 30.0
    multiplier: float = 2.0
    jitter: float = 0.2
    attempts: int | None = None

    def delays(self) -> Iterator[float]:
        delay = self.initial
        for _ in range(self.attempts) if self.attempts is not None else itertools.count():
            yield max(0.0, delay * (1 + random.uniform(-self.jitter, self.jitter)))
            delay = min(self.maximum, delay * self.multiplier)


def _is_frame(item: object) -> bool:
    return isinstance(item, (bytes, bytearray, memoryview))


def _renaming(topic: str, first: bytes) -> Callable[[Any], bytes]:
    """What publishing does to the frames after ``first``, whose options row gets ``topic`` as
    its stream name: a later frame that starts with a repeat of that row (a segment start) gets
    the same name, so that the repeat stays identical to the first, as the protocol requires."""
    original = first_options(first)[0]
    if original is None or original.stream_name == topic:
        return bytes

    def rename(frame: Any) -> bytes:
        frame = bytes(frame)
        return with_stream_name(frame, topic) if first_options(frame)[0] == original else frame
    return rename


def frames_to_publish(topic: str, first: object, rest: Iterator[Any],
                      options: StreamOptions | None, rows_per_frame: int,
                      namespaces: Mapping[str, object] | None,
                      fields: dict[str, Any]) -> Iterator[bytes]:
    """The frames of a publication: ``first`` and ``rest`` are frames (bytes) or statements."""
    if first is None:
        raise JellyError("nothing to publish (a published stream holds at least one frame)")
    if _is_frame(first):
        if options is not None or fields or namespaces:
            raise JellyError("options apply to statements; frames are published as they are")
        first = bytes(cast(bytes, first))
        rename = _renaming(topic, first)
        yield with_stream_name(first, topic)
        for frame in rest:
            yield rename(frame)
        return
    if rows_per_frame < 1:
        raise JellyError("rows_per_frame must be at least 1")
    quads = isinstance(first, (tuple, list)) and len(first) == 4
    resolved = make_options(options, quads=quads if options is None else None,
                            stream_name=topic, **fields)
    encoder = Encoder(resolved)
    for name, iri in (namespaces or {}).items():
        encoder.add_namespace(name, iri)
    statements = itertools.chain((first,), rest)
    while True:
        done = encoder.add_statements(statements, rows_per_frame)
        if encoder.pending or done is False:
            yield encoder.take_frame()
        if done:
            return


def _credentials(tls: bool, tls_ca: Any, tls_cert: Any,
                 tls_key: Any) -> grpc.ChannelCredentials | None:
    if not tls:
        if tls_ca is not None or tls_cert is not None:
            raise JellyError("TLS files given without tls=True")
        return None
    if (tls_cert is None) != (tls_key is None):
        raise JellyError("a client certificate needs both the chain and the private key")
    return grpc.ssl_channel_credentials(root_certificates=_read(tls_ca),
                                        private_key=_read(tls_key),
                                        certificate_chain=_read(tls_cert))


class _Base:
    def __init__(self, target: str, *, tls: bool = False, tls_ca: Any = None,
                 tls_cert: Any = None, tls_key: Any = None, tls_server_name: str | None = None,
                 token: str | None = None, max_message_size: int = DEFAULT_MAX_MESSAGE_SIZE,
                 channel_args: Sequence[tuple[str, Any]] = ()) -> None:
        port = target.rsplit(":", 1)[-1] if ":" in target else ""
        if port.isdigit() and int(port) > 65535:    # gRPC would take it modulo 65536
            raise JellyError(f"port {port} of {target!r} is beyond 65535")
        self.target = target
        self._credentials = _credentials(tls, tls_ca, tls_cert, tls_key)
        self._options = channel_options(max_message_size) + list(channel_args)
        if tls_server_name:
            self._options.append(("grpc.ssl_target_name_override", tls_server_name))
        self._metadata: tuple[tuple[str, str], ...] = \
            (("authorization", f"Bearer {token}"),) if token else ()

    @staticmethod
    def _check_output(output: str) -> None:
        if output not in OUTPUTS:
            raise ValueError(f"output must be one of {', '.join(OUTPUTS)}, not {output!r}")


class Client(_Base):
    """A client on threads.  ``target`` is ``host:port``; ``tls=True`` uses TLS (``tls_ca``:
    PEM bytes or path of the CA to trust, default the system's; ``tls_cert`` / ``tls_key``: a
    client certificate; ``tls_server_name``: the name to check the server certificate
    against); ``token``: a bearer token sent with every call; ``max_message_size`` caps frames
    both ways.  Close it (or use ``with``) when done."""

    def __init__(self, target: str, **kwargs: Any) -> None:
        super().__init__(target, **kwargs)
        if self._credentials is not None:
            self._channel = grpc.secure_channel(target, self._credentials, self._options)
        else:
            self._channel = grpc.insecure_channel(target, self._options)
        self._publish = self._channel.stream_unary(PUBLISH)
        self._subscribe = self._channel.unary_stream(SUBSCRIBE)

    def close(self) -> None:
        self._channel.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def publish(self, topic: str, data: Iterable[Any], options: StreamOptions | None = None, *,
                rows_per_frame: int = DEFAULT_ROWS_PER_FRAME,
                namespaces: Mapping[str, object] | None = None, timeout: float | None = None,
                wait_for_ready: bool = False, **fields: Any) -> int:
        """Publish ``data`` to ``topic`` as one stream and return the number of frames sent.
        ``data`` holds frames (bytes, published as they are) or statements (``(s, p, o)`` /
        ``(s, p, o, g)`` of jelly terms, encoded with ``options`` or the fields of
        :func:`jelly.make_options`, ``rows_per_frame`` rows per frame).  Raises
        :class:`RpcFailed` if the server refuses the stream."""
        it = iter(data)
        sent = 0
        failed: list[BaseException] = []

        def frames() -> Iterator[bytes]:
            nonlocal sent
            try:
                for frame in frames_to_publish(topic, next(it, None), it, options,
                                               rows_per_frame, namespaces, fields):
                    sent += 1
                    yield frame
            except BaseException as exc:
                failed.append(exc)     # grpc would only say "Exception iterating requests"
                raise
        try:
            self._publish(frames(), metadata=self._metadata, timeout=timeout,
                          wait_for_ready=wait_for_ready)
        except grpc.RpcError as exc:
            if failed:
                raise failed[0] from None
            raise _failed(exc) from None
        return sent

    def subscribe(self, topic: str, requested_options: StreamOptions | None = None, *,
                  output: str = "frames", terms: Any = "native",
                  limits: ReaderLimits | None = None, reconnect: Backoff | bool | None = None,
                  timeout: float | None = None,
                  on_subscribed: Callable[[], object] | None = None) -> Iterator[Any]:
        """Subscribe to ``topic``, asking for ``requested_options`` (the server answers with
        compatible options or refuses with ``INVALID_ARGUMENT``).  Yields ``output``:
        ``"bytes"`` (frames as received), ``"frames"`` (decoded :class:`jelly.Frame`, terms made
        by ``terms`` as for :class:`jelly.Decoder`) or ``"statements"``.  ``reconnect``
        (``True`` or a :class:`Backoff`) keeps the subscription going across server restarts.
        ``on_subscribed`` is called (from the iterating thread) each time the server has taken
        the subscription, before its first frame: what is published from then on arrives.
        Stop iterating (or close the iterator) to cancel the call."""
        self._check_output(output)
        backoff = Backoff() if reconnect is True else reconnect or None
        return self._subscription(encode_subscribe(topic, requested_options), output, terms,
                                  limits, backoff, timeout, on_subscribed)

    def _subscription(self, request: bytes, output: str, terms: Any,
                      limits: ReaderLimits | None, backoff: Backoff | None,
                      timeout: float | None,
                      on_subscribed: Callable[[], object] | None) -> Iterator[Any]:
        delays = backoff.delays() if backoff else iter(())
        while True:
            call = self._subscribe(request, metadata=self._metadata, timeout=timeout,
                                   wait_for_ready=backoff is not None)
            # Each connection is a new stream.
            decoder = None if output == "bytes" else Decoder(terms=terms, limits=limits)
            received = False
            try:
                call.initial_metadata()      # the server has taken the subscription
                if on_subscribed is not None and call.is_active():
                    on_subscribed()
                for data in call:
                    if not received:
                        received = True
                        delays = backoff.delays() if backoff else iter(())
                    if decoder is None:
                        yield data
                        continue
                    frame = decoder.decode_frame(data)
                    if output == "frames":
                        yield frame
                    else:
                        yield from frame.statements
                if backoff is None:
                    return
            except grpc.RpcError as exc:
                if backoff is None or cast(grpc.Call, exc).code() not in RETRY_CODES:
                    raise _failed(exc) from None
            finally:
                call.cancel()
            delay = next(delays, None)
            if delay is None:
                raise RpcFailed(grpc.StatusCode.UNAVAILABLE, "gave up reconnecting to the server")
            time.sleep(delay)


class AsyncClient(_Base):
    """:class:`Client` for asyncio (same arguments); ``await close()`` or ``async with``."""

    def __init__(self, target: str, **kwargs: Any) -> None:
        super().__init__(target, **kwargs)
        if self._credentials is not None:
            self._channel = aio.secure_channel(target, self._credentials, self._options)
        else:
            self._channel = aio.insecure_channel(target, self._options)
        self._publish = self._channel.stream_unary(PUBLISH)
        self._subscribe = self._channel.unary_stream(SUBSCRIBE)

    async def close(self) -> None:
        await self._channel.close()

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def publish(self, topic: str, data: Iterable[Any] | AsyncIterable[Any],
                      options: StreamOptions | None = None, *,
                      rows_per_frame: int = DEFAULT_ROWS_PER_FRAME,
                      namespaces: Mapping[str, object] | None = None,
                      timeout: float | None = None, wait_for_ready: bool = False,
                      **fields: Any) -> int:
        """:meth:`Client.publish`; ``data`` may also be an async iterable."""
        sent = 0
        failed: list[BaseException] = []

        async def frames() -> AsyncIterator[bytes]:
            try:
                async for frame in _frames():
                    yield frame
            except BaseException as exc:
                failed.append(exc)
                raise

        async def _frames() -> AsyncIterator[bytes]:
            nonlocal sent
            if not isinstance(data, AsyncIterable):
                it = iter(data)
                for frame in frames_to_publish(topic, next(it, None), it, options,
                                               rows_per_frame, namespaces, fields):
                    sent += 1
                    yield frame
                return
            ait = aiter(data)
            first = await anext(ait, None)
            if first is None or _is_frame(first):
                for frame in frames_to_publish(topic, first, iter(()), options, rows_per_frame,
                                               namespaces, fields):
                    sent += 1
                    yield frame
                rename = _renaming(topic, bytes(cast(bytes, first)))
                async for frame in ait:
                    sent += 1
                    yield rename(frame)
                return
            # Statements from an async source: encoded a batch at a time.
            encoding = _AsyncEncoding(topic, options, rows_per_frame, namespaces, fields)
            batch = [first]
            async for st in ait:
                batch.append(st)
                if len(batch) >= rows_per_frame:
                    for frame in encoding.feed(batch):
                        sent += 1
                        yield frame
                    batch = []
            for frame in encoding.finish(batch):
                sent += 1
                yield frame
        try:
            await self._publish(frames(), metadata=self._metadata, timeout=timeout,
                                wait_for_ready=wait_for_ready)
        except asyncio.CancelledError:
            # grpc.aio cancels the call when the request iterator raises.
            if failed:
                raise failed[0] from None
            raise
        except grpc.RpcError as exc:
            if failed:
                raise failed[0] from None
            raise _failed(exc) from None
        return sent

    async def subscribe(self, topic: str, requested_options: StreamOptions | None = None, *,
                        output: str = "frames", terms: Any = "native",
                        limits: ReaderLimits | None = None,
                        reconnect: Backoff | bool | None = None,
                        timeout: float | None = None,
                        on_subscribed: Callable[[], object] | None = None
                        ) -> AsyncIterator[Any]:
        """:meth:`Client.subscribe` as an async generator."""
        self._check_output(output)
        backoff = Backoff() if reconnect is True else reconnect or None
        request = encode_subscribe(topic, requested_options)
        delays = backoff.delays() if backoff else iter(())
        while True:
            call = self._subscribe(request, metadata=self._metadata, timeout=timeout,
                                   wait_for_ready=backoff is not None)
            decoder = None if output == "bytes" else Decoder(terms=terms, limits=limits)
            received = False
            try:
                await call.initial_metadata()
                if on_subscribed is not None:
                    on_subscribed()
                async for data in call:
                    if not received:
                        received = True
                        delays = backoff.delays() if backoff else iter(())
                    if decoder is None:
                        yield data
                        continue
                    frame = decoder.decode_frame(data)
                    if output == "frames":
                        yield frame
                    else:
                        for st in frame.statements:
                            yield st
                if backoff is None:
                    return
            except grpc.RpcError as exc:
                if backoff is None or cast(grpc.Call, exc).code() not in RETRY_CODES:
                    raise _failed(exc) from None
            finally:
                call.cancel()
            delay = next(delays, None)
            if delay is None:
                raise RpcFailed(grpc.StatusCode.UNAVAILABLE, "gave up reconnecting to the server")
            await asyncio.sleep(delay)


class _AsyncEncoding:
    # Statements arriving in batches, encoded into frames as they come.

    def __init__(self, topic: str, options: StreamOptions | None, rows_per_frame: int,
                 namespaces: Mapping[str, object] | None, fields: dict[str, Any]) -> None:
        self._args = (topic, options, rows_per_frame, namespaces, fields)
        self._encoder: Encoder | None = None
        self._rows = rows_per_frame

    def feed(self, batch: list[Any]) -> list[bytes]:
        if self._encoder is None:
            topic, options, rows, namespaces, fields = self._args
            quads = len(batch[0]) == 4
            self._encoder = Encoder(make_options(options, quads=quads if options is None else None,
                                                 stream_name=topic, **fields))
            for name, iri in (namespaces or {}).items():
                self._encoder.add_namespace(name, iri)
        out = []
        it = iter(batch)
        while not self._encoder.add_statements(it, self._rows):
            out.append(self._encoder.take_frame())
        return out

    def finish(self, batch: list[Any]) -> list[bytes]:
        out = self.feed(batch) if batch else []
        assert self._encoder is not None
        if self._encoder.pending:
            out.append(self._encoder.take_frame())
        return out


__all__ = ["AsyncClient", "Backoff", "Client", "Frame", "RpcFailed"]
