package hostile

import (
	"encoding/json"
	"os"
	"slices"
	"testing"

	"github.com/sessionledger/ledger/events"
)

// TestCLIHostileEvents runs the shared table through `ledger append
// --json`: one run per dialect over a file holding the fixture and then
// every hostile line.
func TestCLIHostileEvents(t *testing.T) {
	t.Parallel()
	for _, dialect := range []string{openclaw, claudeCode} {
		t.Run(dialect, func(t *testing.T) {
			data := t.TempDir()
			fix := fixture(dialect)
			var lines []string
			for _, f := range fix {
				lines = append(lines, f.line)
			}
			type sent struct {
				c    hcase
				line int // file line
			}
			var table []sent
			var known []hcase
			for _, c := range cases() {
				switch {
				case c.dialect != dialect || c.apiOnly:
				case c.knownCLI != "" && os.Getenv("HOSTILETEST_KNOWN") != "1":
					known = append(known, c)
				default:
					lines = append(lines, c.line)
					table = append(table, sent{c, len(lines)})
				}
			}
			out, res := appendFile(t, data, lines)
			if res.exit != 1 {
				t.Errorf("ledger append exited %d, want 1 (events were refused)", res.exit)
			}
			if len(out) != len(lines) {
				t.Fatalf("ledger append printed %d results for %d lines; stderr:\n%s", len(out), len(lines), res.stderr)
			}
			for k := 1; k <= len(fix); k++ {
				if o := out[k]; o.Error != "" || o.Seq != uint64(k) {
					t.Fatalf("fixture line %d: %+v, want seq %d", k, o, k)
				}
			}
			run := newRun(fix)
			wrote := map[int][]uint64{}
			for i, s := range table {
				t.Run(s.c.name, func(t *testing.T) {
					o := out[s.line]
					wrote[i] = run.check(t, &s.c, outcome{code: o.Error, message: o.Message, seq: o.Seq, dup: o.Duplicate})
				})
			}
			for _, c := range known {
				t.Run(c.name, func(t *testing.T) { skipKnown(t, c.knownCLI) })
			}
			t.Logf("%d %s cases through the CLI", len(table), dialect)

			// Nothing but the fixture and what the accepted cases (and the
			// refused effect's decision record) wrote is in the log.
			recs := cliLog(t, data)
			if uint64(len(recs)) != run.next-1 {
				t.Fatalf("the log holds %d records, want %d (the fixture's %d and %d written by cases)", len(recs), run.next-1, len(fix), int(run.next-1)-len(fix))
			}
			for i, s := range table {
				if s.c.verify == nil || len(wrote[i]) == 0 {
					continue
				}
				var mine []*events.Record
				for _, seq := range wrote[i] {
					mine = append(mine, recs[seq-1])
				}
				t.Run(s.c.name+"/records", func(t *testing.T) { s.c.verify(t, mine) })
			}
			cliStillServes(t, data, dialect, run.next)
		})
	}
}

// cliStillServes appends a normal event and queries after a table, and
// checks that the accepted foreign-batch resume granted nothing.
func cliStillServes(t *testing.T, data, dialect string, next uint64) {
	t.Helper()
	root, resumed, plain := ocMain, ocSecond, ocFourth
	if dialect == claudeCode {
		root, resumed, plain = ccLead, ccLead2, ""
	}
	out, res := appendFile(t, data, []string{sev("turn.started", root, `{"turn":2}`)})
	if res.exit != 0 || out[1].Error != "" || out[1].Seq != next {
		t.Fatalf("a normal append after the table: exit %d, %+v (want seq %d); stderr: %s", res.exit, out[1], next, res.stderr)
	}
	type toolsOut struct {
		Seq   uint64 `json:"seq"`
		Tools struct {
			Allowed []string `json:"allowed"`
		} `json:"tools"`
	}
	tools := func(session string) toolsOut {
		t.Helper()
		r := runLedger(t, "tools", "--data", data, "--session", session, "--json")
		var v toolsOut
		if r.exit != 0 || json.Unmarshal([]byte(r.stdout), &v) != nil {
			t.Fatalf("ledger tools --session %s: exit %d: %s%s", session, r.exit, r.stdout, r.stderr)
		}
		return v
	}
	if v := tools(root); v.Seq != next || len(v.Tools.Allowed) == 0 {
		t.Errorf("a query after the table: %+v", v)
	}
	r := runLedger(t, "session", "--data", data, "--session", resumed, "--json")
	var view struct {
		Context struct {
			Source   string          `json:"policy_source"`
			Reason   string          `json:"source_reason"`
			Captured json.RawMessage `json:"captured"`
		} `json:"context"`
	}
	if r.exit != 0 || json.Unmarshal([]byte(r.stdout), &view) != nil {
		t.Fatalf("ledger session: exit %d: %s%s", r.exit, r.stdout, r.stderr)
	}
	if view.Context.Source != "current_request" || view.Context.Reason != "handoff_not_current" || view.Context.Captured != nil {
		t.Errorf("%s after the foreign-batch resume: context %+v, want current_request / handoff_not_current and nothing captured", resumed, view.Context)
	}
	if plain != "" {
		if a, b := tools(resumed), tools(plain); !slices.Equal(a.Tools.Allowed, b.Tools.Allowed) {
			t.Errorf("tools of %s after the foreign-batch resume %v, want a plain root's %v", resumed, a.Tools.Allowed, b.Tools.Allowed)
		}
	}
}

// TestCLIDeepSpawnChain appends a 10,000-link spawn chain per dialect in
// one `ledger append` run.
func TestCLIDeepSpawnChain(t *testing.T) {
	t.Parallel()
	for _, dialect := range []string{openclaw, claudeCode} {
		t.Run(dialect, func(t *testing.T) {
			ch := chain(dialect)
			data := t.TempDir()
			var lines []string
			for _, f := range ch.setup {
				lines = append(lines, f.line)
			}
			lines = append(lines, ch.links...)
			out, res := appendFile(t, data, lines)
			if res.exit != 1 || len(out) != len(lines) {
				t.Fatalf("ledger append: exit %d, %d results for %d lines; stderr:\n%s", res.exit, len(out), len(lines), res.stderr)
			}
			bad := 0
			for k := 1; k <= chainLen; k++ {
				o := out[len(ch.setup)+k]
				if !ch.checkLink(t, k, outcome{code: o.Error, message: o.Message, seq: o.Seq}) {
					if bad++; bad > 5 {
						t.FailNow()
					}
				}
			}
			if recs := cliLog(t, data); len(recs) != len(ch.setup)+ch.cap {
				t.Fatalf("the log holds %d records after the chain, want %d", len(recs), len(ch.setup)+ch.cap)
			}
		})
	}
}
