"""The gRPC streaming protocol: the RdfStreamService broker and its clients, with a real server
on 127.0.0.1 (a free port) in this process (threads and asyncio) and in a subprocess
(``jelly serve``), and the message codec against the upb oracle of ``grpc.proto``."""

from __future__ import annotations

import asyncio
import collections
import datetime
import io
import os
import signal
import subprocess
import sys
import itertools
import threading
import time

import grpc
import pytest

import jelly
from jelly._streaming import (decode_subscribe, delimit, encode_options, encode_subscribe,
                              first_options, with_stream_name)
from jelly.grpc.broker import negotiate
from jelly.grpc.client import AsyncClient, Backoff, Client, RpcFailed
from jelly.grpc.server import AsyncServer, Server
from jelly.io import FrameReader

from helpers import jelly_subprocess_env, run_jelly
from oracle.jelly_rdf import decode_full
from oracle.proto import load_proto

EX = "http://example.org/"
TIMEOUT = 20


def wait_until(condition, timeout=TIMEOUT, what="condition"):
    end = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > end:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.01)


def statements(physical, n=120, tag="x"):
    """Statements with repeated terms, typed and tagged literals and blank nodes; named graphs
    for quads."""
    out = []
    for i in range(n):
        s = jelly.IRI(f"{EX}{tag}/s{i // 3}")
        p = jelly.IRI(EX + ("p", "q", "r")[i % 3])
        o = (jelly.Literal(str(i), datatype=EX + "int") if i % 3 == 0 else
             jelly.Literal(f"l{i}", language="en") if i % 3 == 1 else jelly.BlankNode(f"b{i}"))
        if physical == "triples":
            out.append((s, p, o))
        else:
            g = jelly.DEFAULT_GRAPH if i % 7 == 0 else jelly.IRI(f"{EX}g{i // 10}")
            out.append((s, p, o, g))
    return out


def encoded(stmts, physical, rows_per_frame=16, **kw):
    data = jelly.serialize(stmts, physical_type=physical, rows_per_frame=rows_per_frame,
                           preset="small", **kw)
    return [bytes(f) for _, f in FrameReader(data)]


def decode(frames, **kw):
    return [s for f in jelly.parse_frames(b"".join(map(delimit, frames)), strict=True, **kw)
            for s in f]


class Subscriber(threading.Thread):
    """A subscription in a thread: collects what arrives until ``until(items)`` holds, the
    stream ends or fails (``error``)."""

    def __init__(self, client, topic, requested=None, output="bytes", until=None, hold=None,
                 **kw):
        super().__init__(daemon=True)
        self.args = (client, topic, requested, output, kw)
        self.until = until
        self.hold = hold          # an Event: nothing is read before it is set
        self.items = []
        self.error = None
        self.ended = False
        self.subscribed = threading.Event()
        self.start()
        if not self.subscribed.wait(TIMEOUT):
            raise AssertionError(f"not subscribed: {self.error!r}")

    def run(self):
        client, topic, requested, output, kw = self.args
        try:
            for item in client.subscribe(topic, requested, output=output,
                                         on_subscribed=self.subscribed.set, **kw):
                if self.hold is not None:
                    self.hold.wait(TIMEOUT)
                self.items.append(item)
                if self.until is not None and self.until(self.items):
                    return
            self.ended = True
        except RpcFailed as exc:
            self.error = exc
        finally:
            self.subscribed.set()

    def result(self):
        self.join(TIMEOUT)
        assert not self.is_alive(), "subscriber still running"
        return self.items


def count(n):
    return lambda items: len(items) >= n


def upto(frames, topic):
    """Until the bytes of ``frames`` published to ``topic`` arrived: a lagging subscriber gets
    the frames of a flat stream merged, so what arrives is their bytes, in fewer messages."""
    total = len(published(frames, topic))
    return lambda items: sum(map(len, items)) >= total


def published(frames, topic):
    """The bytes a subscriber receives for ``frames`` published to ``topic``."""
    return with_stream_name(frames[0], topic) + b"".join(frames[1:])


# -- servers -------------------------------------------------------------------------------------

class AsyncServerThread:
    """An AsyncServer on its own event loop in a thread, with the Server interface the tests
    use."""

    def __init__(self, **kw):
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.server = self._run(self._make(kw))

    async def _make(self, kw):
        return await AsyncServer(**kw).start()

    def _run(self, coro):
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(TIMEOUT)

    @property
    def target(self):
        return self.server.target

    @property
    def broker(self):
        return self.server.broker

    def stop(self, grace=5.0):
        self._run(self.server.stop(grace))
        done = threading.Event()
        done.set()
        return done

    def close(self):
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(TIMEOUT)


@pytest.fixture(params=["threads", "asyncio"])
def server(request):
    if request.param == "threads":
        srv = Server(max_queue_frames=64, drop_grace=30).start()
        yield srv
        srv.stop(0).wait(TIMEOUT)
    else:
        srv = AsyncServerThread(max_queue_frames=64)
        yield srv
        srv.stop(0)
        srv.close()


@pytest.fixture
def client(server):
    with Client(server.target) as c:
        yield c


def subscribers_of(server, topic):
    return server.broker.topics().get(topic, (0, 0))[1]


# -- publish / subscribe -------------------------------------------------------------------------

@pytest.fixture(params=["threads", "asyncio", "subprocess"])
def any_client(request):
    """A client of a server in this process (threads, asyncio) or of ``jelly serve``."""
    if request.param == "subprocess":
        srv = ServeProcess()
        try:
            with Client(srv.target) as c:
                yield c
        finally:
            srv.stop()
        return
    srv = Server().start() if request.param == "threads" else AsyncServerThread()
    try:
        with Client(srv.target) as c:
            yield c
    finally:
        srv.stop(0)
        if request.param == "asyncio":
            srv.close()


@pytest.mark.parametrize("physical", ["triples", "quads", "graphs"])
def test_publish_then_subscribe(any_client, physical):
    client = any_client
    stmts = statements(physical)
    frames = encoded(stmts, physical, stream_name="something else")
    raw = Subscriber(client, "t", until=upto(frames, "t"))
    decoded_sub = Subscriber(client, "t", output="statements", until=count(len(stmts)))
    assert client.publish("t", frames) == len(frames)
    received = raw.result()
    # Passthrough: the frames as published (merged if the subscriber lagged); the topic went
    # in as the stream name.
    assert b"".join(received) == published(frames, "t")
    assert first_options(received[0])[0].stream_name == "t"
    expected = [s[:3] + (jelly.DEFAULT_GRAPH,) if len(s) == 3 else s for s in stmts] \
        if physical != "triples" else stmts
    assert decode(received) == expected
    assert decoded_sub.result() == expected


@pytest.mark.parametrize("physical", ["triples", "quads"])
def test_a_segmented_stream_is_published_whole(any_client, physical):
    """A segmented file (what ``jelly convert`` writes) repeats its options row at each segment
    start.  The topic becomes the stream name of every repeat, not only of the first row: a
    repeat must be identical to the first row, and the server refuses one that is not."""
    from oracle.jelly_rdf import load_pb2
    stmts = statements(physical, 300)
    frames = encoded(stmts, physical, segment_size=40, stream_name="file")
    assert sum(first_options(f)[0] is not None for f in frames) > 3

    def names(frames):              # the stream name of every options row, read by protobuf
        pb = load_pb2()
        return [row.options.stream_name for f in frames
                for row in pb.RdfStreamFrame.FromString(f).rows if row.HasField("options")]
    sub = Subscriber(any_client, "t", until=lambda got: len(decode(got)) >= len(stmts))
    assert any_client.publish("t", frames) == len(frames)
    got = sub.result()
    expected = [s[:3] + (jelly.DEFAULT_GRAPH,) if len(s) == 3 else s for s in stmts] \
        if physical != "triples" else stmts
    assert decode(got) == expected
    assert names(got) == ["t"] * len(names(frames))
    if physical != "triples":
        return
    # the async client, the frames from an async iterable

    async def publish(target):
        async def agen():
            for f in frames:
                yield f
        async with AsyncClient(target) as c:
            return await c.publish("u", agen())
    sub = Subscriber(any_client, "u", until=lambda got: len(decode(got)) >= len(stmts))
    assert asyncio.run(publish(any_client.target)) == len(frames)
    got = sub.result()
    assert decode(got) == expected and names(got) == ["u"] * len(names(frames))


def test_publish_statements_and_async_client(server):
    stmts = statements("quads", 50)

    async def main():
        async with AsyncClient(server.target) as c:
            got = []
            subscribed = asyncio.Event()

            async def sub():
                async for st in c.subscribe("a", output="statements",
                                            on_subscribed=subscribed.set):
                    got.append(st)
                    if len(got) == len(stmts):
                        return
            task = asyncio.ensure_future(sub())
            await asyncio.wait_for(subscribed.wait(), TIMEOUT)

            async def agen():
                for s in stmts:
                    yield s
            sent = await c.publish("a", agen(), rows_per_frame=8)
            await asyncio.wait_for(task, TIMEOUT)
            assert sent > 3
            return got
    assert asyncio.run(main()) == stmts


def test_several_publishers_and_subscribers_on_several_topics(server, client):
    topics = ["alpha", "beta", "gamma"]
    streams = {(t, k): statements("quads", 60, tag=f"{t}{k}") for t in topics for k in (0, 1)}
    subs = {}
    for t in topics:
        subs[t, "plain"] = Subscriber(client, t, output="statements", until=count(120))
        small = jelly.make_options(preset="small", physical_type="graphs",
                                   max_name_table_size=16, max_prefix_table_size=2)
        subs[t, "small"] = Subscriber(client, t, small, output="frames",
                                      until=lambda items: sum(len(f) for f in items) >= 120)
    threads = [threading.Thread(target=client.publish, args=(t, encoded(s, "quads", 8)))
               for (t, _), s in streams.items()]
    for th in threads:
        th.start()
    for th in threads:
        th.join(TIMEOUT)
    for t in topics:
        mine = streams[t, 0] + streams[t, 1]
        got = subs[t, "plain"].result()
        assert collections.Counter(got) == collections.Counter(mine)
        for k in (0, 1):      # each stream in order
            assert [s for s in got if s in set(streams[t, k])] == streams[t, k]
        frames = subs[t, "small"].result()
        assert collections.Counter(s for f in frames for s in f) == collections.Counter(mine)
    # The small subscribers' streams hold the requested options.
    raw = Subscriber(client, "alpha", jelly.make_options(preset="small",
                                                         physical_type="graphs"),
                     until=count(1))
    client.publish("alpha", encoded(streams["alpha", 0], "quads", 8))
    got = raw.result()
    options = jelly.read_options(b"".join(map(delimit, got)))
    assert options.physical_type == jelly.PhysicalStreamType.GRAPHS
    assert options.max_name_table_size <= 128


def test_joining_mid_stream_gets_the_tail(server, client):
    stmts = statements("triples", 200)
    frames = encoded(stmts, "triples", rows_per_frame=10)
    half = len(frames) // 2
    go_on = threading.Event()

    def publish():
        def gen():
            yield from frames[:half]
            go_on.wait(TIMEOUT)
            yield from frames[half:]
        client.publish("mid", gen())
    th = threading.Thread(target=publish)
    th.start()
    wait_until(lambda: server.broker.frames_in >= half, what="the first half")
    per_frame = [len(f) for f in jelly.parse_frames(b"".join(map(delimit, frames)))]
    tail = stmts[sum(per_frame[:half]):]
    late = Subscriber(client, "mid", until=lambda items: len(decode(items)) >= len(tail))
    go_on.set()
    th.join(TIMEOUT)
    got = late.result()
    assert decode(got) == tail             # a stream of its own: options row, own lookups
    assert first_options(got[0])[0] is not None


# -- requested options ---------------------------------------------------------------------------

def test_requested_options_are_honoured(server, client):
    stmts = statements("triples", 60)
    frames = encoded(stmts, "triples")
    wanted = jelly.make_options(physical_type="quads", max_name_table_size=8,
                                max_prefix_table_size=0, max_datatype_table_size=1,
                                version=1)
    sub = Subscriber(client, "r", wanted, until=lambda items: len(decode(items)) >= len(stmts))
    same = Subscriber(client, "r", jelly.read_options(
        b"".join(map(delimit, [with_stream_name(frames[0], "r")]))), until=upto(frames, "r"))
    client.publish("r", frames)
    got = sub.result()
    options = jelly.read_options(delimit(got[0]))
    assert options.physical_type == jelly.PhysicalStreamType.QUADS
    assert (options.max_name_table_size, options.max_prefix_table_size,
            options.max_datatype_table_size, options.version) == (8, 0, 1, 1)
    assert decode(got) == [s + (jelly.DEFAULT_GRAPH,) for s in stmts]
    # Requesting exactly what is published is the publisher's bytes.
    assert b"".join(same.result()) == published(frames, "r")


@pytest.mark.parametrize("published, requested, message", [
    (dict(physical_type="quads"), dict(physical_type=jelly.PhysicalStreamType.TRIPLES),
     "TRIPLES stream cannot hold"),
    (dict(rdf_star=True), dict(rdf_star=False), "RDF-star"),
    (dict(generalized_statements=True), dict(), "generalized"),
    (dict(), dict(max_name_table_size=4), "below the minimum"),
    (dict(), dict(max_datatype_table_size=0), "datatype table"),
])
def test_requested_options_that_cannot_be_honoured(server, client, published, requested, message):
    pub_options = jelly.make_options(preset="small", **published)
    frames = encoded([], pub_options.physical_type.name.lower(),
                     **{k: v for k, v in published.items() if k != "physical_type"})
    req = jelly.StreamOptions(**{**dict(physical_type=0, max_name_table_size=1000,
                                        max_prefix_table_size=100, max_datatype_table_size=10,
                                        version=0), **requested})
    # Subscribed first: refused when the stream starts.
    early = Subscriber(client, "n", req)
    client.publish("n", frames)
    early.result()
    assert early.error is not None and early.error.code == grpc.StatusCode.INVALID_ARGUMENT
    assert message in early.error.details
    # Joining a stream under way: refused at once.
    go_on = threading.Event()

    def publish():
        def gen():
            yield frames[0]
            go_on.wait(TIMEOUT)
        client.publish("n2", gen())
    th = threading.Thread(target=publish)
    th.start()
    wait_until(lambda: server.broker.topics().get("n2", (0, 0))[0] == 1)
    with pytest.raises(RpcFailed) as info:
        list(client.subscribe("n2", req))
    assert info.value.code == grpc.StatusCode.INVALID_ARGUMENT and message in info.value.details
    go_on.set()
    th.join(TIMEOUT)


def test_negotiate_follows_the_spec_table():
    offered = jelly.make_options(preset="big", rdf_star=True, version=2, stream_name="t",
                                 logical_type="flat_triples")
    assert negotiate(None, offered) is offered
    req = jelly.StreamOptions(physical_type=jelly.PhysicalStreamType.QUADS, rdf_star=True,
                              max_name_table_size=100, max_prefix_table_size=5000,
                              max_datatype_table_size=8, version=1)
    out = negotiate(req, offered)
    assert out.physical_type == jelly.PhysicalStreamType.QUADS          # MUST be x
    assert out.rdf_star and not out.generalized_statements               # x or false
    assert (out.max_name_table_size, out.max_prefix_table_size,
            out.max_datatype_table_size) == (100, 150, 8)                # <= x
    assert out.version == 1                                               # <= x
    assert out.stream_name == "t" and out.logical_type == jelly.LogicalStreamType.FLAT_QUADS
    # version 0 and physical type 0: not given
    loose = jelly.StreamOptions(physical_type=0, rdf_star=True, max_name_table_size=10 ** 6,
                                max_prefix_table_size=10 ** 6, max_datatype_table_size=10 ** 6,
                                version=0)
    assert negotiate(loose, offered) == offered


# -- bad input, slow and vanishing subscribers ---------------------------------------------------

def test_malformed_frame_ends_only_that_publication(server, client):
    good = encoded(statements("triples", 40), "triples", rows_per_frame=8)
    bad = good[:2] + [good[2][:-4]] + good[3:]
    other = encoded(statements("triples", 40, tag="o"), "triples", rows_per_frame=8)
    expected = decode(good[:2]) + decode(good)
    sub = Subscriber(client, "bad", output="frames",
                     until=lambda items: sum(len(f) for f in items) >= len(expected))
    sub_other = Subscriber(client, "other", until=upto(other, "other"))
    gate = threading.Event()

    def publish_other():
        def gen():
            yield from other[:3]
            gate.wait(TIMEOUT)
            yield from other[3:]
        client.publish("other", gen())
    th = threading.Thread(target=publish_other)
    th.start()
    with pytest.raises(RpcFailed) as info:
        client.publish("bad", bad)
    gate.set()
    assert info.value.code == grpc.StatusCode.INVALID_ARGUMENT
    assert "frame 2" in info.value.details and "row" in info.value.details
    th.join(TIMEOUT)
    assert b"".join(sub_other.result()) == published(other, "other")
    # The subscriber of the bad topic got the two good frames and goes on with the next stream.
    client.publish("bad", good)
    frames = sub.result()
    assert sub.error is None
    assert [s for f in frames for s in f] == expected


def test_a_slow_subscriber_is_dropped_and_nobody_waits_for_it():
    # A queue long enough for a subscriber that keeps reading, far too short for 40 MB.
    with Server(max_queue_frames=10 ** 6, max_queue_bytes=8 << 20, drop_grace=60) as server, \
            Client(server.target) as client:
        stmts = [(jelly.IRI(EX + "s"), jelly.IRI(EX + "p"), jelly.Literal("x" * 4000 + str(i)))
                 for i in range(10000)]
        frames = encoded(stmts, "triples", rows_per_frame=1)
        # The slow one reads one frame, then nothing until the publication is over.
        slow_calls = client.subscribe("slow", output="bytes")
        fast = Subscriber(client, "slow", until=upto(frames, "slow"))
        wait_until(lambda: subscribers_of(server, "slow") == 1)
        first = threading.Thread(target=lambda: next(slow_calls))
        first.start()
        wait_until(lambda: subscribers_of(server, "slow") == 2)
        started = time.monotonic()
        client.publish("slow", frames)
        published_in = time.monotonic() - started
        first.join(TIMEOUT)
        assert b"".join(fast.result()) == published(frames, "slow") and fast.error is None
        wait_until(lambda: subscribers_of(server, "slow") == 0, what="the slow one dropped")
        with pytest.raises(RpcFailed) as info:
            for _ in slow_calls:
                pass
        assert info.value.code == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert "too slow" in info.value.details
        assert published_in < TIMEOUT / 2


def test_a_lagging_subscriber_gets_segment_starts_at_the_start_of_a_message():
    """Merged behind other rows, a segment's repeated options row sat inside a frame: the
    recording of a lagging subscriber could not be published again (the server refuses a
    differing options row there, and the client renames only the rows that start a frame)."""
    from jelly.grpc.broker import Broker
    from oracle.jelly_rdf import load_pb2
    stmts = statements("triples", 400)
    frames = encoded(stmts, "triples", rows_per_frame=10, segment_size=60)
    starts = sum(first_options(f)[0] is not None for f in frames)
    assert starts > 4
    broker = Broker(max_batch_bytes=100000)
    sub = broker.subscribe("", None)
    pub = broker.publication()
    for f in frames:
        broker.publish(pub, f)
    broker.end_publication(pub)
    broker.close()
    got = []
    while (message := sub.get(TIMEOUT)) is not None:
        got.append(message)
    pb = load_pb2()
    places = [i for m in got for i, row in enumerate(pb.RdfStreamFrame.FromString(m).rows)
              if row.HasField("options")]
    assert places == [0] * starts                   # every options row starts its message
    assert len(got) < len(frames)                   # the rest is still merged
    assert decode(got) == stmts


@pytest.mark.parametrize("kind", ["flat", "grouped", "metadata"])
def test_a_lagging_subscriber_gets_flat_frames_merged(kind):
    """The broker itself (no transport): frames queued while a subscriber is away."""
    from jelly.grpc.broker import Broker
    stmts = statements("triples", 400)
    if kind == "grouped":
        frames = encoded(stmts, "triples", rows_per_frame=10, logical_type="graphs")
    elif kind == "flat":
        frames = encoded(stmts, "triples", rows_per_frame=10)
    else:
        enc = jelly.Encoder(jelly.make_options(preset="small", logical_type="flat_triples"))
        frames = []
        for i in range(0, len(stmts), 10):
            enc.add_statements(stmts[i:i + 10])
            frames.append(enc.take_frame(metadata={"seq": str(i).encode()}))
    broker = Broker(max_batch_bytes=600)
    passthrough = broker.subscribe("", None)
    transcoding = broker.subscribe("", jelly.make_options(preset="big", version=0))
    pub = broker.publication()
    for f in frames:
        broker.publish(pub, f)
    broker.end_publication(pub)
    broker.close()
    for sub in (passthrough, transcoding):
        got = []
        while (message := sub.get(TIMEOUT)) is not None:
            got.append(message)
        if kind == "flat":
            assert 1 < len(got) <= len(frames) / 2
            assert all(len(m) <= 600 for m in got[1:])
        else:        # one message per frame: a frame is an element, or has its metadata
            assert len(got) == len(frames)
        assert sub.frames_sent == len(frames)
        assert decode(got) == stmts


def test_merged_frames_re_encoded_stay_within_the_batch_size():
    """Re-encoded, frames grow (no prefix table here: every IRI whole, 2.5 times the bytes):
    merged for a lagging subscriber they made one message of all of them (17 MB
    where 1 MiB was the cap, past gRPC's limit, in the tester's run).  A message ends once it
    holds max_batch_bytes; the frames after it come in the next, every statement in order."""
    from jelly.grpc.broker import Broker
    stmts = [(jelly.IRI(f"{EX}a/very/long/path/of/segments/{i // 4}"),
              jelly.IRI(f"{EX}vocabulary/with/a/long/name#p{i % 5}"),
              jelly.IRI(f"{EX}another/long/path/{i}")) for i in range(600)]
    frames = encoded(stmts, "triples", rows_per_frame=12)
    wanted = jelly.make_options(preset="small", max_prefix_table_size=0, version=0)
    broker = Broker(max_batch_bytes=3000)
    live = broker.subscribe("", wanted)        # takes each frame as it comes: one a message
    lagging = broker.subscribe("", wanted)
    pub = broker.publication()
    one_each = []
    for f in frames:
        broker.publish(pub, f)
        one_each.append(live.get(TIMEOUT))
    broker.end_publication(pub)
    broker.close()
    got = []
    while (message := lagging.get(TIMEOUT)) is not None:
        got.append(message)
    assert sum(map(len, one_each)) > 2 * sum(map(len, frames))
    assert len(got) > 5
    assert max(map(len, got)) < 3000 + max(map(len, one_each))
    assert lagging.frames_sent == len(frames)
    assert decode(got) == decode(one_each) == stmts


def test_a_subscriber_joining_two_publications_is_offered_what_holds_both():
    """Joining while a QUADS publication and a newer TRIPLES one are under way, a subscriber
    that asked for nothing was offered the newest's options (TRIPLES) and refused at the
    next quad (INVALID_ARGUMENT); it now gets a QUADS stream holding both, RDF-star too."""
    from jelly.grpc.broker import Broker
    quads = statements("quads", 40, tag="q")
    triples = [(jelly.IRI(EX + "t"), jelly.IRI(EX + "p"),
                jelly.Triple(jelly.IRI(EX + "a"), jelly.IRI(EX + "b"), jelly.Literal(str(i))))
               for i in range(40)]
    qf = encoded(quads, "quads", rows_per_frame=8)
    tf = encoded(triples, "triples", rows_per_frame=8, rdf_star=True)
    broker = Broker(max_batch_bytes=0)
    p1, p2 = broker.publication(), broker.publication()
    broker.publish(p1, qf[0])
    broker.publish(p2, tf[0])
    sub = broker.subscribe("", None)
    for a, b in itertools.zip_longest(qf[1:], tf[1:]):
        for pub, f in ((p1, a), (p2, b)):
            if f is not None:
                broker.publish(pub, f)
    broker.end_publication(p1)
    broker.end_publication(p2)
    broker.close()
    got = []
    while (message := sub.get(TIMEOUT)) is not None:
        got.append(message)
    options = jelly.read_options(b"".join(map(delimit, got)))
    assert options.physical_type == jelly.PhysicalStreamType.QUADS and options.rdf_star
    received = decode(got)
    want = [st for st in decode(qf) if st not in decode(qf[:1])] + \
        [st[:3] + (jelly.DEFAULT_GRAPH,) for st in decode(tf) if st not in decode(tf[:1])]
    assert sorted(map(str, received)) == sorted(map(str, want))


def test_a_busy_flat_stream_lingers_to_merge():
    from jelly.grpc.broker import Broker
    frames = encoded(statements("triples", 60), "triples", rows_per_frame=10)
    broker = Broker(linger=0.5)
    sub = broker.subscribe("", None)
    pub = broker.publication()
    broker.publish(pub, frames[0])
    assert sub.get(TIMEOUT) == frames[0]       # nothing sent lately: no waiting
    broker.publish(pub, frames[1])
    result = []
    th = threading.Thread(target=lambda: result.append(sub.get(TIMEOUT)))
    started = time.monotonic()
    th.start()
    time.sleep(0.1)
    broker.publish(pub, frames[2])             # arrives while it lingers
    th.join(TIMEOUT)
    assert result == [frames[1] + frames[2]] and time.monotonic() - started >= 0.1
    assert sub.frames_sent == 3


@pytest.mark.parametrize("mode", ["threads", "asyncio"])
def test_a_lingering_subscriber_that_keeps_up_is_not_dropped(mode):
    """Frames piled up in the queue of a subscriber that was waiting to merge them (linger),
    and one that kept up was dropped as too slow at a few hundred ms of linger; it now stops
    waiting once its queue is half full."""
    import asyncio
    from jelly.grpc.broker import Broker
    stmts = statements("triples", 600)
    frames = encoded(stmts, "triples", rows_per_frame=4)
    assert len(frames) > 200
    broker = Broker(linger=0.5, max_queue_frames=64)
    sub = broker.subscribe("", None)
    pub = broker.publication()
    got: list = []

    def publish():
        for f in frames:
            broker.publish(pub, f)
            time.sleep(0.001)
        broker.end_publication(pub)
        broker.close()

    async def consume():
        while (message := await sub.aget()) is not None:
            got.append(message)
    publisher = threading.Thread(target=publish)
    if mode == "threads":
        publisher.start()
        while (message := sub.get(TIMEOUT)) is not None:
            got.append(message)
    else:
        async def run():
            task = asyncio.ensure_future(consume())
            await asyncio.sleep(0)            # its event exists before frames come
            publisher.start()
            await asyncio.wait_for(task, TIMEOUT)
        asyncio.run(run())
    publisher.join(TIMEOUT)
    assert decode(got) == stmts and len(got) < len(frames)


def test_a_killed_subscriber_is_cleaned_up(server, client, tmp_path):
    proc = subprocess.Popen(
        [sys.executable, "-m", "jelly", "subscribe", "k", str(tmp_path / "out.nt"), "--server",
         server.target, "-q"], env=jelly_subprocess_env(), stderr=subprocess.PIPE)
    try:
        wait_until(lambda: subscribers_of(server, "k") == 1, what="the subscriber")
        proc.kill()
        proc.wait(TIMEOUT)
        wait_until(lambda: subscribers_of(server, "k") == 0, what="the cleanup")
        assert "k" not in server.broker.topics()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    # The topic works as before.
    sub = Subscriber(client, "k", until=count(1))
    client.publish("k", encoded(statements("triples", 5), "triples"))
    assert len(sub.result()) == 1


def test_frames_over_the_message_size_are_refused():
    with Server(max_message_size=64 * 1024) as server, \
            Client(server.target, max_message_size=1 << 20) as client:
        big = encoded([(jelly.IRI(EX + "s"), jelly.IRI(EX + "p"), jelly.Literal("x" * 100_000))],
                      "triples")
        with pytest.raises(RpcFailed) as info:
            client.publish("big", big)
        assert info.value.code == grpc.StatusCode.RESOURCE_EXHAUSTED
        client.publish("big", encoded(statements("triples", 10), "triples"))


def test_bad_statements_fail_the_publish_call_with_their_own_error(server, client):
    with pytest.raises(jelly.JellyError, match="nothing to publish"):
        client.publish("t", [])
    bad = [(jelly.IRI(EX + "s"), jelly.IRI(EX + "p"), jelly.IRI(EX + "o")), ("not", "terms")]
    with pytest.raises(jelly.JellyEncodeError):
        client.publish("t", bad)

    async def main():
        async with AsyncClient(server.target) as c:
            with pytest.raises(jelly.JellyEncodeError):
                await c.publish("t", bad)
    asyncio.run(main())


def test_a_stream_must_start_with_options(server, client):
    frames = encoded(statements("triples", 20), "triples", rows_per_frame=4)
    with pytest.raises(RpcFailed) as info:
        client.publish("t", frames[1:])
    assert info.value.code == grpc.StatusCode.INVALID_ARGUMENT
    with pytest.raises(RpcFailed) as info:
        client.publish("t", [b""])
    assert info.value.code == grpc.StatusCode.INVALID_ARGUMENT
    assert "options" in info.value.details


# -- shutdown and reconnection -------------------------------------------------------------------

@pytest.mark.parametrize("kind", ["threads", "asyncio"])
def test_shutdown_while_streaming(kind):
    server = Server().start() if kind == "threads" else AsyncServerThread()
    try:
        client = Client(server.target)
        frames = encoded(statements("triples", 300), "triples", rows_per_frame=5)
        sub = Subscriber(client, "s")
        errors = []
        sent = threading.Event()

        def publish():
            def gen():
                for i, f in enumerate(frames):
                    if i == 10:
                        sent.set()
                    time.sleep(0.005)
                    yield f
            try:
                client.publish("s", gen())
            except RpcFailed as exc:
                errors.append(exc)
        th = threading.Thread(target=publish)
        th.start()
        sent.wait(TIMEOUT)
        wait_until(lambda: server.broker.frames_in >= 10, what="ten frames")
        server.stop(5).wait(TIMEOUT)
        th.join(TIMEOUT)
        got = sub.result()
        assert sub.error is None and sub.ended                 # a clean end of stream
        accepted = server.broker.frames_in
        assert 10 <= accepted < len(frames)
        assert b"".join(got) == published(frames[:accepted], "s")      # nothing lost
        assert errors and errors[0].code in (grpc.StatusCode.UNAVAILABLE,
                                             grpc.StatusCode.CANCELLED)
        assert decode(got) == decode(frames[:accepted])
        client.close()
    finally:
        if kind == "asyncio":
            server.close()


def test_reconnecting_subscriber():
    server = Server().start()
    port = server.port
    client = Client(server.target)
    got = []
    subscribed = threading.Event()

    def run():
        for st in client.subscribe("re", output="statements",
                                   reconnect=Backoff(initial=0.05, maximum=0.2),
                                   on_subscribed=subscribed.set):
            got.append(st)
            if len(got) >= 40:
                return
    th = threading.Thread(target=run, daemon=True)
    th.start()
    assert subscribed.wait(TIMEOUT)
    first = statements("triples", 20, tag="one")
    client.publish("re", encoded(first, "triples"))
    wait_until(lambda: len(got) == 20)
    subscribed.clear()
    server.stop(1).wait(TIMEOUT)
    server = Server(port=port).start()
    try:
        assert subscribed.wait(TIMEOUT)
        second = statements("triples", 20, tag="two")
        client.publish("re", encoded(second, "triples"))
        th.join(TIMEOUT)
        assert got == first + second
    finally:
        client.close()
        server.stop(0)


def test_a_port_in_use_is_refused_in_one_line(server):
    """gRPC shares ports by default: a second broker on the same port started, and the kernel
    split the clients between two brokers that never meet (subscribers missed publications).
    A port another program holds raised grpcio's RuntimeError (exit 2 in the CLI)."""
    port = int(server.target.rsplit(":", 1)[1])
    with pytest.raises(jelly.JellyError, match=f"cannot listen on 127.0.0.1:{port}"):
        Server(port=port).start()
    with pytest.raises(jelly.JellyError, match="cannot listen"):
        AsyncServerThread(port=port)
    # gRPC takes ports modulo 65536: 115686 would be 50150, someone else's
    with pytest.raises(jelly.JellyError, match="115686 is not in 0..65535"):
        Server(port=115686)
    with pytest.raises(jelly.JellyError, match="beyond 65535"):
        Client("127.0.0.1:115686")
    proc = run_jelly("serve", "--port", port, timeout=60)
    assert proc.returncode == 1
    lines = proc.stderr.decode().strip().splitlines()       # gRPC's own log line left out
    assert len(lines) == 1 and lines[0].startswith(
        f"jelly: error: cannot listen on 127.0.0.1:{port}"), lines


def test_a_certificate_that_does_not_load_is_refused_in_one_line(tmp_path):
    bad = tmp_path / "bad.pem"
    bad.write_text("not a certificate\n")
    proc = run_jelly("serve", "--port", 0, "--tls-cert", bad, "--tls-key", bad, timeout=60)
    lines = proc.stderr.decode().strip().splitlines()
    assert proc.returncode == 1 and len(lines) == 1 and "TLS certificate" in lines[0], lines


# -- security ------------------------------------------------------------------------------------

@pytest.mark.parametrize("args", [
    ("serve", "--max-queue-frames", "0"), ("serve", "--max-queue-bytes", "0"),
    ("serve", "--max-workers", "0"), ("serve", "--max-message-size", "10G"),
    ("serve", "--max-message-size", "-5"), ("serve", "--grace", "-1"),
    ("serve", "--keepalive", "-1"), ("serve", "--linger", "nan"),
    ("publish", "t", "x.nt", "--server", "127.0.0.1:1", "--timeout", "0"),
    ("subscribe", "t", "x.nt", "--server", "127.0.0.1:1", "--limit-frames", "0"),
])
def test_numbers_out_of_range_are_usage_errors(args):
    """They ended in an internal error (a ValueError or OverflowError of the server), or were
    taken (a negative grace)."""
    proc = run_jelly(*args, timeout=60)
    lines = proc.stderr.decode().strip().splitlines()
    assert proc.returncode == 1 and lines == [lines[-1]]
    assert lines[-1].startswith(f"jelly: error: argument {args[-2]}: ")
    assert "internal error" not in proc.stderr.decode()


def test_keepalive_0_turns_pings_off():
    """As --help says; it was refused as 'not a number above 0'."""
    from jelly.cli import build_parser
    from jelly.grpc.server import _server_options
    args = build_parser().parse_args(["serve", "--keepalive", "0"])
    assert args.keepalive == 0
    assert not any(name.startswith("grpc.keepalive") for name, _ in _server_options(1 << 22, None))
    assert dict(_server_options(1 << 22, 10.0))["grpc.keepalive_time_ms"] == 10000


def test_an_empty_token_is_refused_not_taken_as_none(tmp_path):
    """An empty --token-file (a secret never provisioned) started an open broker."""
    (tmp_path / "empty.tok").write_text("\n")
    for args in (("--token-file", tmp_path / "empty.tok"), ("--token", "")):
        proc = run_jelly("serve", "--port", 0, *args, timeout=60)
        lines = proc.stderr.decode().strip().splitlines()
        assert proc.returncode == 1 and len(lines) == 1 and "empty" in lines[0], lines
    proc = run_jelly("publish", "t", tmp_path / "empty.tok", "--server", "127.0.0.1:1",
                     "--token-file", tmp_path / "empty.tok", timeout=60)
    assert proc.returncode == 1 and "token file" in proc.stderr.decode()


@pytest.fixture(scope="module")
def certificate(tmp_path_factory):
    """A self-signed certificate for 127.0.0.1 / localhost, made here."""
    import ipaddress

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name)
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(days=1))
            .not_valid_after(now + datetime.timedelta(days=2))
            .add_extension(x509.SubjectAlternativeName(
                [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
                critical=False)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .sign(key, hashes.SHA256()))
    d = tmp_path_factory.mktemp("tls")
    (d / "cert.pem").write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    (d / "key.pem").write_bytes(key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption()))
    return d / "cert.pem", d / "key.pem"


@pytest.mark.parametrize("tls", [False, True])
@pytest.mark.parametrize("token", [None, "s3cret"])
def test_tls_and_token(certificate, tls, token):
    cert, key = certificate
    tls_args = dict(tls_cert=cert, tls_key=key) if tls else {}
    with Server(token=token, **tls_args) as server:
        def connect(**kw):
            return Client(server.target, tls=tls, tls_ca=cert if tls else None, **kw)
        frames = encoded(statements("triples", 10), "triples")
        with connect(token=token) as good:
            sub = Subscriber(good, "sec", until=upto(frames, "sec"))
            good.publish("sec", frames)
            assert b"".join(sub.result()) == published(frames, "sec")
        if token:
            for wrong in (None, "nope"):
                with connect(token=wrong) as bad:
                    for call in (lambda: bad.publish("sec", frames),
                                 lambda: list(bad.subscribe("sec"))):
                        with pytest.raises(RpcFailed) as info:
                            call()
                        assert info.value.code == grpc.StatusCode.UNAUTHENTICATED
        # The other transport security is refused.
        other = Client(server.target, tls=not tls, tls_ca=cert if not tls else None,
                       token=token)
        with other, pytest.raises(RpcFailed) as info:
            other.publish("sec", frames, timeout=5)
        assert info.value.code in (grpc.StatusCode.UNAVAILABLE,
                                   grpc.StatusCode.DEADLINE_EXCEEDED)


# -- the command line, with the server in a subprocess -------------------------------------------

class ServeProcess:
    def __init__(self, *args):
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "jelly", "serve", "--port", "0", *map(str, args)],
            env=jelly_subprocess_env(), stderr=subprocess.PIPE, text=True)
        line = self.proc.stderr.readline()
        assert "serving RdfStreamService on" in line, line + self.proc.stderr.read()
        self.target = "127.0.0.1:" + line.rsplit(":", 1)[1].split()[0]

    def stop(self, sig=signal.SIGTERM):
        self.proc.send_signal(sig)
        out = self.proc.stderr.read()
        assert self.proc.wait(TIMEOUT) == 0, out
        return out


@pytest.mark.parametrize("sig", ["SIGTERM", "SIGHUP", "SIGINT"])
def test_cli_serve_stops_cleanly_on_a_signal(sig):
    """kill, a hang-up (its terminal closed) and Ctrl-C stop the broker as Server.stop does:
    exit status 0 and its summary."""
    server = ServeProcess()
    out = server.stop(getattr(signal, sig))
    assert "jelly: shutting down" in out and "jelly: received 0 frames" in out, out


@pytest.mark.parametrize("mode", ["threads", "asyncio"])
def test_cli_serve_stops_in_its_grace_with_a_subscriber_that_does_not_answer(tmp_path, mode):
    """A stopped subscriber (SIGSTOP: a frozen process or a cut network) held the broker's
    shutdown for two keep-alive periods (20 s), whatever --grace said."""
    server = ServeProcess("--grace", "1", *(["--asyncio"] if mode == "asyncio" else []))
    # a plain gRPC subscriber with a large receive window (jelly subscribe is dropped as a
    # slow subscriber before its connection stalls)
    script = ("import sys, grpc\n"
              "from jelly._streaming import encode_subscribe\n"
              "from jelly.grpc.server import SUBSCRIBE\n"
              "channel = grpc.insecure_channel(sys.argv[1], options=[\n"
              "    ('grpc.max_receive_message_length', 64 << 20)])\n"
              "call = channel.unary_stream(SUBSCRIBE)(encode_subscribe('frozen'))\n"
              "print('subscribed', flush=True)\n"
              "for _ in call:\n"
              "    pass\n")
    sub = subprocess.Popen([sys.executable, "-c", script, server.target],
                           env=jelly_subprocess_env(), stdout=subprocess.PIPE)
    try:
        assert sub.stdout.readline() == b"subscribed\n"
        time.sleep(0.5)                             # the call reaches the broker
        sub.send_signal(signal.SIGSTOP)
        data = tmp_path / "in.nt"                 # far more than the buffers on the way
        data.write_bytes(b"".join(b'<http://example.org/s%d> <http://example.org/p> "%s" .\n'
                                  % (i, b"%d " % i * 12) for i in range(200000)))
        proc = run_jelly("publish", "frozen", data, "--server", server.target, timeout=60)
        assert proc.returncode == 0, proc.stderr
        start = time.monotonic()
        server.stop(signal.SIGINT)
        assert time.monotonic() - start < 6         # grace 1 s, and 1 s to close
    finally:
        sub.send_signal(signal.SIGCONT)
        sub.kill()
        sub.wait()
        if server.proc.poll() is None:
            server.proc.kill()


def test_cli_serve_with_tls(certificate, tmp_path):
    cert, key = certificate
    server = ServeProcess("--tls-cert", cert, "--tls-key", key, "--asyncio")
    try:
        stmts = statements("triples", 30)
        data = tmp_path / "in.jelly"
        jelly.serialize(stmts, data)
        with Client(server.target, tls=True, tls_ca=cert) as c:
            sub = Subscriber(c, "tls", output="statements", until=count(len(stmts)))
            proc = run_jelly("publish", "tls", data, "--server", server.target, "--tls-ca", cert)
            assert proc.returncode == 0, proc.stderr
            assert sub.result() == stmts
        proc = run_jelly("publish", "tls", data, "--server", server.target, "--timeout", "5")
        assert proc.returncode == 1 and b"UNAVAILABLE" in proc.stderr
    finally:
        server.stop()


@pytest.mark.parametrize("output", ["out.nt", "out.jelly"])
def test_cli_subscriber_reconnects_into_one_output(tmp_path, output):
    first = ServeProcess()
    port = first.target.rsplit(":", 1)[1]
    out = tmp_path / output
    sub = subprocess.Popen([sys.executable, "-m", "jelly", "subscribe", "re", str(out),
                            "--server", first.target, "--reconnect", "-v"],
                           env=jelly_subprocess_env(), stderr=subprocess.PIPE)
    second = None
    try:
        assert b"subscribed" in sub.stderr.readline()
        one = statements("triples", 30, tag="one")
        two = statements("triples", 30, tag="two")
        with Client(first.target) as c:
            c.publish("re", encoded(one, "triples"))
        time.sleep(0.5)
        first.stop()
        second = ServeProcess("--port", port)
        assert b"subscribed" in sub.stderr.readline()       # connected again
        with Client(second.target) as c:
            c.publish("re", encoded(two, "triples"))
        time.sleep(0.5)
        sub.send_signal(signal.SIGINT)
        assert sub.wait(TIMEOUT) == 130
        if output.endswith(".nt"):
            from jelly.convert import convert
            convert(out, tmp_path / "back.jelly")
            out = tmp_path / "back.jelly"
        assert list(jelly.parse(out, strict=True)) == one + two     # one valid stream
    finally:
        if sub.poll() is None:
            sub.kill()
        if second is not None:
            second.stop()


def test_cli_serve_publish_subscribe(tmp_path):
    server = ServeProcess("--token", "tk")
    try:
        stmts = statements("quads", 90)
        src = tmp_path / "in.nq"
        jelly_file = tmp_path / "in.jelly"
        jelly.serialize(stmts, jelly_file, physical_type="quads", rows_per_frame=10)
        from jelly.convert import convert
        convert(jelly_file, src)
        env = jelly_subprocess_env()
        outs = {"nq": tmp_path / "out.nq", "jelly": tmp_path / "out.jelly",
                "limited": tmp_path / "limited.nt"}
        base = ["--server", server.target, "--token", "tk"]
        subs = [
            subprocess.Popen([sys.executable, "-m", "jelly", "subscribe", "cli", str(outs["nq"]),
                              "--messages", "-v", *base], env=env, stderr=subprocess.PIPE),
            subprocess.Popen([sys.executable, "-m", "jelly", "subscribe", "cli",
                              str(outs["jelly"]), "--physical-type", "graphs", "-v", *base],
                             env=env, stderr=subprocess.PIPE),
            subprocess.Popen([sys.executable, "-m", "jelly", "subscribe", "cli",
                              str(outs["limited"]), "--limit-frames", "2", "--to", "nq", "-v",
                              *base], env=env, stderr=subprocess.PIPE),
        ]
        for p in subs:
            line = p.stderr.readline()
            assert b"subscribed to 'cli'" in line, line
        proc = run_jelly("publish", "cli", src, *base, "-v", "--rows-per-frame", "32")
        assert proc.returncode == 0, proc.stderr
        assert b"published" in proc.stderr
        proc = run_jelly("publish", "cli", jelly_file, *base, "-q")
        assert proc.returncode == 0, proc.stderr
        assert subs[2].wait(TIMEOUT) == 0
        time.sleep(0.5)
        for p in subs[:2]:
            p.send_signal(signal.SIGINT)      # stop: the output is finished, not dropped
            assert p.wait(TIMEOUT) == 130, p.stderr.read()
        expected = stmts + stmts
        assert list(jelly.parse(outs["jelly"], strict=True)) == expected
        assert jelly.read_options(outs["jelly"]).physical_type == 3
        text = outs["nq"].read_text()
        assert text.count("# @message") > 2
        from jelly._ntriples import parse_nquads
        assert len(list(parse_nquads(outs["nq"].open("rb")))) == len(expected)
        # Stopped by itself after two messages (frames of a flat stream may come merged).
        assert 0 < len(outs["limited"].read_text().splitlines()) < len(expected)
        # A wrong token is one line of error.
        proc = run_jelly("publish", "cli", src, "--server", server.target, "--token", "no")
        assert proc.returncode == 1
        assert proc.stderr.decode().count("\n") == 1 and b"UNAUTHENTICATED" in proc.stderr
    finally:
        log = server.stop()
        for p in locals().get("subs", []):
            if p.poll() is None:
                p.kill()
    assert "received" in log


def test_cli_publish_from_stdin_and_subscribe_to_stdout(tmp_path):
    """Formats told as jelly convert tells them: stdin and names without an extension by
    their first bytes, stdout N-Quads (both crashed with an internal error)."""
    server = ServeProcess()
    try:
        stmts = statements("quads", 30)
        data = jelly.serialize(stmts, physical_type="quads", rows_per_frame=10)
        text = io.BytesIO()
        from jelly.convert import convert
        convert(data, text, from_format="jelly", to_format="nq")
        (tmp_path / "noext").write_bytes(text.getvalue())
        base = ["--server", server.target]
        sub = subprocess.Popen([sys.executable, "-m", "jelly", "subscribe", "std", "-", "-v",
                                *base], env=jelly_subprocess_env(),
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        assert b"subscribed to 'std'" in sub.stderr.readline()
        lines = []
        reader = threading.Thread(target=lambda: lines.extend(sub.stdout), daemon=True)
        reader.start()
        for args, stdin in ((["-"], data), (["-"], text.getvalue()), ([tmp_path / "noext"], b"")):
            proc = run_jelly("publish", "std", *args, *base, stdin=stdin)
            assert proc.returncode == 0, proc.stderr
        wait_until(lambda: len(lines) >= 3 * len(stmts), what="the statements on stdout")
        sub.send_signal(signal.SIGINT)
        assert sub.wait(TIMEOUT) == 130
        reader.join(TIMEOUT)
        from jelly._ntriples import parse_nquads
        got = list(parse_nquads(io.BytesIO(b"".join(lines))))
        assert len(got) == 3 * len(stmts) and got == list(parse_nquads(io.BytesIO(
            text.getvalue() * 3)))
    finally:
        server.stop()


def test_cli_publish_of_n_triples_sends_frames_while_the_input_is_still_open():
    """N-Triples on a pipe that stays open (``tail -f``): the sink wrote the whole input in
    one call, so nothing was published before the input ended, and every frame was held."""
    server = ServeProcess()
    proc = None
    try:
        base = ["--server", server.target]
        sub = subprocess.Popen([sys.executable, "-m", "jelly", "subscribe", "live", "-", "-v",
                                *base], env=jelly_subprocess_env(),
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        assert b"subscribed to 'live'" in sub.stderr.readline()
        lines: list[bytes] = []
        threading.Thread(target=lambda: lines.extend(sub.stdout), daemon=True).start()
        proc = subprocess.Popen([sys.executable, "-m", "jelly", "publish", "live", "-",
                                 "--from", "nt", "--rows-per-frame", "100", *base],
                                env=jelly_subprocess_env(), stdin=subprocess.PIPE,
                                stderr=subprocess.PIPE)
        text = b"".join(b'<http://e/s> <http://e/p> "%d" .\n' % i for i in range(3000))
        proc.stdin.write(text)
        proc.stdin.flush()
        # the input is still open: frames of the statements so far arrive all the same
        wait_until(lambda: len(lines) >= 1000, what="statements before the input ends")
        assert proc.poll() is None
        proc.stdin.close()
        assert proc.wait(TIMEOUT) == 0, proc.stderr.read()
        wait_until(lambda: len(lines) >= 3000, what="every statement")
        sub.send_signal(signal.SIGINT)
        assert sub.wait(TIMEOUT) == 130
        assert sorted(lines) == sorted(text.splitlines(keepends=True))
    finally:
        if proc is not None and proc.poll() is None:
            proc.kill()
        server.stop()


def test_cli_publish_of_bad_n_triples_is_one_line_of_error(tmp_path):
    server = ServeProcess()
    try:
        (tmp_path / "bad.nt").write_bytes(b'<http://e/s> <http://e/p> "1" .\n<http://e/s> oops .\n')
        proc = run_jelly("publish", "bad", tmp_path / "bad.nt", "--server", server.target)
        lines = proc.stderr.decode().strip().splitlines()
        assert proc.returncode == 1 and len(lines) == 1 and "line 2" in lines[0], lines
    finally:
        server.stop()


# -- the messages --------------------------------------------------------------------------------

def test_subscribe_messages_match_upb():
    pb = load_proto("grpc.proto")
    options = jelly.make_options(preset="small", physical_type="quads", rdf_star=True,
                                 stream_name="name", version=2, logical_type="datasets")
    msg = pb.RdfStreamSubscribe()
    msg.ParseFromString(encode_subscribe("tópic", options))
    assert msg.topic == "tópic" and msg.HasField("requested_options")
    o = msg.requested_options
    assert (o.physical_type, o.rdf_star, o.max_name_table_size, o.max_prefix_table_size,
            o.max_datatype_table_size, o.stream_name, o.version, o.logical_type) == \
        (2, True, 128, 16, 16, "name", 2, 4)
    assert decode_subscribe(msg.SerializeToString()) == ("tópic", options)
    empty = pb.RdfStreamSubscribe(topic="x")
    assert decode_subscribe(empty.SerializeToString()) == ("x", None)
    with_empty_options = pb.RdfStreamSubscribe(topic="x")
    with_empty_options.requested_options.SetInParent()
    topic, req = decode_subscribe(with_empty_options.SerializeToString())
    assert req is not None and req.version == 0 and req.max_name_table_size == 0
    assert encode_options(options) == msg.requested_options.SerializeToString()
    with pytest.raises(jelly.JellyDecodeError):
        decode_subscribe(b"\x0a\x05ab")


def test_a_client_of_generated_protobuf_classes(server):
    """What a client in another language does: the service and method names of grpc.proto,
    messages built and read by the protobuf runtime (upb), not by jelly."""
    from google.protobuf import message_factory
    pb = load_proto("grpc.proto")
    service = pb.DESCRIPTOR.services_by_name["RdfStreamService"]
    paths = {m.name: f"/{service.full_name}/{m.name}" for m in service.methods}
    frame_cls = message_factory.GetMessageClass(
        pb.POOL.FindMessageTypeByName("eu.ostrzyciel.jelly.core.proto.v1.RdfStreamFrame"))
    stmts = statements("triples", 40)
    frames = [frame_cls.FromString(f) for f in encoded(stmts, "triples", stream_name="upb")]
    with grpc.insecure_channel(server.target) as channel:
        subscribe = channel.unary_stream(
            paths["SubscribeRdf"], request_serializer=pb.RdfStreamSubscribe.SerializeToString,
            response_deserializer=frame_cls.FromString)
        publish = channel.stream_unary(
            paths["PublishRdf"], request_serializer=frame_cls.SerializeToString,
            response_deserializer=pb.RdfStreamReceived.FromString)
        request = pb.RdfStreamSubscribe(topic="upb")
        request.requested_options.physical_type = 2          # QUADS
        request.requested_options.max_name_table_size = 64
        request.requested_options.max_prefix_table_size = 8
        request.requested_options.max_datatype_table_size = 8
        call = subscribe(request)
        call.initial_metadata()                               # subscribed
        assert publish(iter(frames)) == pb.RdfStreamReceived()
        got, n = [], 0
        for frame in call:
            got.append(frame.SerializeToString())
            n = len(decode(got))
            if n >= len(stmts):
                break
        call.cancel()
    options = decode_full(b"".join(map(delimit, got))).options
    assert (options.physical_type, options.max_name_table_size, options.stream_name) == \
        (2, 64, "upb")
    assert decode(got) == [s + (jelly.DEFAULT_GRAPH,) for s in stmts]


def test_stream_name_rewrite_keeps_the_rest():
    frames = encoded(statements("triples", 30), "triples", stream_name="old")
    new = with_stream_name(frames[0], "new")
    assert first_options(new)[0] == first_options(frames[0])[0].replace(stream_name="new")
    assert decode([new] + frames[1:]) == decode(frames)
    assert with_stream_name(frames[1], "new") is frames[1]      # no options row: untouched
