"""Load benchmark of the gRPC broker (``jelly serve``) on loopback.

Every role is its own process, as in a deployment: the server (``jelly serve`` in a
subprocess), each publisher and each subscriber.  A publisher sends pre-encoded frames of
generated sensor data (``datagen.py``) as fast as the server takes them, stamping each frame
with its send time in the frame metadata (key ``t``: ``time.monotonic_ns()``, one clock for
every process on the machine); a subscriber reads every frame and notes when it arrived.

For each scenario (publishers x subscribers x rows per frame) it reports:

* statements/s end to end: statements a subscriber received / time from the first frame sent
  to the last one received (the slowest subscriber counts; all receive everything);
* publisher statements/s: statements published / time the publish call took (the goal
  compares it with and without 8 subscribers);
* per-frame latency p50 / p99: receive time - send time, over every frame of every subscriber.

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
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))

# Frame metadata entry appended to each published frame: field 15 (a map entry of 13 bytes:
# key "t", value the 8 bytes of the send time).
_STAMP = b"\x7a\x0d\x0a\x01t\x12\x08"
_STAMP_LEN = len(_STAMP) + 8


def stamp(frame: bytes) -> bytes:
    return frame + _STAMP + struct.pack("<q", time.monotonic_ns())


def sent_at(frame: bytes) -> int:
    tail = frame[-_STAMP_LEN:]
    if tail[:len(_STAMP)] != _STAMP:
        raise ValueError("frame without its send time (the last field must be the stamp)")
    return struct.unpack("<q", tail[len(_STAMP):])[0]


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

def publisher(target: str, topic: str, path: str, ready, go, results) -> None:
    from jelly.grpc.client import Client
    from jelly.io import FrameReader
    with open(path, "rb") as f:
        frames = [bytes(fr) for _, fr in FrameReader(f.read())]
    with Client(target) as client:
        ready.put("publisher")
        go.wait()
        started = time.monotonic_ns()
        cpu = time.process_time()
        client.publish(topic, (stamp(fr) for fr in frames), wait_for_ready=True)
        results.put(("publisher", started, time.monotonic_ns(), time.process_time() - cpu))


def subscriber(target: str, topic: str, expected_frames: int, requested: str | None,
               ready, results, nice: int = 0) -> None:
    if nice:
        os.nice(nice)
    import jelly
    from jelly.grpc.client import Client
    options = jelly.make_options(preset=requested) if requested else None
    arrivals = []
    latencies = []
    error = None
    cpu = time.process_time()
    with Client(target) as client:
        try:
            for frame in client.subscribe(topic, options, output="bytes",
                                          on_subscribed=lambda: ready.put("subscriber")):
                now = time.monotonic_ns()
                try:
                    latencies.append(now - sent_at(frame))
                except ValueError:
                    continue           # a frame of the options or lookups alone
                arrivals.append(now)
                if len(arrivals) >= expected_frames:
                    break
        except Exception as exc:       # noqa: BLE001 - reported, not raised
            error = repr(exc)
    results.put(("subscriber", arrivals[-1] if arrivals else 0, len(arrivals), latencies, error,
                 time.process_time() - cpu))


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
    ctx = mp.get_context("spawn")
    server = None
    if target is None:
        server, target = serve(asyncio_server)
    topic = f"bench-{time.monotonic_ns()}"
    ready, results, go = ctx.Queue(), ctx.Queue(), ctx.Event()
    procs = []
    try:
        for i in range(subs):
            procs.append(ctx.Process(target=subscriber, args=(
                target, topic, frames * pubs, requested, ready, results, nice)))
        for i in range(pubs):
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
    published = [r for r in out if r[0] == "publisher"]
    received = [r for r in out if r[0] == "subscriber"]
    start = min(r[1] for r in published)
    errors = [r[4] for r in received if r[4]]
    incomplete = [r for r in received if r[2] < frames * pubs]
    latencies = sorted(x for r in received for x in r[3])
    end_to_end = [statements * pubs / ((r[1] - start) / 1e9) for r in received if r[1]]
    publish_rates = [statements / ((r[2] - r[1]) / 1e9) for r in published]
    return {
        "publishers": pubs, "subscribers": subs, "statements": statements * pubs,
        "frames": frames * pubs,
        "end_to_end": min(end_to_end) if end_to_end else 0.0,
        "publisher_rate": statistics.median(publish_rates),
        "p50_ms": latencies[len(latencies) // 2] / 1e6 if latencies else None,
        "p99_ms": latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))] / 1e6
        if latencies else None,
        "errors": errors, "incomplete": len(incomplete),
        # CPU seconds of each role for the whole scenario.
        "cpu_server": server_cpu,
        "cpu_publishers": sum(r[3] for r in published),
        "cpu_subscribers": sum(r[5] for r in received),
    }


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
    ap.add_argument("--grid", default="1x1,1x8,2x2,4x4",
                    help="publishers x subscribers, comma-separated (default 1x1,1x8,2x2,4x4)")
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
              "publisher statements/s | latency p50 | latency p99 |")
    lines = [header, "|---|--:|--:|--:|--:|--:|"]
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
            bad = sum(len(r["errors"]) + r["incomplete"] for r in results)
            table[pubs, subs, rows] = med
            line = (f"| {pubs} x {subs} | {rows} | {fmt_rate(med['end_to_end'])} | "
                    f"{fmt_rate(med['publisher_rate'])} | {med['p50_ms']:.1f} ms | "
                    f"{med['p99_ms']:.1f} ms |" + (f" {bad} subscribers failed" if bad else ""))
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
