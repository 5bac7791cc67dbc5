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
	for _, dir := range []string{"testdata/fuzz/*", "../envelope/*/testdata/fuzz/*", "../internal/importer/claudecode/testdata/fuzz/*", "../internal/jsontree/testdata/fuzz/*"} {
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
		checkJCS(t, b, got, err) // the second oracle: jcs_oracle_test.go
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

// payloadEdgeCases are data where encoding/json's struct decoding has a
// quirk the fast path must leave to it: keys matched regardless of case or
// through escapes, repeated keys, nulls, numbers an int does not hold.
var payloadEdgeCases = []struct {
	typ  Type
	data string
}{
	{TurnStarted, `{"turn":1}`}, {TurnStarted, ` {"turn":1} `}, {TurnStarted, "\n{\"turn\" : 2 ,\t\"sender\":\"a\"}"},
	{TurnStarted, `{"Turn":1}`}, {TurnStarted, `{"TURN":1,"turn":2}`}, {TurnStarted, `{"turn":2,"TURN":1}`},
	{TurnStarted, `{"tu\u0072n":1}`}, {TurnStarted, `{"turn":1,"turn":2}`}, {TurnStarted, `{"turn":1.0}`},
	{TurnStarted, `{"turn":-0}`}, {TurnStarted, `{"turn":-1}`}, {TurnStarted, `{"turn":1e2}`}, {TurnStarted, `{"turn":999999999}`},
	{TurnStarted, `{"turn":1000000000}`}, {TurnStarted, `{"turn":9223372036854775807}`}, {TurnStarted, `{"turn":9223372036854775808}`},
	{TurnStarted, `{"turn":null}`}, {TurnStarted, `{"turn":"1"}`}, {TurnStarted, `{"turn":true}`}, {TurnStarted, `{"turn":[1]}`},
	{TurnStarted, `{"turn":1,"sender":null}`}, {TurnStarted, `{"sender":"\ud800x\u00e9\"\\"}`}, {TurnStarted, "{\"sender\":\"\xff\xe2\x82\"}"},
	{TurnStarted, `{"sender":"é😀"}`}, {TurnStarted, `{"external":1}`}, {TurnStarted, `{"external":null}`}, {TurnStarted, `{"external":false}`},
	{TurnStarted, `{"extra":1}`}, {TurnStarted, `{"turn":1,"extra":{"a":[1,{"b":null}]}}`}, {TurnStarted, `{"ſender":"x"}`},
	{TurnStarted, `null`}, {TurnStarted, `[]`}, {TurnStarted, `{}`}, {TurnStarted, ``}, {TurnStarted, `{"turn":1} x`},
	{TurnStarted, `{"turn":1}{}`}, {TurnStarted, `{"turn":1`}, {TurnStarted, `"turn"`}, {TurnStarted, `{"turn":1,"turn":"x"}`},
	{TurnStarted, `{"turn":"x","turn":1}`}, {TurnStarted, `{"turn":1e400}`},
	{ToolChecked, `{"turn":1,"tool":"Bash","call":"b1","input":"make"}`}, {ToolChecked, `{"input":{"a":[1,2,{"b":null}]} }`},
	{ToolChecked, `{"input":null}`}, {ToolChecked, `{"input":[1, 2]}`}, {ToolChecked, `{"input": 1.5e3 }`}, {ToolChecked, `{"input":true}`},
	{ToolChecked, `{"input":{},"input":{"a":1}}`}, {ToolChecked, `{"Input":{}}`}, {ToolChecked, `{"input":"\u00e9\ud800"}`},
	{ToolChecked, `{"input":{"a":1e400}}`}, {ToolChecked, `{"tool":"","call":""}`},
	{ToolChecked, `{"turn":1,"tool":"Bash","call":"b1","effect":true}`}, {ToolChecked, `{"turn":1,"tool":"Bash","effect":true}`},
	{ToolChecked, `{"turn":1,"tool":"Bash","call":"","effect":true}`}, {ToolChecked, `{"turn":1,"tool":"Bash","effect":false}`},
	{ToolChecked, `{"turn":1,"tool":"Bash","call":"b1","effect":1}`}, {ToolChecked, `{"turn":1,"tool":"Bash","call":"b1","effect":null}`},
	{EffectStarted, `{"turn":1,"tool":"Bash","call":"b1","prepared_at":5}`}, {EffectStarted, `{"prepared_at":18446744073709551615}`},
	{EffectStarted, `{"prepared_at":18446744073709551616}`}, {EffectStarted, `{"prepared_at":9999999999999999999}`},
	{EffectStarted, `{"prepared_at":-1}`}, {EffectStarted, `{"prepared_at":-0}`}, {EffectStarted, `{"prepared_at":0}`},
	{EffectStarted, `{"prepared_at":1.5}`}, {EffectStarted, `{"prepared_at":null}`}, {EffectStarted, `{"prepared_at":"5"}`},
	{SessionStarted, `{"agent":"main","sandboxed":true,"owner":true,"tools":["read","exec"],"mode":"plan","coordinator":false}`},
	{SessionStarted, `{"tools":[]}`}, {SessionStarted, `{"tools":null}`}, {SessionStarted, `{"tools":["a",null]}`},
	{SessionStarted, `{"tools":"a"}`}, {SessionStarted, `{"tools":["a"],"tools":["b","c"]}`}, {SessionStarted, `{"tools":[["a"]]}`},
	{SessionStarted, `{"tools":["a",1]}`}, {SessionStarted, `{"sandboxed":null}`}, {SessionStarted, `{"sandboxed":false}`},
	{SessionStarted, `{"tools":["\u00e9","\ud800",""]}`},
	{SessionSpawned, `{"parent":"p","agent":"a","label":"l","sandboxed":true,"background":false,"fork":true,"teammate":true,"hidden":true,"tools":["x"]}`},
	{SessionYielded, `{"children":["a","b"]}`}, {SessionYielded, `{"children":[]}`}, {SessionYielded, `{"children":null}`},
	{SessionCompleted, `{"status":"ok"}`}, {SessionCompleted, `{"status":1}`},
	{SessionResumed, `{"handoff":"settle_batch","batch":"b","from":["a","b"]}`}, {SessionResumed, `{"batch":null}`},
	{SessionResumed, `{"batch":"","from":[]}`},
	{GrantAdded, `{"kind":"permission","agent":"*","target":"*","behavior":"allow","rule":"Bash(make)"}`},
	{GrantRevoked, `{"kind":"delegate_tools","agent":"a","target":"b","tools":["read"]}`},
	{PolicySet, `{"dialect":"openclaw","document":{"tools":{"deny":["x"]}},"catalogue":["read","exec"]}`},
	{PolicySet, `{"document":null}`}, {PolicySet, `{"document":[]}`}, {PolicySet, `{"document":"x"}`},
	{PolicySet, `{"document":{"a":1},"document":{"b":2}}`}, {PolicySet, `{"catalogue":[]}`},
	{"", `{}`}, {"turn.Started", `{"turn":1}`}, {"nope", `x`},
}

// payloadSeeds returns the (type, data) pairs FuzzPayloadDiff starts from:
// the edge cases, the data of every event and record among the seeds, and
// the JSON edge cases as data of each type in turn.
func payloadSeeds(tb testing.TB) []Event {
	tb.Helper()
	var out []Event
	for _, c := range payloadEdgeCases {
		out = append(out, Event{Type: c.typ, Data: json.RawMessage(c.data)})
	}
	for i, s := range edgeCases {
		out = append(out, Event{Type: Types[i%len(Types)], Data: json.RawMessage(s)})
	}
	for _, s := range seeds(tb) {
		var ev struct {
			Type Type            `json:"type"`
			Data json.RawMessage `json:"data"`
		}
		if json.Unmarshal(s, &ev) == nil && ev.Data != nil {
			out = append(out, Event{Type: ev.Type, Data: ev.Data})
		}
	}
	return out
}

func FuzzPayloadDiff(f *testing.F) {
	for _, ev := range payloadSeeds(f) {
		f.Add(string(ev.Type), []byte(ev.Data))
	}
	f.Fuzz(func(t *testing.T, typ string, data []byte) {
		checkPayload(t, &Event{Type: Type(typ), Data: data})
	})
}

// checkPayload compares ev.Payload with oraclePayload, and checks that
// what Payload returns does not share memory with ev.Data.
func checkPayload(t *testing.T, ev *Event) {
	t.Helper()
	got, err := ev.Payload()
	want, werr := oraclePayload(ev)
	if errText(err) != errText(werr) || CodeOf(err) != CodeOf(werr) || !reflect.DeepEqual(got, want) {
		t.Fatalf("Payload of %s %q\n got  %#v, %v\n want %#v, %v", ev.Type, ev.Data, got, err, want, werr)
	}
	for i := range ev.Data {
		ev.Data[i] = 'x'
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Payload of %s: the value changed with the data it came from", ev.Type)
	}
}

// TestPayloadRandomDiff compares Payload with the oracle on objects built
// from each type's own keys, near misses of them, and values of every
// kind: byte mutation rarely makes a well-formed payload with one thing
// wrong.
func TestPayloadRandomDiff(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	values := []string{`1`, `-0`, `0`, `7`, `-3`, `1.0`, `1e2`, `999999999`, `1234567890`, `18446744073709551615`,
		`18446744073709551616`, `"s"`, `""`, `"\u00e9\n"`, `"\ud800"`, "\"\xff\"", `true`, `false`, `null`, `[]`,
		`["a","b"]`, `["a",null]`, `[1]`, `[["a"]]`, `{}`, `{"a":[1,null]}`, ` "x" `}
	samples := map[Type]any{PolicySet: PolicySetData{}, GrantAdded: GrantData{}, GrantRevoked: GrantData{},
		SessionStarted: StartedData{}, SessionSpawned: SpawnedData{}, TurnStarted: TurnData{},
		SessionYielded: YieldedData{}, SessionCompleted: CompletedData{}, SessionResumed: ResumedData{},
		ToolChecked: CheckedData{}, EffectStarted: EffectData{}, DenyAdded: DenyData{}, DenyLifted: DenyData{},
		SessionEnded: EndedData{}, SessionReopened: ReopenedData{}}
	// A value of the JSON kind a field of each Go type takes.
	fitting := map[string][]string{"int": {`1`, `42`, `-0`}, "uint64": {`5`, `0`}, "string": {`"s"`, `"\u00e9"`, `""`},
		"bool": {`true`, `false`}, "*bool": {`true`, `false`}, "*string": {`"b"`}, "[]string": {`["a","b"]`, `[]`},
		"[]events.SessionKey": {`["k"]`}, "json.RawMessage": {`{"a":[1,null]}`, `"x"`},
		"events.SessionKey": {`"p"`}, "events.GrantKind": {`"permission"`}}
	for _, typ := range Types {
		var keys []string
		var fits [][]string
		st := reflect.TypeOf(samples[typ])
		for i := range st.NumField() {
			f := st.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if fitting[f.Type.String()] == nil {
				t.Fatalf("no fitting values for %s", f.Type)
			}
			keys = append(keys, strconv.Quote(name))
			fits = append(fits, fitting[f.Type.String()])
		}
		near := []string{`"other"`, strconv.Quote(strings.ToUpper(keys[0][1 : len(keys[0])-1])),
			`"\u00` + strconv.FormatInt(int64(keys[0][1]), 16) + keys[0][2:]}
		for range 5000 {
			var b strings.Builder
			b.WriteString("{")
			// Most objects are well-formed payloads; some have one thing
			// wrong, or a few.
			wrong := rng.IntN(4)
			for i, k := range rng.Perm(len(keys))[:rng.IntN(len(keys)+1)] {
				if i > 0 {
					b.WriteString(",")
				}
				if wrong > 0 && rng.IntN(3) == 0 {
					wrong--
					b.WriteString([]string{keys[rng.IntN(len(keys))], near[rng.IntN(len(near))], keys[k]}[rng.IntN(3)])
					b.WriteString(":")
					b.WriteString(values[rng.IntN(len(values))])
					continue
				}
				b.WriteString(keys[k])
				b.WriteString(":")
				b.WriteString(fits[k][rng.IntN(len(fits[k]))])
			}
			b.WriteString("}")
			checkPayload(t, &Event{Type: typ, Data: []byte(b.String())})
		}
	}
}

// TestWriteStringDiff: WriteString (used for tool-set hashes) writes what
// the encoding/json-era implementation wrote, invalid UTF-8 included.
func TestWriteStringDiff(t *testing.T) {
	for _, s := range []string{"", "plain", "quote\" back\\slash", "\b\f\n\r\t\x00\x1f\x7f", "é ✓ 😀", "bad \xff\xfe utf8", "\u2028\u2029", "\xed\xa0\x80"} {
		var got, want bytes.Buffer
		got.WriteString("prefix")
		want.WriteString("prefix")
		WriteString(&got, s)
		oracleWriteString(&want, s)
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Errorf("%q: %q, want %q", s, got.Bytes(), want.Bytes())
		}
	}
}
