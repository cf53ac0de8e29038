"""The broker behind the ``RdfStreamService`` server: topics, publications and subscriptions.

No gRPC here: :mod:`jelly.grpc.server` drives it from grpcio's threads or from asyncio.

* A **publication** is one ``PublishRdf`` call: its frames form one Jelly stream, whose topic is
  the ``stream_name`` of the options row that starts its first frame (as jelly-jvm's gRPC test
  service reads it).  Every frame is decoded by the core decoder (strict, wire values, no RDF
  terms) before anything is forwarded; a malformed one ends that publication with
  ``INVALID_ARGUMENT`` and a message saying where (frame, row, byte), and nobody else notices
  beyond the stream stopping there.
* A **subscription** is one ``SubscribeRdf`` call.  Its output is always one valid Jelly
  stream from its first frame:

  - *passthrough*: it was there before a publication's first frame and takes that stream's
    options: it gets the published bytes unchanged (no work per frame);
  - *transcoding*: it joined mid-stream, asked for other options, or its topic's stream
    changed (a later or a concurrent publication): each frame is re-encoded by its own
    :class:`~jelly._transcode.FrameRewriter` from the decoded frame, in the subscriber's own
    thread or task, with fresh lookups and repeated terms, so it decodes on its own from its
    first frame.  A passthrough subscription whose topic gets another stream continues its
    stream this way (no second options row).

* **Catching up**: a subscriber that lags gets the queued frames of a *flat* stream (logical
  type flat triples or flat quads, whose frames are only a transport unit) merged into one
  message of up to ``max_batch_bytes`` (their rows in order: concatenated ``RdfStreamFrame``
  messages are one frame), so that each message sent costs less the further it is behind.
  When frames come fast (the subscriber's last message left less than ``linger``, 5 ms, ago) it
  waits for more until ``linger`` has passed, so that a busy topic costs the server at most one
  message per ``linger`` and subscriber.  Frames with metadata, frames with an options row (a
  segment start: its options row stays at a frame's start) and the frames of grouped streams
  (one graph or dataset per frame) are always sent one by one, without waiting.
* **Flow control**: each subscription has a bounded queue (``max_queue_frames`` frames,
  ``max_queue_bytes`` bytes of published frames).  Publishing never waits for subscribers.  A
  subscriber that falls further behind is dropped: its queue is freed at once and its call ends
  with ``RESOURCE_EXHAUSTED`` (when its client reads again; the transport cancels it after a
  grace period if it does not).  Other subscribers and the publishers are not affected.
* **Shutdown** (:meth:`Broker.close`): publications are refused from then on (``UNAVAILABLE``),
  every subscription gets what is queued and then a clean end of stream.

``requested_options`` follow the compatibility table of the streaming spec
(:func:`negotiate`); what cannot be honoured is refused with ``INVALID_ARGUMENT``.
"""

from __future__ import annotations

import collections
import itertools
import threading
import time
from typing import Any, Callable

from .._decoder import ROW_KINDS
from .._transcode import FrameRewriter, WireDecoder, check_output
from ..errors import JellyError, JellyOptionsError
from ..options import (MIN_NAME_TABLE_SIZE, PROTOCOL_VERSION, PhysicalStreamType,
                       ReaderLimits, StreamOptions)

#: Frames and bytes a subscriber may fall behind before it is dropped (defaults).
MAX_QUEUE_FRAMES = 1024
MAX_QUEUE_BYTES = 64 * 1024 * 1024
#: Largest message a lagging subscriber gets merged frames in (the spec recommends frames
#: well under 1 MB).
MAX_BATCH_BYTES = 1 << 20
#: How long a subscriber of a busy flat stream waits to merge frames (seconds).
LINGER = 0.005

_ids = itertools.count(1)


class BrokerError(Exception):
    """A call ends with gRPC status ``code`` (its name, e.g. ``"INVALID_ARGUMENT"``)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def _logical_fits(logical: int, physical: int) -> bool:
    base = int(logical) % 10
    if base == 0:
        return True
    return base in ((1, 3) if physical == PhysicalStreamType.TRIPLES else (2, 4))


def _offered(publications: list[Any]) -> StreamOptions:
    """What a subscriber joining mid-stream is offered: the newest publication's options,
    able to hold the statements of every publication under way (it is sent all of them):
    QUADS (or GRAPHS, if those are GRAPHS) when one is not TRIPLES, RDF-star and
    generalized statements when one has them.  The newest alone refused a subscriber that
    asked for nothing when an older QUADS publication was still going on."""
    newest = publications[-1].options
    assert newest is not None
    others = [p.options for p in publications[:-1] if p.options is not None]
    if not others:
        return newest
    fields: dict[str, Any] = {}
    if newest.physical_type == PhysicalStreamType.TRIPLES:
        wider = [o.physical_type for o in others if o.physical_type != PhysicalStreamType.TRIPLES]
        if wider:
            from ..transcode import _logical_for
            physical = (PhysicalStreamType.GRAPHS if all(w == PhysicalStreamType.GRAPHS
                                                         for w in wider)
                        else PhysicalStreamType.QUADS)
            fields["physical_type"] = physical
            fields["logical_type"] = _logical_for(int(newest.logical_type), physical)
    if not newest.rdf_star and any(o.rdf_star for o in others):
        fields["rdf_star"] = True
    if not newest.generalized_statements and any(o.generalized_statements for o in others):
        fields["generalized_statements"] = True
    return newest.replace(**fields) if fields else newest


def negotiate(requested: StreamOptions | None, offered: StreamOptions) -> StreamOptions:
    """The options a subscriber who asked for ``requested`` gets from a stream with options
    ``offered``, by the streaming spec's table: physical type as requested (the transcoder
    converts between types, but nothing becomes TRIPLES), generalized statements and RDF-star
    only if requested, table sizes at most those requested (the offered ones when smaller),
    version at most the one requested, stream name and logical type as requested when given.
    Version 0 and an unspecified physical type mean "not given".  Raises
    :class:`JellyOptionsError` when no output can honour the request."""
    if requested is None:
        return offered
    r = requested
    physical = PhysicalStreamType(int(r.physical_type) or int(offered.physical_type))
    names = min(r.max_name_table_size, offered.max_name_table_size)
    if names < MIN_NAME_TABLE_SIZE:
        raise JellyOptionsError(f"requested max_name_table_size {r.max_name_table_size} is below "
                                f"the minimum of {MIN_NAME_TABLE_SIZE}")
    version = offered.version or PROTOCOL_VERSION
    if r.version:
        version = min(version, r.version)
    logical = int(r.logical_type) if int(r.logical_type) and \
        _logical_fits(int(r.logical_type), physical) else int(offered.logical_type)
    if not _logical_fits(logical, physical):
        # The offered stream's logical type in another physical type: its counterpart.
        from ..transcode import _logical_for
        logical = _logical_for(logical, PhysicalStreamType(physical))
    out = StreamOptions(
        physical_type=physical, logical_type=logical,
        generalized_statements=offered.generalized_statements and r.generalized_statements,
        rdf_star=offered.rdf_star and r.rdf_star, max_name_table_size=names,
        max_prefix_table_size=min(r.max_prefix_table_size, offered.max_prefix_table_size),
        max_datatype_table_size=min(r.max_datatype_table_size,
                                    offered.max_datatype_table_size),
        stream_name=r.stream_name or offered.stream_name, version=version)
    out.validate_for_writing()
    check_output(out, offered)
    return out


class Publication:
    """One published stream (a ``PublishRdf`` call)."""

    def __init__(self, limits: ReaderLimits | None) -> None:
        self.id = next(_ids)
        self.decoder = WireDecoder(limits=limits, new_streams=False)
        self.topic: _Topic | None = None
        self.options: StreamOptions | None = None
        self.frames = 0
        self.statements = 0
        self.offset = 0           # bytes received, for error positions
        self.in_graph = False     # the frames so far end inside a graph (GRAPHS)
        # A flat stream: its frames are only a transport unit and may be merged.
        self.flat = False


class _Decoded:
    # A decoded frame queued for a transcoding subscriber.
    __slots__ = ("frame", "options", "in_graph", "size", "mergeable")

    def __init__(self, frame: Any, options: StreamOptions, in_graph: bool, size: int,
                 mergeable: bool) -> None:
        self.frame = frame
        self.options = options
        self.in_graph = in_graph
        self.size = size
        self.mergeable = mergeable


class _Whole:
    # Published bytes sent as a message of their own (plain ``bytes`` may be merged).
    __slots__ = ("data", "size")

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.size = len(data)


_OPTIONS_ROWS = ROW_KINDS.index("options")


def _size_of(item: Any) -> int:
    return len(item) if type(item) is bytes else item.size


def _mergeable(a: Any, b: Any) -> bool:
    if type(a) is bytes:
        return type(b) is bytes
    return type(a) is _Decoded and a.mergeable and type(b) is _Decoded and b.mergeable


_WAITING, _PASSTHROUGH, _TRANSCODING = range(3)
_END = object()


class Subscription:
    """One subscriber (a ``SubscribeRdf`` call): a bounded queue of frames and the state that
    makes its output one stream.  The transport takes frames with :meth:`get` (threads) or
    :meth:`aget` (asyncio); both return the bytes of the next frame, ``None`` at a clean end,
    and raise :class:`BrokerError` when the call must end with an error."""

    def __init__(self, broker: Broker, topic: _Topic, requested: StreamOptions | None) -> None:
        self.id = next(_ids)
        self.broker = broker
        self.topic = topic
        self.requested = requested
        self.mode = _WAITING
        self.source: Publication | None = None
        self.rewriter: FrameRewriter | None = None
        self.declared: StreamOptions | None = None
        self.frames_sent = 0
        self._queue: collections.deque[Any] = collections.deque()
        self._size = 0
        self._cond = threading.Condition(threading.Lock())
        self._error: BrokerError | None = None
        self._ended = False       # the transport saw the end (or the call is gone)
        self._last_sent = 0.0
        self._lingering = False
        # asyncio transports: an event set from any thread.
        self._event: Any = None
        self._loop: Any = None
        self._loop_thread = 0
        #: Called (from the publisher's thread) when the subscription is dropped for being slow.
        self.on_drop: Callable[[], None] | None = None

    # -- producer side (under the topic lock) -------------------------------------------------

    def _put(self, item: Any, size: int) -> bool:
        # Queue an item; False if the subscription is over (or was just dropped as too slow).
        broker = self.broker
        with self._cond:
            if self._error is not None or self._ended:
                return False
            if len(self._queue) >= broker.max_queue_frames or \
                    self._size + size > broker.max_queue_bytes:
                self._queue.clear()
                self._size = 0
                self._error = BrokerError(
                    "RESOURCE_EXHAUSTED",
                    f"subscriber too slow: it fell more than {broker.max_queue_frames} frames or "
                    f"{broker.max_queue_bytes} bytes behind the topic and was dropped")
                dropped = True
            else:
                self._queue.append(item)
                self._size += size
                dropped = False
                if self._lingering and not self._half_full():
                    return True     # it takes what came when its wait is over
            self._cond.notify()
        self._wake()
        if dropped and self.on_drop is not None:
            self.on_drop()
        return not dropped

    def fail(self, error: BrokerError) -> None:
        """End the call with ``error`` now (what is queued is dropped)."""
        with self._cond:
            if self._error is None:
                self._error = error
            self._queue.clear()
            self._size = 0
            self._cond.notify()
        self._wake()

    def finish(self) -> None:
        """End the call cleanly once what is queued is delivered."""
        with self._cond:
            self._queue.append(_END)
            self._cond.notify()
        self._wake()

    def _wake(self) -> None:
        if self._event is not None:
            if threading.get_ident() == self._loop_thread:
                self._event.set()
            else:
                self._loop.call_soon_threadsafe(self._event.set)

    # -- consumer side -------------------------------------------------------------------------

    def _take(self) -> Any:
        # The next item or None if there is none yet; raises at an error end.
        if self._error is not None:
            self._ended = True
            raise self._error
        if self._ended:
            return _END
        if not self._queue:
            return None
        item = self._queue.popleft()
        if item is _END:
            self._ended = True
            return _END
        self._size -= _size_of(item)
        return item

    def _batch(self, batch: list[Any] | None = None) -> list[Any] | None:
        # (None only when nothing is queued and no ``batch`` is given.)
        # The next item, with the items after it that may travel in the same message: a
        # subscriber that lags gets the frames of a flat stream merged (their rows in order,
        # up to max_batch_bytes), which is what lets it catch up.  ``batch``: go on with it.
        if batch is None:
            item = self._take()
            if item is None:
                return None
            batch = [item]
            if item is _END:
                return batch
        item = batch[0]
        size = sum(map(_size_of, batch))
        queue = self._queue
        limit = self.broker.max_batch_bytes
        while queue and _mergeable(item, queue[0]):
            n = _size_of(queue[0])
            if size + n > limit:
                break
            batch.append(self._take())
            size += n
        return batch

    def _half_full(self) -> bool:
        # A lingering subscriber stops waiting once its queue is half full: frames piling
        # up while it waits got one that kept up dropped as too slow (--linger 300 ms).
        broker = self.broker
        return len(self._queue) * 2 >= broker.max_queue_frames or \
            self._size * 2 >= broker.max_queue_bytes

    def _linger(self, batch: list[Any]) -> float:
        # Seconds to wait for more frames to merge: a subscriber of a busy flat stream sends
        # at most one message per ``linger`` (the last one left less than that ago), so that a
        # busy topic costs the server a bounded number of messages per subscriber.
        linger = self.broker.linger
        if linger <= 0 or self._queue or not _mergeable(batch[0], batch[0]):
            return 0.0
        return self._last_sent + linger - time.monotonic()

    def _render(self, batch: list[Any]) -> bytes | None:
        if batch[0] is _END:
            return None
        self.frames_sent += len(batch)
        first = batch[0]
        if type(first) is _Whole:
            return first.data
        if type(first) is bytes:
            return first if len(batch) == 1 else b"".join(batch)
        assert self.rewriter is not None
        # Serialized frames concatenated are one frame holding all their rows.  Re-encoded,
        # frames can be many times larger than published (no prefix table, say: 17 MB of
        # 1 MiB): the message ends once it holds max_batch_bytes, and the frames after it go
        # back to the queue, to be rewritten for the next message.
        out: list[bytes] = []
        size = 0
        limit = self.broker.max_batch_bytes
        try:
            for k, d in enumerate(batch):
                out.append(self.rewriter.write(d.frame, d.options, d.in_graph))
                size += len(out[-1])
                if size >= limit and k + 1 < len(batch):
                    self._put_back(batch[k + 1:])
                    break
        except JellyError as exc:
            self.close()
            raise BrokerError("INVALID_ARGUMENT",
                              f"topic {self.topic.name!r}: a published stream cannot be written "
                              f"with this subscription's options: {exc.message}") from None
        return out[0] if len(out) == 1 else b"".join(out)

    def _put_back(self, items: list[Any]) -> None:
        # Taken for a message they did not fit in: first in the queue again.
        self.frames_sent -= len(items)
        with self._cond:
            if self._error is None and not self._ended:
                self._queue.extendleft(reversed(items))
                self._size += sum(map(_size_of, items))

    def get(self, timeout: float | None = None) -> bytes | None:
        """The next frame to send (waits for it), ``None`` at a clean end."""
        with self._cond:
            while True:
                batch = self._batch()
                if batch is not None:
                    break
                if not self._cond.wait(timeout):
                    raise TimeoutError
            wait = self._linger(batch)
            if wait > 0:
                deadline = time.monotonic() + wait
                self._lingering = True          # new frames do not wake it
                try:
                    while wait > 0 and self._error is None and not self._ended and \
                            not self._half_full():
                        self._cond.wait(wait)
                        wait = deadline - time.monotonic()
                finally:
                    self._lingering = False
                if self._error is None and not self._ended:
                    batch = self._batch(batch) or batch
        self._last_sent = time.monotonic()
        return self._render(batch)

    async def aget(self) -> bytes | None:
        """:meth:`get` for asyncio."""
        import asyncio
        if self._event is None:
            self._loop = asyncio.get_running_loop()
            self._loop_thread = threading.get_ident()
            self._event = asyncio.Event()
        while True:
            with self._cond:
                batch = self._batch()
                if batch is None:
                    self._event.clear()
            if batch is not None:
                wait = self._linger(batch)
                if wait > 0:
                    with self._cond:
                        self._lingering = True      # new frames do not wake it
                        self._event.clear()
                    try:
                        await asyncio.wait_for(self._event.wait(), wait)
                    except asyncio.TimeoutError:
                        pass
                    with self._cond:
                        self._lingering = False
                        if self._error is None and not self._ended:
                            batch = self._batch(batch) or batch
                self._last_sent = time.monotonic()
                return self._render(batch)
            await self._event.wait()

    def close(self) -> None:
        """The call is over (ended, cancelled or failed): leave the topic."""
        with self._cond:
            self._ended = True
            self._queue.clear()
            self._size = 0
            self._cond.notify()
        self._wake()
        self.topic.remove(self)

    @property
    def queued(self) -> int:
        """Frames waiting in the queue."""
        return len(self._queue)


class _Topic:
    def __init__(self, broker: Broker, name: str) -> None:
        self.broker = broker
        self.name = name
        self.lock = threading.Lock()
        self.subscribers: list[Subscription] = []
        self.publications: list[Publication] = []   # those that sent a first frame

    def remove(self, sub: Subscription) -> None:
        with self.lock:
            if sub in self.subscribers:
                self.subscribers.remove(sub)
        self.broker._forget(self)

    # Decisions for a frame of ``pub`` (under the lock).

    def _needs_decoded(self, pub: Publication) -> bool:
        for s in self.subscribers:
            if s.mode != _PASSTHROUGH or s.source is not pub:
                return True
        return False

    def _route(self, sub: Subscription, pub: Publication, data: bytes, frame: Any) -> None:
        options = pub.options
        assert options is not None
        if sub.mode == _WAITING and pub.frames > 1:
            # Cannot happen (a subscriber joining mid-stream starts transcoding): be safe.
            sub.mode = _TRANSCODING
            sub.rewriter = FrameRewriter(negotiate(sub.requested, options))
        if sub.mode == _WAITING:
            # Its first stream, from the publication's first frame.
            try:
                out = negotiate(sub.requested, options)
            except JellyError as exc:
                sub.fail(BrokerError("INVALID_ARGUMENT", f"topic {self.name!r}: the requested "
                                     f"options cannot be honoured: {exc.message}"))
                self.subscribers.remove(sub)
                return
            if out == options:
                sub.mode = _PASSTHROUGH
                sub.source = pub
                sub.declared = options
            else:
                sub.mode = _TRANSCODING
                sub.rewriter = FrameRewriter(out)
                sub.declared = out
        elif sub.mode == _PASSTHROUGH and sub.source is not pub:
            # Another stream on the topic: continue this subscriber's stream by transcoding.
            assert sub.declared is not None and sub.source is not None
            sub.rewriter = FrameRewriter(sub.declared, continue_stream=True,
                                         graph_open=sub.source.in_graph)
            sub.mode = _TRANSCODING
            sub.source = None
        # A frame that (re)states the options (a segment start) stays the first of its
        # message: merged behind other rows its options row would sit inside a frame, where
        # a server refuses it when the recording is published again.
        mergeable = pub.flat and not frame.metadata and not frame.row_counts[_OPTIONS_ROWS]
        if sub.mode == _PASSTHROUGH:
            kept = sub._put(data if mergeable else _Whole(data), len(data))
        else:
            kept = sub._put(_Decoded(frame, options, pub.in_graph, len(data), mergeable),
                            len(data))
        if not kept:
            self.subscribers.remove(sub)


class Broker:
    """Topics with their publications and subscriptions (see the module docstring).

    ``limits`` caps what a published stream may declare (as for a reader);
    ``max_queue_frames`` / ``max_queue_bytes`` bound each subscriber's queue.
    """

    def __init__(self, *, limits: ReaderLimits | None = None,
                 max_queue_frames: int = MAX_QUEUE_FRAMES,
                 max_queue_bytes: int = MAX_QUEUE_BYTES,
                 max_batch_bytes: int = MAX_BATCH_BYTES, linger: float = LINGER) -> None:
        if max_queue_frames < 1 or max_queue_bytes < 1:
            raise ValueError("queue bounds must be positive")
        #: Seconds a subscriber of a busy flat stream waits for more frames to merge.
        self.linger = linger
        #: Largest message of merged frames sent to a lagging subscriber (0: never merge).
        self.max_batch_bytes = max_batch_bytes
        self.limits = limits
        self.max_queue_frames = max_queue_frames
        self.max_queue_bytes = max_queue_bytes
        self._lock = threading.Lock()
        self._topics: dict[str, _Topic] = {}
        self._closed = False
        #: Frames and statements received and validated, since the broker started.
        self.frames_in = 0
        self.statements_in = 0

    def _topic(self, name: str) -> _Topic:
        # Callers hold self._lock (lock order: broker, then topic).
        topic = self._topics.get(name)
        if topic is None:
            topic = self._topics[name] = _Topic(self, name)
        return topic

    def _forget(self, topic: _Topic) -> None:
        with self._lock, topic.lock:
            if not topic.subscribers and not topic.publications and \
                    self._topics.get(topic.name) is topic:
                del self._topics[topic.name]

    @property
    def closed(self) -> bool:
        return self._closed

    def topics(self) -> dict[str, tuple[int, int]]:
        """``{topic: (publications, subscriptions)}`` now."""
        with self._lock:
            return {n: (len(t.publications), len(t.subscribers)) for n, t in self._topics.items()}

    # -- publishing ----------------------------------------------------------------------------

    def publication(self) -> Publication:
        """Start a publication (a ``PublishRdf`` call)."""
        if self._closed:
            raise BrokerError("UNAVAILABLE", "the server is shutting down")
        return Publication(self.limits)

    def publish(self, pub: Publication, data: bytes) -> None:
        """Validate one frame of ``pub`` and forward it; raises :class:`BrokerError`."""
        if self._closed:
            raise BrokerError("UNAVAILABLE", "the server is shutting down; the rest of the "
                                             "stream was not received")
        offset = pub.offset
        pub.offset += len(data)
        topic = pub.topic
        if topic is None:
            frame = self._decode(pub, data, offset, True)
            if pub.decoder.options is None:
                raise BrokerError("INVALID_ARGUMENT", "the first frame of a published stream "
                                                      "must start with the stream options row")
            pub.options = pub.decoder.options
            pub.flat = int(pub.options.logical_type) % 10 in (1, 2)
            with self._lock:
                topic = pub.topic = self._topic(pub.options.stream_name)
                topic.lock.acquire()
            try:
                topic.publications.append(pub)
                self._fanout(topic, pub, data, frame)
            finally:
                topic.lock.release()
            return
        with topic.lock:
            frame = self._decode(pub, data, offset, topic._needs_decoded(pub))
            self._fanout(topic, pub, data, frame)

    def _decode(self, pub: Publication, data: bytes, offset: int, collect: bool) -> Any:
        try:
            frame = pub.decoder.decode(data, offset, collect)
        except JellyError as exc:
            raise BrokerError("INVALID_ARGUMENT", f"invalid frame: {exc}") from None
        pub.frames += 1
        pub.statements += frame.statement_count
        pub.in_graph = pub.decoder.in_graph
        self.frames_in += 1
        self.statements_in += frame.statement_count
        return frame

    def _fanout(self, topic: _Topic, pub: Publication, data: bytes, frame: Any) -> None:
        for sub in list(topic.subscribers):
            topic._route(sub, pub, data, frame)

    def end_publication(self, pub: Publication) -> None:
        """The publication's call is over (completed, failed or cancelled)."""
        topic = pub.topic
        if topic is None:
            return
        with topic.lock:
            if pub in topic.publications:
                topic.publications.remove(pub)
        self._forget(topic)

    # -- subscribing ---------------------------------------------------------------------------

    def subscribe(self, topic_name: str, requested: StreamOptions | None) -> Subscription:
        """A subscription to ``topic_name``; raises :class:`BrokerError` (``INVALID_ARGUMENT``)
        if a stream is under way whose options cannot give what is requested."""
        if self._closed:
            raise BrokerError("UNAVAILABLE", "the server is shutting down")
        with self._lock:
            topic = self._topic(topic_name)
            topic.lock.acquire()
        error = None
        try:
            sub = Subscription(self, topic, requested)
            if topic.publications:
                # Mid-stream: a fresh output stream from the next frame on.
                offered = _offered(topic.publications)
                try:
                    out = negotiate(requested, offered)
                    sub.mode = _TRANSCODING
                    sub.rewriter = FrameRewriter(out)
                    sub.declared = out
                except JellyError as exc:
                    error = BrokerError("INVALID_ARGUMENT",
                                        f"topic {topic_name!r}: the requested options cannot be "
                                        f"honoured: {exc.message}")
            if error is None:
                topic.subscribers.append(sub)
        finally:
            topic.lock.release()
        if error is not None:
            self._forget(topic)
            raise error
        return sub

    # -- shutdown ------------------------------------------------------------------------------

    def close(self) -> None:
        """Refuse new calls and frames; every subscription ends cleanly after its queue."""
        self._closed = True
        with self._lock:
            topics = list(self._topics.values())
        for topic in topics:
            with topic.lock:
                subs = list(topic.subscribers)
            for sub in subs:
                sub.finish()
