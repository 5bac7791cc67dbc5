// Package scenario runs scenario files (SPEC section 9): a policy, a list of
// steps that append events, and expectations about tool sets, decisions,
// policy sources and envelopes. Every file runs on a fresh, empty log through
// the same append and query paths a deployment uses, with a fixed clock that
// advances one millisecond a step.
package scenario

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math/rand"
	"os"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/oklog/ulid/v2"
	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/projection"
)

// File is one scenario file.
type File struct {
	Name    string            `json:"name"`
	Source  string            `json:"source,omitempty"`
	Dialect string            `json:"dialect"`
	Tools   []string          `json:"tools"`
	Policy  json.RawMessage   `json:"policy"`
	Steps   []json.RawMessage `json:"steps"`
}

// Load reads and decodes a scenario file.
func Load(path string) (*File, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(b)
}

// Parse decodes a scenario file's bytes.
func Parse(b []byte) (*File, error) {
	var f File
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("scenario does not decode: %w", err)
	}
	if f.Dialect == "" {
		return nil, fmt.Errorf("scenario has no dialect")
	}
	return &f, nil
}

// Ledger is the append and query path a scenario runs through.
type Ledger interface {
	Append(ctx context.Context, raw []byte) (seq uint64, err error)
	Head(ctx context.Context) (uint64, error)
	// View runs fn on the state at a position of the session.
	View(ctx context.Context, key events.SessionKey, pos projection.Position, fn func(*projection.State) error) error
}

// Clock is the fixed scenario clock: it starts at Epoch and a step moves it
// one millisecond.
type Clock struct{ t time.Time }

// Epoch is where every scenario's clock starts.
var Epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// NewClock returns a clock at Epoch.
func NewClock() *Clock { return &Clock{t: Epoch} }

// Now returns the clock's time.
func (c *Clock) Now() time.Time { return c.t }

// Step advances the clock one millisecond.
func (c *Clock) Step() { c.t = c.t.Add(time.Millisecond) }

// Failure is one expectation that did not hold.
type Failure struct {
	Step int    `json:"step"`
	Msg  string `json:"message"`
}

// Report is the outcome of one scenario file.
type Report struct {
	File     string    `json:"file"`
	Name     string    `json:"name"`
	Passed   int       `json:"passed"`
	Failed   int       `json:"failed"`
	Failures []Failure `json:"failures,omitempty"`
}

// Runner runs a scenario against a ledger that uses its clock.
type Runner struct {
	Ledger Ledger
	Clock  *Clock
	ids    *ulid.MonotonicEntropy
}

// Run runs every step of f and reports each expectation that failed.
func (r *Runner) Run(ctx context.Context, f *File) Report {
	rep := Report{Name: f.Name}
	// Ids are reproducible: the same scenario always writes the same log.
	r.ids = ulid.Monotonic(rand.New(rand.NewSource(1)), 0)
	fail := func(step int, format string, args ...any) {
		rep.Failed++
		rep.Failures = append(rep.Failures, Failure{Step: step, Msg: fmt.Sprintf(format, args...)})
	}
	policy := f.Policy
	if len(policy) == 0 || string(policy) == "null" {
		policy = json.RawMessage("{}")
	}
	tools := f.Tools
	if tools == nil {
		tools = []string{}
	}
	first, _ := json.Marshal(map[string]any{"type": events.PolicySet, "v": 1, "actor": "scenario",
		"data": map[string]any{"dialect": f.Dialect, "document": policy, "catalogue": tools}})
	if _, err := r.append(ctx, first); err != nil {
		fail(0, "the scenario's policy was refused: %v", err)
		return rep
	}
	for i, raw := range f.Steps {
		r.Clock.Step()
		n := i + 1
		msgs := r.step(ctx, n, raw)
		if len(msgs) == 0 {
			rep.Passed++
		}
		for _, m := range msgs {
			fail(n, "%s", m)
		}
	}
	return rep
}

func (r *Runner) append(ctx context.Context, raw []byte) (uint64, error) {
	var ev map[string]json.RawMessage
	if err := json.Unmarshal(raw, &ev); err != nil {
		return 0, err
	}
	if _, ok := ev["id"]; !ok {
		id := ulid.MustNew(ulid.Timestamp(r.Clock.Now()), r.ids).String()
		ev["id"], _ = json.Marshal(id)
	}
	if _, ok := ev["v"]; !ok {
		ev["v"] = json.RawMessage("1")
	}
	if _, ok := ev["actor"]; !ok {
		ev["actor"] = json.RawMessage(`"scenario"`)
	}
	b, _ := json.Marshal(ev)
	return r.Ledger.Append(ctx, b)
}

func (r *Runner) step(ctx context.Context, n int, raw json.RawMessage) []string {
	var st map[string]json.RawMessage
	if err := json.Unmarshal(raw, &st); err != nil {
		return []string{fmt.Sprintf("step is not an object: %v", err)}
	}
	if a, ok := st["append"]; ok {
		for k := range st {
			if k != "append" && k != "reject" {
				return []string{fmt.Sprintf("append step has unknown key %q", k)}
			}
		}
		var reject string
		if rj, ok := st["reject"]; ok {
			if err := json.Unmarshal(rj, &reject); err != nil {
				return []string{"reject must be a string"}
			}
		}
		return r.appendStep(ctx, a, reject)
	}
	if e, ok := st["expect"]; ok && len(st) == 1 {
		return r.expect(ctx, e)
	}
	return []string{"a step is {\"append\": ...} (with an optional \"reject\") or {\"expect\": ...}"}
}

func (r *Runner) appendStep(ctx context.Context, a json.RawMessage, reject string) []string {
	before, _ := r.Ledger.Head(ctx)
	_, err := r.append(ctx, a)
	desc := describe(a)
	code := events.CodeOf(err)
	switch {
	case err != nil && code == "":
		return []string{fmt.Sprintf("append %s: ledger error: %v", desc, err)}
	case reject == "" && err != nil:
		return []string{fmt.Sprintf("append %s: expected accepted, got %v", desc, err)}
	case reject != "" && err == nil:
		return []string{fmt.Sprintf("append %s: expected refused with %s, got accepted", desc, reject)}
	case reject != "" && string(code) != reject:
		return []string{fmt.Sprintf("append %s: expected refused with %s, got %v", desc, reject, err)}
	}
	if reject != "" && code != events.CodeAuthorizationChanged {
		if after, _ := r.Ledger.Head(ctx); after != before {
			return []string{fmt.Sprintf("append %s: refused with %s but the log moved from %d to %d", desc, reject, before, after)}
		}
	}
	return nil
}

func describe(a json.RawMessage) string {
	var ev struct {
		Type    string `json:"type"`
		Session string `json:"session"`
	}
	_ = json.Unmarshal(a, &ev)
	if ev.Session != "" {
		return ev.Type + " " + ev.Session
	}
	return ev.Type
}

// expectation is an expect step, decoded with presence kept.
type expectation struct {
	Session      events.SessionKey
	Pos          projection.Position
	Allowed      []string
	HasAllowed   bool
	Denied       map[string]string
	Exact        bool
	Tool         string
	Decision     string
	Reason       *string
	Input        json.RawMessage
	PolicySource string
	SourceReason json.RawMessage // absent: nil; null: "null"
	Envelope     map[string]json.RawMessage
	// Scope is the scope the session must be bound to; State its
	// lifecycle state.
	Scope string
	State string
}

var expectKeys = map[string]bool{"session": true, "seq": true, "turn": true, "allowed": true, "denied": true,
	"exact": true, "tool": true, "decision": true, "reason": true, "input": true, "policy_source": true,
	"source_reason": true, "envelope": true, "time": true, "scope": true, "state": true}

func parseExpect(raw json.RawMessage) (*expectation, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	for k := range m {
		if !expectKeys[k] {
			return nil, fmt.Errorf("expect has unknown key %q", k)
		}
	}
	e := &expectation{}
	get := func(k string, v any) error {
		if b, ok := m[k]; ok {
			if err := json.Unmarshal(b, v); err != nil {
				return fmt.Errorf("expect %q: %v", k, err)
			}
		}
		return nil
	}
	var turn int
	// In a fixed order, so that of two bad keys the same one is named
	// every run.
	for _, kv := range []struct {
		k string
		v any
	}{{"session", &e.Session}, {"seq", &e.Pos.Seq}, {"turn", &turn}, {"allowed", &e.Allowed},
		{"denied", &e.Denied}, {"exact", &e.Exact}, {"tool", &e.Tool}, {"decision", &e.Decision}, {"reason", &e.Reason},
		{"policy_source", &e.PolicySource}, {"envelope", &e.Envelope}, {"time", &e.Pos.Time}, {"scope", &e.Scope},
		{"state", &e.State}} {
		if err := get(kv.k, kv.v); err != nil {
			return nil, err
		}
	}
	e.Pos.Turn = turn
	_, e.HasAllowed = m["allowed"]
	e.Input = m["input"]
	e.SourceReason = m["source_reason"]
	if _, ok := m["seq"]; ok && e.Pos.Seq == 0 {
		return nil, fmt.Errorf("expect seq must be at least 1")
	}
	if _, ok := m["turn"]; ok && turn == 0 {
		return nil, fmt.Errorf("expect turn must be at least 1")
	}
	if err := e.validate(); err != nil {
		return nil, err
	}
	return e, nil
}

// validate refuses an expectation whose keys do not go together.
func (e *expectation) validate() error {
	if (e.Pos.Seq != 0 && e.Pos.Turn != 0) || (e.Pos.Time != "" && (e.Pos.Seq != 0 || e.Pos.Turn != 0)) {
		return fmt.Errorf("an expectation names at most one of seq, turn and time")
	}
	if e.Exact && !e.HasAllowed {
		return fmt.Errorf("exact needs allowed")
	}
	if e.Session == "" {
		return fmt.Errorf("expect needs a session")
	}
	if !e.HasAllowed && e.Denied == nil && e.Tool == "" && e.PolicySource == "" && e.Envelope == nil && e.Scope == "" && e.State == "" {
		return fmt.Errorf("expect names nothing to check")
	}
	if e.Tool == "" && (e.Decision != "" || e.Reason != nil || e.Input != nil) {
		return fmt.Errorf("decision, reason and input need tool")
	}
	if e.Tool != "" && e.Decision == "" {
		return fmt.Errorf("tool needs decision")
	}
	return nil
}

func (r *Runner) expect(ctx context.Context, raw json.RawMessage) []string {
	e, err := parseExpect(raw)
	if err != nil {
		return []string{"error in the scenario: " + err.Error()}
	}
	var msgs []string
	where := string(e.Session)
	switch {
	case e.Pos.Seq != 0:
		where += fmt.Sprintf(" at seq %d", e.Pos.Seq)
	case e.Pos.Turn != 0:
		where += fmt.Sprintf(" at turn %d", e.Pos.Turn)
	case e.Pos.Time != "":
		where += " at time " + e.Pos.Time
	}
	err = r.Ledger.View(ctx, e.Session, e.Pos, func(st *projection.State) error {
		msgs = check(st, e, where)
		return nil
	})
	if err != nil {
		return []string{fmt.Sprintf("%s: query failed: %v", where, err)}
	}
	return msgs
}

func check(st *projection.State, e *expectation, where string) []string {
	var msgs []string
	failf := func(format string, args ...any) { msgs = append(msgs, where+": "+fmt.Sprintf(format, args...)) }
	sess := st.Session(e.Session)
	if sess == nil {
		return []string{where + ": session does not exist"}
	}
	if e.Scope != "" && events.ScopeName(sess.Scope) != e.Scope {
		failf("expected scope %s, got %s", e.Scope, events.ScopeName(sess.Scope))
	}
	if e.State != "" && string(sess.State) != e.State {
		failf("expected state %s, got %s", e.State, sess.State)
	}
	if e.HasAllowed || e.Denied != nil {
		ts, err := st.Tools(e.Session)
		if err != nil {
			return []string{fmt.Sprintf("%s: tools: %v", where, err)}
		}
		checkToolSet(&ts, e, func(t string) string { return st.NormalizeFor(e.Session, t) }, failf)
	}
	if e.Tool != "" {
		checkCall(st, e, failf)
	}
	if e.PolicySource != "" {
		checkSource(sess.Context, e, failf)
	}
	if e.Envelope != nil {
		msgs = append(msgs, checkEnvelope(sess.Envelope, e.Envelope, where)...)
	}
	return msgs
}

// checkToolSet checks the expectation's allowed, denied and exact against
// the session's tool set.
func checkToolSet(ts *envelope.ToolSet, e *expectation, norm func(string) string, failf func(string, ...any)) {
	for _, t := range e.Allowed {
		d, reason, ok := ts.Lookup(norm(t))
		if !ok {
			failf("expected %s allowed, but it is not in the catalogue (catalogue:unknown)", t)
		} else if d != envelope.Allow {
			failf("expected %s allowed, got denied (%s)", t, reason.Code)
		}
	}
	for _, t := range sortedKeys(e.Denied) {
		want := e.Denied[t]
		d, reason, ok := ts.Lookup(norm(t))
		switch {
		case !ok && want != "catalogue:unknown":
			failf("expected %s denied (%s), got denied (catalogue:unknown)", t, want)
		case ok && d == envelope.Allow:
			failf("expected %s denied (%s), got allowed", t, want)
		case ok && reason.Code != want:
			failf("expected %s denied (%s), got denied (%s)", t, want, reason.Code)
		}
	}
	if !e.Exact {
		return
	}
	want := map[string]bool{}
	for _, t := range e.Allowed {
		want[norm(t)] = true
	}
	var extra []string
	for _, t := range ts.Allowed {
		if !want[t] {
			extra = append(extra, t)
		}
	}
	if len(extra) > 0 {
		failf("expected exactly %v allowed, also allowed: %v", e.Allowed, extra)
	}
}

// checkCall checks the decision of the expectation's tool call.
func checkCall(st *projection.State, e *expectation, failf func(string, ...any)) {
	v, err := st.Why(e.Session, e.Tool, e.Input)
	if err != nil {
		failf("check %s: %v", e.Tool, err)
		return
	}
	if string(v.Decision) != e.Decision || (e.Reason != nil && v.Reason.Code != *e.Reason) {
		want := e.Decision
		if e.Reason != nil {
			want += " (" + *e.Reason + ")"
		}
		failf("expected %s %s, got %s (%s)", e.Tool, want, v.Decision, v.Reason.Code)
	}
}

// checkSource checks the session's policy source and its reason.
func checkSource(got envelope.Context, e *expectation, failf func(string, ...any)) {
	if got.Source != e.PolicySource {
		failf("expected policy_source %s, got %s (source_reason %q)", e.PolicySource, got.Source, got.SourceReason)
	}
	if e.SourceReason == nil {
		return
	}
	var want *string
	_ = json.Unmarshal(e.SourceReason, &want)
	switch {
	case want == nil && got.SourceReason != "":
		failf("expected no source_reason, got %s", got.SourceReason)
	case want != nil && got.SourceReason != *want:
		failf("expected source_reason %s, got %q", *want, got.SourceReason)
	}
}

func checkEnvelope(env *envelope.Envelope, want map[string]json.RawMessage, where string) []string {
	if env == nil {
		return []string{where + ": expected an envelope, the session has none (it is a root)"}
	}
	b, _ := json.Marshal(env)
	var got map[string]json.RawMessage
	_ = json.Unmarshal(b, &got)
	var msgs []string
	for _, k := range sortedKeys(want) {
		g, ok := got[k]
		if !ok {
			msgs = append(msgs, fmt.Sprintf("%s: envelope has no field %q", where, k))
			continue
		}
		if !jsonEqual(g, want[k]) {
			msgs = append(msgs, fmt.Sprintf("%s: expected envelope %s %s, got %s", where, k, compact(want[k]), compact(g)))
		}
	}
	return msgs
}

// jsonEqual compares two JSON values; lists of strings compare as sets,
// since envelope lists are sorted by construction.
func jsonEqual(a, b json.RawMessage) bool {
	ca, err1 := events.CanonicalJSON(a)
	cb, err2 := events.CanonicalJSON(b)
	if err1 == nil && err2 == nil && bytes.Equal(ca, cb) {
		return true
	}
	var la, lb []string
	if json.Unmarshal(a, &la) == nil && json.Unmarshal(b, &lb) == nil && la != nil && lb != nil {
		sort.Strings(la)
		sort.Strings(lb)
		return strings.Join(la, "\x00") == strings.Join(lb, "\x00") && len(la) == len(lb)
	}
	return false
}

func compact(b json.RawMessage) string {
	c, err := events.CanonicalJSON(b)
	if err != nil {
		return string(b)
	}
	return string(c)
}

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }
