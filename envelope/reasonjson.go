package envelope

import (
	"strconv"

	"github.com/sessionledger/ledger/events"
)

// AppendJSON appends r as encoding/json writes it, without its reflection
// (the append path writes a reason into every check's record and answer;
// FuzzReasonAppendJSON holds it to encoding/json's bytes).
func (r Reason) AppendJSON(b []byte) []byte {
	b = append(b, `{"code":`...)
	b = events.AppendJSONString(b, r.Code)
	if r.Rule != "" {
		b = append(b, `,"rule":`...)
		b = events.AppendJSONString(b, r.Rule)
	}
	if ref := r.Record; ref != nil {
		b = append(b, `,"record":{"seq":`...)
		b = strconv.AppendUint(b, ref.Seq, 10)
		b = append(b, `,"id":`...)
		b = events.AppendJSONString(b, ref.ID)
		b = append(b, `,"type":`...)
		b = events.AppendJSONString(b, string(ref.Type))
		b = append(b, '}')
	}
	return append(b, '}')
}

// The conversions stop the build when a type written here gains a field.
var _ = []any{
	struct {
		Code, Rule string
		Record     *RecordRef
	}(Reason{}),
	struct {
		Seq  uint64
		ID   string
		Type events.Type
	}(RecordRef{}),
}
