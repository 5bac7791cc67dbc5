package projection

import (
	"encoding/json"
	"errors"
	"runtime"
	"sync"

	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
)

// Encoding what a commit writes, and decoding what the fold and the store
// read. Sessions are binary (binary.go); the rest is JSON.
//
// An envelope encodes itself through a map, which costs ten times what the
// rest of a turn does, and a child's envelope is written with each turn of
// the parent that captured it. So turns are encoded with their envelopes
// as raw JSON, each envelope encoded once and kept (by pointer: envelopes
// never change once sealed) for the next commits. Decoding an envelope
// through its UnmarshalJSON validates and parses its bytes twice;
// envelopeWire decodes it in the pass over the enclosing value.

// contextJSON is a context with its envelope encoded already. The field
// declared here hides the embedded one of the same name (encoding/json
// prefers the shallower field), so it encodes as the context does, with
// captured last.
type contextJSON struct {
	envelope.Context
	Captured json.RawMessage `json:"captured,omitempty"`
}

type turnJSON struct {
	*Turn
	Context contextJSON `json:"context"`
}

// envelopeJSON is what Envelope.MarshalJSON writes, as a struct:
// encoding/json encodes one several times faster than the map the
// envelope builds. TestEnvelopeJSON keeps the two the same.
type envelopeJSON struct {
	Requester      events.SessionKey    `json:"requester"`
	Agent          string               `json:"agent"`
	Depth          int                  `json:"depth"`
	Role           string               `json:"role"`
	InheritedAllow []string             `json:"inherited_allow"`
	InheritedDeny  []string             `json:"inherited_deny"`
	Source         string               `json:"source"`
	Delegated      *envelope.Delegation `json:"delegated"`
	Revision       uint64               `json:"revision"`
	// The claude-code fields, set when Mode is.
	Background *bool     `json:"background,omitempty"`
	Mode       string    `json:"mode,omitempty"`
	ExtraTools *[]string `json:"extra_tools,omitempty"`
	Hash       string    `json:"hash,omitempty"`
}

// envelopeWire is an envelope as Envelope.UnmarshalJSON decodes it: the
// same fields with their JSON names, so that it converts to an Envelope
// (and stops compiling if Envelope gains a field).
type envelopeWire struct {
	Requester      events.SessionKey    `json:"requester"`
	Agent          string               `json:"agent"`
	Depth          int                  `json:"depth"`
	Role           string               `json:"role"`
	InheritedAllow []string             `json:"inherited_allow"`
	InheritedDeny  []string             `json:"inherited_deny"`
	Source         string               `json:"source"`
	Delegated      *envelope.Delegation `json:"delegated"`
	Revision       uint64               `json:"revision"`
	Background     bool                 `json:"background"`
	Mode           string               `json:"mode"`
	ExtraTools     []string             `json:"extra_tools"`
	Hash           string               `json:"hash"`
}

func (w *envelopeWire) envelope() *envelope.Envelope {
	if w == nil {
		return nil
	}
	e := envelope.Envelope(*w)
	return &e
}

type contextWire struct {
	envelope.Context
	Captured *envelopeWire `json:"captured,omitempty"`
}

func (w *contextWire) context() envelope.Context {
	c := w.Context
	c.Captured = w.Captured.envelope()
	return c
}

type turnWire struct {
	Turn
	Context contextWire `json:"context"`
}

func decodeTurn(raw []byte) (Turn, error) {
	var w turnWire
	if err := json.Unmarshal(raw, &w); err != nil {
		return Turn{}, err
	}
	t := w.Turn
	t.Context = w.Context.context()
	return t, nil
}

// spawnWire decodes what a session.spawned decided.
type spawnWire struct {
	Envelope *envelopeWire  `json:"envelope"`
	Facts    envelope.Facts `json:"facts"`
}

func decodeSpawn(raw json.RawMessage) (*SpawnDecided, error) {
	w, ok := plainSpawn(raw)
	if !ok {
		w = &spawnWire{}
		if err := json.Unmarshal(raw, w); err != nil {
			return nil, err
		}
	}
	return &SpawnDecided{Envelope: w.Envelope.envelope(), Facts: w.Facts}, nil
}

func encodeEnvelope(e *envelope.Envelope) ([]byte, error) {
	nonNil := func(s []string) []string {
		if s == nil {
			return []string{}
		}
		return s
	}
	j := envelopeJSON{Requester: e.Requester, Agent: e.Agent, Depth: e.Depth, Role: e.Role,
		InheritedAllow: e.InheritedAllow, InheritedDeny: nonNil(e.InheritedDeny), Source: e.Source,
		Revision: e.Revision, Mode: e.Mode, Hash: e.Hash}
	if d := e.Delegated; d != nil {
		j.Delegated = &envelope.Delegation{Requester: d.Requester, Target: d.Target, Deny: nonNil(d.Deny)}
	}
	if e.Mode != "" {
		extra := nonNil(e.ExtraTools)
		j.Background, j.ExtraTools = &e.Background, &extra
	}
	return json.Marshal(j)
}

// envelopes caches encoded envelopes. Commits encode one at a time: a
// commit waits for the one before it.
type envelopes struct {
	m map[*envelope.Envelope][]byte
}

// maxEnvelopes bounds the cache; it is emptied when full.
const maxEnvelopes = 1 << 14

// encode encodes a commit's values, a share on each processor: first the
// envelopes it has not encoded yet, then the values. Afterwards the puts
// hold only bytes of their own.
func (w *writes) encode(cache *envelopes) error {
	if cache.m == nil || len(cache.m) > maxEnvelopes {
		cache.m = map[*envelope.Envelope][]byte{}
	}
	var todo []*envelope.Envelope
	need := func(e *envelope.Envelope) {
		if _, ok := cache.m[e]; e != nil && !ok {
			cache.m[e] = nil
			todo = append(todo, e)
		}
	}
	for _, v := range w.values {
		if t, ok := v.(*Turn); ok {
			need(t.Context.Captured)
		}
	}
	raw, err := parallel(len(todo), func(i int) ([]byte, error) { return encodeEnvelope(todo[i]) })
	if err != nil {
		return err
	}
	for i, e := range todo {
		cache.m[e] = raw[i]
	}
	ctx := func(c envelope.Context) contextJSON {
		return contextJSON{Context: c, Captured: cache.m[c.Captured]}
	}
	out, err := parallel(len(w.values), func(i int) ([]byte, error) {
		switch v := w.values[i].(type) {
		case *envelope.Session:
			return encodeSessionBinary(v), nil
		case *Turn:
			return json.Marshal(turnJSON{Turn: v, Context: ctx(v.Context)})
		case envelope.ToolSet:
			return appendToolSet(nil, v), nil
		default:
			return json.Marshal(v)
		}
	})
	for _, puts := range w.puts {
		for j, p := range puts {
			if p.i >= 0 {
				puts[j].v, puts[j].i = out[p.i], -1
			}
		}
	}
	w.values = nil
	return err
}

// parallel calls f for 0..n-1, a share on each processor.
func parallel(n int, f func(int) ([]byte, error)) ([][]byte, error) {
	out := make([][]byte, n)
	workers := min(runtime.GOMAXPROCS(0), 1+n/256)
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for g := range workers {
		wg.Go(func() {
			for i := g; i < n; i += workers {
				if out[i], errs[g] = f(i); errs[g] != nil {
					return
				}
			}
		})
	}
	wg.Wait()
	return out, errors.Join(errs...)
}
