"""Load benchmark of the gRPC broker (``jelly serve``) on loopback.

Every role is its own process, as in a deployment: the server (``jelly serve`` in a
subprocess), each publisher and each subscriber.  A publisher sends pre-encoded frames of
generated sensor data (``datagen.py``) as fast as the server takes them and notes when each
frame left (``time.monotonic_ns()``: one clock for every process of the machine); a subscriber
reads everything and notes when each message arrived and how far into the stream it reaches
(a subscriber that lags gets the frames of a flat stream merged, so messages are not frames).
``PxS`` is P publishers, each on a topic of its own with S subscribers.

For each scenario (publishers x subscribers x rows per frame) it reports:

* statements/s end to end: statements a subscriber received / time from the first frame sent
  to the last one received (the slowest subscriber counts; all receive everything);
* publisher statements/s: statements published / time the publish call took (the goal
  compares it with and without 8 subscribers);
* per-frame latency p50 / p99: from a frame's send time to the arrival of the message that
  completes it, over every frame at every subscriber;
* CPU seconds of the server, the publishers and the subscribers (``--json``).

Goals checked at the end: >= 1M statements/s from one publisher to one subscriber with
256-row frames, and 8 subscribers of one topic without the publisher slowing to less than
half its rate with one subscriber.

    python benchmarks/grpc_bench.py                       # the default grid, ~1-2 minutes
    python benchmarks/grpc_bench.py --statements 500000 --grid 1x1,1x8 --rows 256 --repeat 3
    python benchmarks/grpc_bench.py --asyncio             # the grpc.aio server
    python benchmarks/grpc_bench.py --requested small     # subscribers ask for the small preset
                                                          # (every frame transcoded)
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))

# -- data ----------------------------------------------------------------------------------------

def prepare(work: Path, statements: int, rows: int) -> tuple[Path, int, int]:
    """A delimited Jelly file of ``statements`` generated sensor statements, ``rows`` rows per
    frame; returns (path, statements, frames)."""
    import datagen
    import jelly
    from jelly._ntriples import parse_nquads
    nt = work / f"sensors-{statements}.nt"
    if not nt.exists():
        datagen.write("sensors", statements, 1, str(nt))
    path = work / f"sensors-{statements}-{rows}.jelly"
    if not path.exists():
        with open(nt, "rb") as f:
            jelly.serialize(parse_nquads(f), path, preset="big", rows_per_frame=rows)
    n = frames = 0
    for frame in jelly.parse_frames(path):
        n += len(frame)
        frames += 1
    return path, n, frames


# -- roles ---------------------------------------------------------------------------------------
# A subscriber that lags gets frames merged (flat streams), so frames are not matched one by
# one: a publisher notes when each frame left and where it ends in the stream (bytes, and
# statements), a subscriber when each message arrived and how far into the stream it reaches.
# A frame's latency is the arrival of the first message that reaches its end minus its send
# time.  Passthrough subscribers count bytes (their bytes are the published ones); those that
# asked for other options decode (validation only) to count statements.

def publisher(target: str, topic: str, path: str, ready, go, results) -> None:
    import jelly
    from jelly._streaming import with_stream_name
    from jelly.grpc.client import Client
    from jelly.io import FrameReader
    with open(path, "rb") as f:
        data = f.read()
    frames = [bytes(fr) for _, fr in FrameReader(data)]
    frames[0] = with_stream_name(frames[0], topic)   # as the client would: sizes stay true
    ends_bytes, ends_statements, b, n = [], [], 0, 0
    for fr, decoded in zip(frames, jelly.parse_frames(data)):
        b += len(fr)
        n += len(decoded)
        ends_bytes.append(b)
        ends_statements.append(n)
    sent = []

    def stamped():
        for fr in frames:
            sent.append(time.monotonic_ns())
            yield fr
    with Client(target) as client:
        ready.put("publisher")
        go.wait()
        started = time.monotonic_ns()
        cpu = time.process_time()
        client.publish(topic, stamped(), wait_for_ready=True)
        results.put(("publisher", topic, started, time.monotonic_ns(),
                     time.process_time() - cpu, sent, ends_bytes, ends_statements))


def subscriber(target: str, topic: str, total_bytes: int, total_statements: int,
               requested: str | None, ready, results, nice: int = 0) -> None:
    if nice:
        os.nice(nice)
    import jelly
    from jelly._transcode import WireDecoder
    from jelly.grpc.client import Client
    options = jelly.make_options(preset=requested) if requested else None
    decoder = WireDecoder() if requested else None
    arrivals: list[int] = []
    reached: list[int] = []
    messages = position = 0
    error = None
    cpu = time.process_time()
    with Client(target) as client:
        try:
            for message in client.subscribe(topic, options, output="bytes",
                                            on_subscribed=lambda: ready.put("subscriber")):
                now = time.monotonic_ns()
                messages += 1
                if decoder is None:
                    position += len(message)
                else:
                    position += decoder.decode(message, collect=False).statement_count
                arrivals.append(now)
                reached.append(position)
                if position >= (total_statements if decoder is not None else total_bytes):
                    break
        except Exception as exc:       # noqa: BLE001 - reported, not raised
            error = repr(exc)
    results.put(("subscriber", topic, arrivals, reached, decoder is not None, messages, error,
                 time.process_time() - cpu))


def latencies(pub: tuple, sub: tuple) -> list[int]:
    """Per-frame latencies (ns) of one publisher's frames at one subscriber."""
    import bisect
    _, _, _, _, _, sent, ends_bytes, ends_statements = pub
    _, _, arrivals, reached, by_statements, _, _, _ = sub
    ends = ends_statements if by_statements else ends_bytes
    out = []
    for t, end in zip(sent, ends):
        i = bisect.bisect_left(reached, end)
        if i < len(arrivals):
            out.append(arrivals[i] - t)
    return out


# -- one scenario --------------------------------------------------------------------------------

def serve(asyncio_server: bool) -> tuple[subprocess.Popen, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    cmd = [sys.executable, "-m", "jelly", "serve", "--port", "0", "--max-queue-frames",
           "1000000", "--max-queue-bytes", "4G", "--max-message-size", "16M", "-q"]
    if asyncio_server:
        cmd.append("--asyncio")
    proc = subprocess.Popen(cmd, env=env, stderr=subprocess.PIPE, text=True)
    line = proc.stderr.readline()
    if "serving" not in line:
        raise RuntimeError(line + proc.stderr.read())
    return proc, "127.0.0.1:" + line.rsplit(":", 1)[1].split()[0]


def scenario(path: Path, statements: int, frames: int, pubs: int, subs: int,
             requested: str | None, asyncio_server: bool, target: str | None = None,
             nice: int = 0) -> dict:
    """``pubs`` publishers, each on a topic of its own with ``subs`` subscribers."""
    ctx = mp.get_context("spawn")
    server = None
    if target is None:
        server, target = serve(asyncio_server)
    base = f"bench-{time.monotonic_ns()}"
    total_bytes = _stream_bytes(path, base + "-0")
    ready, results, go = ctx.Queue(), ctx.Queue(), ctx.Event()
    procs = []
    try:
        for k in range(pubs):
            topic = f"{base}-{k}"
            for _ in range(subs):
                procs.append(ctx.Process(target=subscriber, args=(
                    target, topic, total_bytes, statements, requested, ready, results, nice)))
            procs.append(ctx.Process(target=publisher, args=(
                target, topic, str(path), ready, go, results)))
        for p in procs:
            p.start()
        for _ in procs:
            ready.get(timeout=120)
        server_cpu0 = _cpu_seconds(server.pid) if server is not None else None
        go.set()
        out = [results.get(timeout=600) for _ in procs]
        for p in procs:
            p.join(60)
        server_cpu = _cpu_seconds(server.pid) - server_cpu0 if server is not None else None
    finally:
        for p in procs:
            if p.is_alive():
                p.kill()
        if server is not None:
            server.terminate()
            server.wait(30)
    published = {r[1]: r for r in out if r[0] == "publisher"}
    received = [r for r in out if r[0] == "subscriber"]
    start = min(r[2] for r in published.values())
    errors = [r[6] for r in received if r[6]]
    lat = sorted(x for r in received for x in latencies(published[r[1]], r))
    end_to_end = [statements / ((r[2][-1] - published[r[1]][2]) / 1e9)
                  for r in received if r[2]]
    publish_rates = [statements / ((r[3] - r[2]) / 1e9) for r in published.values()]
    return {
        "publishers": pubs, "subscribers": subs, "statements": statements * pubs,
        "frames": frames * pubs,
        "end_to_end": min(end_to_end) if end_to_end else 0.0,
        "publisher_rate": statistics.median(publish_rates),
        "aggregate_out": statements * pubs * subs / ((max(r[2][-1] for r in received if r[2])
                                                      - start) / 1e9) if end_to_end else 0.0,
        "p50_ms": lat[len(lat) // 2] / 1e6 if lat else None,
        "p99_ms": lat[min(len(lat) - 1, int(len(lat) * 0.99))] / 1e6 if lat else None,
        "messages_per_subscriber": statistics.median(r[5] for r in received),
        "errors": errors,
        # CPU seconds of each role during the scenario.
        "cpu_server": server_cpu,
        "cpu_publishers": sum(r[4] for r in published.values()),
        "cpu_subscribers": sum(r[7] for r in received),
    }


def _stream_bytes(path: Path, topic: str) -> int:
    from jelly._streaming import with_stream_name
    from jelly.io import FrameReader
    frames = [bytes(fr) for _, fr in FrameReader(path.read_bytes())]
    return len(with_stream_name(frames[0], topic)) + sum(map(len, frames[1:]))


def _cpu_seconds(pid: int) -> float | None:
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def fmt_rate(v: float) -> str:
    return f"{v / 1e6:.2f}M" if v >= 1e6 else f"{v / 1e3:.0f}k"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--statements", type=int, default=200_000,
                    help="statements per publisher (default 200000)")
    ap.add_argument("--grid", default="1x1,1x8,2x2,4x2",
                    help="publishers x subscribers per publisher, comma-separated "
                         "(default 1x1,1x8,2x2,4x2)")
    ap.add_argument("--rows", default="64,256,1024",
                    help="rows per frame, comma-separated (default 64,256,1024)")
    ap.add_argument("--repeat", type=int, default=1, help="runs per scenario; medians reported")
    ap.add_argument("--requested", choices=["small", "big"],
                    help="subscribers request these options (every frame is transcoded)")
    ap.add_argument("--asyncio", action="store_true", help="run the grpc.aio server")
    ap.add_argument("--subscriber-nice", type=int, default=0, metavar="N",
                    help="run subscribers at this lower priority, as if they were on other "
                         "machines (on a small machine they compete with the server)")
    ap.add_argument("--target", metavar="HOST:PORT",
                    help="use this running server instead of starting one per scenario")
    ap.add_argument("--work", type=Path, default=HERE / ".work", help="prepared data")
    ap.add_argument("--json", type=Path, help="write every run here")
    args = ap.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    grid = [tuple(int(x) for x in g.split("x")) for g in args.grid.split(",")]
    rows_list = [int(r) for r in args.rows.split(",")]
    runs = []
    print(f"# {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
          f"Python {platform.python_version()}, load {os.getloadavg()}")
    print(f"# {'grpc.aio' if args.asyncio else 'threads'} server"
          + (f", subscribers at nice {args.subscriber_nice}" if args.subscriber_nice else "")
          + (f", subscribers request the {args.requested} preset" if args.requested else ""))
    header = ("| publishers x subscribers | rows/frame | statements/s end to end | "
              "publisher statements/s | latency p50 | latency p99 | messages/subscriber |")
    lines = [header, "|---|--:|--:|--:|--:|--:|--:|"]
    print(header)
    print(lines[1])
    table = {}
    for rows in rows_list:
        path, n, frames = prepare(args.work, args.statements, rows)
        for pubs, subs in grid:
            results = [scenario(path, n, frames, pubs, subs, args.requested, args.asyncio,
                                args.target, args.subscriber_nice)
                       for _ in range(args.repeat)]
            runs += [dict(r, rows=rows) for r in results]
            med = {k: statistics.median(r[k] for r in results)
                   for k in ("end_to_end", "publisher_rate", "p50_ms", "p99_ms")}
            med["messages"] = statistics.median(r["messages_per_subscriber"] for r in results)
            bad = sum(len(r["errors"]) for r in results)
            table[pubs, subs, rows] = med
            line = (f"| {pubs} x {subs} | {rows} | {fmt_rate(med['end_to_end'])} | "
                    f"{fmt_rate(med['publisher_rate'])} | {med['p50_ms']:.1f} ms | "
                    f"{med['p99_ms']:.1f} ms | {med['messages']:.0f} of {frames} |"
                    + (f" {bad} subscribers failed" if bad else ""))
            lines.append(line)
            print(line, flush=True)
    print()
    if (1, 1, 256) in table:
        v = table[1, 1, 256]["end_to_end"]
        print(f"goal: 1 publisher -> 1 subscriber, 256-row frames >= 1M statements/s: "
              f"{'PASS' if v >= 1e6 else 'FAIL'} {fmt_rate(v)}")
    for rows in rows_list:
        if (1, 1, rows) in table and (1, 8, rows) in table:
            ratio = table[1, 8, rows]["publisher_rate"] / table[1, 1, rows]["publisher_rate"]
            print(f"goal: 8 subscribers, publisher at >= 1/2 of its 1-subscriber rate "
                  f"({rows} rows/frame): {'PASS' if ratio >= 0.5 else 'FAIL'} {ratio:.2f}")
    if args.json:
        args.json.write_text(json.dumps({"args": vars(args) | {"work": str(args.work),
                                                                "json": str(args.json)},
                                         "runs": runs}, indent=1, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
