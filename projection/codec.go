package projection

// This file holds how the store encodes values: sessions and envelopes in
// binary (see binary.go), turns, tool sets and decided values as JSON,
// log entries and ids in binary.

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"slices"
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
	// Scope is set for a scope other than the default.
	Scope string `json:"scope,omitempty"`
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
	Scope          string               `json:"scope"`
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
		Revision: e.Revision, Scope: e.Scope, Mode: e.Mode, Hash: e.Hash}
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
	bases, baseKeys := make([][]byte, len(w.values)), make([][]byte, len(w.values))
	out, err := parallel(len(w.values), func(i int) ([]byte, error) {
		switch v := w.values[i].(type) {
		case *envelope.Session:
			return encodeSessionBinary(v), nil
		case *Turn:
			return json.Marshal(turnJSON{Turn: v, Context: ctx(v.Context)})
		case envelope.ToolSet:
			return appendToolSet(nil, v), nil
		case *check:
			return appendCheck(nil, v), nil
		case storedToolSet:
			base, refs := splitToolSet(v.ts)
			bases[i] = appendToolSet(nil, base)
			baseKeys[i] = toolSetBaseKey(bases[i])
			return toolSetValue(baseKeys[i], refs), nil
		default:
			return json.Marshal(v)
		}
	})
	// Each base once (a put is made at most once), where the file does
	// not hold it yet.
	seen := map[string]bool{}
	for i, b := range bases {
		if b == nil {
			continue
		}
		if k := baseKeys[i]; !seen[string(k)] {
			seen[string(k)] = true
			w.add(bucketToolSetBases, kv{k: k, v: b, i: -1, absent: true})
		}
	}
	for _, puts := range w.puts {
		for j, p := range puts {
			if p.i >= 0 {
				puts[j].v, puts[j].i = out[p.i], -1
			}
		}
	}
	w.values = nil
	if err != nil {
		return err
	}
	w.order()
	return nil
}

// parallel calls f for 0..n-1, a share on each processor.
func parallel(n int, f func(int) ([]byte, error)) ([][]byte, error) {
	workers := workersFor(n, 256)
	out, errs := make([][]byte, n), make([]error, workers)
	shares(n, workers, func(g, i int) bool {
		out[i], errs[g] = f(i)
		return errs[g] == nil
	})
	return out, errors.Join(errs...)
}

// workersFor is how many goroutines share n indexes: one for every apart
// of them, at least one, at most one a processor.
func workersFor(n, apart int) int { return min(runtime.GOMAXPROCS(0), 1+n/apart) }

// shares calls f(g, i) for i in 0..n-1, dealt out in turn to goroutines g
// in 0..workers-1, and returns when all have: a goroutine stops at the
// first index f answers false for.
func shares(n, workers int, f func(g, i int) bool) {
	var wg sync.WaitGroup
	for g := range workers {
		wg.Go(func() {
			for i := g; i < n; i += workers {
				if !f(g, i) {
					return
				}
			}
		})
	}
	wg.Wait()
}

func u64(n uint64) []byte {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], n)
	return b[:]
}

// appendToolSet appends ts as encoding/json writes it (the bytes the
// store has always held), several times faster: a tool set is most of
// what a turn writes. The conversions below stop the build when a type it
// writes gains a field; TestToolSetJSON keeps the bytes the same.
func appendToolSet(b []byte, ts envelope.ToolSet) []byte {
	b = slices.Grow(b, 32+16*len(ts.Allowed)+160*len(ts.Denied))
	b = append(b, `{"allowed":`...)
	if ts.Allowed == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, t := range ts.Allowed {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, t)
		}
		b = append(b, ']')
	}
	b = append(b, `,"denied":`...)
	if ts.Denied == nil {
		return append(b, "null}"...)
	}
	b = append(b, '[')
	for i, d := range ts.Denied {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"tool":`...)
		b = appendJSONString(b, d.Tool)
		b = append(b, `,"reason":`...)
		b = d.Reason.AppendJSON(b)
		b = append(b, '}')
	}
	return append(b, "]}"...)
}

var _ = []any{
	struct {
		Allowed []string
		Denied  []envelope.Denial
	}(envelope.ToolSet{}),
	struct {
		Tool   string
		Reason envelope.Reason
	}(envelope.Denial{}),
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

// appendCheck appends c as encoding/json writes it (the bytes the store
// has always held; TestCheckValueBytes and FuzzCheckValueBytes compare
// them): each check a commit writes, one an event on the append path.
func appendCheck(b []byte, c *check) []byte {
	b = slices.Grow(b, checkSize(c))
	b = append(b, `{"Session":`...)
	b = appendJSONString(b, string(c.Session))
	b = append(b, `,"Tool":`...)
	b = appendJSONString(b, c.Tool)
	b = append(b, `,"Call":`...)
	b = appendJSONString(b, c.Call)
	b = append(b, `,"Input":`...)
	if len(c.Input) == 0 {
		b = append(b, "null"...)
	} else {
		b = appendRawMessage(b, c.Input)
	}
	b = append(b, `,"Decision":`...)
	b = appendJSONString(b, string(c.Decision))
	if c.Refusal {
		return append(b, `,"Refusal":true}`...)
	}
	return append(b, `,"Refusal":false}`...)
}

// checkSize is about how many bytes appendCheck appends for c (more when
// its strings need escapes).
func checkSize(c *check) int { return 96 + len(c.Session) + len(c.Tool) + len(c.Call) + len(c.Input) }

var _ = struct {
	Session  events.SessionKey
	Tool     string
	Call     string
	Input    json.RawMessage
	Decision envelope.Decision
	Refusal  bool
}(check{})

// appendJSONString appends s quoted as encoding/json quotes it
// (events.AppendJSONString).
func appendJSONString(b []byte, s string) []byte { return events.AppendJSONString(b, s) }

// appendLogValue appends to b a log entry as stored: the record id, type
// and time, each after its length as a uvarint, then, for a tool.checked,
// its check c as JSON (appendCheck). Since SchemaVersion 6 a check has no
// bucket of its own: one put a check fewer (docs/bench.md, "Issue 28:
// allocations per event").
func appendLogValue(b []byte, ref envelope.RecordRef, time string, c *check) []byte {
	b = binary.AppendUvarint(b, uint64(len(ref.ID)))
	b = append(b, ref.ID...)
	b = binary.AppendUvarint(b, uint64(len(ref.Type)))
	b = append(b, ref.Type...)
	b = binary.AppendUvarint(b, uint64(len(time)))
	b = append(b, time...)
	if c != nil {
		b = appendCheck(b, c)
	}
	return b
}

// parseLogValue reads a log entry, and the bytes of its check's JSON
// (none when the record is not a check).
func parseLogValue(v []byte) (logEntry, []byte, error) {
	var f [3]string
	for i := range f {
		n, k := binary.Uvarint(v)
		if k <= 0 || uint64(len(v)-k) < n {
			return logEntry{}, nil, fmt.Errorf("bad log entry %x", v)
		}
		f[i], v = string(v[k:k+int(n)]), v[k+int(n):]
	}
	return logEntry{ID: f[0], Type: internType(events.Type(f[1])), Time: f[2]}, v, nil
}

// landedValue is where an id landed as stored: the sequence, and a byte 1
// after it for the decision record of a refused effect.
func landedValue(l landed) []byte { return appendLandedValue(nil, l) }

// appendLandedValue appends landedValue(l) to b.
func appendLandedValue(b []byte, l landed) []byte {
	b = binary.BigEndian.AppendUint64(b, l.Seq)
	if l.RefusedEffect {
		b = append(b, 1)
	}
	return b
}

func parseLanded(v []byte) (landed, error) {
	if len(v) != 8 && len(v) != 9 {
		return landed{}, fmt.Errorf("bad id entry %x", v)
	}
	return landed{Seq: binary.BigEndian.Uint64(v), RefusedEffect: len(v) == 9 && v[8] == 1}, nil
}

type logEntry struct {
	ID   string
	Type events.Type
	Time string
}

type metaState struct {
	Position uint64 `json:"position"`
	Time     string `json:"time"`
}

// A tool set is stored in two parts (SchemaVersion 5): its base, the set
// with the record of every reason replaced by its index in a list of the
// records the set names (first named first), as JSON (appendToolSet) in
// bucket "toolsetbases" under the SHA-256 of those bytes; and, in
// "toolsets" under the set's hash, toolSetFormat, the base's key, and
// the records. Sub-agents' sets name their own spawn record (a
// subagent:hard_deny reason), so no two are alike, but they share a few
// bases: 66,671 sets at 100,000 sessions are 3 bases (docs/bench.md,
// "Scale, issue 17"). Joining the parts gives back the set, whose JSON
// (appendToolSet) is what Store.Dump shows (TestStoreDumpMatchesMarshal,
// TestToolSetSplitJoins).
const toolSetFormat = 1

// splitToolSet returns the base of ts and the records it names.
func splitToolSet(ts envelope.ToolSet) (base envelope.ToolSet, refs []envelope.RecordRef) {
	base = envelope.ToolSet{Allowed: ts.Allowed}
	if ts.Denied != nil {
		base.Denied = make([]envelope.Denial, len(ts.Denied))
	}
	for i, d := range ts.Denied {
		base.Denied[i] = d
		if d.Reason.Record == nil {
			continue
		}
		n := slices.Index(refs, *d.Reason.Record)
		if n < 0 {
			n = len(refs)
			refs = append(refs, *d.Reason.Record)
		}
		base.Denied[i].Reason.Record = &envelope.RecordRef{Seq: uint64(n)}
	}
	return base, refs
}

// joinToolSet is the set whose base and records these are. It shares no
// memory with base, which a store keeps for other sets.
func joinToolSet(base envelope.ToolSet, refs []envelope.RecordRef) (envelope.ToolSet, error) {
	ts := envelope.ToolSet{Allowed: slices.Clone(base.Allowed), Denied: slices.Clone(base.Denied)}
	for i, d := range ts.Denied {
		if d.Reason.Record == nil {
			continue
		}
		n := d.Reason.Record.Seq
		if n >= uint64(len(refs)) || d.Reason.Record.ID != "" || d.Reason.Record.Type != "" {
			return envelope.ToolSet{}, fmt.Errorf("a tool set's base names record %d of %d", n, len(refs))
		}
		r := refs[n]
		ts.Denied[i].Reason.Record = &r
	}
	return ts, nil
}

// toolSetValue is a set's entry in "toolsets": the format, the key of its
// base, and its records (sequence, id and type).
func toolSetValue(baseKey []byte, refs []envelope.RecordRef) []byte {
	b := make([]byte, 0, 1+len(baseKey)+1+48*len(refs))
	b = append(b, toolSetFormat)
	b = append(b, baseKey...)
	b = binary.AppendUvarint(b, uint64(len(refs)))
	for _, r := range refs {
		b = binary.AppendUvarint(b, r.Seq)
		b = binary.AppendUvarint(b, uint64(len(r.ID)))
		b = append(b, r.ID...)
		b = binary.AppendUvarint(b, uint64(len(r.Type)))
		b = append(b, r.Type...)
	}
	return b
}

// parseToolSetValue splits a set's entry in "toolsets".
func parseToolSetValue(v []byte) (baseKey []byte, refs []envelope.RecordRef, err error) {
	bad := fmt.Errorf("a stored tool set is not in a form this build reads")
	if len(v) < 1+sha256.Size || v[0] != toolSetFormat {
		return nil, nil, bad
	}
	baseKey, v = v[1:1+sha256.Size], v[1+sha256.Size:]
	uv := func() uint64 {
		n, k := binary.Uvarint(v)
		if k <= 0 {
			err = bad
			return 0
		}
		v = v[k:]
		return n
	}
	str := func() string {
		n := uv()
		if err != nil || n > uint64(len(v)) {
			err = bad
			return ""
		}
		s := string(v[:n])
		v = v[n:]
		return s
	}
	n := uv()
	if err != nil || n > uint64(len(v)) {
		return nil, nil, bad
	}
	refs = make([]envelope.RecordRef, 0, n)
	for range n {
		r := envelope.RecordRef{Seq: uv()}
		r.ID = str()
		r.Type = internType(events.Type(str()))
		if err != nil {
			return nil, nil, err
		}
		refs = append(refs, r)
	}
	if len(v) != 0 {
		return nil, nil, bad
	}
	return baseKey, refs, nil
}

// storedToolSet is a tool set to store in its two parts.
type storedToolSet struct{ ts envelope.ToolSet }

// toolSetBaseKey is the key of a base: the SHA-256 of its JSON.
func toolSetBaseKey(baseJSON []byte) []byte {
	h := sha256.Sum256(baseJSON)
	return h[:]
}

// expandToolSet is the JSON (appendToolSet) of the set an entry of
// "toolsets" stores, its base read by base (which decodes each base once
// per call of the caller that made it, see toolSetBases).
func expandToolSet(v []byte, base func(key []byte) (envelope.ToolSet, error)) ([]byte, error) {
	key, refs, err := parseToolSetValue(v)
	if err != nil {
		return nil, err
	}
	b, err := base(key)
	if err != nil {
		return nil, err
	}
	ts, err := joinToolSet(b, refs)
	if err != nil {
		return nil, err
	}
	return appendToolSet(nil, ts), nil
}

// toolSetBases decodes bases by key from raw (their stored JSON), each
// once. What it returns may be called from several goroutines (a dump's
// values are made on every processor); raw is called by one at a time.
func toolSetBases(raw func(key []byte) ([]byte, error)) func(key []byte) (envelope.ToolSet, error) {
	decoded := map[string]envelope.ToolSet{}
	var mu sync.Mutex
	return func(key []byte) (envelope.ToolSet, error) {
		mu.Lock()
		defer mu.Unlock()
		if ts, ok := decoded[string(key)]; ok {
			return ts, nil
		}
		v, err := raw(key)
		if err != nil {
			return envelope.ToolSet{}, err
		}
		if v == nil {
			return envelope.ToolSet{}, fmt.Errorf("tool set base %x is missing", key)
		}
		var ts envelope.ToolSet
		if err := json.Unmarshal(v, &ts); err != nil {
			return envelope.ToolSet{}, fmt.Errorf("tool set base %x: %w", key, err)
		}
		decoded[string(key)] = ts
		return ts, nil
	}
}
