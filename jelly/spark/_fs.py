"""Files for the data source, through ``pyarrow.fs`` (local paths, ``file://``, ``s3://``,
``gs://``, ``hdfs://`` and whatever else the installed pyarrow supports); no pyspark here."""

from __future__ import annotations

import contextlib
import fnmatch
import os
import posixpath

import pyarrow.fs as pafs

from ..errors import JellyError

_GLOB_CHARS = "*?["


def is_uri(path: str) -> bool:
    head, sep, _ = path.partition("://")
    return bool(sep) and head.replace("+", "").isalnum()


def resolve(path: str) -> str:
    """An absolute path or a URI, so that executors see the same file as the driver."""
    if not isinstance(path, str) or not path:
        raise JellyError("a path is needed: .load(path) / .save(path)")
    if is_uri(path):
        return path
    if path.startswith("file:"):
        return path
    return os.path.abspath(os.path.expanduser(path))


def filesystem(path: str):
    """``(FileSystem, path inside it)`` for a resolved path or URI."""
    if is_uri(path) or path.startswith("file:"):
        try:
            return pafs.FileSystem.from_uri(path)
        except Exception as exc:  # pyarrow raises ArrowInvalid / OSError flavours
            raise JellyError(f"cannot open file system of {path!r}: {exc}") from None
    return pafs.LocalFileSystem(), path


def open_random_access(path: str):
    """A pyarrow file of ``path`` that reads at offsets (``read_at``); JellyError if it cannot
    be opened."""
    fs, inner = filesystem(path)
    try:
        return fs.open_input_file(inner)
    except (OSError, ValueError) as exc:
        raise JellyError(f"cannot open {path}: {exc}") from None


def join(base: str, name: str) -> str:
    """``name`` inside the directory ``base`` (a local path or a URI)."""
    if is_uri(base) or base.startswith("file:"):
        return base.rstrip("/") + "/" + name
    return os.path.join(base, name)


def _hidden(rel: str) -> bool:
    return any(part.startswith(("_", ".")) for part in rel.split("/") if part)


class _Missing(JellyError):
    """A path, or pattern, that names no file."""


def list_files(path: str, name_glob: str | None = None) -> list[str]:
    """The data files under ``path`` (a file, a directory read recursively, or a glob pattern,
    with Hadoop's ``{a,b}`` alternatives too), sorted; names starting with ``_`` or ``.`` below
    the given path are skipped, as Spark does.  Returned as paths or URIs that
    :func:`filesystem` opens."""
    patterns = _alternatives(path)
    if len(patterns) == 1:
        return _list(path, name_glob)
    files: set[str] = set()
    for pattern in patterns:
        with contextlib.suppress(_Missing):     # as in a glob, one may match nothing
            files.update(_list(pattern, name_glob))
    if not files:
        raise _Missing(f"path does not exist: no file matches {path}")
    return sorted(files)


def _alternatives(pattern: str) -> list[str]:
    """``pattern`` with its ``{a,b,...}`` groups (nested or not) spelled out, as Hadoop's glob
    expands them; a ``{`` without its ``}`` is a character like any other."""
    depth, start = 0, -1
    for i, c in enumerate(pattern):
        if c == "{":
            if depth == 0:
                start = i
            depth += 1
        elif c == "}" and depth:
            depth -= 1
            if depth == 0:
                head, body, tail = pattern[:start], pattern[start + 1:i], pattern[i + 1:]
                choices, level, cut = [], 0, 0
                for j, d in enumerate(body):
                    level += (d == "{") - (d == "}")
                    if d == "," and level == 0:
                        choices.append(body[cut:j])
                        cut = j + 1
                choices.append(body[cut:])
                return [out for choice in choices for out in _alternatives(head + choice + tail)]
    return [pattern]


def _list(path: str, name_glob: str | None) -> list[str]:
    fs, inner = filesystem(path)
    # What the file system's own paths lack to be URIs again ("s3://", "file://", "").
    prefix = path[: len(path) - len(inner)] if inner and path.endswith(inner) else ""
    if any(c in inner for c in _GLOB_CHARS):
        parts = inner.split("/")
        cut = next(i for i, part in enumerate(parts) if any(c in part for c in _GLOB_CHARS))
        base = "/".join(parts[:cut]) or "/"
        # A file matches when it, or the directory it is in at the pattern's depth, matches
        # component by component ("*" does not cross "/").
        found = [info for info in _walk(fs, base)
                 if _matches(info.path.split("/")[:len(parts)], parts)]
        if not found:
            raise _Missing(f"path does not exist: no file matches {path}")
    else:
        info = fs.get_file_info(inner)
        if info.type == pafs.FileType.NotFound:
            raise _Missing(f"path does not exist: {path}")
        if info.type == pafs.FileType.File:
            found = [info]
            base = None
        else:
            base = inner
            found = list(_walk(fs, inner))
    files = []
    for info in found:
        if base is not None:
            rel = posixpath.relpath(info.path, base) if info.path != base else info.base_name
            if _hidden(rel):
                continue
        if name_glob and not fnmatch.fnmatchcase(info.base_name, name_glob):
            continue
        files.append(info.path)
    files.sort()
    return [prefix + f for f in files]


def _walk(fs, base: str):
    selector = pafs.FileSelector(base, recursive=True, allow_not_found=True)
    for info in fs.get_file_info(selector):
        if info.type == pafs.FileType.File:
            yield info


def _matches(components: list, patterns: list) -> bool:
    return len(components) == len(patterns) and all(
        fnmatch.fnmatchcase(c, p) for c, p in zip(components, patterns))
