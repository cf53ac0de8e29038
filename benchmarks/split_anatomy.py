"""Where the time of ``jelly convert --jobs 2`` Jelly -> N-Triples goes (docs/performance.md,
"Splittable Jelly"); not part of the test suite.

    python benchmarks/split_anatomy.py --out benchmarks/results/split-anatomy.json

Five measurements, on the 2M-statement ``sensors`` file that ``split_bench.py`` prepares:

* ``engine``: conversions with ``jobs=2`` in this process, each worker's tasks and writes
  timed inside the worker: the time before the first task (scan, plan, starting the
  workers), the time each worker is idle between the first task and the last write, and the
  time after the last write (letting the workers go); and, apart, the scan of the frame
  starts alone (as ``jelly convert`` reads them); medians over ``--repeat``.
* ``vcpus``: the parts decoded and written (as a worker does) by one forked process for all
  of them, and by two forked processes at once for half of them each: CPU time and wall
  time, medians over ``--repeat`` alternating rounds.  No conversion machinery: what two busy
  vCPUs cost.
* ``startup``: the wall time of ``jelly convert --help`` in a fresh process (the interpreter,
  site packages and jelly's imports, which every command pays), and the time a fresh process
  that has imported the CLI takes to import ``multiprocessing`` (what ``--jobs`` imported
  until its workers were forked without it); medians over ``--repeat``.
* ``spark_scan``: the Spark source's scan of the file for segment starts through pyarrow
  (what planning the partitions of a large file reads), in the 1 MiB blocks it reads a local
  file in and the 8 MiB blocks it reads an object store in; medians over ``--repeat``.
* ``instructions`` (with valgrind): callgrind's instruction count for the one-process
  conversion and for decoding the parts one after the other as the workers do, less those
  of a process that only imports jelly (``PYTHONHASHSEED=0``: repeatable).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SENSORS = os.path.join(HERE, ".work", "split", "sensors-2000000.jelly")


def _parts(path: str) -> list:
    from jelly import parallel
    from jelly.options import DEFAULT_LIMITS
    fd = os.open(path, os.O_RDONLY)
    try:
        size = os.fstat(fd).st_size
        found = parallel.scan_file(fd, size, DEFAULT_LIMITS)
    finally:
        os.close(fd)
    return parallel.plan(found, size, size // (2 * parallel.PARTS_PER_JOB))


def _decode_parts(path: str, parts: list, out_path: str) -> None:
    """Decode ``parts`` one after the other, each written to
    ``out_path`` (as a worker does)."""
    from jelly import parallel
    from jelly.options import DEFAULT_LIMITS
    fd = os.open(out_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    offset = 0
    try:
        for part in parts:
            output = parallel._Output()
            parallel._decode_part(parallel._DecodePart(path, part, True, None, DEFAULT_LIMITS),
                                  output)
            parallel._write_at(fd, offset, output.chunks)
            offset += output.used
    finally:
        os.close(fd)


def _covered(spans: list[tuple[float, float]]) -> float:
    """The time inside any of ``spans``: a worker writes a placed output while a later task
    runs, so its writes can fall inside its tasks."""
    total, end = 0.0, float("-inf")
    for a, b in sorted(spans):
        if b > end:
            total += b - max(a, end)
            end = b
    return total


def engine(path: str, repeat: int, tmp: str) -> dict:
    from jelly import parallel
    from jelly.convert import convert
    log = os.path.join(tmp, "timeline")
    decode, write = parallel._decode_part, parallel._write_at

    def timed(kind, fn):
        def run(*args):
            start = time.perf_counter()
            result = fn(*args)
            with open(log, "a") as f:
                f.write(f"{os.getpid()} {kind} {start} {time.perf_counter()}\n")
            return result
        return run

    # The workers are forked from this process: they run the timed functions.
    parallel._decode_part = timed("decode", decode)
    parallel._write_at = timed("write", write)
    rows = []
    try:
        for _ in range(repeat + 1):                 # the first warms up
            out = os.path.join(tmp, "out.nt")
            for p in (out, log):
                if os.path.exists(p):
                    os.unlink(p)
            start = time.perf_counter()
            convert(path, out, jobs=2)
            total = time.perf_counter() - start
            by_worker: dict[str, list[tuple[float, float]]] = {}
            with open(log) as f:
                for line in f:
                    pid, _, a, b = line.split()
                    by_worker.setdefault(pid, []).append((float(a) - start, float(b) - start))
            first = min(a for spans in by_worker.values() for a, _ in spans)
            last = max(b for spans in by_worker.values() for _, b in spans)
            idle = [last - first - _covered(spans) for spans in by_worker.values()]
            rows.append({"total": total, "before_first_task": first,
                         "idle_per_worker": idle, "after_last_write": total - last})
    finally:
        parallel._decode_part, parallel._write_at = decode, write
    rows = rows[1:]
    med = statistics.median
    scans = []
    for _ in range(repeat):
        start = time.perf_counter()
        _parts(path)
        scans.append(time.perf_counter() - start)
    return {"runs": rows, "scan": med(scans), "scan_runs": scans,
            "total": med([r["total"] for r in rows]),
            "before_first_task": med([r["before_first_task"] for r in rows]),
            "idle_per_worker": med([x for r in rows for x in r["idle_per_worker"]]),
            "after_last_write": med([r["after_last_write"] for r in rows])}


def _forked(path: str, groups: list, tmp: str) -> tuple[float, float]:
    """Wall and CPU seconds of one forked process per group of parts, all at once."""
    start = time.perf_counter()
    pids = []
    for k, group in enumerate(groups):
        pid = os.fork()
        if pid == 0:
            try:
                _decode_parts(path, group, os.path.join(tmp, f"part-{k}.nt"))
            finally:
                os._exit(0)
        pids.append(pid)
    cpu = 0.0
    for pid in pids:
        _, _, usage = os.wait4(pid, 0)
        cpu += usage.ru_utime + usage.ru_stime
    return time.perf_counter() - start, cpu


def vcpus(path: str, repeat: int, tmp: str) -> dict:
    parts = _parts(path)
    runs: dict[str, list[tuple[float, float]]] = {"one process": [], "two at once": []}
    for rnd in range(repeat):
        for name in (("one process", "two at once") if rnd % 2 == 0
                     else ("two at once", "one process")):
            groups = [parts] if name == "one process" else [parts[0::2], parts[1::2]]
            runs[name].append(_forked(path, groups, tmp))
    med = statistics.median
    return {name: {"wall": med([w for w, _ in r]), "cpu": med([c for _, c in r]), "runs": r}
            for name, r in runs.items()}


_IMPORT_MP = ("import time, jelly.cli; t = time.perf_counter(); "
              "import multiprocessing, multiprocessing.connection; "
              "print(time.perf_counter() - t)")


def startup(repeat: int) -> dict:
    import split_bench
    command, imports = [], []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(split_bench.jelly_cmd() + ["convert", "--help"], check=True,
                       stdout=subprocess.DEVNULL)
        command.append(time.perf_counter() - start)
        imports.append(float(subprocess.run([sys.executable, "-c", _IMPORT_MP], check=True,
                                            capture_output=True, text=True).stdout))
    med = statistics.median
    return {"command": med(command), "import_multiprocessing": med(imports),
            "runs": {"command": command, "import_multiprocessing": imports}}


def spark_scan(path: str, repeat: int) -> dict:
    from jelly.options import DEFAULT_LIMITS
    from jelly.spark import datasource
    size = os.path.getsize(path)
    out = {}
    for name, block in (("local", datasource._SCAN_BLOCK_LOCAL),
                        ("object store", datasource._SCAN_BLOCK)):
        times = []
        for _ in range(repeat):
            datasource._scan.cache_clear()
            start = time.perf_counter()
            datasource._scan(path, size, None, DEFAULT_LIMITS, block)
            times.append(time.perf_counter() - start)
        out[name] = {"block": block, "seconds": statistics.median(times), "runs": times}
    return out


def _callgrind(mode: str, path: str, tmp: str) -> int:
    import split_bench
    return split_bench.callgrind(__file__, "--worker", mode, path, tmp)


def worker(mode: str, path: str, tmp: str) -> None:
    from jelly.convert import convert
    out = os.path.join(tmp, f"{mode}.nt")
    if mode == "one-process":
        convert(path, out, jobs=1)
    elif mode == "parts":
        _decode_parts(path, _parts(path), out)


def instructions(path: str, tmp: str) -> dict:
    base = _callgrind("import", path, tmp)
    return {mode: _callgrind(mode, path, tmp) - base for mode in ("one-process", "parts")}


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--input", default=SENSORS, help="a segmented Jelly file (default: the "
                   "2M-statement sensors file of split_bench.py)")
    p.add_argument("--repeat", type=int, default=9)
    p.add_argument("--out", help="write the results as JSON here")
    p.add_argument("--worker", nargs=3, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.worker:
        worker(*args.worker)
        return
    if not os.path.exists(args.input):
        raise SystemExit(f"{args.input} is missing: run benchmarks/split_bench.py first")
    import split_bench
    split_bench.compile_bytecode()
    results: dict = {"date": time.strftime("%Y-%m-%d %H:%M"),
                     "command": "python benchmarks/split_anatomy.py " + " ".join(
                         argv if argv is not None else sys.argv[1:]),
                     "input": os.path.basename(args.input), "load_before": split_bench.loadavg()}
    with tempfile.TemporaryDirectory(dir=os.path.dirname(args.input)) as tmp:
        results["engine"] = engine(args.input, args.repeat, tmp)
        results["vcpus"] = vcpus(args.input, args.repeat, tmp)
        results["startup"] = startup(args.repeat)
        results["spark_scan"] = spark_scan(args.input, args.repeat)
        if shutil.which("valgrind"):
            results["instructions"] = instructions(args.input, tmp)
    results["load_after"] = split_bench.loadavg()
    e, v = results["engine"], results["vcpus"]
    print(f"engine, medians of {args.repeat}: conversion {e['total']:.3f} s; before the first "
          f"task {e['before_first_task'] * 1e3:.1f} ms; idle per worker "
          f"{e['idle_per_worker'] * 1e3:.1f} ms; after the last write "
          f"{e['after_last_write'] * 1e3:.1f} ms; the scan alone {e['scan'] * 1e3:.1f} ms")
    for name, r in v.items():
        print(f"vcpus, {name}: wall {r['wall']:.3f} s, CPU {r['cpu']:.3f} s")
    st = results["startup"]
    print(f"startup: `jelly convert --help` {st['command']:.3f} s; importing multiprocessing "
          f"{st['import_multiprocessing'] * 1e3:.1f} ms")
    for name, r in results["spark_scan"].items():
        print(f"Spark scan, {name} ({r['block'] >> 20} MiB blocks): {r['seconds'] * 1e3:.1f} ms")
    if "instructions" in results:
        n = results["instructions"]
        print(f"instructions: one-process conversion {n['one-process'] / 1e6:,.0f}M, parts as "
              f"the workers decode them {n['parts'] / 1e6:,.0f}M")
    if args.out:
        with open(args.out, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    sys.path.insert(0, HERE)
    main()
