// The Apache Jena side of the interop tests: one JVM serves many conversions (tests/peers/jena.py
// compiles and starts it).  Commands come on stdin, one per line, fields separated by tabs; each
// gets one answer line on stdout: "ok" or "error<TAB>message".
//
//   rdf     IN_LANG IN_FILE OUT_FORMAT OUT_FILE   parse RDF, write it streaming
//   results IN_LANG IN_FILE OUT_FORMAT OUT_FILE   read a SPARQL result set, write it
//
// OUT_FORMAT: RDF-THRIFT, RDF-THRIFT-VALUES, RDF-PROTO, RDF-PROTO-VALUES (Jena 4.5's own writer
// ignores "values" for protobuf, so that one is built here from Jena's term conversion), NQUADS;
// for results: SRT, SRT-VALUES, SRP, SRJ.
import java.io.*;
import java.nio.charset.StandardCharsets;

import org.apache.jena.atlas.io.IO;
import org.apache.jena.graph.Triple;
import org.apache.jena.query.ResultSet;
import org.apache.jena.riot.*;
import org.apache.jena.riot.protobuf.ProtobufConvert;
import org.apache.jena.riot.protobuf.ProtobufRDF;
import org.apache.jena.riot.protobuf.wire.PB_RDF.RDF_PrefixDecl;
import org.apache.jena.riot.protobuf.wire.PB_RDF.RDF_StreamRow;
import org.apache.jena.riot.resultset.ResultSetLang;
import org.apache.jena.riot.system.StreamRDF;
import org.apache.jena.riot.system.StreamRDFBase;
import org.apache.jena.riot.system.StreamRDFWriter;
import org.apache.jena.riot.thrift.ThriftRDF;
import org.apache.jena.sparql.core.Quad;
import org.apache.jena.sparql.exec.RowSet;
import org.apache.jena.sys.JenaSystem;

public class JenaPeer {
    public static void main(String[] args) throws Exception {
        JenaSystem.init();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), true, "UTF-8");
        System.setOut(System.err);          // nothing but answers on the protocol stream
        out.println("ready");
        String line;
        while ((line = in.readLine()) != null) {
            String[] f = line.split("\t", -1);
            try {
                if (f.length != 5)
                    throw new IllegalArgumentException("expected 5 fields, got " + f.length);
                if (f[0].equals("rdf"))
                    rdf(f[1], f[2], f[3], f[4]);
                else if (f[0].equals("results"))
                    results(f[1], f[2], f[3], f[4]);
                else
                    throw new IllegalArgumentException("unknown command " + f[0]);
                out.println("ok");
            } catch (Throwable t) {
                String msg = String.valueOf(t);
                for (Throwable c = t.getCause(); c != null; c = c.getCause())
                    msg += " / caused by " + c;
                out.println("error\t" + msg.replace('\n', ' ').replace('\t', ' '));
            }
        }
    }

    static Lang lang(String name) {
        Lang l = RDFLanguages.nameToLang(name);
        if (l == null)
            throw new IllegalArgumentException("unknown language " + name);
        return l;
    }

    static Lang resultLang(String name) {
        switch (name) {
            case "SRJ": return ResultSetLang.RS_JSON;
            case "SRT": return ResultSetLang.RS_Thrift;
            case "SRP": return ResultSetLang.RS_Protobuf;
            default: throw new IllegalArgumentException("unknown result set language " + name);
        }
    }

    static void rdf(String inLang, String inFile, String format, String outFile) throws IOException {
        try (OutputStream os = new BufferedOutputStream(new FileOutputStream(outFile))) {
            StreamRDF dest;
            switch (format) {
                case "RDF-THRIFT": dest = ThriftRDF.streamToOutputStream(os, false); break;
                case "RDF-THRIFT-VALUES": dest = ThriftRDF.streamToOutputStream(os, true); break;
                case "RDF-PROTO": dest = ProtobufRDF.streamToOutputStream(os, false); break;
                case "RDF-PROTO-VALUES": dest = new ProtoValues(os); break;
                case "NQUADS": dest = StreamRDFWriter.getWriterStream(os, RDFFormat.NQUADS); break;
                default: throw new IllegalArgumentException("unknown format " + format);
            }
            RDFParser.source(inFile).lang(lang(inLang)).parse(dest);
            os.flush();
        }
    }

    static void results(String inLang, String inFile, String format, String outFile) throws IOException {
        try (InputStream in = new BufferedInputStream(new FileInputStream(inFile));
             OutputStream os = new BufferedOutputStream(new FileOutputStream(outFile))) {
            // Read lazily from the open stream while writing.
            ResultSet rs = ResultSetMgr.read(in, resultLang(inLang));
            switch (format) {
                case "SRT": ResultSetMgr.write(os, rs, ResultSetLang.RS_Thrift); break;
                case "SRT-VALUES": ThriftRDF.writeRowSet(os, RowSet.adapt(rs), true); break;
                case "SRP": ResultSetMgr.write(os, rs, ResultSetLang.RS_Protobuf); break;
                case "SRJ": ResultSetMgr.write(os, rs, ResultSetLang.RS_JSON); break;
                default: throw new IllegalArgumentException("unknown format " + format);
            }
            os.flush();
        }
    }

    /** Delimited RDF_StreamRow with value forms, through Jena's own term conversion. */
    static class ProtoValues extends StreamRDFBase {
        final OutputStream os;
        ProtoValues(OutputStream os) { this.os = os; }
        void row(RDF_StreamRow r) {
            try { r.writeDelimitedTo(os); } catch (IOException e) { throw new UncheckedIOException(e); }
        }
        @Override public void triple(Triple t) {
            row(RDF_StreamRow.newBuilder().setTriple(ProtobufConvert.convert(t, true)).build());
        }
        @Override public void quad(Quad q) {
            if (q.isTriple() || q.isDefaultGraph()) { triple(q.asTriple()); return; }
            row(RDF_StreamRow.newBuilder().setQuad(ProtobufConvert.convert(q, true)).build());
        }
        @Override public void prefix(String prefix, String iri) {
            row(RDF_StreamRow.newBuilder().setPrefixDecl(
                RDF_PrefixDecl.newBuilder().setPrefix(prefix).setUri(iri)).build());
        }
        @Override public void finish() { IO.flush(os); }
    }
}
