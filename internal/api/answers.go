package api

import (
	"encoding/json"
	"strconv"
	"sync"

	"github.com/nats-io/nats.go/micro"

	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/wire"
)

// The answers of the append path, written by hand (issue 28, point 5: CPU
// per event): an append's result, a batch's outcomes and a check's
// result, byte for byte as encoding/json writes them (TestAnswerBytes and
// FuzzAnswerBytes compare them), in a buffer the next answer reuses
// (Respond copies the answer into the connection's buffer).

// answerBufs holds the buffers answers are written in.
var answerBufs = sync.Pool{New: func() any { b := make([]byte, 0, 512); return &b }}

// maxPooledAnswer: a larger buffer (a long batch's) is left to the
// collector rather than kept.
const maxPooledAnswer = 64 << 10

// marshalAnswer appends v's JSON to b: by hand for the append path's
// answers, else with encoding/json.
func marshalAnswer(b []byte, v any) ([]byte, error) {
	switch a := v.(type) {
	case wire.AppendResult:
		return appendResult(b, a), nil
	case []wire.AppendOutcome:
		if a == nil {
			return append(b, "null"...), nil
		}
		b = append(b, '[')
		for i, o := range a {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendOutcome(b, o)
		}
		return append(b, ']'), nil
	case wire.CheckResult:
		return appendCheckResult(b, a), nil
	}
	j, err := json.Marshal(v)
	return append(b, j...), err
}

func appendResult(b []byte, a wire.AppendResult) []byte {
	b = append(b, `{"seq":`...)
	b = strconv.AppendUint(b, a.Seq, 10)
	b = append(b, `,"id":`...)
	b = events.AppendJSONString(b, a.ID)
	if a.Duplicate {
		b = append(b, `,"duplicate":true`...)
	}
	return append(b, '}')
}

func appendOutcome(b []byte, o wire.AppendOutcome) []byte {
	b = append(b, '{')
	n := len(b) // the first field has no comma before it
	comma := func(b []byte) []byte {
		if len(b) > n {
			return append(b, ',')
		}
		return b
	}
	if o.Seq != 0 {
		b = append(b, `"seq":`...)
		b = strconv.AppendUint(b, o.Seq, 10)
	}
	if o.ID != "" {
		b = append(comma(b), `"id":`...)
		b = events.AppendJSONString(b, o.ID)
	}
	if o.Duplicate {
		b = append(comma(b), `"duplicate":true`...)
	}
	if e := o.Error; e != nil {
		b = appendErrorBody(append(comma(b), `"error":`...), e)
	}
	return append(b, '}')
}

// appendErrorBody appends e as encoding/json writes it.
func appendErrorBody(b []byte, e *wire.ErrorBody) []byte {
	b = append(b, `{"code":`...)
	b = events.AppendJSONString(b, string(e.Code))
	b = append(b, `,"message":`...)
	b = events.AppendJSONString(b, e.Message)
	if e.Seq != 0 {
		b = append(b, `,"seq":`...)
		b = strconv.AppendUint(b, e.Seq, 10)
	}
	return append(b, '}')
}

func appendCheckResult(b []byte, c wire.CheckResult) []byte {
	b = append(b, `{"session":`...)
	b = events.AppendJSONString(b, string(c.Session))
	b = append(b, `,"scope":`...)
	b = events.AppendJSONString(b, c.Scope)
	b = append(b, `,"seq":`...)
	b = strconv.AppendUint(b, c.Seq, 10)
	b = append(b, `,"tool":`...)
	b = events.AppendJSONString(b, c.Tool)
	b = append(b, `,"decision":`...)
	b = events.AppendJSONString(b, string(c.Decision))
	b = append(b, `,"reason":`...)
	b = c.Reason.AppendJSON(b)
	if c.Recorded != 0 {
		b = append(b, `,"recorded":`...)
		b = strconv.AppendUint(b, c.Recorded, 10)
	}
	if c.NotActive != nil {
		b = appendErrorBody(append(b, `,"not_active":`...), c.NotActive)
	}
	return append(b, '}')
}

// The conversions stop the build when a type written here gains a field.
var _ = []any{
	struct {
		Seq       uint64
		ID        string
		Duplicate bool
	}(wire.AppendResult{}),
	struct {
		Seq       uint64
		ID        string
		Duplicate bool
		Error     *wire.ErrorBody
	}(wire.AppendOutcome{}),
	struct {
		Code    events.Code
		Message string
		Seq     uint64
	}(wire.ErrorBody{}),
	struct {
		Session   events.SessionKey
		Scope     string
		Seq       uint64
		Tool      string
		Decision  envelope.Decision
		Reason    envelope.Reason
		Recorded  uint64
		NotActive *wire.ErrorBody
	}(wire.CheckResult{}),
}

// respondJSONWith answers v with headers hdr (none when nil).
func respondJSONWith(r micro.Request, v any, hdr micro.Headers) {
	bp := answerBufs.Get().(*[]byte)
	b, err := marshalAnswer((*bp)[:0], v)
	if err != nil {
		respondError(r, err, 0)
		return
	}
	if hdr == nil {
		_ = r.Respond(b)
	} else {
		_ = r.Respond(b, micro.WithHeaders(hdr))
	}
	if cap(b) <= maxPooledAnswer {
		*bp = b[:0]
		answerBufs.Put(bp)
	}
}
