package events

import (
	"bufio"
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The differential tests: the rewritten JSON paths must accept, refuse and
// produce exactly what the old implementations in oracle_test.go did, on
// every input. Their seeds (which plain `go test` runs) are the package's
// and the repository's fuzz corpora, the conformance scenarios with each
// event they append, the golden records, and the edge cases below.

// edgeCases are inputs where encoding/json's quirks decide the answer.
var edgeCases = []string{
	``, ` `, `null`, `1`, `-0`, `-0.0`, `1e400`, `-1e400`, `1e-400`, `0.1`, `1E+2`, `1e21`, `1e-7`,
	`123456789012345`, `1234567890123456`, `-999999999999999`, `9007199254740993`,
	`{}`, `[]`, `{} `, `{}]`, `{}}`, `[]]`, `{} {}`, `1 2`, `12`, `1x`, `truefalse`, `"a""b"`,
	`{"a":1,"a":2}`, `{"a":1e400,"a":2}`, `{"a":2,"a":1e400}`, `{"a":1,"\u0061":2}`,
	`{"b":1,"a":{"d":1,"c":2,"c":3}}`, `[{"k":1,"k":2}]`, `{"a":[1,2],"a":3}`,
	`{"\ud83d\ude00":1,"\ufb33":2,"a":3}`, `{"😀":1,"דּ":2,"":3}`,
	`"\ud800"`, `"\udc00"`, `"\ud800\u0041"`, `"\ud800\ud800\udc00"`, `"\\ud800"`, `"\ud83d\ude00"`,
	"\"\xff\"", "\"\xe2\x82\"", "{\"\xff\":1,\"\xfe\":2}", "\"\xef\xbf\xbd\"", "\xff",
	`"\u0000\u001f\b\f\n\r\t\"\\\/"`, `"<>&\u2028"`, "\"\x7f\"",
	`{"a":`, `{"a"`, `{"a" 1}`, `{"a":1,}`, `[1,]`, `[,1]`, `{,}`, `{:}`, `{1:2}`, `[1 2]`,
	`"abc`, `tru`, `nul`, `-`, `1.`, `1e`, `1e+`, `01`, `.5`, `+1`, `[-]`, `[1.x]`, `[1ex]`,
	`"\x"`, `"\u12"`, `"\u12x4"`, "\"\t\"", `{"a":1}x`, `{"a":1} x`, `[` + strings.Repeat(`[`, 40),
	strings.Repeat(`[`, 32) + strings.Repeat(`]`, 32), strings.Repeat(`[`, 33) + strings.Repeat(`]`, 33),
	strings.Repeat(`{"a":`, 33) + `1` + strings.Repeat(`}`, 33),
	`{"type":"turn.started","v":1,"actor":"a","session":"s","data":{"turn":1}}`,
	`{"\u0074ype":"turn.started","v":1,"actor":"a","session":"s","data":{"turn":1}}`,
	`{"type":"turn.started","v":1,"actor":"a","session":"s","data":{"\u0074urn":1}}`,
	`{"type":"turn.started","v":1.0,"actor":"a","session":"s","data":{"turn":1}}`,
	`{"type":"turn.started","v":1,"actor":"a","session":"s","data":{"turn":9223372036854775808}}`,
	`{"type":"turn.started","v":1,"actor":"a","session":"s","data":{"turn":1e0}}`,
	`{"type":"session.yielded","v":1,"actor":"a","session":"s","data":{"children":["a",null]}}`,
	`{"type":"session.yielded","v":1,"actor":"a","session":"s","data":{"children":["a",["b"]]}}`,
	`{"id":null,"type":"turn.started","v":1,"actor":"a","session":"s","data":{"turn":1}}`,
	`{"id":"01KDVDNA03RS4R31ATV1M1T3C6","type":"turn.started","v":1,"actor":"a\"b\\c","session":"s","data":{"turn":1}}`,
	`{"type":"turn.started","v":1,"actor":"a","session":"s","data":{"turn":1}} {}`,
	`{"type":"turn.started","v":1,"actor":"a","session":"s","data":{"turn":1}} null`,
	`{"actor":"a","data":{"turn":1},"decided":{"seq":3},"id":"01KDVDNA02201QRKBVQC20FMF2","session":"s","time":"2026-01-01T00:00:00.002Z","type":"turn.started","v":1}`,
	`{"actor":"a","data":null,"decided":null,"id":"01KDVDNA02201QRKBVQC20FMF2","session":null,"time":"t","type":"turn.started","v":1}`,
	`{"Actor":"a","DATA":{},"id":"01KDVDNA02201QRKBVQC20FMF2","type":"turn.started","v":1,"extra":[1]}`,
	`{"actor":"a","id":"01KDVDNA02201QRKBVQC20FMF2","id":"01KDVDNA02201QRKBVQC20FMF3","type":"turn.started","v":1}`,
	`{"actor":"\u00e9\ud800","id":"01KDVDNA02201QRKBVQC20FMF2","type":"turn.started","v":1,"time":"\u0041"}`,
	"{\"actor\":\"\xff\",\"id\":\"01KDVDNA02201QRKBVQC20FMF2\",\"type\":\"turn.started\",\"v\":1}",
	`{"id":"01KDVDNA02201QRKBVQC20FMF2","type":"turn.started","v":"1"}`,
	`{"id":"01KDVDNA02201QRKBVQC20FMF2","type":"turn.started","v":-0}`,
	`{"id":"01KDVDNA02201QRKBVQC20FMF2","type":"turn.started","v":1}]`,
	`{"id":"01KDVDNA02201QRKBVQC20FMF2","type":"turn.started","v":1,"data":{"a":1e400}}`,
}

// seeds returns the inputs the differential tests start from.
func seeds(tb testing.TB) [][]byte {
	tb.Helper()
	var out [][]byte
	for _, s := range edgeCases {
		out = append(out, []byte(s))
	}
	for _, be := range benchEvents {
		out = append(out, []byte(be.event), []byte(be.rec.Data), []byte(be.rec.Decided))
		if b, err := json.Marshal(&be.rec); err == nil {
			out = append(out, b)
		}
	}
	for _, dir := range []string{"testdata/fuzz/*", "../envelope/*/testdata/fuzz/*", "../internal/importer/testdata/fuzz/*"} {
		files, _ := filepath.Glob(filepath.Join(dir, "*"))
		for _, f := range files {
			out = append(out, corpusValues(tb, f)...)
		}
	}
	lines, _ := filepath.Glob("../replay/testdata/golden/records/*.jsonl")
	more, _ := filepath.Glob("../cmd/ledger/testdata/golden/*.jsonl")
	for _, f := range append(lines, more...) {
		b, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		sc := bufio.NewScanner(bytes.NewReader(b))
		sc.Buffer(nil, MaxRecordBytes)
		for sc.Scan() {
			out = append(out, bytes.Clone(sc.Bytes()))
		}
	}
	scenarios, _ := filepath.Glob("../testdata/conformance/*/*.json")
	for _, f := range scenarios {
		b, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, b)
		var sc struct {
			Steps []struct {
				Append map[string]json.RawMessage `json:"append"`
			} `json:"steps"`
		}
		if json.Unmarshal(b, &sc) != nil {
			continue
		}
		for _, st := range sc.Steps {
			if st.Append == nil {
				continue
			}
			// As the scenario runner sends it: with a version and an actor.
			st.Append["v"], st.Append["actor"] = json.RawMessage(`1`), json.RawMessage(`"scenario"`)
			if ev, err := json.Marshal(st.Append); err == nil {
				out = append(out, ev)
			}
		}
	}
	if len(out) < 200 {
		tb.Fatalf("only %d seeds: are the corpora and testdata where they were?", len(out))
	}
	return out
}

// corpusValues reads the string and []byte values of a fuzz corpus file.
func corpusValues(tb testing.TB, path string) [][]byte {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	var out [][]byte
	for _, line := range strings.Split(string(b), "\n") {
		lit, ok := strings.CutPrefix(line, "[]byte(")
		if !ok {
			lit, ok = strings.CutPrefix(line, "string(")
		}
		if !ok || !strings.HasSuffix(lit, ")") {
			continue
		}
		if s, err := strconv.Unquote(strings.TrimSuffix(lit, ")")); err == nil {
			out = append(out, []byte(s))
		}
	}
	return out
}

func addSeeds(f *testing.F) {
	for _, s := range seeds(f) {
		f.Add(s)
	}
}

// errText is err's message, or "" for nil.
func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func FuzzCheckJSONDiff(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		got, want := checkJSON(b), oracleCheckJSON(b)
		if errText(got) != errText(want) || CodeOf(got) != CodeOf(want) {
			t.Fatalf("checkJSON(%q)\n got  %v\n want %v", b, got, want)
		}
	})
}

func FuzzCanonicalDiff(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := CanonicalJSON(b)
		want, werr := oracleCanonicalJSON(b)
		if (err == nil) != (werr == nil) || !bytes.Equal(got, want) {
			t.Fatalf("CanonicalJSON(%q)\n got  %s, %v\n want %s, %v", b, got, err, want, werr)
		}
		if errText(err) != errText(werr) {
			t.Fatalf("CanonicalJSON(%q): error %q, want %q", b, err, werr)
		}
	})
}

// FuzzRecordEncodeDiff compares Record.Encode with the old json.Marshal
// based Canonical, on records made of arbitrary fields.
func FuzzRecordEncodeDiff(f *testing.F) {
	for _, be := range benchEvents {
		r := be.rec
		f.Add(r.ID, string(r.Type), r.V, r.Time, string(r.Session), r.Actor, []byte(r.Data), []byte(r.Decided), false)
	}
	for _, s := range seeds(f) {
		f.Add("\xff<&>\u2028\x01", "x", 1<<60, "", "\"\\", "é", s, s, len(s)%3 == 0)
	}
	f.Fuzz(func(t *testing.T, id, typ string, v int, tm, session, actor string, data, decided []byte, nilDecided bool) {
		r := &Record{ID: id, Type: Type(typ), V: v, Time: tm, Session: SessionKey(session), Actor: actor, Data: data, Decided: decided}
		if nilDecided {
			r.Decided = nil
		}
		got, err := r.Encode()
		want, werr := oracleEncode(r)
		if (err == nil) != (werr == nil) || !bytes.Equal(got, want) {
			t.Fatalf("Encode(%+v)\n got  %s, %v\n want %s, %v", r, got, err, want, werr)
		}
		if c, err := Canonical(r); !bytes.Equal(c, got) || errText(err) != errText(errOrNil(r.Encode())) {
			t.Fatalf("Canonical(r) = %s, %v; Encode gave %s", c, err, got)
		}
	})
}

func errOrNil(_ []byte, err error) error { return err }

func FuzzDecodeRecordDiff(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := DecodeRecord(b)
		want, werr := oracleDecodeRecord(b)
		if errText(err) != errText(werr) || CodeOf(err) != CodeOf(werr) || !reflect.DeepEqual(got, want) {
			t.Fatalf("DecodeRecord(%q)\n got  %+v, %v\n want %+v, %v", b, got, err, want, werr)
		}
	})
}

func FuzzParseDiff(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := Parse(b)
		want, werr := oracleParse(b)
		if errText(err) != errText(werr) || CodeOf(err) != CodeOf(werr) || !reflect.DeepEqual(got, want) {
			t.Fatalf("Parse(%q)\n got  %+v, %v\n want %+v, %v", b, got, err, want, werr)
		}
	})
}

// TestDepthLimit compares at encoding/json's nesting limit, 10000 levels,
// where a record's data may nest one level less than a value alone. These
// inputs are not fuzz seeds: the fuzzer spends minutes minimizing them.
func TestDepthLimit(t *testing.T) {
	for _, depth := range []int{9999, 10000, 10001} {
		b := []byte(strings.Repeat(`[`, depth) + strings.Repeat(`]`, depth))
		got, err := CanonicalJSON(b)
		want, werr := oracleCanonicalJSON(b)
		if !bytes.Equal(got, want) || errText(err) != errText(werr) {
			t.Errorf("CanonicalJSON at depth %d: %v, want %v", depth, err, werr)
		}
		r := &Record{Data: b}
		got, err = r.Encode()
		want, werr = oracleEncode(r)
		if !bytes.Equal(got, want) || (err == nil) != (werr == nil) {
			t.Errorf("Encode with data at depth %d: %v, want %v", depth, err, werr)
		}
		rec := []byte(`{"id":"01KDVDNA02201QRKBVQC20FMF2","type":"turn.started","v":1,"data":` + string(b) + `}`)
		gr, err := DecodeRecord(rec)
		wr, werr := oracleDecodeRecord(rec)
		if !reflect.DeepEqual(gr, wr) || errText(err) != errText(werr) {
			t.Errorf("DecodeRecord with data at depth %d: %v, want %v", depth, err, werr)
		}
	}
}

// TestCanonicalValues checks Canonical on the other values the ledger hashes
// (envelopes pass maps of strings, ints and lists).
func TestCanonicalValues(t *testing.T) {
	for _, v := range []any{
		nil, (*Record)(nil), Record{ID: "x", Data: json.RawMessage(`{"b":1,"a":2}`)},
		map[string]any{"requester": "agent:main:main", "depth": 2, "inherited_allow": []string(nil), "b": true,
			"revision": uint64(1) << 62, "f": 0.1, "s": "<é>\x00", "n": map[string]any{"z": 1, "y": []int{3, 2}}},
		[]string{"b", "a"}, "x", 1.5e300, int64(-1) << 62,
	} {
		got, err := Canonical(v)
		want, werr := oracleCanonical(v)
		if !bytes.Equal(got, want) || errText(err) != errText(werr) {
			t.Errorf("Canonical(%#v)\n got  %s, %v\n want %s, %v", v, got, err, want, werr)
		}
	}
}

// TestRandomJSONDiff compares the rewritten paths with the oracles on JSON
// built from random fragments, well-formed and not: byte mutation rarely
// makes the structures (repeated and escaped keys, bad tokens in each
// state of the grammar) that decide the answers.
func TestRandomJSONDiff(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	fragments := []string{`{`, `}`, `[`, `]`, `:`, `,`, ` `, "\n", `"a"`, `"b"`, `"\u0061"`, `"\ud800"`,
		`"\ud83d\ude00"`, `"דּ"`, "\"\xff\"", `1`, `-0`, `1e400`, `1.5`, `true`, `null`, `"`, `\`, `tru`, `-`,
		`"type"`, `"turn.started"`, `"v"`, `"data"`, `"turn"`, `"actor"`, `"session"`, `"id"`, `x`}
	var value func(b *strings.Builder, depth int)
	value = func(b *strings.Builder, depth int) {
		switch r := rng.IntN(10); {
		case r < 2 && depth < 4:
			b.WriteString("{")
			for i := range rng.IntN(4) {
				if i > 0 {
					b.WriteString(",")
				}
				b.WriteString([]string{`"a"`, `"b"`, `"\u0061"`, `"😀"`, `"דּ"`, `"turn"`, `"type"`}[rng.IntN(7)])
				b.WriteString(":")
				value(b, depth+1)
			}
			b.WriteString("}")
		case r < 4 && depth < 4:
			b.WriteString("[")
			for i := range rng.IntN(4) {
				if i > 0 {
					b.WriteString(",")
				}
				value(b, depth+1)
			}
			b.WriteString("]")
		default:
			b.WriteString([]string{`1`, `-0`, `1e400`, `0.1`, `"s"`, `"\u00e9\n"`, `true`, `null`, `123456789012345678`}[rng.IntN(9)])
		}
	}
	for range 20000 {
		var b strings.Builder
		if rng.IntN(2) == 0 {
			for range rng.IntN(12) {
				b.WriteString(fragments[rng.IntN(len(fragments))])
			}
		} else {
			value(&b, 0)
		}
		in := []byte(b.String())
		if rng.IntN(3) == 0 && len(in) > 0 { // one more fragment somewhere
			at := rng.IntN(len(in))
			in = slices.Concat(in[:at], []byte(fragments[rng.IntN(len(fragments))]), in[at:])
		}
		if got, want := checkJSON(in), oracleCheckJSON(in); errText(got) != errText(want) {
			t.Fatalf("checkJSON(%q)\n got  %v\n want %v", in, got, want)
		}
		got, err := CanonicalJSON(in)
		want, werr := oracleCanonicalJSON(in)
		if !bytes.Equal(got, want) || errText(err) != errText(werr) {
			t.Fatalf("CanonicalJSON(%q)\n got  %s, %v\n want %s, %v", in, got, err, want, werr)
		}
		r := &Record{Data: in}
		got, err = r.Encode()
		want, werr = oracleEncode(r)
		if !bytes.Equal(got, want) || (err == nil) != (werr == nil) {
			t.Fatalf("Encode with data %q\n got  %s, %v\n want %s, %v", in, got, err, want, werr)
		}
		ev := []byte(`{"type":"tool.checked","v":1,"actor":"a","session":"s","data":{"turn":1,"tool":"x","input":` + string(in) + `}}`)
		for _, b := range [][]byte{in, ev} {
			gp, err := Parse(b)
			wp, werr := oracleParse(b)
			if !reflect.DeepEqual(gp, wp) || errText(err) != errText(werr) {
				t.Fatalf("Parse(%q)\n got  %+v, %v\n want %+v, %v", b, gp, err, wp, werr)
			}
		}
		rec := []byte(`{"actor":"a","data":` + string(in) + `,"id":"01KDVDNA02201QRKBVQC20FMF2","type":"turn.started","v":1}`)
		gr, err := DecodeRecord(rec)
		wr, werr := oracleDecodeRecord(rec)
		if !reflect.DeepEqual(gr, wr) || errText(err) != errText(werr) {
			t.Fatalf("DecodeRecord(%q)\n got  %+v, %v\n want %+v, %v", rec, gr, err, wr, werr)
		}
	}
}
