package client

import (
	"encoding/json"
	"strconv"

	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/wire"
)

// marshalQuery is json.Marshal(q), written by hand: a query goes out with
// every enforced call (issue 28), and its input, which json.Marshal
// compacts and checks again, was marshalled once already (WithInput).
// The bytes are encoding/json's (TestQueryBytes, FuzzQueryBytes).
func marshalQuery(q wire.Query) ([]byte, error) {
	if len(q.Input) > 0 && !json.Valid(q.Input) {
		return json.Marshal(q) // its error
	}
	b := make([]byte, 0, 128+len(q.Input)+len(q.Session)+len(q.Tool)+len(q.Call))
	b = append(b, '{')
	str := func(name, s string) {
		if s != "" {
			b = events.AppendJSONString(append(b, name...), s)
		}
	}
	unsigned := func(name string, n uint64) {
		if n != 0 {
			b = strconv.AppendUint(append(b, name...), n, 10)
		}
	}
	signed := func(name string, n int64) {
		if n != 0 {
			b = strconv.AppendInt(append(b, name...), n, 10)
		}
	}
	boolean := func(name string, v bool) {
		if v {
			b = append(append(b, name...), "true"...)
		}
	}
	str(`,"session":`, string(q.Session))
	str(`,"tool":`, q.Tool)
	if len(q.Input) > 0 {
		b = events.AppendCompactJSON(append(b, `,"input":`...), q.Input)
	}
	unsigned(`,"seq":`, q.Seq)
	signed(`,"turn":`, int64(q.Turn))
	str(`,"time":`, q.Time)
	unsigned(`,"min_seq":`, q.MinSeq)
	boolean(`,"record":`, q.Record)
	str(`,"call":`, q.Call)
	boolean(`,"effect":`, q.Effect)
	signed(`,"within_ms":`, q.WithinMS)
	str(`,"id":`, q.ID)
	unsigned(`,"check_seq":`, q.CheckSeq)
	str(`,"root":`, string(q.Root))
	boolean(`,"brief":`, q.Brief)
	str(`,"scope":`, q.Scope)
	str(`,"user":`, q.User)
	str(`,"project":`, q.Project)
	str(`,"runtime":`, q.Runtime)
	if len(b) > 1 {
		b = append(b[:1], b[2:]...) // the first field's comma
	}
	return append(b, '}'), nil
}

// The conversions stop the build when a field is added to what
// marshalQuery writes.
var _ = []any{
	struct {
		Session  events.SessionKey
		Tool     string
		Input    json.RawMessage
		Seq      uint64
		Turn     int
		Time     string
		MinSeq   uint64
		Record   bool
		Call     string
		Effect   bool
		WithinMS int64
		ID       string
		CheckSeq uint64
		Root     events.SessionKey
		Brief    bool
		wire.Filter
	}(wire.Query{}),
	struct{ Scope, User, Project, Runtime string }(wire.Filter{}),
}
