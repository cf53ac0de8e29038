"""Compile a schema of ``proto/`` with ``grpc_tools.protoc`` into a private descriptor pool
(never the default one, where another copy of the same schema, e.g. pyjelly's, may live)."""

from __future__ import annotations

import functools
import os
import subprocess
import sys
import tempfile
import types

PROTO_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "proto")


@functools.lru_cache(maxsize=None)
def load_proto(name: str) -> types.ModuleType:
    """A ``*_pb2``-like module for ``proto/<name>`` (e.g. ``"rdf.proto"``): every message class,
    the enum value constants and ``DESCRIPTOR``.  Imports of other schemas of ``proto/`` are
    resolved.  Cached."""
    from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

    path = os.path.join(PROTO_DIR, name)
    if not os.path.isfile(path):
        raise RuntimeError(f"{name} not found in {PROTO_DIR}")
    with tempfile.TemporaryDirectory(prefix="jelly-oracle-") as tmp:
        out = os.path.join(tmp, "schema.pb")
        # protoc in a child process: its main() is not re-entrant-safe and prints to stderr.
        cmd = [sys.executable, "-m", "grpc_tools.protoc", f"-I{PROTO_DIR}",
               f"--descriptor_set_out={out}", "--include_imports", path]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError(f"protoc failed ({proc.returncode}): {proc.stderr}")
        with open(out, "rb") as fh:
            fds = descriptor_pb2.FileDescriptorSet.FromString(fh.read())
    pool = descriptor_pool.DescriptorPool()
    for fdp in fds.file:
        pool.Add(fdp)
    fd = pool.FindFileByName(name)
    mod = types.ModuleType(name.replace(".proto", "_pb2"))
    mod.DESCRIPTOR = fd
    mod.POOL = pool
    for msg_name, md in fd.message_types_by_name.items():
        setattr(mod, msg_name, message_factory.GetMessageClass(md))
    for enum_name, ed in fd.enum_types_by_name.items():
        setattr(mod, enum_name, ed)
        for v in ed.values:
            setattr(mod, v.name, v.number)
    return mod
