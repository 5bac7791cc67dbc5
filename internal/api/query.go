package api

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/nats-io/nats.go/micro"

	"github.com/oklog/ulid/v2"

	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/service"
	"github.com/sessionledger/ledger/projection"
	"github.com/sessionledger/ledger/wire"
)

// queryFields names a query's fields, for the error that refuses another.
var queryFields = func() string {
	t := reflect.TypeFor[wire.Query]()
	names := make([]string, t.NumField())
	for i := range names {
		names[i], _, _ = strings.Cut(t.Field(i).Tag.Get("json"), ",")
	}
	return strings.Join(names, ", ")
}()

// decodeQuery reads a query: one JSON object of Query's fields and nothing
// else (a misspelled field is refused, not ignored and answered at the
// head), naming at most one position, its time in the layout records are
// stored in (NormalizeTime). An empty body is the empty query.
func decodeQuery(data []byte) (wire.Query, error) {
	q, ok := readQuery(data)
	if !ok {
		var err error
		if q, err = unmarshalQuery(data); err != nil {
			return q, err
		}
	}
	n := 0
	for _, set := range []bool{q.Seq != 0, q.Turn != 0, q.Time != ""} {
		if set {
			n++
		}
	}
	if n > 1 {
		return q, events.Errorf(events.CodeInvalidEvent, "name at most one of seq, turn and time")
	}
	if q.Time != "" {
		t, err := NormalizeTime(q.Time)
		if err != nil {
			return q, err
		}
		q.Time = t
	}
	return q, nil
}

// unmarshalQuery reads a query with encoding/json, refusing unknown
// fields and anything after the object.
func unmarshalQuery(data []byte) (wire.Query, error) {
	var q wire.Query
	if len(data) == 0 {
		return q, nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&q); err != nil {
		if field, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
			return q, events.Errorf(events.CodeInvalidEvent, "unknown field %s in the query; a query's fields are %s", field, queryFields)
		}
		return q, events.Errorf(events.CodeInvalidEvent, "the query is not JSON of the query's fields: %v", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return q, events.Errorf(events.CodeInvalidEvent, "the query is one JSON object; something follows it")
	}
	return q, nil
}

// handleQuery answers a query, at once or, when it names a min_seq this
// replica has not applied yet, from a waiter of its own: a query waiting
// for min_seq holds no worker, so other queries go on being answered. An
// owner has at most MaxWaiting queries waiting; another is answered
// not_caught_up at once.
func (s *Server) handleQuery(ctx context.Context, name string, r micro.Request) {
	start := time.Now()
	owner, ok := queryScope(r)
	if !ok {
		s.observeQuery(name, start)
		return
	}
	q, err := decodeQuery(r.Data())
	if err != nil {
		respondError(r, err, 0)
		s.observeQuery(name, start)
		return
	}
	if q.MinSeq == 0 || s.cfg.Service.Position() >= q.MinSeq {
		s.answerQuery(ctx, name, r, owner, q)
		s.observeQuery(name, start)
		return
	}
	if !s.waiting.acquire(owner) {
		s.log.Warn("queries shed: an owner has its most queries waiting for min_seq", "owner", owner, "limit", s.cfg.MaxWaiting)
		respondError(r, events.Errorf(events.CodeNotCaughtUp, "%d queries of %q are waiting for a min_seq already; this replica has applied up to sequence %d, not %d: retry after a pause", s.cfg.MaxWaiting, owner, s.cfg.Service.Position(), q.MinSeq), 0)
		s.observeQuery(name, start)
		return
	}
	s.goWaited(func() {
		defer s.waiting.release(owner)
		defer s.observeQuery(name, start)
		// The wait ends at MaxWait, when the projection reaches min_seq,
		// or when the server stops.
		wctx, cancel := context.WithTimeout(s.life, s.cfg.MaxWait)
		err := s.cfg.Service.WaitApplied(wctx, q.MinSeq)
		cancel()
		if err != nil {
			respondError(r, err, 0)
			return
		}
		s.answerQuery(ctx, name, r, owner, q)
	})
}

func (s *Server) observeQuery(name string, start time.Time) {
	if s.cfg.Observer != nil {
		s.cfg.Observer.Query(name, time.Since(start))
	}
}

// answerQuery answers a query the replica can answer now.
func (s *Server) answerQuery(ctx context.Context, name string, r micro.Request, owner string, q wire.Query) {
	if whyAboutCall(name, q) {
		s.answerWhyCall(ctx, r, owner, q)
		return
	}
	if q.ID != "" && !(name == "check" && q.Record) {
		respondError(r, events.Errorf(events.CodeInvalidEvent, "id names the record of a recorded check (check with record), not of a %s", name), 0)
		return
	}
	if q.WithinMS != 0 && !(name == "check" && q.Record) {
		respondError(r, events.Errorf(events.CodeInvalidEvent, "within_ms bounds a recorded check (check with record), not a %s", name), 0)
		return
	}
	if q.Root != "" || q.Brief {
		respondError(r, events.Errorf(events.CodeInvalidEvent, "root and brief are about a why about a call (call or check_seq), not a %s", name), 0)
		return
	}
	if q.Session == "" && name != "tree" {
		respondError(r, events.Errorf(events.CodeInvalidEvent, "%s needs a session", name), 0)
		return
	}
	if (name == "check" || name == "why") && q.Tool == "" {
		respondError(r, events.Errorf(events.CodeInvalidEvent, "%s needs a tool", name), 0)
		return
	}
	if name == "check" && q.Record {
		// An append: who owns the session is decided by the round's
		// screen on the head the round is decided on (foreign), as for
		// any append, not by a view of its own here, which would wait for
		// the rounds in flight to settle before the check is even queued
		// (hostile.TestAPIOnlyHostile, "recorded check on another orchestrator's session";
		// BenchmarkRecordedCheckVsAppend).
		s.recordCheck(ctx, r, owner, q)
		return
	}
	if (owner != wire.ScopeAll || q.Session != "") && !(name == "tree" && q.Session == "") {
		if err := s.cfg.Service.View(ctx, "", projection.Position{}, func(st *projection.State) error { return owned(st, q.Session, owner) }); err != nil {
			respondError(r, err, 0)
			return
		}
	}
	pos := projection.Position{Seq: q.Seq, Turn: q.Turn, Time: q.Time}
	svc := s.cfg.Service
	switch name {
	case "tools":
		a, err := svc.ToolsAnswer(ctx, q.Session, pos)
		if err != nil {
			respondError(r, err, 0)
			return
		}
		respondJSON(r, a)
	case "check":
		if q.Effect {
			respondError(r, events.Errorf(events.CodeInvalidEvent, "effect starts a call with its recorded check: send it with record and call"), 0)
			return
		}
		a, err := svc.Check(ctx, q.Session, q.Tool, q.Input, pos)
		if err != nil {
			respondError(r, err, 0)
			return
		}
		respondJSON(r, wire.CheckResult{Session: q.Session, Scope: a.Scope, Seq: a.Seq, Tool: a.Verdict.Tool, Decision: a.Verdict.Decision, Reason: a.Verdict.Reason, NotActive: a.NotActive})
	case "why":
		a, err := svc.Why(ctx, q.Session, q.Tool, q.Input, pos)
		if err == nil {
			a, err = s.withTurn(ctx, q, a)
		}
		if err != nil {
			respondError(r, err, 0)
			return
		}
		respondJSON(r, a)
	case "session":
		err := svc.View(ctx, q.Session, pos, func(st *projection.State) error {
			v, err := service.ViewSession(st, q.Session)
			if err == nil {
				respondJSON(r, v)
			}
			return err
		})
		if err != nil {
			respondError(r, err, 0)
		}
	case "tree":
		err := svc.View(ctx, q.Session, pos, func(st *projection.State) error {
			trees, err := service.Trees(st, q.Session, q.Filter)
			if err == nil && q.Session == "" && owner != wire.ScopeAll {
				// An orchestrator's every-root query: its own roots (a
				// root's sub-agents are its owner's too).
				trees = slices.DeleteFunc(trees, func(n *wire.TreeNode) bool { return st.Session(n.Key).Actor != owner })
			}
			if err == nil {
				respondJSON(r, trees)
			}
			return err
		})
		if err != nil {
			respondError(r, err, 0)
		}
	}
}

// recordCheck appends a tool.checked for the session's current turn and
// answers with what it recorded. It is an append like any other, decided
// in the batcher's rounds with the appends of every writer (so recorded
// checks share rounds rather than each taking one), its turn the
// session's current one on the head the round is decided on (see
// recordedCheck).
func (s *Server) recordCheck(_ context.Context, r micro.Request, owner string, q wire.Query) {
	if owner == wire.ScopeAll {
		respondError(r, events.Errorf(events.CodeInvalidEvent, "recording a check is an orchestrator's append: use %s.check.<orchestrator>", wire.Prefix), 0)
		return
	}
	if q.Effect && q.Call == "" {
		respondError(r, events.Errorf(events.CodeInvalidEvent, "a check that starts the call's effect needs the call's id (call)"), 0)
		return
	}
	if q.WithinMS < 0 {
		respondError(r, events.Errorf(events.CodeInvalidEvent, "within_ms %d: give the milliseconds the caller waits, or leave it out", q.WithinMS), 0)
		return
	}
	if q.ID != "" {
		if _, err := ulid.ParseStrict(q.ID); err != nil {
			respondError(r, events.Errorf(events.CodeInvalidEvent, "a recorded check's id is a ULID (26 characters of Crockford's base32), not %q: %v", q.ID, err), 0)
			return
		}
	}
	c, _, ev, err := newRecordedCheck(q, owner)
	if err != nil {
		respondError(r, err, 0)
		return
	}
	p := &pendingAppend{r: r, ev: ev, start: s.now(), owner: owner, check: c}
	if q.WithinMS > 0 {
		p.deadline = p.start.Add(time.Duration(q.WithinMS) * time.Millisecond)
	}
	s.queue(p)
}

// recordedCheck is a check to record: the tool.checked is made for turn 1
// and given the session's current turn by the round's screen (atTurn).
type recordedCheck struct {
	tool string
	// data is the event's data up to its turn, which comes last:
	// `{"call":...,"effect":true,"input":...,"tool":...,"turn":`.
	data []byte
}

// newRecordedCheck makes q's check and its tool.checked at turn 1, with
// owner its actor: raw is the event as it is sent, its keys in the order a
// map of them would be marshalled in, byte for byte encoding/json's (the
// records' bytes are those of before, when it was one:
// TestRecordedCheckBytes), and ev what events.Parse makes of raw. q.Input
// is what decodeQuery read: valid JSON.
func newRecordedCheck(q wire.Query, owner string) (c *recordedCheck, raw []byte, ev *events.Event, err error) {
	if len(q.Input) > 0 && !json.Valid(q.Input) {
		_, err := json.Marshal(q.Input)
		return nil, nil, nil, events.Errorf(events.CodeInvalidEvent, "the check's input is not JSON: %v", err)
	}
	b := make([]byte, 0, 128+len(q.Session)+len(owner)+len(q.Tool)+len(q.Call)+len(q.Input))
	b = events.AppendJSONString(append(b, `{"actor":`...), owner)
	b = append(b, `,"data":`...)
	data := len(b)
	b = append(b, '{')
	if q.Call != "" {
		b = append(events.AppendJSONString(append(b, `"call":`...), q.Call), ',')
	}
	if q.Effect {
		b = append(b, `"effect":true,`...)
	}
	if len(q.Input) > 0 {
		b = append(events.AppendCompactJSON(append(b, `"input":`...), q.Input), ',')
	}
	b = events.AppendJSONString(append(b, `"tool":`...), q.Tool)
	b = append(b, `,"turn":`...)
	c = &recordedCheck{tool: q.Tool, data: b[data:len(b):len(b)]}
	b = append(b, "1}"...)
	dataEnd := len(b)
	if q.ID != "" {
		b = events.AppendJSONString(append(b, `,"id":`...), q.ID)
	}
	b = events.AppendJSONString(append(b, `,"session":`...), string(q.Session))
	raw = append(b, `,"type":"tool.checked","v":1}`...)
	if ev, ok := checkedEvent(q, owner, raw, raw[data:dataEnd:dataEnd]); ok {
		return c, raw, ev, nil
	}
	ev, err = events.Parse(raw)
	if err != nil {
		return nil, nil, nil, err
	}
	return c, raw, ev, nil
}

// checkedEvent is the event events.Parse makes of raw, the tool.checked of
// q whose data is data, when Parse would accept it, without parsing it
// again: raw passes Parse's JSON checks (events.CheckJSON), and then each
// check Parse makes of a tool.checked holds by construction but for
// those looked at here (a session, an input that is a string or an
// object, a call when effect). The event's strings are q's as they are
// when quoting them loses nothing (valid UTF-8). Otherwise it reports
// false, and Parse gives the answer (FuzzRecordedCheckEvent compares the
// two).
func checkedEvent(q wire.Query, owner string, raw, data []byte) (*events.Event, bool) {
	input := byte('{')
	if len(q.Input) > 0 {
		input = q.Input[skipSpace(q.Input)]
	}
	if q.Session == "" || input != '{' && input != '"' || q.Effect && q.Call == "" ||
		!utf8.ValidString(string(q.Session)) || !utf8.ValidString(owner) || events.CheckJSON(raw) != nil {
		return nil, false
	}
	return &events.Event{Type: events.ToolChecked, V: events.Version, ID: q.ID, Session: q.Session, Actor: owner, Data: data}, true
}

// skipSpace is the index of the first byte of b that is not JSON
// whitespace (len(b) when there is none).
func skipSpace(b []byte) int {
	i := 0
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// at is the check's data at turn.
func (c *recordedCheck) at(turn int) json.RawMessage {
	b := make([]byte, 0, len(c.data)+12)
	b = strconv.AppendInt(append(b, c.data...), int64(max(turn, 1)), 10)
	return append(b, '}')
}

// atTurn sets ev's turn to the session's current turn at st.
func (c *recordedCheck) atTurn(st *projection.State, ev *events.Event) {
	sess := st.Session(ev.Session)
	if sess == nil || sess.Turn <= 1 {
		return // the event says turn 1 already
	}
	ev.Data = c.at(sess.Turn)
}

// answerCheck answers a recorded check with what the round recorded,
// naming the scope whose policy decided as a plain check does
// (TestRecordedCheckAnswersScope). A
// check's decision comes as a value (service.Result.Check) and is written
// by hand as a wire.CheckResult, the bytes encoding/json would write of the
// record's decided JSON copied into a checkAnswer
// (TestRecordedCheckAnswerBytes, TestCheckAnswerIsCheckResult); without
// it, the decision and reason are copied from the record's decided JSON
// as they are, not decoded into a reason and encoded again.
func answerCheck(p *pendingAppend, res service.Result, err error) {
	if err != nil {
		respondError(p.r, err, res.Seq)
		return
	}
	if c := res.Check; c != nil {
		respondJSON(p.r, wire.CheckResult{Session: p.ev.Session, Scope: events.ScopeName(c.Scope), Seq: res.Seq, Tool: p.check.tool, Decision: c.Decision, Reason: c.Reason, Recorded: res.Seq})
		return
	}
	var dec struct {
		Decision json.RawMessage `json:"decision"`
		Reason   json.RawMessage `json:"reason"`
		Scope    string          `json:"scope"`
	}
	if err := json.Unmarshal(res.Decided, &dec); err != nil {
		respondError(p.r, err, res.Seq)
		return
	}
	respondJSON(p.r, checkAnswer{Session: p.ev.Session, Scope: events.ScopeName(dec.Scope), Seq: res.Seq, Tool: p.check.tool, Decision: dec.Decision, Reason: dec.Reason, Recorded: res.Seq})
}

// answerLandedCheck answers a re-sent recorded check with rec, the record
// its id landed as at seq: that check's decision, when rec is the check of
// the same session, tool, call and effect, and invalid_event otherwise
// (the id is another record's). Nothing was recorded for the re-send
// (TestRecordedCheckResent).
func answerLandedCheck(p *pendingAppend, seq uint64, rec *events.Record) {
	var sent, got events.CheckedData
	_ = json.Unmarshal(p.ev.Data, &sent) // made by newRecordedCheck: it decodes
	same := rec.Type == events.ToolChecked && rec.Session == p.ev.Session && json.Unmarshal(rec.Data, &got) == nil &&
		got.Tool == sent.Tool && got.Call == sent.Call && got.Effect == sent.Effect
	if !same {
		respondError(p.r, events.Errorf(events.CodeInvalidEvent, "id %s is the id of record %d, not a check of %s by session %s with call %q: a re-sent check keeps its session, tool, call and effect; give another call a fresh id", p.ev.ID, seq, sent.Tool, p.ev.Session, sent.Call), seq)
		return
	}
	answerCheck(p, service.Result{Seq: seq, ID: rec.ID, Decided: rec.Decided}, nil)
}

// checkAnswer is wire.CheckResult with its decision and reason as the
// record's decided JSON holds them (the same fields, names and order:
// TestCheckAnswerIsCheckResult).
type checkAnswer struct {
	Session  events.SessionKey `json:"session"`
	Scope    string            `json:"scope"`
	Seq      uint64            `json:"seq"`
	Tool     string            `json:"tool"`
	Decision json.RawMessage   `json:"decision"`
	Reason   json.RawMessage   `json:"reason"`
	Recorded uint64            `json:"recorded,omitempty"`
	// NotActive is never set: a recorded check of a session that is not
	// active is refused, not answered.
	NotActive *wire.ErrorBody `json:"not_active,omitempty"`
}

// now is the API's clock (Config.Clock, else time.Now).
func (s *Server) now() time.Time {
	if s.cfg.Clock != nil {
		return s.cfg.Clock()
	}
	return time.Now()
}
