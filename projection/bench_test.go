package projection_test

import (
	"testing"

	"github.com/sessionledger/ledger/envelope/claudecode"
	"github.com/sessionledger/ledger/envelope/openclaw"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/workload"
	"github.com/sessionledger/ledger/projection"
)

// benchState folds a depth-2 sub-agent through the real append path.
func benchState(b *testing.B) (*projection.State, events.SessionKey) {
	b.Helper()
	oc, cc := openclaw.New(), claudecode.New()
	h := &harness{t: b, st: projection.New(projection.Dialects{oc.Name(): oc, cc.Name(): cc})}
	for _, ev := range workload.BenchEvents() {
		h.mustAppend(string(ev))
	}
	return h.st, workload.BenchSession
}

// BenchmarkCheck is a single-tool check on a warm session (issue target:
// at most 1 µs and 0 allocations).
func BenchmarkCheck(b *testing.B) {
	st, key := benchState(b)
	if _, err := st.Check(key, "read", nil); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := st.Check(key, "read", nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkToolSet resolves the full tool set with reasons from scratch
// (target: at most 20 µs).
func BenchmarkToolSet(b *testing.B) {
	st, key := benchState(b)
	sess := st.Session(key)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		_ = st.Dialect().Tools(st, sess)
	}
}

// BenchmarkWhy decides one tool with its full trace.
func BenchmarkWhy(b *testing.B) {
	st, key := benchState(b)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := st.Why(key, "browser", nil); err != nil {
			b.Fatal(err)
		}
	}
}

func TestCheckAllocationFree(t *testing.T) {
	st, key := benchState(&testing.B{})
	_, _ = st.Check(key, "read", nil)
	if n := testing.AllocsPerRun(100, func() { _, _ = st.Check(key, "read", nil) }); n != 0 {
		t.Fatalf("a warm check allocates %v times", n)
	}
	for _, tool := range append(workload.BenchCatalogue(), "mail__send", "gh__issue", "NOT_A_TOOL", " Bash ") {
		v, _ := st.Check(key, tool, nil)
		w, _ := st.Why(key, tool, nil)
		if v.Decision != w.Decision || v.Reason.Code != w.Reason.Code {
			t.Errorf("%s: fast check %s %s disagrees with why %s %s", tool, v.Decision, v.Reason.Code, w.Decision, w.Reason.Code)
		}
	}
}
