"""The frame transcoder beside decoding and encoding again, on generated data.

For each dataset (``datagen.py``, written as Jelly with the big preset, 1024 rows per frame)
it times, in one process, the median of ``--repeat`` runs of:

* transcode to the same options / to the small preset (``jelly._transcode.Transcoder``);
* the transcoder's decode half alone (``WireDecoder``), collecting wire values / validating only
  (what the broker does for every published frame);
* decode to jelly terms (``jelly.Decoder``) and decode + encode again (``jelly.Encoder``), frame by
  frame: what transcoding would cost without the transcoder.

    python benchmarks/transcode_bench.py                 # 200k statements per dataset
    python benchmarks/transcode_bench.py --statements 1000000 --repeat 5
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

DATASETS = ("sensors", "sensors-quads", "knowledge-graph", "events-quads")


def prepare(work: Path, name: str, statements: int) -> Path:
    import datagen
    import jelly
    from jelly._ntriples import parse_nquads
    text = work / f"{name}-{statements}.{'nq' if 'quads' in name else 'nt'}"
    if not text.exists():
        datagen.write(name, statements, 1, str(text))
    path = work / f"{name}-{statements}-1024.jelly"
    if not path.exists():
        with open(text, "rb") as f:
            jelly.serialize(parse_nquads(f), path, preset="big", rows_per_frame=1024,
                            physical_type="quads" if "quads" in name else "triples")
    return path


def main() -> int:
    import jelly
    from jelly._transcode import Transcoder, WireDecoder
    from jelly.io import FrameReader

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--statements", type=int, default=200_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--datasets", default=",".join(DATASETS))
    ap.add_argument("--work", type=Path, default=HERE / ".work")
    args = ap.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)

    rows = {}
    names = args.datasets.split(",")
    for name in names:
        path = prepare(args.work, name, args.statements)
        data = path.read_bytes()
        frames = [bytes(f) for _, f in FrameReader(data)]
        n = sum(len(f) for f in jelly.parse_frames(data))
        options = jelly.read_options(data)
        small = jelly.make_options(preset="small", physical_type=options.physical_type,
                                   logical_type=options.logical_type)

        def transcode(o=None):
            t = Transcoder(o)
            for f in frames:
                t.transcode_frame(f)

        def wire(collect):
            d = WireDecoder()
            for f in frames:
                d.decode(f, 0, collect)

        def decode():
            d = jelly.Decoder()
            for f in frames:
                d.decode_frame(f)

        def reencode():
            d = jelly.Decoder()
            e = jelly.Encoder(options)
            for f in frames:
                e.add_statements(d.decode_frame(f).statements)
                e.take_frame()

        ops = {"transcode (same options)": transcode,
               "transcode (small preset)": lambda: transcode(small),
               "decode half: wire values": lambda: wire(True),
               "decode half: validation only": lambda: wire(False),
               "decode to jelly terms": decode,
               "decode + encode again": reencode}
        for op, fn in ops.items():
            times = []
            for _ in range(args.repeat):
                t0 = time.perf_counter()
                fn()
                times.append(time.perf_counter() - t0)
            rows.setdefault(op, {})[name] = n / statistics.median(times)
    print(f"statements/s, median of {args.repeat} (about {args.statements} statements each)")
    print("| operation | " + " | ".join(names) + " |")
    print("|---|" + "--:|" * len(names))
    for op, by_name in rows.items():
        print(f"| {op} | " + " | ".join(f"{by_name[n] / 1e6:.2f}M" for n in names) + " |")
    ratio = [rows["transcode (same options)"][n] / rows["decode + encode again"][n]
             for n in names]
    print("| transcode / decode + encode | " + " | ".join(f"{r:.2f}" for r in ratio) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
