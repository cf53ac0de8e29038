"""Regenerate the checked-in seed corpora (``fuzz/corpus/<corpus>/``) from the conformance
suite, the examples and a few generated inputs.  Deterministic; files are named by the SHA-1
of their content, as libFuzzer names its corpus files, and kept small (at most MAX_FILES files
of at most MAX_SIZE bytes per corpus).

    python fuzz/make_corpus.py            # conformance suite at ../shared/conformance
    JELLY_CONFORMANCE_DIR=... python fuzz/make_corpus.py
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO))

import jelly  # noqa: E402
import jelly.jena  # noqa: E402
from jelly import BlankNode, DEFAULT_GRAPH, IRI, Literal, Triple  # noqa: E402
from jelly import _streaming  # noqa: E402
from jelly._ntriples import parse_nquads  # noqa: E402

MAX_SIZE = 2048
MAX_FILES = 80
CORPUS = HERE / "corpus"


def conformance() -> Path:
    env = os.environ.get("JELLY_CONFORMANCE_DIR")
    path = Path(env) if env else REPO.parent / "shared" / "conformance"
    if not (path / "rdf").is_dir():
        sys.exit(f"conformance suite not found at {path} (set JELLY_CONFORMANCE_DIR)")
    return path


def small(paths) -> list[bytes]:
    out = []
    for p in sorted(paths):
        data = p.read_bytes()
        if len(data) <= MAX_SIZE:
            out.append(data)
    return out


EX = "http://example.org/"


def generated_statements():
    """A few statements with every kind of term, including RDF-star and a named graph."""
    s, p, o = IRI(EX + "s"), IRI(EX + "p"), IRI(EX + "o")
    quoted = Triple(s, p, Triple(BlankNode("b1"), p, Literal("x", language="en")))
    return [(s, p, o, DEFAULT_GRAPH), (BlankNode("b1"), p, Literal("1", datatype=EX + "dt"), s),
            (quoted, p, Literal("caf\u00e9"), DEFAULT_GRAPH), (s, p, o, BlankNode("g"))]


def jelly_seeds() -> list[bytes]:
    """Generated Jelly streams: every stream type, tiny tables, namespaces, a single-frame
    file, empty frames, concatenated streams, nesting at the default limit."""
    st = generated_statements()
    triples = [x[:3] for x in st]
    seeds = [
        jelly.serialize(st, rdf_star=True, preset="small", rows_per_frame=2),
        jelly.serialize(triples, rdf_star=True, max_name_table_size=8, max_prefix_table_size=0,
                        max_datatype_table_size=2, namespaces={"ex": EX}),
        jelly.serialize(triples, rdf_star=True, delimited=False),
        jelly.serialize_frames([triples[:2], [], triples[2:]], rdf_star=True),
        jelly.serialize_frames([st[:2], st[2:]], rdf_star=True, physical_type="graphs"),
        jelly.serialize(triples[:1]) + jelly.serialize(triples[1:2], preset="small"),
    ]
    deep = IRI(EX + "o")
    for _ in range(63):
        deep = Triple(IRI(EX + "s"), IRI(EX + "p"), deep)
    seeds.append(jelly.serialize([(IRI(EX + "s"), IRI(EX + "p"), deep)], rdf_star=True))
    return seeds


def rdf_text(conf: Path) -> list[bytes]:
    texts = small(list(conf.glob("rdf/**/*.nt")) + list(conf.glob("rdf/**/*.nq")))
    for name in ("sensors.nt", "sensor-messages.nt"):
        lines = (REPO / "examples" / "data" / name).read_bytes().splitlines(keepends=True)
        texts.append(b"".join(lines[:20]))
    return texts


def jena_seeds(fmt: str, texts: list[bytes]) -> list[bytes]:
    seeds = []
    for i, text in enumerate(texts):
        try:
            statements = list(parse_nquads(text))
        except jelly.JellyError:
            continue
        options = [{}, {"values": True}, {"repeat": True}, {"prefix_names": True}][i % 4]
        try:
            seeds.append(jelly.jena.serialize(statements, format=fmt, namespaces={"ex": EX},
                                              **options))
        except jelly.JellyError:
            pass
    rows = [(IRI(EX + "a"), None, Literal("12", datatype="http://www.w3.org/2001/XMLSchema#"
                                                   "integer")),
            (BlankNode("x"), Literal("1.5e0", datatype="http://www.w3.org/2001/XMLSchema#"
                                                       "double"), None)]
    seeds.append(jelly.jena.write_results(None, ["s", "p", "o"], rows, format=fmt))
    seeds.append(jelly.jena.write_results(None, ["s", "p", "o"], rows, format=fmt, values=True))
    return seeds


def streaming_seeds(jelly_corpus: list[bytes]) -> list[bytes]:
    seeds = [_streaming.encode_subscribe("topic"),
             _streaming.encode_subscribe("a/b", jelly.make_options(rdf_star=True)),
             _streaming.encode_options(jelly.make_options(preset="small", stream_name="s")),
             _streaming.encode_options(jelly.make_options(physical_type="graphs", version=2))]
    # frames that start with an options row (the first frame of a few streams)
    for data in jelly_corpus[:40]:
        for _, frame in jelly.io.FrameReader(data):
            seeds.append(bytes(frame))
            break
    return seeds


# Inputs the fuzzer found (kept as seeds, so every test run checks them again).
FOUND = {"rdf-protobuf": [bytes.fromhex(
    "1f8b0a060000018a1213687474703a71126f610a220010000000010000000000000200400068ebebebeb7474703a"
)]}


def patch_seeds(texts: list[bytes]) -> tuple[list[bytes], list[bytes]]:
    """RDF Patch text (the reference implementation's examples, and a few generated patches
    with every row kind) and the same patches as Jelly-Patch in every stream and statement
    type that holds them, with small and large tables, delimited and as a single frame."""
    import jelly.patch
    import jelly.rdfpatch
    from jelly._patchops import (Add, Delete, Header, PrefixAdd, PrefixDelete, TX_ABORT,
                                 TX_COMMIT, TX_START, END_OF_PATCH)
    s, p, o = IRI(EX + "s"), IRI(EX + "p"), IRI(EX + "o")
    quoted = Triple(s, p, Literal("x", language="en"))
    generated = [
        [Header("id", IRI(EX + "patch1")), Header("prev", BlankNode("b0")), TX_START,
         PrefixAdd("ex", EX), Add(s, p, o), Delete(BlankNode("b1"), p, Literal("1", datatype=EX + "dt")),
         Add(quoted, p, Literal("caf\u00e9")), TX_COMMIT, END_OF_PATCH,
         TX_START, PrefixDelete("ex"), Add(s, p, o), TX_ABORT, END_OF_PATCH],
        [TX_START, Add(s, p, o, IRI(EX + "g")), Delete(s, p, o, DEFAULT_GRAPH),
         PrefixAdd("ex", EX, IRI(EX + "g")), PrefixDelete("ex", IRI(EX + "g")), TX_COMMIT,
         END_OF_PATCH],
    ]
    patches = [list(jelly.rdfpatch.parse(t)) for t in texts] + generated
    text = texts + [jelly.rdfpatch.serialize(ops) for ops in generated]
    binary = []
    for ops in patches:
        for stream_type in jelly.patch.STREAM_TYPES:
            for statement_type in jelly.patch.STATEMENT_TYPES:
                for extra in ({}, {"preset": "small", "rows_per_frame": 3},
                              {"delimited": False}):
                    try:
                        binary.append(jelly.patch.serialize(
                            ops, stream_type=stream_type, statement_type=statement_type,
                            rdf_star=True, **extra))
                    except jelly.JellyError:
                        pass                  # a type that cannot hold these operations
    return text, binary


def write(name: str, seeds: list[bytes], keep: list[bytes] = ()) -> None:
    """``keep`` and at most MAX_FILES of ``seeds`` of at most MAX_SIZE bytes, spread over the
    sizes present (the fuzzer grows its own working corpus from them)."""
    seeds = sorted({s for s in seeds if len(s) <= MAX_SIZE},
                   key=lambda s: (len(s), hashlib.sha1(s).digest()))
    if len(seeds) > MAX_FILES:
        seeds = [seeds[i * len(seeds) // MAX_FILES] for i in range(MAX_FILES)]
    seeds += list(keep) + FOUND.get(name, [])
    d = CORPUS / name
    if d.exists():
        shutil.rmtree(d)
    d.mkdir(parents=True)
    for data in seeds:
        (d / hashlib.sha1(data).hexdigest()).write_bytes(data)
    print(f"{name}: {len(list(d.iterdir()))} files, "
          f"{sum(p.stat().st_size for p in d.iterdir())} bytes")


def main() -> None:
    import jelly.io  # noqa: F401 - FrameReader
    conf = conformance()
    js = jelly_seeds()
    texts = rdf_text(conf)
    write("jelly", small(conf.glob("rdf/**/*.jelly")), js)
    write("nquads", texts)
    write("rdf-thrift", jena_seeds("thrift", texts))
    write("rdf-protobuf", jena_seeds("protobuf", texts))
    write("streaming", streaming_seeds(small(conf.glob("rdf/**/*.jelly")) + js))
    examples = REPO.parent / "shared" / "patch-examples"
    text, binary = patch_seeds(small(examples.glob("*.rdfp")) if examples.is_dir() else [])
    write("rdf-patch", text)
    write("jelly-patch", binary)


if __name__ == "__main__":
    main()
