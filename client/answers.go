package client

import (
	"bytes"
	"encoding/json"
	"math"

	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/wire"
)

// decodeAnswer decodes an answer into out as json.Unmarshal does. A check's
// answer (a recorded check's, on the path of every enforced call) is read
// by hand when it has the form the API writes (internal/api's
// appendCheckResult) and out is still zero; anything else is
// encoding/json's. The two give the same value and error
// (TestDecodeCheckResult, FuzzDecodeCheckResult).
func decodeAnswer(data []byte, out any) error {
	if r, ok := out.(*wire.CheckResult); ok && *r == (wire.CheckResult{}) {
		if c, ok := readCheckResult(data); ok {
			*r = c
			return nil
		}
	}
	if o, ok := out.(*[]wire.AppendOutcome); ok && *o == nil {
		if outs, ok := readOutcomes(data); ok {
			*o = outs
			return nil
		}
	}
	return json.Unmarshal(data, out)
}

// readOutcomes reads a batch append's answer in which every event was
// appended or a duplicate: `[{"seq":N,"id":S[,"duplicate":true]},...]`
// with nothing around it, as the API writes it (internal/api's
// appendOutcome), each S and N as str and uint read them; false for
// anything else (a refusal's error among them). Its ids share one
// allocation.
func readOutcomes(data []byte) ([]wire.AppendOutcome, bool) {
	r := answerReader{b: data, text: make([]byte, 0, len(data))}
	n := bytes.Count(data, []byte(`{"seq":`))
	if n == 0 {
		return nil, false
	}
	outs := make([]wire.AppendOutcome, n)
	var idSpans [64]span
	ids := idSpans[:0]
	r.lit("[")
	for i := range outs {
		if i > 0 {
			r.lit(",")
		}
		outs[i].Seq = r.uint(`{"seq":`)
		ids = append(ids, r.str(`,"id":`))
		outs[i].Duplicate = r.next(`,"duplicate":true`)
		r.lit("}")
	}
	r.lit("]")
	if r.bad || r.i != len(data) {
		return nil, false
	}
	all := string(r.text)
	for i := range outs {
		outs[i].ID = ids[i].of(all)
	}
	return outs, true
}

// readCheckResult reads `{"session":S,"scope":S,"seq":N,"tool":S,
// "decision":S,"reason":{"code":S[,"rule":S][,"record":{"seq":N,"id":S,
// "type":S}]}[,"recorded":N]}` with nothing around it, each S a string
// without escapes and each N a plain unsigned integer; false for anything
// else. Its strings share one allocation.
func readCheckResult(data []byte) (wire.CheckResult, bool) {
	var text [256]byte
	r := answerReader{b: data, text: text[:0]}
	var c wire.CheckResult
	var rule, id, typ span
	session := r.str(`{"session":`)
	scope := r.str(`,"scope":`)
	c.Seq = r.uint(`,"seq":`)
	tool := r.str(`,"tool":`)
	decision := r.str(`,"decision":`)
	code := r.str(`,"reason":{"code":`)
	if r.next(`,"rule":`) {
		rule = r.str("")
	}
	if r.next(`,"record":`) {
		c.Reason.Record = &envelope.RecordRef{Seq: r.uint(`{"seq":`)}
		id, typ = r.str(`,"id":`), r.str(`,"type":`)
		r.lit("}")
	}
	r.lit("}")
	if r.next(`,"recorded":`) {
		c.Recorded = r.uint("")
	}
	r.lit("}")
	if r.bad || r.i != len(data) {
		return wire.CheckResult{}, false
	}
	all := string(r.text)
	c.Session, c.Scope, c.Tool = events.SessionKey(session.of(all)), scope.of(all), tool.of(all)
	c.Decision, c.Reason.Code, c.Reason.Rule = envelope.Decision(decision.of(all)), code.of(all), rule.of(all)
	if ref := c.Reason.Record; ref != nil {
		ref.ID, ref.Type = id.of(all), events.Type(typ.of(all))
	}
	return c, true
}

// span is where a string is in the reader's text.
type span struct{ i, j int }

func (s span) of(all string) string { return all[s.i:s.j] }

// answerReader reads an answer of a known form; bad is set at the first
// byte that does not fit it, and every read after that is a no-op. The
// strings it reads, unquoted, are appended to text.
type answerReader struct {
	b    []byte
	i    int
	bad  bool
	text []byte
}

// next reports whether lit comes next, and if so reads it.
func (r *answerReader) next(lit string) bool {
	if r.bad || len(r.b)-r.i < len(lit) || string(r.b[r.i:r.i+len(lit)]) != lit {
		return false
	}
	r.i += len(lit)
	return true
}

func (r *answerReader) lit(lit string) {
	if !r.next(lit) {
		r.bad = true
	}
}

// str reads lit, then a string events.ReadPlainString reads (what
// json.Unmarshal would read back as written but for its escapes), and
// appends it to text.
func (r *answerReader) str(lit string) span {
	r.lit(lit)
	if r.bad {
		return span{}
	}
	s := span{i: len(r.text)}
	var ok bool
	if r.text, r.i, ok = events.ReadPlainString(r.b, r.i, r.text); !ok {
		r.bad = true
		return span{}
	}
	s.j = len(r.text)
	return s
}

// uint reads lit, then an unsigned integer as JSON writes it (no sign, no
// leading zero, no fraction or exponent) that fits a uint64.
func (r *answerReader) uint(lit string) uint64 {
	r.lit(lit)
	if r.bad {
		return 0
	}
	n, end, ok := events.ReadJSONUint(r.b, r.i, math.MaxUint64)
	if r.i = end; !ok {
		r.bad = true
		return 0
	}
	return n
}
