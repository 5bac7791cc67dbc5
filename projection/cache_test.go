package projection_test

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sessionledger/ledger/envelope/openclaw"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/workload"
	"github.com/sessionledger/ledger/projection"
)

// answers renders every query a service answers at the head, for every
// session and tool: why with its trace, check, the tool set, and why at
// each of the session's turns.
func answers(t *testing.T, s *projection.State, tools []string) string {
	t.Helper()
	var b strings.Builder
	line := func(v ...any) {
		j, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(j)
		b.WriteByte('\n')
	}
	for _, k := range s.Keys() {
		for _, tool := range tools {
			v, err := s.Why(k, tool, nil)
			line("why", k, tool, v, fmt.Sprint(err))
			c, err := s.Check(k, tool, nil)
			line("check", k, tool, c, fmt.Sprint(err))
		}
		ts, err := s.Tools(k)
		line("tools", k, ts, fmt.Sprint(err))
		sess := s.Session(k)
		line("context", k, sess.Context, sess.Envelope, sess.State, sess.Turn)
		for turn := 1; turn <= sess.Turn; turn++ {
			tv, err := s.AtTurn(k, turn)
			if err != nil {
				line("turn", k, turn, err.Error())
				continue
			}
			line("turn", k, turn, tv.Why("exec", nil), tv.Tools())
		}
	}
	return b.String()
}

// TestSessionCacheAnswersAlike: a state loaded from its store answers
// every query as the state that folded the log in memory does, whether it
// reads each session from the file (cold), holds it (hot) or holds almost
// nothing (a cache of one session).
func TestSessionCacheAnswersAlike(t *testing.T) {
	oc := openclaw.New()
	dialects := projection.Dialects{oc.Name(): oc, "toy": toy{}}
	tools := []string{"exec", "read", "write", "browser", "sessions_spawn", "gateway", "not_a_tool"}
	logs := map[string][]*events.Record{"workload": workloadLog(t), "effects": effectsLog(t), "sample": sampleLog(t)}
	for name, recs := range logs {
		t.Run(name, func(t *testing.T) {
			mem := projection.New(dialects)
			for i, r := range recs {
				if err := mem.Apply(projection.Input{Record: r}, uint64(i+1)); err != nil {
					t.Fatal(err)
				}
			}
			want := answers(t, mem, tools)
			// Committed every few records, so that the store holds what
			// several commits wrote.
			st := storeOf(t, dialects, recs, 5)
			defer st.Close()
			answersAlike(t, st, dialects, want, func(s *projection.State) string { return answers(t, s, tools) }, "")
		})
	}
}

// storeOf folds recs into a fresh store, committing every every records
// and once at the end.
func storeOf(t *testing.T, dialects projection.Dialects, recs []*events.Record, every int) *projection.Store {
	t.Helper()
	st, err := projection.OpenStore(filepath.Join(t.TempDir(), "p.db"), projection.StoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	folded := projection.New(dialects)
	for i, r := range recs {
		if err := folded.Apply(projection.Input{Record: r}, uint64(i+1)); err != nil {
			t.Fatal(err)
		}
		if i%every == every-1 {
			if err := st.Commit(folded); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := st.Commit(folded); err != nil {
		t.Fatal(err)
	}
	return st
}

// answersAlike loads st holding every session it reads and holding one,
// and checks that answer gives want on each, cold and then hot.
func answersAlike(t *testing.T, st *projection.Store, dialects projection.Dialects, want string, answer func(*projection.State) string, what string) {
	t.Helper()
	for _, max := range []int{*projection.MaxSessions, 1} {
		func() {
			defer func(n int) { *projection.MaxSessions = n }(*projection.MaxSessions)
			*projection.MaxSessions = max
			s, err := st.Load(dialects)
			if err != nil {
				t.Fatal(err)
			}
			for _, pass := range []string{"cold", "hot"} {
				if got := answer(s); got != want {
					t.Fatalf("%s%d sessions held, %s: answers differ from the state in memory:\n%s\nwant:\n%s", what, max, pass, got, want)
				}
			}
		}()
	}
}

// TestSessionCacheBounded: a state that reads from a store holds at most
// 2*maxSessions+1 sessions however many it reads, and keeps those queries
// asked about since the last eviction.
func TestSessionCacheBounded(t *testing.T) {
	defer func(n int) { *projection.MaxSessions = n }(*projection.MaxSessions)
	*projection.MaxSessions = 8
	oc := openclaw.New()
	dialects := projection.Dialects{oc.Name(): oc}
	h := &harness{t: t, st: projection.New(dialects)}
	for _, ev := range workload.Sessions(20) {
		h.mustAppend(string(ev))
	}
	st, err := projection.OpenStore(filepath.Join(t.TempDir(), "p.db"), projection.StoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.Commit(h.st); err != nil {
		t.Fatal(err)
	}
	s, err := st.Load(dialects)
	if err != nil {
		t.Fatal(err)
	}
	keys := s.Keys()
	asked := []events.SessionKey{"agent:main:w1", "agent:main:w2", "agent:coder:subagent:w3-c"}
	for _, k := range asked {
		if _, err := s.Why(k, "exec", nil); err != nil {
			t.Fatal(err)
		}
	}
	held := func(k events.SessionKey) bool {
		ok, n := projection.Holds(s, k)
		if n > 2*8+1 {
			t.Fatalf("the state holds %d sessions, more than %d", n, 2*8+1)
		}
		return ok
	}
	// others reads sessions no query asked about (as a fold does) until
	// the state evicts, and returns the first it read.
	others := keys[:0:0]
	for _, k := range keys {
		if !slices.Contains(asked, k) {
			others = append(others, k)
		}
	}
	readUntilEviction := func() events.SessionKey {
		first := others[0]
		for len(others) > 0 {
			_, before := projection.Holds(s, "")
			if s.Session(others[0]) == nil {
				t.Fatalf("session %s vanished", others[0])
			}
			others = others[1:]
			if _, after := projection.Holds(s, ""); after < before {
				return first
			}
		}
		t.Fatal("the state never evicted")
		return ""
	}
	first := readUntilEviction()
	for _, k := range asked {
		if !held(k) {
			t.Errorf("%s was asked about and is no longer held", k)
		}
	}
	if held(first) {
		t.Errorf("%s was read before the eviction, not asked about, and is still held", first)
	}
	// A session asked about again stays through the next eviction; one
	// that was not goes.
	if _, err := s.Why(asked[0], "read", nil); err != nil {
		t.Fatal(err)
	}
	readUntilEviction()
	if !held(asked[0]) {
		t.Errorf("%s was asked about again and is no longer held", asked[0])
	}
	if held(asked[1]) {
		t.Errorf("%s was not asked about again and is still held", asked[1])
	}
}
