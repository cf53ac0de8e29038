"""The code blocks of README.md and docs/*.md, and a directory and namespace to run them in.

The blocks are fragments: they name files (``data.jelly``, ``changes.rdfp``) and values the
prose around them introduces (``statements``, ``graph``, ``payload``).  :func:`workdir` makes
those files from the shipped example and :func:`names` those values, so that a block runs as a
reader who pastes it would run it.  Used by test_docs.py, and by test_spark.py for the Spark
guide (on its session).
"""

from __future__ import annotations

import contextlib
import io
import shutil
import socket
import threading
from pathlib import Path

from helpers import DATA, REPO_ROOT

DOCS = [REPO_ROOT / "README.md"] + sorted((REPO_ROOT / "docs").glob("*.md"))

SPARK = "Spark: run by test_spark.py::test_the_spark_guide_runs on its session"

#: Blocks test_docs.py does not run: a phrase of the block -> why.
ELSEWHERE = {
    'spark.read.format("jelly").load("data/")': SPARK,
    "jelly.spark.register(spark)": SPARK,
    'option("filterPushdown", "true")': SPARK,
    '.option("physicalType", "quads")': SPARK,
    'spark.read.format("kafka")': "needs a Kafka broker",
    "js.decode_stream(msgs": "needs the Kafka DataFrame of the block before",
    "with Server(port=8080) as server:": "a broker that serves until it is stopped; "
                                         "examples/grpc_pubsub.py makes the same calls",
}


def elsewhere(code: str) -> str | None:
    """Why test_docs.py does not run the block ``code`` (None: it does)."""
    found = [ELSEWHERE[phrase] for phrase in ELSEWHERE if phrase in code]
    return found[0] if found else None


def blocks(doc: Path, language: str) -> list[tuple[int, str]]:
    """``(line, code)`` of each fenced block of ``doc`` whose info string is ``language``
    (``""``: a plain block), in order; ``line`` is that of the block's first line."""
    out, info, start, body = [], None, 0, []
    for number, text in enumerate(doc.read_text().splitlines(), 1):
        if info is None and text.startswith("```"):
            info, start, body = text[3:].strip(), number + 1, []
        elif info is not None and text.rstrip() == "```":
            if info == language:
                out.append((start, "".join(line + "\n" for line in body)))
            info = None
        elif info is not None:
            body.append(text)
    return out


def label(doc: Path, line: int) -> str:
    return f"{doc.relative_to(REPO_ROOT)}:{line}"


def workdir(path: Path) -> Path:
    """``path`` filled with the files the documents name, all made from the example data."""
    import jelly
    import jelly.jena
    import jelly.patch
    import jelly.rdfpatch
    from jelly.convert import convert

    sensors, messages = DATA / "sensors.nt", DATA / "sensor-messages.nt"
    for name in ("data.nt", "star.nt", "readings.nt"):
        shutil.copy(sensors, path / name)
    with open(path / "star.nt", "a") as f:
        f.write('<< <http://example.org/a> <http://example.org/b> <http://example.org/c> >> '
                '<http://example.org/p> "quoted" .\n')
    for name in ("data.jelly", "data.jelly.gz", "data.ttl", "data.nq", "data.rt", "data.rpb",
                 "old.ttl", "flat.jelly", "ref.jelly", "a.jelly", "b.jelly", "big.jelly"):
        convert(str(sensors), str(path / name))
    convert(str(sensors), str(path / "quads.jelly"), physical_type="quads")
    lines = sensors.read_text().splitlines(keepends=True)
    (path / "new.nt").write_text("".join(lines[::2]))      # half the statements gone
    convert(str(path / "new.nt"), str(path / "new.ttl"))
    convert(str(sensors), str(path / "new.jelly"), segment_size=None)
    for name in ("stream.jelly", "messages.jelly"):
        convert(str(messages), str(path / name), messages=True)
    convert(str(messages), str(path / "log.nq"))
    statements = list(jelly.parse(str(path / "data.jelly")))
    ops = [jelly.patch.Add(*st) for st in statements[:5]]
    for name in ("changes.rdfp", "log.rdfp"):
        jelly.rdfpatch.serialize(ops, str(path / name))
    for name in ("changes.jellyp", "log.jellyp"):
        jelly.patch.serialize(ops, str(path / name))
    s, _, o = statements[0]
    jelly.jena.write_results(str(path / "answers.srt"), ["s", "o"], [(s, o), (s, None)])
    return path


def names(path: Path) -> dict:
    """The values the documents' prose names, for blocks run in ``path`` (a :func:`workdir`)."""
    import jelly
    import jelly.patch
    import rdflib

    statements = list(jelly.parse(str(path / "data.jelly")))
    encoder = jelly.Encoder(jelly.make_options(preset="small"))
    encoder.add_statements(statements[:5])
    frame = encoder.take_frame()
    ex = rdflib.Namespace("http://example.org/")

    return {
        "statements": statements, "message_statements": statements[:3],
        "messages": [statements[:3], statements[3:6]],
        "quads": list(jelly.parse(str(path / "quads.jelly"))),
        "s": statements[0][0], "p": statements[0][1], "o": statements[0][2],
        "ops": [jelly.patch.Add(*st) for st in statements[:5]],
        "op": jelly.patch.Add(*statements[0]),
        "rows": [(statements[0][0], statements[0][2])],
        "path": str(path / "data.jelly"), "source": str(path / "messages.jelly"),
        "message_value": frame, "payload": frame,
        "jelly_bytes": (path / "quads.jelly").read_bytes(),
        "blob": (path / "data.rpb").read_bytes(),
        "binary_stream": io.BytesIO(), "out": io.BytesIO(),
        "graph": rdflib.Graph().parse(str(path / "data.nt"), format="nt"),
        "old_graph": rdflib.Graph().parse(str(path / "old.ttl")),
        "new_graph": rdflib.Graph().parse(str(path / "data.nt"), format="nt"),
        "graphs": [rdflib.Graph().parse(str(path / "data.nt"), format="nt"), rdflib.Graph()],
        "writer": jelly.patch.PatchWriter(io.BytesIO()),
        "existing_code": lambda g: g.add((ex.s, ex.p, ex.o)),
        "load_sensors": lambda g: g.parse(str(path / "data.nt"), format="nt"),
    }


def sending(path: Path) -> socket.socket:
    """A connected socket that the bytes of the file ``path`` arrive on (``sock`` of the user
    guide: a stream that cannot seek)."""
    ours, theirs = socket.socketpair()

    def send() -> None:
        with theirs, contextlib.suppress(BrokenPipeError):  # a reader may stop early
            theirs.sendall(path.read_bytes())
    threading.Thread(target=send, daemon=True).start()
    return ours
