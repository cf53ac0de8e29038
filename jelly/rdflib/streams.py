"""Reading Jelly into rdflib and writing rdflib to Jelly: whole graphs and datasets, streams of
them (RDF messages: one graph or dataset per frame), and flat streams of statements.

This module is plumbing only: the wire format, lookups and repeated terms are the core's
(:class:`jelly.Reader`, :class:`jelly.Writer`); rdflib terms go in and out of the core through
:class:`~jelly.rdflib._terms.TermFactory` and :func:`~jelly.rdflib._terms.make_term_adapter`.
"""

from __future__ import annotations

from collections import deque
from itertools import repeat
from typing import Iterable, Iterator, Mapping

from rdflib.graph import DATASET_DEFAULT_GRAPH_ID, ConjunctiveGraph, Dataset, Graph
from rdflib.plugins.stores.memory import Memory
from rdflib.term import BNode, Literal as RdfLiteral

from .._terms import DEFAULT_GRAPH
from ..errors import JellyError, JellyOptionsError
from ..options import PhysicalStreamType, StreamOptions, is_grouped, make_options
from ..reader import Reader
from ..writer import DEFAULT_ROWS_PER_FRAME, Writer, write_elements
from ._compat import memory_indexes
from ._terms import NotRepresentableError, TermFactory, make_term_adapter

__all__ = ["load", "parse_graph", "parse_grouped", "parse_statements", "serialize",
           "serialize_grouped"]


# ------------------------------------------------------------------------------------------------
# reading
# ------------------------------------------------------------------------------------------------

class _Scoped:
    """Frames of a reader, with blank nodes scoped per frame when ``per_frame`` is true.

    A repeated term may refer to the last statement of the previous frame (the spec allows it
    in the first rows of a frame); for a blank node that means "the node with that label" in
    *this* frame's scope, so such carried-over nodes are replaced by this frame's node.
    """

    def __init__(self, reader: Reader, factory: TermFactory, per_frame: bool) -> None:
        self.reader = reader
        self.factory = factory
        self.per_frame = per_frame

    def __iter__(self):
        if not self.per_frame:
            # Frame boundaries do not matter: small frames in a row are decoded together.
            yield from self.reader._runs()
            return
        frames = self.reader.frames()
        factory = self.factory
        raw_last = None       # last statement of the previous non-empty frame, as decoded
        raw_labels = {}       # position -> label of the blank nodes in raw_last
        first = True
        while True:
            if not first:      # the first frame may have been read ahead in the initial scope
                factory.new_scope()
            first = False
            frame = next(frames, None)
            if frame is None:
                return
            statements = frame.statements
            if statements:
                tail = statements[-1]
                if raw_last is not None and raw_labels:
                    self._rescope(statements, raw_last, raw_labels)
                raw_labels = self._labels_of(tail, raw_last, raw_labels)
                raw_last = tail
            yield frame

    def _rescope(self, statements, raw_last, raw_labels) -> None:
        bnode = self.factory.bnode
        for k, label in raw_labels.items():
            old = raw_last[k]
            new = bnode(label)
            for i, st in enumerate(statements):
                if st[k] is not old:
                    break
                statements[i] = st[:k] + (new,) + st[k + 1:]

    def _labels_of(self, tail, raw_last, raw_labels) -> dict:
        out = {}
        inverse = None
        for k, term in enumerate(tail):
            if type(term) is not BNode:
                continue
            if raw_last is not None and term is raw_last[k] and k in raw_labels:
                out[k] = raw_labels[k]          # carried through the whole frame
                continue
            if inverse is None:
                inverse = {id(node): label for label, node in self.factory.labels.items()}
            label = inverse.get(id(term))
            if label is not None:
                out[k] = label
        return out


def default_graph(ds: ConjunctiveGraph) -> Graph:
    """The default graph of a Dataset (``default_graph`` since rdflib 7.1, where
    ``default_context`` is deprecated) or of a ConjunctiveGraph."""
    if isinstance(ds, Dataset) and isinstance(getattr(type(ds), "default_graph", None),
                                              property):
        return ds.default_graph
    return ds.default_context


def graphs(ds: ConjunctiveGraph):
    """The graphs of a Dataset (``graphs()``) or ConjunctiveGraph (``contexts()``)."""
    return ds.graphs() if isinstance(ds, Dataset) else ds.contexts()


def _open(source, limits, strict) -> tuple[Reader, TermFactory]:
    factory = TermFactory()
    return Reader(source, limits=limits, factory=factory, strict=strict), factory


def _grouped(reader: Reader) -> bool:
    options = reader.options
    return options is not None and is_grouped(int(options.logical_type))


class _Sink:
    """Adds decoded statements to an rdflib graph through the store's fastest path: the Memory
    store's ``add`` directly (what ``Graph.add`` does, minus its per-triple checks), another
    store's ``addN`` (stores may batch it), or ``graph.add`` when a Graph subclass overrides it.
    Named graphs of quads go to graphs of the same store, as rdflib's N-Quads parser does."""

    def __init__(self, graph: Graph) -> None:
        self.graph = graph
        self.store = graph.store
        overridden = type(graph).add is not Graph.add
        self.mode = "graph" if overridden else ("memory" if type(self.store) is Memory else "addn")
        self.contexts = {DATASET_DEFAULT_GRAPH_ID: graph}

    def bind(self, namespaces) -> None:
        for name, iri in namespaces:
            self.graph.bind(name, iri, override=True, replace=True)

    def triples(self, statements: list) -> None:
        n = len(statements)
        if self.mode == "memory":
            deque(map(self.store.add, statements, repeat(self.graph, n), repeat(False, n)), 0)
        elif self.mode == "addn":
            g = self.graph
            self.store.addN([(s, p, o, g) for s, p, o in statements])
        else:
            add = self.graph.add
            for st in statements:
                add(st)

    def quads(self, statements: list) -> None:
        contexts = self.contexts
        context = self._context
        if self.mode == "memory":
            add = self.store.add
            for s, p, o, g in statements:
                c = contexts.get(g)
                if c is None:
                    c = context(g)
                add((s, p, o), c, False)
        elif self.mode == "addn":
            quads = []
            for s, p, o, g in statements:
                c = contexts.get(g)
                if c is None:
                    c = context(g)
                quads.append((s, p, o, c))
            self.store.addN(quads)
        else:
            for s, p, o, g in statements:
                c = contexts.get(g)
                if c is None:
                    c = context(g)
                c.add((s, p, o))

    def _context(self, name) -> Graph:
        if isinstance(name, RdfLiteral):
            raise NotRepresentableError(
                f"the stream names a graph with a literal ({name.n3()}), which rdflib cannot "
                f"represent; read it with the library-free API: jelly.parse(source)")
        if not self.store.context_aware:
            raise JellyError(
                f"the stream holds a named graph ({name.n3()}) but the store of the graph "
                f"being parsed into ({type(self.store).__name__}) is not context-aware; parse "
                f"into an rdflib Dataset")
        graph = self.graph
        if type(graph).add is not Graph.add:
            c = type(graph)(store=self.store, identifier=name,
                            namespace_manager=graph.namespace_manager)
        else:
            c = Graph(store=self.store, identifier=name, namespace_manager=graph.namespace_manager)
        self.contexts[name] = c
        return c


def load(graph: Graph, source, *, limits=None, strict: bool = False) -> Graph:
    """Add every statement of a Jelly stream to ``graph`` (what ``graph.parse(source,
    format="jelly")`` does; ``source`` is a path, bytes or a binary file object).  ``graph``
    may also be a Dataset.

    TRIPLES streams fill ``graph``.  QUADS and GRAPHS streams put the default graph in
    ``graph`` and each named graph in a graph of the same store (for a Dataset's default graph,
    as ``Dataset.parse`` passes it, these are the dataset's named graphs), as rdflib's N-Quads
    parser does.  Namespace declarations are bound in ``graph``'s namespace manager.  Blank
    nodes are scoped per parse, or per frame for grouped streams (logical type GRAPHS or
    DATASETS: each frame is a graph or dataset of its own).
    """
    reader, factory = _open(source, limits, strict)
    with reader:
        _fill(default_graph(graph) if isinstance(graph, ConjunctiveGraph) else graph, reader,
              factory)
    return graph


def _fill(graph: Graph, reader: Reader, factory: TermFactory) -> None:
    sink = _Sink(graph)
    for frame in _Scoped(reader, factory, _grouped(reader)):
        if frame.namespaces:
            sink.bind(frame.namespaces)
        statements = frame.statements
        if not statements:
            continue
        if len(statements[0]) == 3:
            sink.triples(statements)
        else:
            sink.quads(statements)


def parse_graph(source, *, limits=None, strict: bool = False):
    """Read a whole Jelly stream into a new rdflib Graph (TRIPLES streams) or Dataset (QUADS
    and GRAPHS streams); see :func:`load`."""
    return _parse_graph(source, limits, strict)[0]


def _parse_graph(source, limits=None, strict=False):
    """(Graph or Dataset, number of frames read)."""
    reader, factory = _open(source, limits, strict)
    with reader:
        options = reader.options
        if options is not None and options.physical_type != PhysicalStreamType.TRIPLES:
            result = Dataset()
            _fill(default_graph(result), reader, factory)
        else:
            result = Graph()
            _fill(result, reader, factory)
        return result, reader.frame_count


def parse_grouped(source, *, graph_factory=None, dataset_factory=None, limits=None,
                  strict: bool = False, metadata: bool = False) -> Iterator:
    """Read a Jelly stream as one rdflib graph per frame (RDF messages), one frame at a time.

    TRIPLES streams yield a :class:`rdflib.Graph` per frame, QUADS and GRAPHS streams a
    :class:`rdflib.Dataset` (default graph and named graphs kept apart).  ``graph_factory`` /
    ``dataset_factory`` make the empty graphs (default ``Graph()`` / ``Dataset()``).  Blank
    nodes are scoped per frame.  Namespace declarations seen so far are bound in each graph.
    With ``metadata=True`` each item is ``(graph, frame_metadata)``.

    Any stream can be read this way; for a flat stream the frames are just chunks of it.
    """
    reader, factory = _open(source, limits, strict)
    make_graph = graph_factory or Graph
    make_dataset = dataset_factory or Dataset
    with reader:
        options = reader.options
        quads = options is not None and options.physical_type != PhysicalStreamType.TRIPLES
        namespaces: dict = {}
        for frame in _Scoped(reader, factory, True):
            for name, iri in frame.namespaces:
                namespaces[name] = iri
            ds = make_dataset() if quads else make_graph()
            target = default_graph(ds) if isinstance(ds, ConjunctiveGraph) else ds
            sink = _Sink(target)
            if namespaces:
                sink.bind(namespaces.items())
            statements = frame.statements
            if statements:
                if len(statements[0]) == 3:
                    sink.triples(statements)
                else:
                    sink.quads(statements)
            yield (ds, frame.metadata) if metadata else ds


def parse_statements(source, *, limits=None, strict: bool = False) -> Iterator[tuple]:
    """Iterate the statements of a Jelly stream as tuples of rdflib terms, without a graph.

    ``(s, p, o)`` for TRIPLES streams, ``(s, p, o, g)`` for QUADS and GRAPHS streams, where
    ``g`` is the graph's name or ``rdflib.graph.DATASET_DEFAULT_GRAPH_ID`` for the default graph
    (as :meth:`rdflib.Dataset.quads` gives them).  Statements are read frame by frame.  Blank
    nodes are scoped per stream, or per frame for grouped streams (logical type GRAPHS or
    DATASETS).
    """
    reader, factory = _open(source, limits, strict)
    with reader:
        for frame in _Scoped(reader, factory, _grouped(reader)):
            yield from frame.statements


# ------------------------------------------------------------------------------------------------
# writing
# ------------------------------------------------------------------------------------------------

#: Keyword arguments accepted by the serializers (besides the core writer's option fields).
_WRITER_ARGS = ("options", "rows_per_frame", "delimited", "namespaces")
_OPTION_FIELDS = ("preset", "physical_type", "logical_type", "max_name_table_size",
                  "max_prefix_table_size", "max_datatype_table_size", "rdf_star",
                  "generalized_statements", "stream_name")

_DEFAULT_BINDINGS = None


def _default_bindings() -> frozenset:
    """The (prefix, namespace) pairs rdflib binds in every new graph."""
    global _DEFAULT_BINDINGS
    if _DEFAULT_BINDINGS is None:
        _DEFAULT_BINDINGS = frozenset((p, str(n)) for p, n in Graph().namespaces())
    return _DEFAULT_BINDINGS


def _namespaces_of(graph: Graph, namespaces) -> dict:
    """Declarations to write: ``None`` -> the graph's bindings that are not rdflib's defaults,
    ``True`` -> all its bindings, ``False`` -> none, a mapping -> exactly that."""
    if namespaces is None or namespaces is True:
        defaults = frozenset() if namespaces is True else _default_bindings()
        return {p: str(n) for p, n in graph.namespaces() if (p, str(n)) not in defaults}
    if namespaces is False:
        return {}
    if isinstance(namespaces, Mapping):
        return {str(p): str(n) for p, n in namespaces.items()}
    raise JellyOptionsError("namespaces must be None, True, False or a mapping of prefix to "
                            f"namespace IRI, not {type(namespaces).__name__}")


def _check_kwargs(kwargs: dict) -> None:
    unknown = sorted(set(kwargs) - set(_WRITER_ARGS) - set(_OPTION_FIELDS))
    if unknown:
        raise JellyOptionsError(
            f"unknown Jelly serializer option{'s' if len(unknown) > 1 else ''} "
            f"{', '.join(map(repr, unknown))}; the options are "
            f"{', '.join(_WRITER_ARGS + _OPTION_FIELDS)}")


def _is_dataset(graph) -> bool:
    return isinstance(graph, ConjunctiveGraph)


# The statements handed to the writer are made of jelly terms already: the term adapter's cache
# is consulted inline, a subject (and predicate) is converted once per group, and the encoder
# compares jelly terms in C for its repeated-term check (rdflib's __eq__ is Python code).

def _triples(graph: Graph, adapt) -> Iterator[tuple]:
    """The triples of one graph as jelly terms, grouped by subject and then predicate:
    repeated-term compression needs them together, and a store iterates them in hash order.

    A graph that is the whole of a Memory store (the usual ``Graph()``) is walked through the
    store's subject index: subjects in the order they were added (for a parsed file, the file's
    order), each subject's triples together, and no per-triple context bookkeeping, which is
    most of the cost of ``graph.triples()``.  Otherwise the graph's triples are sorted on the
    plain strings of subject and predicate, which also makes the output deterministic.
    """
    ordered = _memory_order(graph)
    if isinstance(ordered, dict):
        return _walk(ordered, adapt)
    if ordered is not None:
        return _convert(ordered, adapt)
    triples = list(graph.triples((None, None, None)))
    triples.sort(key=_spo_key)
    return _convert(triples, adapt)


def _memory_order(graph: Graph):
    """The Memory store's subject index if ``graph`` is the whole store, else the graph's
    triples sorted; None for other stores (or when rdflib's internals are not available)."""
    ix = memory_indexes(graph.store)
    if ix is None:
        return None
    by_context = ix.context_triples
    mine = by_context.get(ix.context_key(graph))
    if not mine:
        return []
    if len(by_context) == 2 and len(mine) == len(by_context.get(None, ())):
        return ix.spo      # this graph is the whole store
    triples = list(mine)
    triples.sort(key=_spo_key)
    return triples


def _walk(spo: dict, adapt) -> Iterator[tuple]:
    lookup = adapt.lookup
    for s, po in spo.items():
        js = adapt(s)
        for p, objects in po.items():
            jp = adapt(p)
            for o in objects:
                e = lookup(id(o))
                yield (js, jp, e[1] if e is not None and e[0] is o else adapt(o))


def _convert(triples, adapt) -> Iterator[tuple]:
    lookup = adapt.lookup
    ps = pp = js = jp = None
    for s, p, o in triples:
        if s is not ps:
            js = adapt(s)
            ps = s
        if p is not pp:
            jp = adapt(p)
            pp = p
        e = lookup(id(o))
        yield (js, jp, e[1] if e is not None and e[0] is o else adapt(o))


def _spo_key(t, _str=str):
    return (_str(t[0]), _str(t[1]))


def _contexts(ds: ConjunctiveGraph) -> list:
    """The graphs of a dataset: the default graph first, then the named graphs by name, as
    (is_default, Graph)."""
    default_ids = {default_graph(ds).identifier, DATASET_DEFAULT_GRAPH_ID}
    default = None
    named = []
    for ctx in graphs(ds):
        if ctx.identifier in default_ids:
            default = ctx
        else:
            named.append((str(ctx.identifier), ctx))
    named.sort(key=lambda x: x[0])
    return [(True, default if default is not None else default_graph(ds))] + \
        [(False, ctx) for _, ctx in named]


def _graphs_of(ds: ConjunctiveGraph, adapt) -> Iterator[tuple]:
    """Quads graph by graph (GRAPHS streams need each graph's triples together)."""
    for is_default, ctx in _contexts(ds):
        g = DEFAULT_GRAPH if is_default else adapt(ctx.identifier)
        for t in _triples(ctx, adapt):
            yield t + (g,)


def _graph_term(ds: ConjunctiveGraph, adapt):
    """A function from a context (Graph or identifier) to its jelly graph term."""
    default_ids = {default_graph(ds).identifier, DATASET_DEFAULT_GRAPH_ID}

    def term(ctx):
        ident = ctx.identifier if isinstance(ctx, Graph) else ctx
        return DEFAULT_GRAPH if ident in default_ids else adapt(ident)
    return term


#: A dataset whose quads outnumber its distinct triples by this much is written triple by
#: triple (all graphs of a triple together), otherwise graph by graph.
SHARED_TRIPLES_RATIO = 1.5


def _quads(ds: ConjunctiveGraph, adapt) -> Iterable[tuple]:
    """The quads of a dataset in the order that compresses best: graph by graph (the graph
    term then repeats), unless many triples are in several graphs (versions of one graph,
    say): then triple by triple, all graphs of a triple together, so that only the graph term
    changes from one quad to the next.  Within either, grouped by subject and predicate."""
    ix = memory_indexes(ds.store)
    if ix is not None:
        triples = len(ix.context_triples.get(None, ()))
        quads = sum(len(v) for k, v in ix.context_triples.items() if k is not None)
        if quads >= SHARED_TRIPLES_RATIO * triples and triples:
            return _walk_quads(ix.spo, ix.triple_contexts, ix.default_contexts,
                               ix.context_objects, _graph_term(ds, adapt), adapt)
    return _graphs_of(ds, adapt)


def _walk_quads(spo, triple_contexts, default_contexts, context_objects, term, adapt):
    # The Memory store records, per triple, the contexts it is in (the triples whose contexts
    # are those of the first triple ever added share one record).
    graph_of: dict = {}     # context key -> graph term
    get = triple_contexts.get
    lookup = adapt.lookup
    for s, po in spo.items():
        js = adapt(s)
        for p, objects in po.items():
            jp = adapt(p)
            for o in objects:
                e = lookup(id(o))
                jo = e[1] if e is not None and e[0] is o else adapt(o)
                for key, quoted in get((s, p, o), default_contexts).items():
                    if key is None or quoted:
                        continue
                    g = graph_of.get(key)
                    if g is None:
                        g = graph_of[key] = term(context_objects[key])
                    yield (js, jp, jo, g)


def _statements(graph: Graph, physical: PhysicalStreamType, adapt) -> Iterable[tuple]:
    """What the writer gets for ``graph``: jelly-term triples for a Graph in a TRIPLES stream,
    quads otherwise (a Graph's triples in the default graph)."""
    if _is_dataset(graph):
        if physical == PhysicalStreamType.GRAPHS:
            return _graphs_of(graph, adapt)
        return _quads(graph, adapt)
    triples = _triples(graph, adapt)
    if physical == PhysicalStreamType.TRIPLES:
        return triples
    return (t + (DEFAULT_GRAPH,) for t in triples)


def _writer(destination, graph, kwargs: dict, grouped: bool):
    """(Writer, term adapter, namespaces) for the serializer keyword arguments.  The namespace
    declarations are made by the writer for flat streams, left to the caller for grouped
    ones."""
    _check_kwargs(kwargs)
    options = kwargs.pop("options", None)
    namespaces = _namespaces_of(graph, kwargs.pop("namespaces", None)) \
        if graph is not None else {}
    fields = {k: kwargs.pop(k) for k in _OPTION_FIELDS if kwargs.get(k) is not None}
    if options is not None:
        if not isinstance(options, StreamOptions):
            raise JellyOptionsError(f"options must be a jelly.StreamOptions, not "
                                    f"{type(options).__name__}")
        options = options.replace(version=None)   # the writer picks 1 or 2 from what is used
    options = make_options(options, quads=graph is not None and _is_dataset(graph),
                           grouped=grouped, **fields)
    rows = kwargs.pop("rows_per_frame", None)
    delimited = kwargs.pop("delimited", None)
    adapter = make_term_adapter()
    writer = Writer(destination, options,
                    rows_per_frame=DEFAULT_ROWS_PER_FRAME if rows is None else rows,
                    delimited=True if delimited is None else delimited,
                    namespaces=None if grouped else namespaces, term_adapter=adapter)
    return writer, adapter, namespaces


def serialize(graph: Graph, destination=None, **kwargs):
    """Write an rdflib Graph (TRIPLES) or Dataset (QUADS; ``physical_type="graphs"`` for
    GRAPHS) as a Jelly stream, flat unless a grouped ``logical_type`` is given (then as its
    elements, a frame each: see :func:`jelly.writer.write_elements`); returns the bytes when
    ``destination`` is None.

    ``destination``: a path (``.gz`` compresses), a binary file object or None.  Keyword
    arguments: the core writer's options (``preset``, ``max_name_table_size``,
    ``max_prefix_table_size``, ``max_datatype_table_size``, ``physical_type``,
    ``logical_type``, ``generalized_statements``, ``rdf_star``, ``stream_name``, or a whole
    ``options=jelly.StreamOptions``), ``rows_per_frame``, ``delimited`` and ``namespaces``
    (``None``: the graph's own bindings, without rdflib's defaults; ``True``: all bindings;
    ``False``: none; or a mapping of prefix to namespace).

    Statements are written grouped by subject (and by graph for GRAPHS streams), blank nodes
    with short labels of their own.
    """
    writer = _serialize(graph, destination, kwargs)
    return writer.getvalue() if destination is None else None


def _serialize(graph: Graph, destination, kwargs: dict) -> Writer:
    writer, adapt, _ = _writer(destination, graph, dict(kwargs), grouped=False)
    with writer:
        physical = writer.options.physical_type
        if writer.delimited and is_grouped(int(writer.options.logical_type)):
            # Its elements, a frame each (one graph or dataset, or one per subject or graph):
            # a dataset graph by graph.
            if _is_dataset(graph) and physical == PhysicalStreamType.QUADS:
                write_elements(writer, _graphs_of(graph, adapt))
            else:
                write_elements(writer, _statements(graph, physical, adapt))
        else:
            writer.write_all(_statements(graph, physical, adapt))
    return writer


def _declaring(writer: Writer, namespaces: dict, statements) -> Iterator[tuple]:
    # Declarations made before the first write_frame() would be flushed by it as a frame of
    # their own (an extra, empty message); made from inside it they open the first frame.
    for name, iri in namespaces.items():
        writer.declare_namespace(name, iri)
    yield from statements


def _items(messages):
    for item in messages:
        if isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], Graph):
            yield item[0], item[1]
        elif isinstance(item, Graph):
            yield item, None
        else:
            raise JellyError(f"serialize_grouped() takes rdflib Graphs or Datasets (or "
                             f"(graph, metadata) pairs), not {type(item).__name__}")


def serialize_grouped(messages: Iterable, destination=None, **kwargs):
    """Write each rdflib Graph or Dataset of ``messages`` as one frame (an RDF message stream);
    returns the bytes when ``destination`` is None.

    Graphs are consumed one at a time (an iterator or generator keeps memory to one frame).
    The first item decides the physical type (Graph: TRIPLES, Dataset: QUADS, or
    ``physical_type="graphs"``) and the namespace declarations (its own bindings, see
    :func:`serialize`); the logical type is GRAPHS or DATASETS unless given.  An item may be a
    ``(graph, metadata)`` pair, ``metadata`` a mapping of str to bytes written as the frame's
    metadata.  Other keyword arguments are those of :func:`serialize` (``rows_per_frame`` does
    not apply: a frame holds one message).  Blank nodes are scoped per frame.
    """
    writer = _serialize_grouped(messages, destination, kwargs)
    return writer.getvalue() if destination is None else None


def _serialize_grouped(messages: Iterable, destination, kwargs: dict) -> Writer:
    items = _items(messages)
    first = next(items, None)
    writer, adapt, namespaces = _writer(destination, first[0] if first is not None else None,
                                        dict(kwargs), grouped=True)
    with writer:
        if first is not None:
            physical = writer.options.physical_type
            writer.write_frame(_declaring(writer, namespaces,
                                          _statements(first[0], physical, adapt)), first[1])
            for graph, metadata in items:
                adapt.new_scope()     # blank nodes are scoped per message
                writer.write_frame(_statements(graph, physical, adapt), metadata)
    return writer
