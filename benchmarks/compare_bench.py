"""``jelly.compare.dataset_difference`` (what ``jelly validate --compare-to`` uses) on blank-node
graphs that only the search can match, against the module of another checkout (not part of
the test suite).

Recipe (docs/performance.md, "Comparing datasets")::

    git worktree add /tmp/old <commit>        # the checkout to compare with
    python benchmarks/compare_bench.py --baseline /tmp/old --repeat 3 \\
        --out benchmarks/results/compare.json

Cases: a web of randomly linked blank nodes (one large component), renamed and shuffled; the
same changed by one statement; a ring of hubs told apart only by their place in it, each with
three twin leaves, renamed and shuffled; a long RDF collection whose values repeat, renamed
and shuffled.  Times are CPU seconds of one call, medians of ``--repeat`` rounds in
alternating order; all sides must give the same answer.  Besides the baseline, the module now
is also timed with the garbage collector left on (the pause ``dataset_difference`` adds).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import random
import statistics
import sys
import time

import jelly.compare
from jelly import DEFAULT_GRAPH, IRI, BlankNode, Literal

P = [IRI(f"http://p/{i}") for i in range(3)]
G = [DEFAULT_GRAPH, IRI("http://g/1")]


def renamed(statements, seed):
    """The statements with every blank node relabelled, in a shuffled order."""
    rnd = random.Random(seed)
    labels = {}

    def term(t):
        if type(t) is BlankNode:
            return labels.setdefault(t, BlankNode(f"x{rnd.randrange(10**9)}_{len(labels)}"))
        return t
    out = [tuple(term(t) for t in st) for st in statements]
    rnd.shuffle(out)
    return out


def web(n, seed=3):
    """``n`` statements over one large component of randomly linked blank nodes (as a data
    set of anonymous resources gives), in a random order, and with some ground ones (also the
    tests' data: tests/test_compare.py)."""
    rnd = random.Random(seed)
    nodes = n // 3
    out = []
    for i in range(n):
        s = BlankNode(f"b{rnd.randrange(nodes)}") if i % 5 else IRI(f"http://n/{i}")
        o = BlankNode(f"b{rnd.randrange(nodes)}") if rnd.random() < 0.5 else Literal(str(i))
        out.append((s, P[rnd.randrange(3)], o, G[i % 2]))
    return out


def changed(statements):
    """One statement's object replaced by its own subject (a different dataset)."""
    out = list(statements)
    k = next(i for i, st in enumerate(out) if type(st[2]) is BlankNode
             and type(st[0]) is BlankNode)
    out[k] = out[k][:2] + (out[k][0],) + out[k][3:]
    return out


def ring(hubs):
    """A ring of ``hubs`` blank nodes that only their place in it tells apart (literals repeat
    every five), each with three twin leaves: blank nodes no refinement can split."""
    nodes = [BlankNode(f"h{i}") for i in range(hubs)]
    out = [(nodes[i], P[0], nodes[(i + 1) % hubs], DEFAULT_GRAPH) for i in range(hubs)]
    for i, h in enumerate(nodes):
        out += [(h, P[1], BlankNode(f"l{i}_{k}"), DEFAULT_GRAPH) for k in range(3)]
        out.append((h, P[2], Literal(str(i % 5)), DEFAULT_GRAPH))
    return out


def collection(n):
    """An RDF collection (list) of ``n`` blank nodes whose values repeat every three, hung off
    one subject: only their distance from the ends tells its blank nodes apart, and refinement
    learns one step of it a round."""
    first, rest, nil = (IRI(f"http://www.w3.org/1999/02/22-rdf-syntax-ns#{x}")
                        for x in ("first", "rest", "nil"))
    nodes = [BlankNode(f"l{i}") for i in range(n)]
    out = [(IRI("http://n/list"), P[0], nodes[0], DEFAULT_GRAPH)]
    for i, b in enumerate(nodes):
        out.append((b, first, Literal(str(i % 3)), DEFAULT_GRAPH))
        out.append((b, rest, nodes[i + 1] if i + 1 < n else nil, DEFAULT_GRAPH))
    return out


def load(checkout):
    path = os.path.join(checkout, "jelly", "compare.py")
    spec = importlib.util.spec_from_file_location("jelly._compare_baseline", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--baseline", help="a checkout whose jelly/compare.py to compare with")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--web", type=int, default=100_000, help="statements of the web")
    ap.add_argument("--hubs", type=int, default=500, help="hubs of the ring")
    ap.add_argument("--items", type=int, default=3000, help="blank nodes of the collection")
    ap.add_argument("--out", help="write the results as JSON here")
    args = ap.parse_args()
    w = web(args.web)
    small = web(20_000)
    cases = {
        f"web of {len(w):,} statements, shuffled": (w, renamed(w, 4)),
        f"web of {len(small):,}, changed by one statement": (small, changed(renamed(small, 4))),
        f"ring of {args.hubs} hubs with twin leaves ({5 * args.hubs:,} statements)":
            (ring(args.hubs), renamed(ring(args.hubs), 8)),
        f"collection of {args.items:,} repeating values ({2 * args.items + 1:,} statements)":
            (collection(args.items), renamed(collection(args.items), 5)),
    }
    # "collector on": the same call without the pause of the garbage collector that
    # dataset_difference adds, to show what the pause saves
    sides = {"now": jelly.compare.dataset_difference,
             "now, collector on": jelly.compare._dataset_difference}
    if args.baseline:
        sides["baseline"] = load(args.baseline).dataset_difference
    times = {case: {side: [] for side in sides} for case in cases}
    answers = {case: {} for case in cases}
    for rnd in range(args.repeat):
        order = list(sides) if rnd % 2 == 0 else list(sides)[::-1]
        for case, (a, b) in cases.items():
            for side in order:
                start = time.process_time()
                answer = sides[side](a, b) is None
                times[case][side].append(time.process_time() - start)
                answers[case][side] = answer
        print(f"round {rnd + 1} done", file=sys.stderr, flush=True)
    print("| case | same dataset | " + " | ".join(f"{s}, CPU s" for s in sides) + " |")
    print("|---|---|" + "--:|" * len(sides))
    for case in cases:
        if len(set(answers[case].values())) != 1:
            raise SystemExit(f"the sides disagree on {case}: {answers[case]}")
        print(f"| {case} | {next(iter(answers[case].values()))} | " + " | ".join(
            f"{statistics.median(times[case][s]):.2f}" for s in sides) + " |")
    if args.out:
        with open(args.out, "w") as f:
            json.dump({"times": times, "answers": answers,
                       "baseline": os.path.abspath(args.baseline) if args.baseline else None},
                      f, indent=1)


if __name__ == "__main__":
    main()
