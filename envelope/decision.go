package envelope

import (
	"bytes"
	"strconv"
	"sync"

	"github.com/sessionledger/ledger/events"
)

// Decision is the outcome for one tool: allow or deny (claude-code adds ask).
type Decision string

// The decisions.
const (
	Allow Decision = "allow"
	Ask   Decision = "ask"
	Deny  Decision = "deny"
)

// Stricter reports whether d is stricter than other (deny > ask > allow).
func (d Decision) Stricter(other Decision) bool { return d.rank() > other.rank() }

func (d Decision) rank() int {
	switch d {
	case Allow:
		return 0
	case Ask:
		return 1
	}
	return 2
}

// RecordRef names a record of the log: its sequence, id and type.
type RecordRef struct {
	Seq  uint64      `json:"seq"`
	ID   string      `json:"id"`
	Type events.Type `json:"type"`
}

// Reason says why: a stable code "<layer>:<cause>", the rule that matched
// as written (with where it sits, e.g. `tools.deny: "exec"`), and the record
// that introduced that rule, grant or revocation.
type Reason struct {
	Code   string     `json:"code"`
	Rule   string     `json:"rule,omitempty"`
	Record *RecordRef `json:"record,omitempty"`
}

// Outcome is what one layer did to a tool.
type Outcome string

// The outcomes of a trace step.
const (
	Absent  Outcome = "absent"  // the layer does not apply to this session
	Kept    Outcome = "kept"    // the layer applies and passed the tool
	Removed Outcome = "removed" // the layer removed the tool (pool layers)
	Decided Outcome = "decided" // a call step decided the outcome
	Skipped Outcome = "skipped" // not reached: an earlier layer decided
)

// Step is one layer's entry in a trace.
type Step struct {
	Layer   string  `json:"layer"`
	Outcome Outcome `json:"outcome"`
	// Detail says what the layer held, in words, when useful.
	Detail string  `json:"detail,omitempty"`
	Reason *Reason `json:"reason,omitempty"`
}

// Verdict is the decision for one tool with its reason and, when asked for,
// the trace of every layer in order.
type Verdict struct {
	Tool     string   `json:"tool"`
	Decision Decision `json:"decision"`
	Reason   Reason   `json:"reason"`
	Trace    []Step   `json:"trace,omitempty"`
}

// Denial is one denied tool of a tool set.
type Denial struct {
	Tool   string `json:"tool"`
	Reason Reason `json:"reason"`
}

// ToolSet is a session's effective tool set: the allowed tools and each
// denied tool with its reason, both in catalogue order.
type ToolSet struct {
	Allowed []string `json:"allowed"`
	Denied  []Denial `json:"denied"`
}

// Hash returns the content hash of the tool set: SHA-256 of its RFC 8785
// bytes, written directly (this is on the path of every turn).
func (t *ToolSet) Hash() string {
	buf := hashBufs.Get().(*bytes.Buffer)
	defer func() {
		if buf.Cap() <= 1<<16 {
			buf.Reset()
			hashBufs.Put(buf)
		}
	}()
	buf.Grow(64 * (len(t.Allowed) + 3*len(t.Denied)))
	buf.WriteString(`{"allowed":`)
	if t.Allowed == nil {
		buf.WriteString("null")
	} else {
		buf.WriteByte('[')
		for i, a := range t.Allowed {
			if i > 0 {
				buf.WriteByte(',')
			}
			events.WriteString(buf, a)
		}
		buf.WriteByte(']')
	}
	buf.WriteString(`,"denied":`)
	if t.Denied == nil {
		buf.WriteString("null}")
		return events.HashBytes(buf.Bytes())
	}
	buf.WriteByte('[')
	for i, d := range t.Denied {
		if i > 0 {
			buf.WriteByte(',')
		}
		buf.WriteString(`{"reason":{"code":`)
		events.WriteString(buf, d.Reason.Code)
		if d.Reason.Record != nil {
			buf.WriteString(`,"record":{"id":`)
			events.WriteString(buf, d.Reason.Record.ID)
			buf.WriteString(`,"seq":`)
			buf.WriteString(strconv.FormatUint(d.Reason.Record.Seq, 10))
			buf.WriteString(`,"type":`)
			events.WriteString(buf, string(d.Reason.Record.Type))
			buf.WriteByte('}')
		}
		if d.Reason.Rule != "" {
			buf.WriteString(`,"rule":`)
			events.WriteString(buf, d.Reason.Rule)
		}
		buf.WriteString(`},"tool":`)
		events.WriteString(buf, d.Tool)
		buf.WriteByte('}')
	}
	buf.WriteString(`]}`)
	return events.HashBytes(buf.Bytes())
}

// hashBufs pools Hash's buffers: a tool set is hashed at every turn.
var hashBufs = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// Lookup returns the decision for tool (already normalized) and whether the
// tool is in the set at all.
func (t *ToolSet) Lookup(tool string) (Decision, *Reason, bool) {
	for _, a := range t.Allowed {
		if a == tool {
			return Allow, nil, true
		}
	}
	for i := range t.Denied {
		if t.Denied[i].Tool == tool {
			return Deny, &t.Denied[i].Reason, true
		}
	}
	return "", nil, false
}
