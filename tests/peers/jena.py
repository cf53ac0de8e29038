"""Apache Jena as an interop peer: Debian's ``libapache-jena-java`` (Jena 4.5), driven through
one long-lived JVM running ``JenaPeer.java`` (compiled here with ``javac``), so that hundreds of
conversions cost one JVM start-up.

Two things make the Debian package hard to run, both handled here:

* The class path.  Every jar of ``/usr/share/java`` brings several SLF4J bindings and both
  ``commons-logging`` and ``jcl-over-slf4j``.  The class path is instead the dependency closure
  of ``jena-cmds`` read from the package's own Maven POMs under ``/usr/share/maven-repo``
  (compile and runtime scope, optional ones left out, minus what Jena's POMs exclude), plus one
  binding (``slf4j-simple``, which logs to stderr).
* Jena's start-up dying with ``RuntimeException: internal error`` in
  ``XSSimpleTypeDecl.applyFacets1``.  Debian's ``jena-core.jar`` has its bundled Xerces classes
  relocated to the package ``xerces.*`` but left their message bundles at
  ``org/apache/jena/ext/xerces/**.properties``.  Xerces' regular-expression parser loads the
  bundle ``xerces.impl.xpath.regex.message`` when the built-in XSD types get their pattern
  facets; it is missing, so ``RegexParser`` throws "Installation Problem???  Couldn't load
  messages", which ``applyFacets`` reports as an invalid facet and ``applyFacets1`` as "internal
  error".  Locale, system properties and jar order play no part.  The fix: the same
  ``.properties`` files, copied from the installed jar under ``xerces/`` into a directory put
  first on the class path.

Nothing is skipped: if Jena or a JDK is missing, :func:`peer` raises :class:`JenaMissing`, and
the tests that need it fail with that message (``.ci/run`` installs both where missing).
"""

from __future__ import annotations

import hashlib
import os
import select
import subprocess
import tempfile
import threading
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path

MAVEN_REPO = Path("/usr/share/maven-repo")
SOURCE = Path(__file__).with_name("JenaPeer.java")
#: The SLF4J binding put on the class path (logs go to stderr).
BINDING = ("org.slf4j", "slf4j-simple")
#: Seconds one command may take.
TIMEOUT = 300
_POM = "{http://maven.apache.org/POM/4.0.0}"


class JenaMissing(AssertionError):
    """Jena (Debian's libapache-jena-java) or a JDK is not installed."""


class JenaError(AssertionError):
    """Jena rejected an input (the message is Jena's)."""


def _artifact(group: str, artifact: str) -> tuple[Path | None, Path | None]:
    """(pom, jar) of an artifact in the Debian Maven repository; the "debian" version first."""
    base = MAVEN_REPO.joinpath(*group.split("."), artifact)
    if not base.is_dir():
        return None, None
    for version in sorted(os.listdir(base), key=lambda v: v != "debian"):
        pom = base / version / f"{artifact}-{version}.pom"
        if pom.is_file():
            jar = pom.with_suffix(".jar")
            return pom, jar if jar.is_file() else None
    return None, None


def _text(el, name: str) -> str | None:
    x = el.find(_POM + name)
    return x.text.strip() if x is not None and x.text else None


def classpath_jars() -> list[Path]:
    """The jars of jena-cmds' dependency closure, from the package's POMs (see the module
    docstring)."""
    if _artifact("org.apache.jena", "jena-cmds")[0] is None:
        raise JenaMissing("Apache Jena is not installed: apt-get install libapache-jena-java "
                          f"(no jena-cmds POM under {MAVEN_REPO})")
    seen: dict[tuple[str, str], Path | None] = {}
    poms: dict[tuple[str, str], ET.Element | None] = {}

    def load(group: str, artifact: str) -> ET.Element | None:
        key = (group, artifact)
        if key not in poms:
            pom, jar = _artifact(group, artifact)
            seen[key] = jar
            poms[key] = ET.parse(pom).getroot() if pom else None
        return poms[key]

    def exclusions(dep: ET.Element) -> set[tuple[str, str]]:
        return {(_text(ex, "groupId") or "", _text(ex, "artifactId") or "")
                for ex in dep.iter(_POM + "exclusion")}

    # Exclusions that Jena's parent POM manages for its dependencies (commons-logging of the
    # HTTP client, replaced by jcl-over-slf4j, ...): they apply below that dependency.
    managed: dict[tuple[str, str], set[tuple[str, str]]] = {}
    parent = load("org.apache.jena", "jena")
    section = parent.find(_POM + "dependencyManagement") if parent is not None else None
    for dep in section.iter(_POM + "dependency") if section is not None else ():
        managed[(_text(dep, "groupId") or "", _text(dep, "artifactId") or "")] = exclusions(dep)

    def walk(group: str, artifact: str, excluded: frozenset[tuple[str, str]]) -> None:
        root = load(group, artifact)
        if root is None:
            return
        parent = root.find(_POM + "parent")
        own_group = _text(root, "groupId") or (_text(parent, "groupId") if parent is not None
                                               else group)
        deps = root.find(_POM + "dependencies")
        for dep in deps.findall(_POM + "dependency") if deps is not None else ():
            g = (_text(dep, "groupId") or "").replace("${project.groupId}", own_group or "")
            a = _text(dep, "artifactId") or ""
            if (_text(dep, "scope") or "compile") not in ("compile", "runtime") or \
                    _text(dep, "optional") == "true" or (g, a) in excluded or (g, a) in seen:
                continue
            walk(g, a, excluded | exclusions(dep) | managed.get((g, a), set()))

    seen[("org.apache.jena", "jena-cmds")] = None
    walk("org.apache.jena", "jena-cmds", frozenset())
    seen[("org.apache.jena", "jena-cmds")] = _artifact("org.apache.jena", "jena-cmds")[1]
    jars = [j for j in seen.values() if j is not None]
    binding = _artifact(*BINDING)[1]
    if binding is None:
        raise JenaMissing("no SLF4J binding: apt-get install libslf4j-java")
    return sorted(set(jars)) + [binding]


def xerces_resources(jena_core: Path, cache: Path) -> Path | None:
    """A directory holding jena-core's Xerces message bundles where its relocated classes look
    for them (see the module docstring), or None if the jar needs no fix."""
    with zipfile.ZipFile(jena_core) as z:
        names = z.namelist()
        if "xerces/impl/xpath/regex/RegexParser.class" not in names or \
                "xerces/impl/xpath/regex/message.properties" in names:
            return None
        out = cache / "xerces-resources"
        prefix = "org/apache/jena/ext/xerces/"
        for name in names:
            if name.startswith(prefix) and name.endswith(".properties"):
                target = out / "xerces" / name[len(prefix):]
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(z.read(name))
    return out


def _cache_dir(key: str) -> Path:
    digest = hashlib.sha256(key.encode()).hexdigest()[:16]
    path = Path(tempfile.gettempdir()) / f"jelly-jena-peer-{os.getuid()}-{digest}"
    path.mkdir(parents=True, exist_ok=True)
    return path


def prepare() -> list[str]:
    """The command line starting the peer (compiling it first if needed)."""
    for tool in ("java", "javac"):
        if not any((Path(d) / tool).is_file() for d in os.environ.get("PATH", "").split(":")):
            raise JenaMissing(f"{tool} not found: apt-get install openjdk-17-jdk-headless")
    jars = classpath_jars()
    source = SOURCE.read_bytes()
    cache = _cache_dir(source.decode() + "\n".join(map(str, jars)))
    core = next((j for j in jars if j.name.startswith("jena-core")), None)
    resources = xerces_resources(core, cache) if core else None
    classpath = ([str(resources)] if resources else []) + [str(j) for j in jars]
    classes = cache / "classes"
    if not (classes / "JenaPeer.class").is_file():
        classes.mkdir(exist_ok=True)
        done = subprocess.run(["javac", "-nowarn", "-d", str(classes), "-cp",
                               os.pathsep.join(classpath), str(SOURCE)],
                              capture_output=True, text=True)
        if done.returncode != 0:
            raise JenaMissing(f"cannot compile {SOURCE.name} against Jena:\n{done.stderr}")
    return ["java", "-Xss8m", "-cp", os.pathsep.join([str(classes)] + classpath), "JenaPeer"]


class JenaPeer:
    """One JVM running JenaPeer; :meth:`rdf` and :meth:`results` convert files."""

    def __init__(self) -> None:
        self._proc = subprocess.Popen(prepare(), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                      stderr=subprocess.PIPE, text=True, encoding="utf-8")
        self._stderr: list[str] = []
        threading.Thread(target=self._drain, daemon=True).start()
        first = self._answer()
        if first != "ready":
            raise JenaMissing(f"the Jena peer did not start: {first!r}\n{self.stderr()}")

    def _drain(self) -> None:
        assert self._proc.stderr is not None
        for line in self._proc.stderr:
            self._stderr.append(line)
            del self._stderr[:-200]

    def stderr(self) -> str:
        return "".join(self._stderr)

    def _answer(self) -> str:
        out = self._proc.stdout
        assert out is not None
        ready, _, _ = select.select([out], [], [], TIMEOUT)
        if not ready:
            self.close()
            raise AssertionError(f"the Jena peer did not answer within {TIMEOUT} s")
        line = out.readline()
        if not line:
            raise AssertionError(f"the Jena peer exited:\n{self.stderr()}")
        return line.rstrip("\n")

    def _call(self, *fields: str) -> None:
        assert self._proc.stdin is not None
        self._proc.stdin.write("\t".join(map(str, fields)) + "\n")
        self._proc.stdin.flush()
        answer = self._answer()
        if answer != "ok":
            raise JenaError(answer.partition("\t")[2] or answer)

    def rdf(self, in_lang: str, src: Path | str, out_format: str, dst: Path | str) -> None:
        """Jena parses ``src`` (a Jena language name: N-TRIPLES, N-QUADS, TTL, RDF-THRIFT,
        RDF-PROTO) and writes ``dst`` (RDF-THRIFT, RDF-THRIFT-VALUES, RDF-PROTO,
        RDF-PROTO-VALUES, NQUADS)."""
        self._call("rdf", in_lang, src, out_format, dst)

    def results(self, in_lang: str, src: Path | str, out_format: str,
                dst: Path | str) -> None:
        """Jena reads a result set (SRJ, SRT, SRP) and writes it (SRJ, SRT, SRT-VALUES, SRP)."""
        self._call("results", in_lang, src, out_format, dst)

    def close(self) -> None:
        if self._proc.poll() is None:
            try:
                assert self._proc.stdin is not None
                self._proc.stdin.close()
                self._proc.wait(timeout=30)
            except (OSError, subprocess.TimeoutExpired):
                self._proc.kill()
                self._proc.wait()


_PEER: JenaPeer | None = None


def peer() -> JenaPeer:
    """The shared peer of this process (started on first use)."""
    global _PEER
    if _PEER is None or _PEER._proc.poll() is not None:
        _PEER = JenaPeer()
    return _PEER
