"""Run fuzz targets (see fuzz/README.md).

    python fuzz/run.py --list
    python fuzz/run.py jelly-frames --runs 1000000                # atheris if installed
    python fuzz/run.py nquads --engine random --seconds 60 --seed 7
    python fuzz/run.py jelly-frames --reproduce crash-1234        # check one input

With atheris, libFuzzer drives the run: it grows a working corpus in ``--workdir`` from the
checked-in seeds, guided by the coverage of jelly's Python modules and, when jelly was built
with ``JELLY_SANITIZE=coverage`` (and that build comes first on PYTHONPATH), of its compiled
modules (fuzz/sancov.c); an escape stops it and leaves the input as ``crash-*`` in the work
directory.  The random engine mutates the seeds without guidance and reports every escape.
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))


def load_native_coverage() -> object | None:
    """The coverage shim of a JELLY_SANITIZE=coverage build, loaded so that jelly's compiled
    modules bind to it (RTLD_GLOBAL, before jelly is imported); None for a normal build."""
    flags = sys.getdlopenflags()
    sys.setdlopenflags(flags | os.RTLD_GLOBAL)
    try:
        import _jelly_sancov
    except ImportError:
        return None
    finally:
        sys.setdlopenflags(flags)
    return _jelly_sancov


def register_native_coverage(shim: object) -> None:
    """Hand the shim's counters and comparison hooks to atheris' libFuzzer."""
    import atheris  # noqa: F401 - loads its native part
    core = next((m for name, m in sys.modules.items()
                 if name.startswith("atheris.core_with_libfuzzer")), None)
    if core is None:
        import importlib
        core = importlib.import_module("atheris.core_with_libfuzzer")
    lib = ctypes.CDLL(core.__file__)
    counters, n, pcs = shim.regions()  # type: ignore[attr-defined]
    lib.__sanitizer_cov_8bit_counters_init(ctypes.c_void_p(counters),
                                           ctypes.c_void_p(counters + n))
    lib.__sanitizer_cov_pcs_init(ctypes.c_void_p(pcs),
                                 ctypes.c_void_p(pcs + 2 * n * ctypes.sizeof(ctypes.c_void_p)))
    names = [f"__sanitizer_cov_trace_{k}" for k in
             ("cmp1", "cmp2", "cmp4", "cmp8", "const_cmp1", "const_cmp2", "const_cmp4",
              "const_cmp8", "switch")]
    shim.set_hooks(*(ctypes.cast(getattr(lib, name), ctypes.c_void_p).value  # type: ignore
                     for name in names))


def run_atheris(target, args, shim) -> None:
    import atheris
    workdir = Path(args.workdir) / target.name
    (workdir / "corpus").mkdir(parents=True, exist_ok=True)
    counts: dict[str, int] = {}
    stats_file = workdir / "stats.json"
    started = time.monotonic()

    def one_input(data: bytes) -> None:
        outcome = target.check(data)           # an Escape propagates: libFuzzer reports it
        counts[outcome] = counts.get(outcome, 0) + 1
        total = sum(counts.values())
        if total % 20000 == 0:
            stats_file.write_text(json.dumps({
                "target": target.name, "executions": total, "outcomes": counts,
                "seconds": round(time.monotonic() - started),
                "native_coverage": shim is not None}))

    if shim is not None:
        register_native_coverage(shim)
    libfuzzer = [sys.argv[0], str(workdir / "corpus"), str(HERE / "corpus" / target.corpus),
                 f"-artifact_prefix={workdir}/", "-max_len=8192", f"-timeout={args.timeout}",
                 "-rss_limit_mb=2048", "-print_final_stats=1", f"-seed={args.seed or 1}",
                 "-use_value_profile=1" if shim is not None else "-use_value_profile=0"]
    if args.runs is not None:
        libfuzzer.append(f"-runs={args.runs}")
    if args.seconds is not None:
        libfuzzer.append(f"-max_total_time={int(args.seconds)}")
    atheris.Setup(libfuzzer + args.libfuzzer, one_input)
    atheris.Fuzz()


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("target", nargs="?", help="a target name (--list shows them)")
    p.add_argument("--list", action="store_true", help="list the targets and exit")
    p.add_argument("--engine", choices=["atheris", "random"],
                   help="default: atheris if it is installed, else random")
    p.add_argument("--runs", type=int, help="executions (default: until --seconds)")
    p.add_argument("--seconds", type=float, help="time budget")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--timeout", type=int, default=30, help="seconds one input may take")
    p.add_argument("--workdir", default="fuzz-work",
                   help="working corpora, crashes and stats (default: ./fuzz-work)")
    p.add_argument("--python-coverage", action=argparse.BooleanOptionalAction,
                   help="atheris: instrument jelly's Python modules too (default: only "
                        "without native coverage; it halves the speed)")
    p.add_argument("--reproduce", metavar="FILE", help="check one input file and exit")
    p.epilog = "More libFuzzer flags go after --, e.g. -- -dict=FILE -max_len=4096."
    # split at "--" by hand: argparse does not take "-flag" values into a positional list
    argv = sys.argv[1:]
    cut = argv.index("--") if "--" in argv else len(argv)
    args = p.parse_args(argv[:cut])
    args.libfuzzer = argv[cut + 1:]

    shim = load_native_coverage()
    if args.engine == "atheris" or args.engine is None:
        try:
            import atheris
        except ImportError:
            if args.engine == "atheris":
                p.error("atheris is not installed (pip install -e '.[fuzz]')")
            atheris = None
        args.engine = "atheris" if atheris is not None else "random"
    if args.python_coverage is None:
        args.python_coverage = shim is None
    if args.engine == "atheris" and args.python_coverage and not args.reproduce:
        with atheris.instrument_imports(include=["jelly"]):
            import targets
    else:
        import targets
    if args.list:
        for t in targets.TARGETS:
            print(f"{t.name:14} {t.check.__doc__.split(chr(10))[0] if t.check.__doc__ else ''}")
        return 0
    if not args.target:
        p.error("name a target (--list shows them)")
    target = targets.get(args.target)
    if args.reproduce:
        print(target.check(Path(args.reproduce).read_bytes()))
        return 0
    print(f"{target.name}: engine {args.engine}, native coverage "
          f"{'on' if shim is not None else 'off'}, Python coverage "
          f"{'on' if args.engine == 'atheris' and args.python_coverage else 'off'}",
          file=sys.stderr)
    if args.engine == "atheris":
        run_atheris(target, args, shim)
        return 0

    import engine
    workdir = Path(args.workdir) / target.name
    workdir.mkdir(parents=True, exist_ok=True)
    found = 0

    def on_escape(data: bytes, trace: str) -> None:
        nonlocal found
        found += 1
        path = workdir / f"escape-{found}"
        path.write_bytes(data)
        print(f"ESCAPE ({path}):\n{trace}", file=sys.stderr)

    if args.runs is None and args.seconds is None:
        args.seconds = 60
    stats = engine.run(target, runs=args.runs, seconds=args.seconds, seed=args.seed,
                       current=workdir / "current", on_escape=on_escape,
                       timeout=args.timeout or None)
    (workdir / "stats.json").write_text(json.dumps({
        "target": target.name, "executions": stats.executions, "outcomes": stats.outcomes,
        "seconds": round(stats.seconds), "escapes": len(stats.escapes)}))
    print(stats.line())
    return 1 if stats.escapes else 0


if __name__ == "__main__":
    sys.exit(main())
