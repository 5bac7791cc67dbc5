package hostile

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sessionledger/ledger/events"
)

// outcome is what a path answered for one line.
type outcome struct {
	code    events.Code
	message string
	seq     uint64
	dup     bool
}

// ledgerRun follows one fixture log through a table: the sequence the next
// written record gets and the sequence each id landed at (or was refused
// with a decision record at).
type ledgerRun struct {
	next  uint64
	seqOf map[string]uint64
}

func newRun(fix []fline) *ledgerRun {
	r := &ledgerRun{next: uint64(len(fix)) + 1, seqOf: map[string]uint64{}}
	for k, f := range fix {
		r.seqOf[lineID(f.line)] = uint64(k + 1)
	}
	return r
}

// check judges one answer against the case and advances the run by what
// the case writes. It returns the sequences the case was expected to
// write.
func (r *ledgerRun) check(t *testing.T, c *hcase, o outcome) []uint64 {
	t.Helper()
	var want []uint64
	for i := 0; i < c.written; i++ {
		want = append(want, r.next)
		r.next++
	}
	prior, hasPrior := r.seqOf[lineID(c.line)]
	if c.resend && !hasPrior {
		t.Fatalf("case re-sends id %q, which no earlier line used", lineID(c.line))
	}
	switch {
	case c.code != "":
		if o.code != c.code {
			t.Errorf("code %q (%s), want %q", o.code, o.message, c.code)
		}
		if strings.TrimSpace(o.message) == "" {
			t.Errorf("refusal %q has no message", o.code)
		}
		switch {
		case c.resend:
			if o.seq != prior {
				t.Errorf("re-sent id answered seq %d, want its first outcome's seq %d", o.seq, prior)
			}
		case c.written > 0:
			if o.seq != want[len(want)-1] {
				t.Errorf("refusal names seq %d, want the decision record's seq %d", o.seq, want[len(want)-1])
			}
		case o.seq != 0:
			t.Errorf("refusal names seq %d; nothing should have been written", o.seq)
		}
	default:
		if o.code != "" {
			t.Errorf("refused with %q (%s), want it accepted", o.code, o.message)
			break
		}
		if c.dup {
			if !o.dup || o.seq != prior {
				t.Errorf("answered seq %d duplicate %v, want the first outcome: seq %d, duplicate", o.seq, o.dup, prior)
			}
			break
		}
		if o.dup || len(want) == 0 || o.seq != want[len(want)-1] {
			t.Errorf("answered seq %d duplicate %v, want a new record at seq %v", o.seq, o.dup, want)
		}
	}
	if id := lineID(c.line); id != "" && o.seq != 0 && !hasPrior {
		r.seqOf[id] = o.seq
	}
	return want
}

// chainCase is a 10,000-link spawn chain: each link is spawned under the
// previous one, so links past the depth cap are refused and every later
// link names a parent that was never written.
type chainCase struct {
	dialect string
	setup   []fline
	links   []string
	cap     int // links accepted
}

const chainLen = 10000

func chain(dialect string) chainCase {
	c := chainCase{dialect: dialect}
	var root, agent, keyFormat string
	switch dialect {
	case openclaw:
		root, agent, c.cap = "agent:main:main", "main", 5
		c.setup = []fline{
			{pev("policy.set", `{"dialect":"openclaw","document":{"agents":{"defaults":{"subagents":{"maxSpawnDepth":5}}}},"catalogue":["read","exec"]}`), ""},
			{sev("session.started", root, `{"agent":"main"}`), acme},
		}
		keyFormat = "agent:main:subagent:c%d"
	case claudeCode:
		// maxSubagentDepth 64, the most a policy may set (issue 15), and the
		// ledger's own cap.
		root, agent, c.cap = "lead", "general-purpose", 64
		c.setup = []fline{
			{pev("policy.set", `{"dialect":"claude-code","document":{"maxSubagentDepth":64},"catalogue":["Agent","Read"]}`), ""},
			{sev("session.started", root, `{"agent":"main"}`), acme},
		}
		keyFormat = "c%d"
	}
	key := func(k int) string { return fmt.Sprintf(keyFormat, k) }
	parent := root
	for k := 1; k <= chainLen; k++ {
		c.links = append(c.links, sev("session.spawned", key(k), `{"parent":`+jstr(parent)+`,"agent":`+jstr(agent)+`}`))
		parent = key(k)
	}
	return c
}

// want is what link k (1-based) must get: accepted at a sequence, or a
// code.
func (c chainCase) want(k int) (seq uint64, code events.Code) {
	switch {
	case k <= c.cap:
		return uint64(len(c.setup) + k), ""
	case k == c.cap+1:
		return 0, events.CodeDepthLimit
	default:
		return 0, events.CodeUnknownParent
	}
}

// checkLink judges one link's answer.
func (c chainCase) checkLink(t *testing.T, k int, o outcome) bool {
	t.Helper()
	seq, code := c.want(k)
	if o.code != code || o.seq != seq || (code != "" && strings.TrimSpace(o.message) == "") {
		t.Errorf("link %d: code %q seq %d (%s), want code %q seq %d with a message", k, o.code, o.seq, o.message, code, seq)
		return false
	}
	if k == c.cap+1 && c.dialect == claudeCode && !strings.Contains(o.message, "64") {
		t.Errorf("link %d: depth_limit message %q does not name the ledger's cap of 64", k, o.message)
	}
	return true
}
