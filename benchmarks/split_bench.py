"""Benchmark of splittable Jelly (not part of the test suite): ``jelly convert --jobs``, what
segments cost, Spark reading one file in partitions, and literal-heavy parsing against pyjelly.

Recipe (the table in docs/performance.md, "Splittable Jelly")::

    python benchmarks/split_bench.py --statements 2000000 --repeat 7 \\
        --out benchmarks/results/split.json

Data (benchmarks/datagen.py, seed 1, prepared once in ``--work``): ``sensors`` with
``--statements`` statements (2M: 260 MB of N-Triples) for the conversion, segment and Spark
rows; ``skos-labels`` (multilingual SKOS labels) and ``knowledge-graph`` with
``--parse-statements`` (default 300k) for the parse rows.  The Jelly inputs are written by
``jelly convert`` (segments of the default size) and, for the segment rows, once more with
``--segment-size 0``.  The two halves of ``sensors`` (by lines, in both formats) are converted
by two independent ``--jobs 1`` processes started together: the most that two processes can
make of this machine, for comparison with ``--jobs 2``.  The same conversions are also timed
as a library call, ``jelly.convert.convert(..., jobs=N)`` in a fresh process after its imports:
the conversion itself, without the interpreter's start-up that every command pays.  With
``--baseline DIR`` (a checkout with its extensions built) those library calls are also timed
with jelly imported from DIR, in the same rounds, and its text is checked to be the same:
before and after a change, side by side.
``--only crossover`` (not in the default) times ``--jobs 1`` and ``--jobs 2`` on the first
100k-1.6M statements of the sensors data, both directions: where two processes start to pay,
which the default without ``--jobs`` (``jelly.parallel.AUTO_JOBS_BYTES``) relies on.

jelly's modules are compiled to bytecode first, as an installed package has them.  Every
timed run but Spark's is a fresh process; the two sides of each ratio run in the same
round, one after the other, and each ratio is the ratio of the medians over ``--repeat``
rounds (the segmented read: the median of the rounds' own ratios over three times as many
rounds, and, where valgrind is installed, the instructions callgrind counts).  The CLI and
Spark rows are wall times (the CLI ones start-up included; the CPU time of the command and its
worker processes is recorded too); the single-core parse rows are the CPU time of the parse,
which a shared machine disturbs less than its wall time.  The load average before and after
is recorded: on a machine shared with other work the parallel rows measure the machine as much
as jelly.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time
from typing import Callable

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)

#: Statements of the inputs of the crossover rows: where ``--jobs 2`` starts to pay.
CROSSOVER = (100_000, 200_000, 400_000, 800_000, 1_600_000)

GOALS = {
    "convert-to-jelly": ("jelly convert NT -> Jelly, --jobs 2 / --jobs 1", ">=", 1.7),
    "convert-from-jelly": ("jelly convert Jelly -> NT, --jobs 2 / --jobs 1", ">=", 1.7),
    "segment-size": ("file size, segmented / unsegmented", "<=", 1.03),
    "segment-read": ("single-core read time, segmented / unsegmented", "<=", 1.05),
    "spark": ("Spark read of one file, 2 partitions / 1 partition (speed)", ">=", 1.7),
    "parse-skos-labels": ("parse skos-labels, jelly / pyjelly generic parse (speed)", ">=", 15),
}


def provenance(script: str, argv: list[str] | None = None) -> dict:
    """When, with what command and on what machine a benchmark ran: the head of the JSON it
    records (``argv``: its arguments, default ``sys.argv[1:]``)."""
    return {"date": time.strftime("%Y-%m-%d %H:%M"),
            "command": f"python benchmarks/{script} " + " ".join(
                sys.argv[1:] if argv is None else argv),
            "machine": f"{platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, "
                       f"Python {platform.python_version()}"}


def loadavg() -> list[float]:
    with open("/proc/loadavg") as f:
        return [float(x) for x in f.read().split()[:3]]


def jelly_cmd() -> list[str]:
    exe = shutil.which("jelly", path=os.path.dirname(sys.executable))
    return [exe] if exe else [sys.executable, "-m", "jelly"]


def run_timed(*cmds: list[str]) -> tuple[float, float]:
    """Wall and CPU seconds (user + system, worker processes included) of commands started
    together, until the last ends."""
    start = time.perf_counter()
    procs = [subprocess.Popen(cmd, stdout=subprocess.DEVNULL) for cmd in cmds]
    cpu = 0.0
    for proc, cmd in zip(procs, cmds):
        _, status, usage = os.wait4(proc.pid, 0)
        if status != 0:
            raise SystemExit(f"failed ({status}): {' '.join(cmd)}")
        cpu += usage.ru_utime + usage.ru_stime
    return time.perf_counter() - start, cpu


# ------------------------------------------------------------------------------- workers

def worker(args: argparse.Namespace) -> None:
    """``--worker TOOL PATH``: one timed parse in this process (imports done); ``--worker
    convert PATH OUT JOBS``: one timed ``jelly.convert.convert`` (start-up excluded, as in a
    program that converts files as it runs).  Prints the wall and CPU seconds (of this
    process) as JSON."""
    tool, path, *rest = args.worker_args
    if tool == "convert":
        from jelly.convert import convert

        def run() -> int:
            return convert(path, rest[0], jobs=int(rest[1])).statements
    elif tool == "import":                  # start-up only: the callgrind baseline
        import jelly

        def run() -> int:
            return 0
    elif tool == "jelly":
        import jelly

        def run() -> int:
            n = 0
            for _ in jelly.parse(path):
                n += 1
            return n
    else:
        from pyjelly.integrations.generic.parse import parse_jelly_flat

        def run() -> int:
            n = 0
            with open(path, "rb") as f:
                for _ in parse_jelly_flat(f):
                    n += 1
            return n
    start, cpu = time.perf_counter(), time.process_time()
    n = run()
    print(json.dumps({"seconds": time.perf_counter() - start, "cpu": time.process_time() - cpu,
                      "statements": n}))


def worker_timed(*args: str, baseline: str | None = None) -> dict:
    """What one ``--worker`` run in a fresh process says (seconds, cpu, statements); with jelly
    imported from the checkout ``baseline`` if given."""
    env = None
    if baseline:
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(
            [os.path.abspath(baseline)] + ([os.environ["PYTHONPATH"]]
                                           if os.environ.get("PYTHONPATH") else [])))
    out = subprocess.run([sys.executable, __file__, "--worker", *args], check=True,
                         capture_output=True, text=True, env=env).stdout
    return json.loads(out.splitlines()[-1])


def parse_timed(tool: str, path: str) -> float:
    """CPU seconds of one parse in a fresh process: on a shared machine the time a
    single-threaded parse is on a core is steadier than its wall time (both are in the JSON)."""
    return float(worker_timed(tool, path)["cpu"])


# ------------------------------------------------------------------------------- data

def compile_bytecode() -> None:
    """Compile jelly's modules to bytecode before anything is timed, as an installed package
    has them: in a checkout run with ``PYTHONDONTWRITEBYTECODE`` set (as in some sandboxes and
    containers) every timed command would compile them again, 40-80 ms more start-up on both
    sides of each ratio."""
    import compileall

    import jelly
    compileall.compile_dir(os.path.dirname(jelly.__file__), quiet=1)


def lines_of(src: str, nt: str, keep: Callable[[int], bool], stop: int | None = None
             ) -> tuple[str, str]:
    """The lines ``i`` of the text file ``src`` with ``keep(i)`` (up to line ``stop``) as the
    file ``nt``, and that as Jelly written by ``jelly convert`` (each made once): ``(nt,
    jelly)``."""
    if not os.path.exists(nt):
        with open(src, "rb") as f, open(nt + ".tmp", "wb") as dst:
            for i, line in enumerate(itertools.islice(f, stop)):
                if keep(i):
                    dst.write(line)
        os.replace(nt + ".tmp", nt)
    jl = nt[:-3] + ".jelly"
    if not os.path.exists(jl):
        subprocess.run(jelly_cmd() + ["convert", nt, jl, "--jobs", "1", "-q"], check=True)
    return nt, jl


def prepare(args: argparse.Namespace) -> dict[str, str]:
    import datagen
    os.makedirs(args.work, exist_ok=True)
    files = {}
    for name, n in (("sensors", args.statements), ("skos-labels", args.parse_statements),
                    ("knowledge-graph", args.parse_statements)):
        nt = os.path.join(args.work, f"{name}-{n}.nt")
        if not os.path.exists(nt):
            print(f"generating {name} ({n} statements)", flush=True)
            datagen.write(name, n, 1, nt + ".tmp")
            os.replace(nt + ".tmp", nt)
        jl = nt[:-3] + ".jelly"
        if not os.path.exists(jl):
            subprocess.run(jelly_cmd() + ["convert", nt, jl, "--jobs", "1", "-q"], check=True)
        files[name] = nt
        files[name + ".jelly"] = jl
    plain = files["sensors.jelly"][:-6] + "-plain.jelly"
    if not os.path.exists(plain):
        subprocess.run(jelly_cmd() + ["convert", files["sensors"], plain, "--jobs", "1",
                                      "--segment-size", "0", "-q"], check=True)
    files["sensors-plain.jelly"] = plain
    # The two halves of the sensors data (by lines) as files of their own, in both formats:
    # two independent processes on them at once are the most two processes can do here.
    halves = [files["sensors"][:-3] + f"-half{half}.nt" for half in (1, 2)]
    middle = 0                          # the line the second half starts at (once needed)
    if not all(os.path.exists(h) for h in halves):
        with open(files["sensors"], "rb") as f:
            middle = sum(1 for _ in f) // 2
    for half, nt in enumerate(halves, 1):
        files[f"half{half}"], files[f"half{half}.jelly"] = lines_of(
            files["sensors"], nt, lambda i, first=half == 1: (i < middle) == first)
    return files


# ------------------------------------------------------------------------------- rows

def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def bench_convert(args, files, results) -> None:
    nt, jl = files["sensors"], files["sensors.jelly"]
    out = os.path.join(args.work, "out")
    runs: dict[str, list[tuple[float, float]]] = {}
    for rnd in range(args.repeat):
        for direction, src, ext in (("to-jelly", nt, ".jelly"), ("from-jelly", jl, ".nt")):
            suffix = ".jelly" if ext == ".nt" else ""   # the halves of the input
            halves = [files[f"half{h}{suffix}"] for h in (1, 2)]
            order: tuple = (1, 2, "halves", "lib1", "lib2")
            if args.baseline:
                order += ("base1", "base2")
            for jobs in (order if rnd % 2 == 0 else order[::-1]):
                targets = [f"{out}-{jobs}-{h}{ext}" for h in (1, 2)] if jobs == "halves" \
                    else [f"{out}-{jobs}{ext}"]
                for target in targets:
                    if os.path.exists(target):  # not timed: replacing a large file frees it
                        os.unlink(target)
                if jobs == "halves":            # two processes on the halves, at once
                    timed = run_timed(*(jelly_cmd() + ["convert", h, t, "--jobs", "1", "-q"]
                                        for h, t in zip(halves, targets)))
                elif isinstance(jobs, str):     # the library call, start-up excluded
                    done = worker_timed("convert", src, targets[0], jobs[-1],
                                        baseline=args.baseline if jobs[:4] == "base" else None)
                    timed = (done["seconds"], done["cpu"])
                else:
                    timed = run_timed(jelly_cmd() + ["convert", src, targets[0], "--jobs",
                                                     str(jobs), "-q"])
                runs.setdefault(f"{direction}/{jobs}", []).append(timed)
        print(f"convert round {rnd + 1}: " + ", ".join(
            f"{k} {v[-1][0]:.2f}s" for k, v in runs.items()), flush=True)
    with open(f"{out}-1.nt", "rb") as a:
        text = a.read()
    same = []
    for name in ("2", "lib2") + (("base1", "base2") if args.baseline else ()):
        with open(f"{out}-{name}.nt", "rb") as b:
            same.append(b.read() == text)
    import jelly
    count = [sum(1 for _ in jelly.parse(f"{out}-{j}.jelly")) for j in ("1", "2", "lib2")]
    for ext in (".nt", ".jelly"):
        for name in ("1", "2", "halves-1", "halves-2", "lib1", "lib2") + \
                (("base1", "base2") if args.baseline else ()):
            os.unlink(f"{out}-{name}{ext}")
    for direction in ("to-jelly", "from-jelly"):
        one, two = runs[f"{direction}/1"], runs[f"{direction}/2"]
        halves = runs[f"{direction}/halves"]
        results["rows"][f"convert-{direction}"] = {
            "jobs1_wall": median([w for w, _ in one]), "jobs2_wall": median([w for w, _ in two]),
            "jobs1_cpu": median([c for _, c in one]), "jobs2_cpu": median([c for _, c in two]),
            "halves_wall": median([w for w, _ in halves]),
            "halves_cpu": median([c for _, c in halves]),
            "runs": {"jobs1": one, "jobs2": two, "halves": halves}}
        lib = [runs[f"{direction}/lib{j}"] for j in (1, 2)]
        results["rows"][f"convert-{direction}"]["library"] = {
            "jobs1_wall": median([w for w, _ in lib[0]]),
            "jobs2_wall": median([w for w, _ in lib[1]]), "runs": lib}
        if args.baseline:
            base = [runs[f"{direction}/base{j}"] for j in (1, 2)]
            results["rows"][f"convert-{direction}"]["baseline"] = {
                "checkout": os.path.abspath(args.baseline),
                "jobs1_wall": median([w for w, _ in base[0]]),
                "jobs2_wall": median([w for w, _ in base[1]]), "runs": base}
        results["ceiling"][f"convert-{direction}"] = \
            median([w for w, _ in one]) / median([w for w, _ in halves])
        results["goals"][f"convert-{direction}"] = \
            median([w for w, _ in one]) / median([w for w, _ in two])
    results["checks"]["jobs 2 text identical to jobs 1"] = all(same)
    results["checks"]["jobs 2 Jelly statements == jobs 1"] = count[0] == count[1] == count[2]


def bench_crossover(args, files, results) -> None:
    """``jelly convert`` with ``--jobs 1`` and ``--jobs 2`` on the first statements of the
    sensors data, both directions: the sizes from which two processes are faster, which
    ``jelly.parallel.AUTO_JOBS_BYTES`` (the default without ``--jobs``) relies on."""
    from jelly.parallel import AUTO_JOBS_BYTES
    out = os.path.join(args.work, "out-crossover")
    rows = []
    for n in CROSSOVER:
        nt, jl = lines_of(files["sensors"], files["sensors"][:-3] + f"-first{n}.nt",
                          lambda i: True, stop=n)
        for direction, src, ext, kind in (("to-jelly", nt, ".jelly", "text"),
                                          ("from-jelly", jl, ".nt", "jelly")):
            runs: dict[int, list[float]] = {1: [], 2: []}
            for rnd in range(args.repeat):
                for jobs in ((1, 2) if rnd % 2 == 0 else (2, 1)):
                    target = f"{out}-{jobs}{ext}"
                    if os.path.exists(target):
                        os.unlink(target)
                    runs[jobs].append(run_timed(jelly_cmd() + [
                        "convert", src, target, "--jobs", str(jobs), "-q"])[0])
            size = os.path.getsize(src)
            rows.append({"statements": n, "direction": direction, "input_bytes": size,
                         "jobs1": median(runs[1]), "jobs2": median(runs[2]),
                         "default_jobs": 2 if size >= AUTO_JOBS_BYTES[kind] else 1,
                         "runs": runs})
            print(f"crossover {n} {direction}: {rows[-1]['jobs1']:.3f}s / "
                  f"{rows[-1]['jobs2']:.3f}s", flush=True)
    for jobs in (1, 2):
        for ext in (".jelly", ".nt"):
            if os.path.exists(f"{out}-{jobs}{ext}"):
                os.unlink(f"{out}-{jobs}{ext}")
    results["rows"]["crossover"] = rows


def callgrind(*args: str) -> int:
    """Instructions of ``python ARGS`` under callgrind (repeatable, unlike time: string
    hashing is fixed too)."""
    done = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
                           sys.executable, *args], check=True, capture_output=True, text=True,
                          env={**os.environ, "PYTHONHASHSEED": "0"})
    return int(done.stderr.rsplit("Collected :", 1)[1].split()[0])


def instructions(tool: str, path: str) -> int:
    """Instructions of one ``--worker`` process."""
    return callgrind(__file__, "--worker", tool, path)


def bench_segments(args, files, results) -> None:
    seg, plain = files["sensors.jelly"], files["sensors-plain.jelly"]
    size = os.path.getsize(seg) / os.path.getsize(plain)
    times: dict[str, list[float]] = {"segmented": [], "plain": []}
    # Three times the rounds: a parse is short, and the two sides of a round run back to
    # back, so the median of the rounds' own ratios leaves out most of the machine's drift.
    for rnd in range(3 * args.repeat):
        order = ("segmented", "plain") if rnd % 2 == 0 else ("plain", "segmented")
        for which in order:
            times[which].append(parse_timed("jelly", seg if which == "segmented" else plain))
    results["rows"]["segments"] = {"segmented_bytes": os.path.getsize(seg),
                                   "plain_bytes": os.path.getsize(plain),
                                   "segmented_read": median(times["segmented"]),
                                   "plain_read": median(times["plain"]), "runs": times}
    if shutil.which("valgrind"):
        base = instructions("import", seg)
        results["rows"]["segments"]["instructions"] = {
            "segmented": instructions("jelly", seg) - base,
            "plain": instructions("jelly", plain) - base, "start-up": base}
    results["goals"]["segment-size"] = size
    results["goals"]["segment-read"] = median(
        [a / b for a, b in zip(times["segmented"], times["plain"])])


def bench_parse(args, files, results) -> None:
    for name in ("skos-labels", "knowledge-graph"):
        path = files[name + ".jelly"]
        times: dict[str, list[float]] = {"jelly": [], "pyjelly": []}
        for rnd in range(args.repeat):
            for tool in (("jelly", "pyjelly") if rnd % 2 == 0 else ("pyjelly", "jelly")):
                times[tool].append(parse_timed(tool, path))
        results["rows"][f"parse-{name}"] = {
            "statements": args.parse_statements, "jelly": median(times["jelly"]),
            "pyjelly": median(times["pyjelly"]), "runs": times}
        results["goals"][f"parse-{name}"] = median(times["pyjelly"]) / median(times["jelly"])
        print(f"parse {name}: jelly {median(times['jelly']):.3f}s, pyjelly "
              f"{median(times['pyjelly']):.3f}s", flush=True)


def descendants_cpu() -> dict[str, float]:
    """CPU seconds (user + system) used so far by the processes below this one, by kind: the
    JVM Spark runs in and its Python workers (Linux ``/proc``)."""
    procs = {}
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmd = f.read().split(b"\0")[0].decode(errors="replace")
        except OSError:
            continue
        procs[int(pid)] = (int(fields[1]), int(fields[11]) + int(fields[12]), cmd)
    tick = os.sysconf("SC_CLK_TCK")
    below, todo, out = set(), [os.getpid()], {"jvm": 0.0, "python": 0.0}
    while todo:
        parent = todo.pop()
        for pid, (ppid, _, _) in procs.items():
            if ppid == parent and pid not in below:
                below.add(pid)
                todo.append(pid)
    for pid in below:
        _, ticks, cmd = procs[pid]
        out["jvm" if "java" in os.path.basename(cmd) else "python"] += ticks / tick
    return out


def spark_session(name: str):
    """A ``local[2]`` session with the jelly source registered."""
    from pyspark.sql import SparkSession

    import jelly.spark
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    spark = (SparkSession.builder.master("local[2]").appName(name)
             .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
             .config("spark.driver.memory", "4g").getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    jelly.spark.register(spark)
    return spark


def partition_sizes(path: str) -> dict[str, int]:
    """``partitionSize`` for one partition of the file, and for two: cut at the segment start
    nearest the middle."""
    import jelly.parallel
    size = os.path.getsize(path)
    with open(path, "rb") as f:
        data = f.read()
    found = jelly.parallel.scan(lambda n, offset: data[offset:offset + n], len(data))
    starts = [offset for offset, _, _ in found[0]]
    return {"1": size + 1, "2": min(starts[1:], key=lambda o: abs(o - size / 2))}


def spark_query(df) -> tuple[int, int]:
    """Rows and an XOR of their hashes: Spark takes every string of every row."""
    from pyspark.sql import functions as F
    row = df.agg(F.count(F.lit(1)).alias("n"),
                 F.bit_xor(F.xxhash64("s", "p", "o")).alias("h")).collect()[0]
    return row["n"], row["h"]


def bench_spark(args, files, results) -> None:
    path = files["sensors.jelly"]
    spark = spark_session("jelly-split-bench")

    def read(partition_size: int, partitions: bool = False):
        df = spark.read.format("jelly").option("partitionSize", partition_size).load(path)
        n, h = spark_query(df)
        # the partition count plans the query again: asked for by the checks, not timed
        return (df.rdd.getNumPartitions() if partitions else None), n, h

    sizes = partition_sizes(path)
    seen = {k: read(v, partitions=True) for k, v in sizes.items()}   # warm-up and checks
    times: dict[str, list[float]] = {"1": [], "2": []}
    cpu: dict[str, list[dict[str, float]]] = {"1": [], "2": []}
    for rnd in range(args.repeat):
        for k in (("1", "2") if rnd % 2 == 0 else ("2", "1")):
            before = descendants_cpu()
            start = time.perf_counter()
            read(sizes[k])
            times[k].append(time.perf_counter() - start)
            after = descendants_cpu()       # workers that ended within the query are missed
            cpu[k].append({kind: after[kind] - before[kind] for kind in after})
    spark.stop()
    results["rows"]["spark"] = {
        "partitions": {k: v[0] for k, v in seen.items()},
        "one_partition": median(times["1"]), "two_partitions": median(times["2"]),
        "cpu": {k: {kind: median([c[kind] for c in v]) for kind in ("jvm", "python")}
                for k, v in cpu.items()},
        "runs": times, "cpu_runs": cpu}
    results["checks"]["Spark: same rows with 1 and 2 partitions"] = \
        seen["1"][1:] == seen["2"][1:] and seen["1"][1] == args.statements_actual
    results["checks"]["Spark: 1 and 2 partitions"] = \
        seen["1"][0] == 1 and seen["2"][0] == 2
    results["goals"]["spark"] = median(times["1"]) / median(times["2"])


# ------------------------------------------------------------------------------- report

def report(args, results) -> str:
    rows, goals = results["rows"], results["goals"]
    lines = [f"Measured {results['date']} with `{results['command']}`  ",
             f"Machine: {results['machine']}; load average before / after: "
             f"{results['load_before']} / {results['load_after']}", ""]
    lines += ["| row | one | other | ratio | goal |", "|---|--:|--:|--:|---|"]

    def goal(key: str) -> str:
        if key not in goals or key not in GOALS:
            return "n/a"
        text, op, bound = GOALS[key]
        value = goals[key]
        ok = value >= bound if op == ">=" else value <= bound
        return f"{'PASS' if ok else 'FAIL'} ({op} {bound})"

    def row(label: str, one: str, other: str, key: str, ratio: str) -> None:
        lines.append(f"| {label} | {one} | {other} | {ratio.format(goals[key])} | {goal(key)} |")

    if "convert-to-jelly" in rows:
        for key, label in (("convert-to-jelly", "jelly convert NT -> Jelly"),
                           ("convert-from-jelly", "jelly convert Jelly -> NT")):
            r = rows[key]
            row(f"{label}: --jobs 1 / --jobs 2, wall s (CPU s)",
                f"{r['jobs1_wall']:.2f} ({r['jobs1_cpu']:.2f})",
                f"{r['jobs2_wall']:.2f} ({r['jobs2_cpu']:.2f})", key, "{:.2f}x")
            if "halves_wall" in r:
                lines.append(
                    f"| {label}: --jobs 1 / its two halves in two processes at once (the "
                    f"most two processes give here), wall s (CPU s) | {r['jobs1_wall']:.2f} "
                    f"({r['jobs1_cpu']:.2f}) | {r['halves_wall']:.2f} ({r['halves_cpu']:.2f}) "
                    f"| {results['ceiling'][key]:.2f}x | n/a |")
            if "library" in r:
                lib = r["library"]
                lines.append(
                    f"| {label.removeprefix('jelly ')} in a running program, "
                    f"`jelly.convert.convert(..., jobs=1)` / `jobs=2` (start-up excluded), "
                    f"wall s | "
                    f"{lib['jobs1_wall']:.2f} | {lib['jobs2_wall']:.2f} | "
                    f"{lib['jobs1_wall'] / lib['jobs2_wall']:.2f}x | n/a |")
            if "baseline" in r:
                base = r["baseline"]
                lines.append(
                    f"| ... the same with the baseline checkout ({base['checkout']}), "
                    f"wall s | {base['jobs1_wall']:.2f} | {base['jobs2_wall']:.2f} | "
                    f"{base['jobs1_wall'] / base['jobs2_wall']:.2f}x | n/a |")
    if "segments" in rows:
        r = rows["segments"]
        row("file size: segmented / unsegmented, MB", f"{r['segmented_bytes'] / 1e6:.2f}",
            f"{r['plain_bytes'] / 1e6:.2f}", "segment-size", "{:.4f}")
        row("single-core read: segmented / unsegmented, CPU s (medians; the ratio: median of "
            "the rounds' ratios)", f"{r['segmented_read']:.3f}", f"{r['plain_read']:.3f}",
            "segment-read", "{:.3f}")
        if "instructions" in r:
            n = r["instructions"]
            lines.append(f"| single-core read: segmented / unsegmented, millions of "
                         f"instructions (callgrind, start-up subtracted) | "
                         f"{n['segmented'] / 1e6:,.0f} | {n['plain'] / 1e6:,.0f} | "
                         f"{n['segmented'] / n['plain']:.3f} | n/a |")
    if "spark" in rows:
        r = rows["spark"]
        row("Spark, one file: 1 partition / 2 partitions, s", f"{r['one_partition']:.2f}",
            f"{r['two_partitions']:.2f}", "spark", "{:.2f}x")
        if "cpu" in r:
            c = r["cpu"]
            lines.append(f"| Spark, CPU s of a query: JVM + Python workers, 1 partition / 2 "
                         f"partitions | {c['1']['jvm']:.2f} + {c['1']['python']:.2f} | "
                         f"{c['2']['jvm']:.2f} + {c['2']['python']:.2f} | | n/a |")
    if "crossover" in rows:
        lines += ["", "| statements | direction | input MB | --jobs 1, s | --jobs 2, s | "
                      "--jobs 1 / --jobs 2 | default without --jobs |",
                  "|--:|---|--:|--:|--:|--:|--:|"]
        for r in rows["crossover"]:
            lines.append(f"| {r['statements']:,} | {r['direction']} | "
                         f"{r['input_bytes'] / 1e6:.1f} | {r['jobs1']:.3f} | {r['jobs2']:.3f} "
                         f"| {r['jobs1'] / r['jobs2']:.2f}x | {r['default_jobs']} |")
        lines.append("")
    for name in ("skos-labels", "knowledge-graph"):
        key = f"parse-{name}"
        if key in rows:
            r = rows[key]
            row(f"parse {name} ({r['statements'] // 1000}k): pyjelly / jelly, CPU s",
                f"{r['pyjelly']:.3f}", f"{r['jelly']:.3f}", key, "{:.1f}x")
    lines.append("")
    for check, ok in results["checks"].items():
        lines.append(f"- check: {check}: {'ok' if ok else 'FAILED'}")
    return "\n".join(lines)


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--statements", type=int, default=2_000_000,
                   help="statements of the conversion / segment / Spark data (default 2M)")
    p.add_argument("--parse-statements", type=int, default=300_000,
                   help="statements of the literal-heavy parse data (default 300k)")
    p.add_argument("--repeat", type=int, default=5, help="rounds (default 5); medians")
    p.add_argument("--only", default="convert,segments,spark,parse",
                   help="comma-separated: convert, segments, spark, parse, crossover (not "
                        "in the default: --jobs 1 / 2 on the first 100k-1.6M statements)")
    p.add_argument("--work", default=os.path.join(HERE, ".work", "split"),
                   help="prepared data (kept between runs)")
    p.add_argument("--out", help="write the results as JSON here")
    p.add_argument("--baseline", metavar="DIR",
                   help="convert: also time the library calls with jelly imported from this "
                        "checkout (its extensions built), in the same rounds")
    p.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("worker_args", nargs="*", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.worker:
        worker(args)
        return
    only = set(args.only.split(","))
    compile_bytecode()
    files = prepare(args)
    import jelly
    args.statements_actual = sum(1 for _ in jelly.parse(files["sensors.jelly"]))
    results: dict = {
        **provenance("split_bench.py", argv or None),
        "load_before": loadavg(), "rows": {}, "goals": {}, "ceiling": {}, "checks": {}}
    if "convert" in only:
        bench_convert(args, files, results)
    if "crossover" in only:
        bench_crossover(args, files, results)
    if "segments" in only:
        bench_segments(args, files, results)
    if "parse" in only:
        bench_parse(args, files, results)
    if "spark" in only:
        bench_spark(args, files, results)
    results["load_after"] = loadavg()
    text = report(args, results)
    print()
    print(text)
    if args.out:
        os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
        with open(args.out, "w") as f:
            json.dump({**results, "table": text}, f, indent=1)


if __name__ == "__main__":
    main()
