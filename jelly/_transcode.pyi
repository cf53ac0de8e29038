"""Frame transcoder (stub of the compiled ``jelly._transcode``).

Frames of Jelly streams re-encoded as the frames of one output stream with other options,
without building RDF terms: the core decoder reads each frame into *wire values* (IRIs as the
prefix and name the stream wrote, literals as strings, blank nodes as labels, quoted triples as
tuples) and the core encoder writes them with its own lookups, ids and repeated terms.  Any
table sizes work, several input streams merge into one output, and an output can start at any
frame.  Output options that cannot hold an input stream are refused when it starts.
"""

from typing import Any, Callable, Final, final

from typing_extensions import Buffer, TypeAlias

from ._decoder import Frame
from ._lookup import IriSplit
from ._sink import TermFactory
from .options import ReaderLimits, StreamOptions

#: What output options may be: options, None (the first input stream's), or a function of the
#: first input stream's options.
_Options: TypeAlias = "StreamOptions | Callable[[StreamOptions], StreamOptions] | None"

@final
class WireIri(IriSplit):
    """An IRI as a stream wrote it: a prefix and a name."""

    @property
    def value(self) -> str:
        """The IRI."""
    @property
    def parts(self) -> tuple[str, str]:
        """``(prefix, name)`` as the stream wrote them."""

@final
class WireLiteral:
    """A literal as a stream wrote it."""

    @property
    def lex(self) -> str: ...
    @property
    def language(self) -> str | None: ...
    @property
    def datatype(self) -> WireIri | None: ...

@final
class WireTerms(TermFactory):
    """Terms as wire values: ``WireIri``, ``WireLiteral``, blank node labels (``str``), quoted
    triples as ``(s, p, o)`` tuples, and jelly's ``DEFAULT_GRAPH``."""

    def __init__(self) -> None: ...

@final
class WireDecoder:
    """Decodes the frames of one input stream (in order) into wire values, validating them as
    the reader does (strict: RDF-star and generalized terms must be announced)."""

    def __init__(self, *, limits: ReaderLimits | None = None, new_streams: bool = True) -> None: ...
    def decode(self, data: Buffer, offset: int = 0, collect: bool = True) -> Frame:
        """Decode one frame (the bytes of an ``RdfStreamFrame``): a :class:`jelly.Frame` whose
        statements are wire-value tuples (none unless ``collect``; ``statement_count`` counts
        them either way)."""
    @property
    def options(self) -> StreamOptions | None:
        """The input stream's options (None before its options row)."""
    @property
    def in_graph(self) -> bool:
        """True when the frames so far end inside a graph of a GRAPHS stream."""
    @property
    def frames(self) -> int:
        """Frames decoded so far."""

def check_output(output: StreamOptions, input: StreamOptions) -> None:
    """Raise :class:`JellyOptionsError` if a stream with options ``output`` cannot hold the
    statements of a stream with options ``input`` (what the input declares, not what it uses:
    a later frame may use it)."""

@final
class FrameRewriter:
    """One output stream written from the decoded frames (:meth:`WireDecoder.decode`) of any
    number of input streams, each frame re-encoded with the output's own lookups, ids and
    repeated terms.

    ``options`` are the output's: :class:`StreamOptions`, ``None`` (those of the first input
    stream) or a function of the first input stream's options returning them; with version
    ``None`` the first input stream's version is kept (1 or 2).  Namespace declarations are
    written only in version 2 streams (they are cosmetic and version 1 has none).
    ``continue_stream=True`` continues an output whose options row was already sent (e.g. a
    subscriber that so far received another stream's frames unchanged): nothing written from
    here on depends on what came before; ``graph_open``: that stream is inside a graph
    (GRAPHS), which the next statement closes.  ``segment_size=N`` writes a segmented stream,
    as :class:`jelly.Writer` does: a self-contained segment starts at the stream's start and
    with the next frame once N statements were written since the last one (a graph open at
    that frame's end is ended and started again).
    """

    def __init__(self, options: _Options = None, *, continue_stream: bool = False,
                 graph_open: bool = False, segment_size: int | None = None) -> None: ...
    @property
    def options(self) -> StreamOptions | None:
        """The output options (None until the first frame settles an automatic version)."""
    @property
    def statements(self) -> int:
        """Statements written so far."""
    @property
    def frames_written(self) -> int:
        """Frames written so far."""
    def check(self, input_options: StreamOptions) -> None:
        """Raise :class:`JellyOptionsError` if this output cannot hold a stream with
        ``input_options``."""
    def restart(self) -> None:
        """Start the output stream afresh: the next frame begins with the options row."""
    def write(self, frame: Frame, input_options: StreamOptions, in_graph: bool = False,
              delimited: bool = False) -> bytes:
        """The bytes of the output frame (after its length as a varint when ``delimited``) for
        one decoded input frame of a stream with ``input_options``; ``in_graph``: the input
        frame ends inside a graph (GRAPHS).  Every input frame gives one output frame (possibly
        without rows)."""

@final
class Transcoder:
    """Frames of Jelly streams in, frames of one stream with ``options`` out; one output frame
    for each input frame.

    Frames of one input stream are fed in order with :meth:`transcode_frame`;
    :meth:`next_input` says a new input stream starts (a concatenated stream whose options
    differ is also recognised on its own).  ``options`` and ``segment_size``: as for
    :class:`FrameRewriter` (None keeps the first input stream's options; writes no segments).
    ``limits`` caps what input streams may declare, as for a reader.
    """

    def __init__(self, options: _Options = None, *, limits: ReaderLimits | None = None,
                 segment_size: int | None = None) -> None: ...
    def next_input(self) -> None:
        """The next frame starts a new input stream."""
    def restart(self) -> None:
        """Start the output afresh at the next frame: options row, empty tables."""
    def transcode_frame(self, data: Buffer, offset: int = 0, delimited: bool = False) -> bytes:
        """The output frame (bytes; after its length as a varint when ``delimited``) for one
        input frame (the bytes of an ``RdfStreamFrame`` in any buffer; ``offset`` is its
        position in its input, for errors)."""
    @property
    def inputs(self) -> int:
        """Input streams so far."""
    @property
    def options(self) -> StreamOptions | None:
        """The output stream options (None before the first frame)."""
    @property
    def input_options(self) -> StreamOptions | None:
        """The options of the current input stream."""
    @property
    def frames(self) -> int:
        """Output frames written so far."""
    @property
    def statements(self) -> int:
        """Statements written so far."""
