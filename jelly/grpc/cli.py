"""``jelly serve``, ``jelly publish`` and ``jelly subscribe``: the gRPC broker and its clients on
the command line.  grpcio is imported only when one of them runs, so the rest of the command
works without it (``pip install jelly[grpc]``)."""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import sys
import threading
import time
from typing import Any, Iterator

from ..cli import ENDING_SIGNALS
from ..errors import JellyError
from ..options import PRESETS, LogicalStreamType, PhysicalStreamType, StreamOptions, is_grouped

DEFAULT_PORT = 8080
TOKEN_ENV = "JELLY_GRPC_TOKEN"
_UINT32_MAX = 0xFFFFFFFF


#: The signals that stop a server or a subscriber cleanly: Ctrl-C and the ones that end any
#: command (``kill``, a hang-up).
_STOPPING = (signal.SIGINT, *ENDING_SIGNALS)


def _need_grpc() -> None:
    # gRPC's core logs its own lines of what jelly reports as one error (a port in use, a
    # certificate that does not load); GRPC_VERBOSITY set by the user still wins.  It is read
    # when grpc is first imported.
    os.environ.setdefault("GRPC_VERBOSITY", "NONE")
    try:
        import grpc  # noqa: F401
    except ImportError:
        raise JellyError("gRPC support needs grpcio: pip install 'jelly[grpc]'") from None


def _token(args: argparse.Namespace) -> str | None:
    # A token asked for but empty is an error: taken as none, it would turn checks off.
    if args.token_file:
        try:
            with open(args.token_file, encoding="utf-8") as f:
                token = f.read().strip()
        except OSError as exc:
            raise JellyError(f"cannot read {args.token_file!r}: {exc.strerror or exc}") from None
        if not token:
            raise JellyError(f"the token file {args.token_file!r} is empty")
        return token
    if args.token is not None:
        if not args.token.strip():
            raise JellyError("--token is empty")
        return args.token
    return os.environ.get(TOKEN_ENV) or None


def _size(text: str) -> int:
    units = {"k": 1 << 10, "m": 1 << 20, "g": 1 << 30}
    t = text.strip().lower().removesuffix("ib").removesuffix("b")
    try:
        if t and t[-1] in units:
            n = int(float(t[:-1]) * units[t[-1]])
        else:
            n = int(t)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a size: {text!r} (e.g. 4194304, 4M, 512k)") \
            from None
    if not 0 < n < 1 << 31:         # gRPC's sizes are 32-bit
        raise argparse.ArgumentTypeError(f"{text!r} is not a size from 1 byte to 2G - 1")
    return n


def _number(kind: type, least: float, what: str) -> Any:
    """An argparse type: a ``kind`` (int or float) of at least ``least``."""
    def parse(text: str) -> Any:
        try:
            value = kind(text)
        except ValueError:
            value = None
        if value is None or value != value or value < least:
            raise argparse.ArgumentTypeError(f"{text!r} is not {what}")
        return value
    return parse


_COUNT = _number(int, 1, "a whole number of 1 or more")
_SECONDS = _number(float, 0, "a number of 0 or more")
_WAIT = _number(float, 1e-9, "a number above 0")


def _auth_options(p: argparse.ArgumentParser, server: bool) -> None:
    g = p.add_argument_group("security")
    if server:
        g.add_argument("--tls-cert", metavar="PEM", help="certificate chain (turns TLS on)")
        g.add_argument("--tls-key", metavar="PEM", help="private key of the certificate")
        g.add_argument("--tls-client-ca", metavar="PEM",
                       help="require client certificates signed by this CA")
    else:
        g.add_argument("--tls", action="store_true", help="connect with TLS")
        g.add_argument("--tls-ca", metavar="PEM",
                       help="CA to trust (implies --tls; default: the system's)")
        g.add_argument("--tls-cert", metavar="PEM", help="client certificate chain")
        g.add_argument("--tls-key", metavar="PEM", help="client private key")
        g.add_argument("--tls-server-name", metavar="NAME",
                       help="name to check the server certificate against")
    g.add_argument("--token", help=f"bearer token {'every call must carry' if server else 'to send'}"
                                   f" (or the environment variable {TOKEN_ENV})")
    g.add_argument("--token-file", metavar="FILE", help="read the token from FILE")
    g.add_argument("--max-message-size", type=_size, metavar="BYTES", default=4 << 20,
                   help="largest frame accepted or sent (default 4M, gRPC's default)")


def _client(args: argparse.Namespace) -> Any:
    from .client import Client
    tls = args.tls or args.tls_ca is not None or args.tls_cert is not None
    return Client(args.server, tls=tls, tls_ca=args.tls_ca, tls_cert=args.tls_cert,
                  tls_key=args.tls_key, tls_server_name=args.tls_server_name,
                  token=_token(args), max_message_size=args.max_message_size)


class _Progress:
    """One status line on stderr (a terminal only, not with --quiet)."""

    def __init__(self, verb: str, quiet: bool) -> None:
        self.on = not quiet and sys.stderr.isatty()
        self.verb = verb
        self.frames = self.bytes = 0
        self.statements: int | None = None
        self.start = self.last = time.monotonic()

    def update(self, frames: int, nbytes: int, statements: int | None = None,
               final: bool = False) -> None:
        self.frames, self.bytes, self.statements = frames, nbytes, statements
        now = time.monotonic()
        if self.on and (final or now - self.last >= 0.5):
            self.last = now
            print("\r\x1b[K" + self.line(), end="\n" if final else "", file=sys.stderr,
                  flush=True)

    def line(self) -> str:
        elapsed = max(time.monotonic() - self.start, 1e-9)
        what = f"{self.frames} frames, {self.bytes / 1e6:.1f} MB"
        if self.statements is not None:
            what += f", {self.statements} statements ({self.statements / elapsed:,.0f}/s)"
        return f"jelly: {self.verb} {what}"

    def done(self) -> None:
        if self.on and self.frames:
            print("\r\x1b[K", end="", file=sys.stderr, flush=True)


# -- serve ---------------------------------------------------------------------------------------

#: Seconds a shutdown waits after the grace for connections to close (see _serve).
_TEARDOWN = 1.0


def cmd_serve(args: argparse.Namespace) -> int:
    _need_grpc()
    from ..options import ReaderLimits
    from .server import AsyncServer, Server
    limits = ReaderLimits(max_name_table_size=args.max_name_table_size,
                          max_prefix_table_size=args.max_prefix_table_size,
                          max_datatype_table_size=args.max_datatype_table_size,
                          max_frame_size=args.max_message_size)
    common = dict(tls_cert=args.tls_cert, tls_key=args.tls_key, tls_client_ca=args.tls_client_ca,
                  token=_token(args), max_message_size=args.max_message_size, limits=limits,
                  max_queue_frames=args.max_queue_frames, max_queue_bytes=args.max_queue_bytes,
                  keepalive=args.keepalive or None, linger=args.linger / 1000)
    security = ", ".join(x for x in ("TLS" if args.tls_cert else "",
                                     "token" if common["token"] else "") if x) or "no TLS, no token"
    if args.asyncio:
        import asyncio
        # grpc.aio objects belong to the loop they are made in.
        return asyncio.run(_serve_async(lambda: AsyncServer(args.host, args.port, **common),
                                        args, security))
    server = Server(args.host, args.port, max_workers=args.max_workers,
                    drop_grace=args.drop_grace, **common)
    stop = threading.Event()

    def on_signal(signum: int, frame: Any) -> None:
        stop.set()
    previous = {s: signal.signal(s, on_signal) for s in _STOPPING}
    try:
        server.start()
        _announce(server, security, args)
        while not stop.wait(0.5):
            pass
        if not args.quiet:
            print("jelly: shutting down", file=sys.stderr, flush=True)
        # gRPC ends the calls after the grace, but closing the connection of a peer that does
        # not answer (a stopped process, a cut network) waits for two keep-alive periods:
        # the process is leaving, which closes it at once
        server.stop(args.grace).wait(args.grace + _TEARDOWN)
    finally:
        for s, h in previous.items():
            signal.signal(s, h)
    _summary(server, args)
    return 0


async def _serve_async(make: Any, args: argparse.Namespace, security: str) -> int:
    import asyncio
    server = make()
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for s in _STOPPING:
        loop.add_signal_handler(s, stop.set)
    await server.start()
    _announce(server, security, args)
    await stop.wait()
    if not args.quiet:
        print("jelly: shutting down", file=sys.stderr, flush=True)
    try:
        await asyncio.wait_for(server.stop(args.grace), args.grace + _TEARDOWN)
    except asyncio.TimeoutError:        # see _serve: a peer that does not answer
        pass
    _summary(server, args)
    return 0


def _announce(server: Any, security: str, args: argparse.Namespace) -> None:
    # Always printed (tests and scripts read the port from it when --port 0 is given).
    print(f"jelly: serving RdfStreamService on {args.host}:{server.port} ({security})",
          file=sys.stderr, flush=True)


def _summary(server: Any, args: argparse.Namespace) -> None:
    if not args.quiet:
        b = server.broker
        print(f"jelly: received {b.frames_in} frames, {b.statements_in} statements",
              file=sys.stderr, flush=True)


# -- publish -------------------------------------------------------------------------------------

class _Frames:
    """A binary stream that a Jelly writer writes delimited frames into: each frame is handed
    to ``emit`` as soon as it is complete."""

    def __init__(self, emit: Any) -> None:
        from .._framing import FrameSplitter
        self._splitter = FrameSplitter(delimited=True)
        self._emit = emit

    def write(self, data: bytes) -> int:
        for _, frame in self._splitter.feed(data):
            self._emit(bytes(frame))
        return len(data)

    def flush(self) -> None:
        pass


class _Stopped(Exception):
    """The frames are no longer wanted (the call ended): the writing thread stops."""


_WRITER_FIELDS = ("preset", "physical_type", "logical_type", "max_name_table_size",
                  "max_prefix_table_size", "max_datatype_table_size", "rdf_star",
                  "generalized_statements")
#: Frames written ahead of the call: what a publisher holds besides its input's reader.
_AHEAD = 16


def _publish_frames(args: argparse.Namespace, fields: dict[str, Any],
                    stats: dict[str, int]) -> Iterator[bytes]:
    from .. import formats
    from ..convert import _format, sniff_input
    from ..io import FrameReader, open_input
    fmt = _format(args.from_format, args.file, "input", formats.RDF)
    with open_input(args.file) as stream:
        if fmt is None:             # stdin, or a name that does not tell: as jelly convert
            fmt, stream = sniff_input(stream, args.file)
        if fmt.name == "jelly":
            frames: Any = FrameReader(stream)
            if fields:
                from ..transcode import Transcoder, output_options
                transcoder = Transcoder(lambda first: output_options(first, **fields))
                for offset, frame in frames:
                    stats["frames"] += 1
                    yield transcoder.transcode_frame(frame, offset)
                return
            for _, frame in frames:
                stats["frames"] += 1
                yield bytes(frame)
            return
        yield from _written_frames(args, fields, stats, stream, fmt)


def _written_frames(args: argparse.Namespace, fields: dict[str, Any], stats: dict[str, int],
                    stream: Any, fmt: Any) -> Iterator[bytes]:
    """The frames of other input written as Jelly.  A sink writes a flat input's statements in
    one call (in C for N-Triples), so the writing runs in a thread of its own and hands each
    frame over as it is complete: frames leave while the input is still coming (a live
    stream, ``tail -f``), and at most :data:`_AHEAD` wait."""
    import queue

    from ..convert import JellySink, open_source
    handed: queue.Queue[tuple[str, Any, int]] = queue.Queue(_AHEAD)
    stop = threading.Event()

    def put(item: tuple[str, Any, int]) -> None:
        while not stop.is_set():
            try:
                handed.put(item, timeout=0.1)
                return
            except queue.Full:
                continue
        raise _Stopped

    def write() -> None:
        source = None
        try:
            source = open_source(stream, fmt, messages=args.messages,
                                 rows_per_frame=args.rows_per_frame)
            sink: Any = None        # (a frame written while the sink is made has no count)
            sink = JellySink(
                _Frames(lambda f: put(("frame", f, sink.statements_written if sink else -1))),
                source, rows_per_frame=args.rows_per_frame, stream_name=args.topic, **fields)
            for frame, message in source.frames():
                sink.write(frame, message)
            sink.close()
            put(("end", None, sink.statements_written))
        except _Stopped:
            pass
        except BaseException as exc:        # raised where the frames are taken
            with contextlib.suppress(_Stopped):
                put(("error", exc, -1))
        finally:
            if source is not None:
                source.close()

    writer = threading.Thread(target=write, name="jelly-publish-writer", daemon=True)
    writer.start()
    try:
        while True:
            kind, value, statements = handed.get()
            if kind == "error":
                raise value
            if statements >= 0:
                stats["statements"] = statements
            if kind == "end":
                writer.join()
                return
            stats["frames"] += 1
            yield value
    finally:
        stop.set()      # the call ended early: the thread stops at its next frame


def cmd_publish(args: argparse.Namespace) -> int:
    _need_grpc()
    fields = {k: getattr(args, k) for k in _WRITER_FIELDS if getattr(args, k) is not None}
    stats = {"frames": 0, "statements": -1, "bytes": 0}
    progress = _Progress("published", args.quiet)

    def frames() -> Iterator[bytes]:
        for frame in _publish_frames(args, fields, stats):
            stats["bytes"] += len(frame)
            yield frame
            st = stats["statements"]
            progress.update(stats["frames"], stats["bytes"], st if st >= 0 else None)

    with contextlib.closing(_client(args)) as client:
        sent = client.publish(args.topic, frames(), timeout=args.timeout,
                              wait_for_ready=args.wait)
    progress.done()
    if args.verbose:
        st = stats["statements"]
        print(f"published {sent} frames" + (f", {st} statements" if st >= 0 else "")
              + f" to {args.topic!r}", file=sys.stderr)
    return 0


# -- subscribe -----------------------------------------------------------------------------------

def _requested(args: argparse.Namespace) -> StreamOptions | None:
    """The requested options: only what was given constrains the server (what was not is
    requested as large as possible)."""
    given = [args.preset, args.physical_type, args.logical_type, args.max_name_table_size,
             args.max_prefix_table_size, args.max_datatype_table_size, args.rdf_star,
             args.generalized_statements, args.protocol_version]
    if all(v is None for v in given):
        return None
    from ..options import make_options
    sizes = make_options(preset=args.preset) if args.preset else None
    return StreamOptions(
        physical_type=PhysicalStreamType[args.physical_type.upper()] if args.physical_type
        else PhysicalStreamType.UNSPECIFIED,
        logical_type=LogicalStreamType[args.logical_type.upper()] if args.logical_type else 0,
        generalized_statements=True if args.generalized_statements is None
        else args.generalized_statements,
        rdf_star=True if args.rdf_star is None else args.rdf_star,
        max_name_table_size=args.max_name_table_size
        if args.max_name_table_size is not None
        else (sizes.max_name_table_size if sizes else _UINT32_MAX),
        max_prefix_table_size=args.max_prefix_table_size if args.max_prefix_table_size is not None
        else (sizes.max_prefix_table_size if sizes else _UINT32_MAX),
        max_datatype_table_size=args.max_datatype_table_size
        if args.max_datatype_table_size is not None
        else (sizes.max_datatype_table_size if sizes else _UINT32_MAX),
        version=args.protocol_version or 0)


class _Interrupt:
    """Ctrl-C / SIGTERM while waiting for frames stops at once; while a frame is being written
    it stops after that frame, so the output ends with whole frames."""

    def __init__(self) -> None:
        self.requested = False
        self.waiting = False
        self._previous: dict[int, Any] = {}

    def __enter__(self) -> _Interrupt:
        for s in _STOPPING:
            self._previous[s] = signal.signal(s, self._handle)
        return self

    def __exit__(self, *exc: object) -> None:
        for s, h in self._previous.items():
            signal.signal(s, h)

    def _handle(self, signum: int, frame: Any) -> None:
        self.requested = True
        if self.waiting:
            raise KeyboardInterrupt


def cmd_subscribe(args: argparse.Namespace) -> int:
    _need_grpc()
    from .. import formats
    from ..convert import _check_output, _format, open_sink, stdout_format
    from .._decoder import Decoder
    from .._streaming import delimit
    from ..io import open_output
    out_fmt = _format(args.to_format, args.output, "output", formats.RDF)
    if out_fmt is None:             # stdout: N-Quads, as jelly convert writes Jelly there
        out_fmt = stdout_format(formats.JELLY)
    to_stdout = args.output == "-"
    _check_output(out_fmt, to_stdout)
    if args.limit_frames is not None and args.limit_frames < 1:
        raise JellyError("--limit-frames must be at least 1")
    jelly_out = out_fmt.name == "jelly"
    progress = _Progress("received", args.quiet)
    client = _client(args)

    connections = [0]       # each (re)connection is a new stream

    def subscribed() -> None:
        connections[0] += 1
        if args.verbose:
            print(f"jelly: subscribed to {args.topic!r}", file=sys.stderr, flush=True)
    frames = client.subscribe(args.topic, _requested(args), output="bytes",
                              reconnect=True if args.reconnect else None,
                              on_subscribed=subscribed)
    count = nbytes = 0
    interrupted = False
    with _Interrupt() as interrupt, contextlib.closing(client), \
            contextlib.closing(frames), open_output(args.output) as out:
        sink: Any = None
        decoder: Any = None
        transcoder: Any = None
        stream = 0              # the connection whose stream the frames come from
        while not interrupt.requested:
            interrupt.waiting = True
            try:
                data = next(frames, None)
            except KeyboardInterrupt:
                interrupted = True
                break
            finally:
                interrupt.waiting = False
            if data is None:
                break
            new_stream = stream != connections[0]
            stream = connections[0]
            if jelly_out:
                if args.reconnect:
                    # One output stream across reconnections (each one is a new stream).
                    from ..transcode import Transcoder
                    if transcoder is None:
                        transcoder = Transcoder()
                    elif new_stream:
                        transcoder.next_input()
                    out.write(transcoder.transcode_frame(data, 0, True))
                else:
                    out.write(delimit(data))
            else:
                if new_stream:
                    text = getattr(out_fmt.load_writer(), "text", False)
                    decoder = Decoder(terms="nt" if text else "native",
                                      output="text" if text else "tuples")
                frame = decoder.decode_frame(data)
                if sink is None:
                    source: Any = _SubscribedSource(decoder, text, args.messages)
                    sink = open_sink(out, out_fmt, source, messages=args.messages,
                                     flush_frames=to_stdout)
                sink.write(frame, args.messages or sink_grouped(decoder))
            if to_stdout:
                out.flush()
            count += 1
            nbytes += len(data)
            progress.update(count, nbytes)
            if args.limit_frames is not None and count >= args.limit_frames:
                break
        if sink is not None:
            sink.close()
        progress.done()
    if args.verbose:
        print(f"received {count} frames from {args.topic!r}", file=sys.stderr)
    return 130 if interrupted or interrupt.requested else 0


def sink_grouped(decoder: Any) -> bool:
    options = decoder.options
    return options is not None and is_grouped(int(options.logical_type))


class _SubscribedSource:
    """What a sink of :mod:`jelly.convert` needs to know about a subscribed stream."""

    def __init__(self, decoder: Any, text: bool, messages: bool) -> None:
        # The frames come from the subscription loop, not from here.
        self.text = text
        self.options = decoder.options
        self.quads = self.options is not None and \
            self.options.physical_type != PhysicalStreamType.TRIPLES
        self.grouped = messages or sink_grouped(decoder)


# -- registration --------------------------------------------------------------------------------

def add_commands(sub: Any) -> None:
    from .. import formats
    names = ", ".join(formats.names())
    serve = sub.add_parser(
        "serve", help="run a gRPC broker of Jelly streams (RdfStreamService)",
        description="Run the RdfStreamService of the Jelly gRPC streaming protocol: a broker "
                    "that forwards each topic's published frames to its subscribers, "
                    "re-encoding them for subscribers that join mid-stream or request other "
                    "options.  Stops cleanly on Ctrl-C / SIGTERM.")
    serve.add_argument("--host", default="127.0.0.1",
                       help="address to listen on (default 127.0.0.1; 0.0.0.0 for every "
                            "interface)")
    serve.add_argument("--port", type=int, default=DEFAULT_PORT,
                       help=f"port (default {DEFAULT_PORT}; 0 picks a free one)")
    _auth_options(serve, True)
    g = serve.add_argument_group("limits")
    g.add_argument("--max-queue-frames", type=_COUNT, default=1024, metavar="N",
                   help="frames a subscriber may fall behind before it is dropped "
                        "(default 1024)")
    g.add_argument("--max-queue-bytes", type=_size, default=64 << 20, metavar="BYTES",
                   help="bytes a subscriber may fall behind before it is dropped (default 64M)")
    g.add_argument("--max-name-table-size", type=int, default=4096, metavar="N")
    g.add_argument("--max-prefix-table-size", type=int, default=1024, metavar="N")
    g.add_argument("--max-datatype-table-size", type=int, default=256, metavar="N")
    serve.add_argument("--max-workers", type=_COUNT, default=64, metavar="N",
                       help="threads, i.e. calls served at once (not with --asyncio; "
                            "default 64)")
    serve.add_argument("--asyncio", action="store_true", help="serve with grpc.aio")
    serve.add_argument("--keepalive", type=_SECONDS, default=10.0, metavar="SECONDS",
                       help="ping idle connections this often (0: never; default 10)")
    serve.add_argument("--linger", type=_SECONDS, default=5.0, metavar="MS",
                       help="a subscriber of a busy flat stream gets at most one message per "
                            "MS milliseconds, its frames merged (default 5; 0: no waiting)")
    serve.add_argument("--drop-grace", type=_SECONDS, default=10.0, metavar="SECONDS",
                       help="cancel a dropped subscriber that does not read after this long "
                            "(default 10)")
    serve.add_argument("--grace", type=_SECONDS, default=5.0, metavar="SECONDS",
                       help="at shutdown, wait this long for calls to finish (default 5)")
    serve.add_argument("-q", "--quiet", action="store_true",
                       help="only the 'serving ... on HOST:PORT' line on stderr")
    serve.set_defaults(func=cmd_serve)

    pub = sub.add_parser(
        "publish", help="publish an RDF file to a topic of a gRPC broker",
        description="Publish FILE (any format the command reads; '-' for stdin) as one Jelly "
                    "stream to TOPIC.  Jelly input is sent frame by frame as it is (re-encoded "
                    "if options are given); other formats are encoded.")
    pub.add_argument("topic")
    pub.add_argument("file")
    pub.add_argument("--server", required=True, metavar="HOST:PORT")
    pub.add_argument("--from", dest="from_format", metavar="FORMAT", help=f"input format ({names})")
    pub.add_argument("--messages", action="store_true",
                     help="the input is an RDF message log: one frame per message")
    pub.add_argument("--timeout", type=_WAIT, metavar="SECONDS",
                     help="give up the call after this long (default: never)")
    pub.add_argument("--wait", action="store_true", help="wait for the server to be up")
    _auth_options(pub, False)
    _option_flags(pub, "stream options (default: the input's or the big preset)")
    pub.add_argument("--rows-per-frame", type=_COUNT, default=256, metavar="N",
                     help="rows per frame when encoding (default 256)")
    pub.add_argument("-v", "--verbose", action="store_true",
                     help="print the frames and statements published on stderr")
    pub.add_argument("-q", "--quiet", action="store_true", help="no progress line")
    pub.set_defaults(func=cmd_publish)

    subs = sub.add_parser(
        "subscribe", help="write a topic of a gRPC broker to a file",
        description="Subscribe to TOPIC and write what arrives to OUT (any format the command "
                    "writes; '-' for stdout) until the server ends the stream, --limit-frames "
                    "is reached or Ctrl-C.  Options flags are requested from the server "
                    "(flags left out do not constrain it).")
    subs.add_argument("topic")
    subs.add_argument("output")
    subs.add_argument("--server", required=True, metavar="HOST:PORT")
    subs.add_argument("--to", dest="to_format", metavar="FORMAT", help=f"output format ({names})")
    subs.add_argument("--messages", action="store_true",
                      help="one message per frame ('# @message' blocks, one JSON-LD document "
                           "per line)")
    subs.add_argument("--limit-frames", type=_COUNT, metavar="N", help="stop after N frames")
    subs.add_argument("--reconnect", action="store_true",
                      help="reconnect with back-off when the server goes away")
    _auth_options(subs, False)
    _option_flags(subs, "requested stream options")
    subs.add_argument("--protocol-version", type=int, choices=[1, 2],
                      help="requested protocol version (1: no namespace declarations)")
    subs.add_argument("-v", "--verbose", action="store_true",
                      help="say when subscribed and how many frames arrived, on stderr")
    subs.add_argument("-q", "--quiet", action="store_true", help="no progress line")
    subs.set_defaults(func=cmd_subscribe)


def _option_flags(p: argparse.ArgumentParser, title: str) -> None:
    g = p.add_argument_group(title)
    g.add_argument("--preset", choices=sorted(PRESETS), help="table sizes")
    g.add_argument("--physical-type", choices=["triples", "quads", "graphs"])
    g.add_argument("--logical-type", choices=[m.name.lower() for m in LogicalStreamType if m.value])
    g.add_argument("--max-name-table-size", type=int, metavar="N")
    g.add_argument("--max-prefix-table-size", type=int, metavar="N")
    g.add_argument("--max-datatype-table-size", type=int, metavar="N")
    g.add_argument("--rdf-star", action=argparse.BooleanOptionalAction, default=None,
                   help="RDF-star quoted triples")
    g.add_argument("--generalized", dest="generalized_statements",
                   action=argparse.BooleanOptionalAction, default=None,
                   help="generalized statements")
