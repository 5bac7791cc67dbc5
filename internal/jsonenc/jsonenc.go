// Package jsonenc writes a few small values on the append path as
// encoding/json writes them, without its reflection and allocations
// (issue 28, point 5: CPU per event): strings, and the decision reasons
// that checks record and answer. The bytes must be encoding/json's:
// records hold them, and clients read them; TestMatchesEncodingJSON and
// FuzzString hold them to it.
package jsonenc

import (
	"encoding/json"
	"strconv"

	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
)

// AppendString appends s quoted as encoding/json quotes it: printable
// ASCII as it is, but for the quote and the backslash, which get one
// before them; a string with the HTML characters, a control character or
// anything not ASCII is left to encoding/json.
func AppendString(b []byte, s string) []byte {
	start := len(b)
	b = append(b, '"')
	plain := 0 // s[plain:i] is still to append
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			b = append(append(b, s[plain:i]...), '\\', c)
			plain = i + 1
		case c < 0x20 || c > 0x7e || c == '<' || c == '>' || c == '&':
			q, _ := json.Marshal(s)
			return append(b[:start], q...)
		}
	}
	return append(append(b, s[plain:]...), '"')
}

// AppendReason appends r as encoding/json writes an envelope.Reason.
func AppendReason(b []byte, r envelope.Reason) []byte {
	b = append(b, `{"code":`...)
	b = AppendString(b, r.Code)
	if r.Rule != "" {
		b = append(b, `,"rule":`...)
		b = AppendString(b, r.Rule)
	}
	if ref := r.Record; ref != nil {
		b = append(b, `,"record":{"seq":`...)
		b = strconv.AppendUint(b, ref.Seq, 10)
		b = append(b, `,"id":`...)
		b = AppendString(b, ref.ID)
		b = append(b, `,"type":`...)
		b = AppendString(b, string(ref.Type))
		b = append(b, '}')
	}
	return append(b, '}')
}

// The conversions stop the build when a type written here gains a field.
var _ = []any{
	struct {
		Code, Rule string
		Record     *envelope.RecordRef
	}(envelope.Reason{}),
	struct {
		Seq  uint64
		ID   string
		Type events.Type
	}(envelope.RecordRef{}),
}
