package report

import (
	"encoding/json"
	"fmt"

	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/projection"
	"github.com/sessionledger/ledger/wire"
)

// ExportVersion is the version of the export line format, written in every
// line's "export" field. Fields may be added within a version; removing or
// renaming one, or changing its meaning, makes a new version.
const ExportVersion = 1

// Line is one line of an export: one record of the log, as stored, with its
// sequence and what the projection derived from it.
type Line struct {
	// Export is ExportVersion.
	Export int `json:"export"`
	// Seq is the record's stream sequence: the log's total order.
	Seq uint64 `json:"seq"`
	// Time, Type and Session repeat the record's fields so that a line can
	// be indexed without parsing the record.
	Time    string            `json:"time"`
	Type    events.Type       `json:"type"`
	Session events.SessionKey `json:"session,omitempty"`
	// Root is the root of the session's spawn tree ("" for policy records).
	Root events.SessionKey `json:"root,omitempty"`
	// Scope is the scope of the record: a session record's is the scope
	// its session is bound to, a policy record's the scope it changes.
	Scope string `json:"scope"`
	// Identity is who and where the session's root ran, as its
	// session.started recorded it (absent on policy records and when it
	// recorded none).
	Identity *wire.Identity `json:"identity,omitempty"`
	// Record is the record exactly as stored (canonical JSON, the eight
	// fields of SPEC section 3): its hash is the one the log keeps.
	Record json.RawMessage `json:"record"`
	// Derived is what the projection derived from the record: a
	// *TurnDerived for turn.started, a *ResumeDerived for session.resumed,
	// nil (and absent) for the others, whose decisions are already in
	// record.decided.
	Derived any `json:"derived,omitempty"`
}

// TurnDerived is what a turn.started derives: the tool set resolved at the
// turn's start (the record itself holds only its hash), and how it differs
// from the session's previous turn.
type TurnDerived struct {
	Turn         int              `json:"turn"`
	PolicySource string           `json:"policy_source"`
	SourceReason string           `json:"source_reason,omitempty"`
	ToolSet      envelope.ToolSet `json:"tool_set"`
	// Gained are the tools allowed now and not at the previous turn (on
	// the first turn, every allowed tool); Lost the tools allowed at the
	// previous turn and not now, each with the reason it is denied now.
	Gained []string          `json:"gained"`
	Lost   []envelope.Denial `json:"lost"`
}

// ResumeDerived is what a session.resumed derives: the policy source the
// continuation runs under, and why it fell back when it did.
type ResumeDerived struct {
	PolicySource string `json:"policy_source"`
	SourceReason string `json:"source_reason,omitempty"`
}

// Exporter makes export lines from records, with what it read from the
// state they were folded into.
type Exporter struct {
	sel *Selection
	// sessions maps every session exported to its root, scope and
	// identity.
	sessions map[events.SessionKey]*exported
	turns    map[uint64]*TurnDerived
}

type exported struct {
	root     events.SessionKey
	scope    string
	identity *wire.Identity
}

// NewExporter reads what the lines need from st: every selected session's
// root, scope and identity, and the tool set stored for each turn. sel
// (made by SelectIn on st) chooses the sessions and the policy records;
// nil exports the whole log.
func NewExporter(st *projection.State, sel *Selection) (*Exporter, error) {
	if sel == nil {
		var err error
		if sel, err = SelectIn(st, "", wire.Filter{}); err != nil {
			return nil, err
		}
	}
	x := &Exporter{sel: sel, sessions: map[events.SessionKey]*exported{}, turns: map[uint64]*TurnDerived{}}
	var keys []events.SessionKey
	for _, top := range sel.Tops() {
		keys = append(keys, Subtree(st, top)...)
	}
	for _, k := range keys {
		root := RootOf(st, k)
		e := &exported{root: root, scope: st.ScopeOf(k)}
		if r := st.Session(root); r != nil {
			e.identity = wire.IdentityOf(r.Start)
		}
		x.sessions[k] = e
		var prev []string
		for t := 1; ; t++ {
			ts, seq, ok := st.TurnSet(k, t)
			if !ok {
				break
			}
			tv, err := st.AtTurn(k, t)
			if err != nil {
				return nil, err
			}
			c := tv.SessionView().Context
			gained, lost := Diff(prev, ts)
			x.turns[seq] = &TurnDerived{Turn: t, PolicySource: c.Source, SourceReason: c.SourceReason, ToolSet: ts, Gained: gained, Lost: lost}
			prev = ts.Allowed
		}
	}
	return x, nil
}

// Line returns the export line of the record stored as raw at seq, or nil
// when the record is not selected.
func (x *Exporter) Line(seq uint64, raw []byte) (*Line, error) {
	rec, err := events.DecodeRecord(raw)
	if err != nil {
		return nil, fmt.Errorf("record %d: %w", seq, err)
	}
	l := &Line{Export: ExportVersion, Seq: seq, Time: rec.Time, Type: rec.Type, Session: rec.Session, Record: raw}
	if rec.Type.IsPolicy() {
		l.Scope = PolicyScope(rec)
		if !x.sel.Scope(l.Scope) {
			return nil, nil
		}
	} else {
		e := x.sessions[rec.Session]
		if e == nil {
			if !x.sel.All() {
				return nil, nil
			}
			return nil, fmt.Errorf("record %d: session %q is not in the state the export read", seq, rec.Session)
		}
		l.Root, l.Scope, l.Identity = e.root, e.scope, e.identity
	}
	switch rec.Type {
	case events.TurnStarted:
		td := x.turns[seq]
		if td == nil {
			return nil, fmt.Errorf("record %d: no tool set is stored for this turn.started", seq)
		}
		l.Derived = td
	case events.SessionResumed:
		var d projection.ResumeDecided
		if err := json.Unmarshal(rec.Decided, &d); err != nil {
			return nil, fmt.Errorf("record %d: decided: %w", seq, err)
		}
		l.Derived = &ResumeDerived{PolicySource: d.PolicySource, SourceReason: d.SourceReason}
	}
	return l, nil
}

// Subtree returns the keys of the spawn tree under root, root first, in
// depth-first order with children in spawn order.
func Subtree(st *projection.State, root events.SessionKey) []events.SessionKey {
	var out []events.SessionKey
	stack := []events.SessionKey{root}
	for len(stack) > 0 {
		k := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		s := st.Session(k)
		if s == nil {
			continue
		}
		out = append(out, k)
		for i := len(s.Children) - 1; i >= 0; i-- {
			stack = append(stack, s.Children[i])
		}
	}
	return out
}

// RootOf returns the root of key's spawn tree.
func RootOf(st *projection.State, key events.SessionKey) events.SessionKey {
	// A parent is always spawned before its child, so the walk ends; the
	// bound only guards against a state that breaks that.
	for range 1 << 16 {
		s := st.Session(key)
		if s == nil || s.Parent == "" {
			return key
		}
		key = s.Parent
	}
	return key
}

// Diff compares the tools allowed at a session's previous turn with the
// tool set of its next one: the tools gained, and the tools lost with the
// reason each is denied now. A tool that left the catalogue is lost with
// catalogue:unknown.
func Diff(prevAllowed []string, cur envelope.ToolSet) (gained []string, lost []envelope.Denial) {
	was := make(map[string]bool, len(prevAllowed))
	for _, t := range prevAllowed {
		was[t] = true
	}
	now := make(map[string]bool, len(cur.Allowed))
	gained, lost = []string{}, []envelope.Denial{}
	for _, t := range cur.Allowed {
		now[t] = true
		if !was[t] {
			gained = append(gained, t)
		}
	}
	denied := make(map[string]bool, len(cur.Denied))
	for _, d := range cur.Denied {
		denied[d.Tool] = true
		if was[d.Tool] {
			lost = append(lost, d)
		}
	}
	for _, t := range prevAllowed {
		if !now[t] && !denied[t] {
			lost = append(lost, envelope.Denial{Tool: t, Reason: envelope.Reason{Code: "catalogue:unknown"}})
		}
	}
	return gained, lost
}
