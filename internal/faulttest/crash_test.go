package faulttest

import (
	"context"
	"crypto/rand"
	"flag"
	"fmt"
	mrand "math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sessionledger/ledger/client"
	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/dialects"
	"github.com/sessionledger/ledger/internal/natslog"
	"github.com/sessionledger/ledger/internal/service"
	"github.com/sessionledger/ledger/internal/workload"
	"github.com/sessionledger/ledger/projection"
)

var (
	crashTrials = flag.Int("crash.trials", 30, "TestCrashSafety: how many kill-and-restart trials to run")
	crashSeed   = flag.Uint64("crash.seed", 0, "TestCrashSafety: run only the trial with this seed (as logged by a failed run)")
)

// TestCrashSafety kills `ledger serve` with SIGKILL under append and query
// load, restarts it, and checks that nothing acknowledged is lost or
// doubled, that no query answered wrongly, and that the restarted
// projection equals a clean rebuild. See the package documentation.
func TestCrashSafety(t *testing.T) {
	ledgerBinary(t) // build once before the trials; skips with -short
	ref := referenceAnswers(t)
	var seeds []uint64
	if *crashSeed != 0 {
		seeds = []uint64{*crashSeed}
	} else {
		base := mrand.Uint64()
		for i := 0; i < *crashTrials; i++ {
			seeds = append(seeds, base+uint64(i)*0x9E3779B97F4A7C15)
		}
	}
	start := time.Now()
	// Trials run in parallel (up to -test.parallel at once): each has its
	// own NATS server and ledger process, and the extra scheduling noise
	// only moves the kill points around.
	t.Run("trials", func(t *testing.T) {
		for i, seed := range seeds {
			t.Run(fmt.Sprintf("%02d", i), func(t *testing.T) {
				t.Parallel()
				t.Logf("seed %d (replay with -run 'TestCrashSafety' -crash.seed=%d)", seed, seed)
				crashTrial(t, seed, ref)
			})
		}
	})
	t.Logf("%d trials in %s", len(seeds), time.Since(start).Round(time.Millisecond))
}

// crashParams is what a seed decides about a trial.
type crashParams struct {
	writers     int             // concurrent orchestrator clients
	sessionsPer int             // workload sessions per writer, 13 events each
	killAt      []int           // acknowledged session appends at which to SIGKILL
	downtime    []time.Duration // how long the ledger stays down after each kill
}

func newCrashParams(seed uint64) crashParams {
	rng := mrand.New(mrand.NewPCG(seed, seed>>32^0x5eed))
	p := crashParams{writers: 2 + rng.IntN(3)}
	p.sessionsPer = (12 + rng.IntN(9)) / p.writers
	total := p.writers * p.sessionsPer * 13
	kills := 1
	if rng.IntN(3) == 0 {
		kills = 2
	}
	for range kills {
		p.killAt = append(p.killAt, 1+rng.IntN(total-1))
		p.downtime = append(p.downtime, time.Duration(rng.IntN(150))*time.Millisecond)
	}
	slices.Sort(p.killAt)
	return p
}

// answers are the expected query answers at a root's first turn, computed
// in memory from the same workload.
type answers struct {
	tools   string // normalized tool set
	gateway string // normalized check of "gateway"
}

func referenceAnswers(t *testing.T) answers {
	t.Helper()
	svc := service.New(service.Config{Log: &service.MemLog{}, Dialects: dialects.All()})
	for _, raw := range append([][]byte{workload.Policy()}, workload.Session(0)[:2]...) {
		if _, err := svc.Append(t.Context(), raw); err != nil {
			t.Fatal(err)
		}
	}
	ts, _, err := svc.Tools(t.Context(), rootOf(0), projection.Position{Turn: 1})
	if err != nil {
		t.Fatal(err)
	}
	a, err := svc.Check(t.Context(), rootOf(0), "gateway", nil, projection.Position{Turn: 1})
	if err != nil {
		t.Fatal(err)
	}
	if a.Verdict.Decision != envelope.Deny {
		t.Fatalf("reference: gateway is %s, the workload policy denies it", a.Verdict.Decision)
	}
	return answers{tools: normTools(ts), gateway: normVerdict(a.Verdict.Decision, a.Verdict.Reason)}
}

// normTools renders a tool set without record ids (which differ between
// logs): allowed tools, and each denied tool with its reason code, rule and
// the sequence of the record that introduced it.
func normTools(ts envelope.ToolSet) string {
	var b strings.Builder
	fmt.Fprintf(&b, "allowed=%v denied=[", ts.Allowed)
	for _, d := range ts.Denied {
		fmt.Fprintf(&b, " %s", normVerdict(envelope.Deny, d.Reason)+"/"+d.Tool)
	}
	b.WriteString(" ]")
	return b.String()
}

func normVerdict(d envelope.Decision, r envelope.Reason) string {
	seq := uint64(0)
	if r.Record != nil {
		seq = r.Record.Seq
	}
	return fmt.Sprintf("%s:%s:%q@%d", d, r.Code, r.Rule, seq)
}

// ack is what the trial knows about one appended event.
type ack struct {
	id    string
	seq   uint64 // 0 until acknowledged
	dups  int    // acknowledgements that said duplicate
	fails int    // attempts that ended in an error
}

func crashTrial(t *testing.T, seed uint64, ref answers) {
	p := newCrashParams(seed)
	t.Logf("%d writers x %d sessions (%d appends), SIGKILL after %v acknowledged appends, down for %v",
		p.writers, p.sessionsPer, p.writers*p.sessionsPer*13, p.killAt, p.downtime)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	dir := t.TempDir()
	ns := startServer(t, filepath.Join(dir, "nats"))
	nc := connect(t, ns, "faulttest")
	log := openLog(t, nc, natslog.StreamConfig{})
	data := filepath.Join(dir, "serve")

	var procMu sync.Mutex
	proc := startServe(t, ns.ClientURL(), data)
	proc.waitCaughtUp(t, 0, 30*time.Second)

	opts := client.Options{Timeout: 300 * time.Millisecond, Retries: 10}
	ops := client.New(nc, opts)
	pol := toEvent(t, workload.Policy())
	pol.ID = newID()
	if res, err := ops.Append(ctx, pol); err != nil || res.Seq != 1 {
		t.Fatalf("policy: %+v %v", res, err)
	}

	// The killer: SIGKILL when the acknowledged count reaches each killAt,
	// keep the ledger down for a moment, start it again.
	var acked atomic.Int64
	tick := make(chan struct{}, 1)
	killerDone := make(chan struct{})
	go func() {
		defer close(killerDone)
		for k, at := range p.killAt {
			for acked.Load() < int64(at) {
				select {
				case <-tick:
				case <-ctx.Done():
					return
				}
			}
			procMu.Lock()
			err := proc.kill()
			procMu.Unlock()
			if err != nil {
				t.Error(err)
				return
			}
			t.Logf("SIGKILL at %d acknowledged appends", acked.Load())
			select {
			case <-time.After(p.downtime[k]):
			case <-ctx.Done():
				return
			}
			next, err := spawn(t, serveCmd(t, ns.ClientURL(), data))
			if err != nil {
				t.Error(err)
				return
			}
			procMu.Lock()
			proc = next
			procMu.Unlock()
		}
	}()

	// Writers: each owns its sessions, appends their events in order and
	// re-sends an event (same id) until it is acknowledged, as an
	// orchestrator would. After a root's first turn it asks for the
	// root's tools and a check at that turn (read-your-writes).
	var mu sync.Mutex
	var all []*ack
	var turnSeqs []rootSeq // roots whose first turn is acknowledged, for the auditor
	var wrong, unavailable atomic.Int64
	var wg sync.WaitGroup
	for w := range p.writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := client.New(nc, client.Options{Owner: "acme", Timeout: opts.Timeout, Retries: opts.Retries})
			for j := range p.sessionsPer {
				n := w*p.sessionsPer + j
				for k, ev := range sessionEvents(t, n) {
					ev.ID = newID()
					a := &ack{id: ev.ID}
					mu.Lock()
					all = append(all, a)
					mu.Unlock()
					for a.seq == 0 {
						res, err := c.Append(ctx, ev)
						if err != nil {
							a.fails++
							code := events.CodeOf(err)
							if code != "" && code != events.CodeConflict && code != events.CodeNotCaughtUp && code != "internal" {
								t.Errorf("writer %d: %s %s refused: %v", w, ev.Type, ev.Session, err)
								return
							}
							if ctx.Err() != nil {
								t.Errorf("writer %d: %s %s not acknowledged before the deadline: %v", w, ev.Type, ev.Session, err)
								return
							}
							continue
						}
						if res.ID != ev.ID {
							t.Errorf("acknowledged id %s, sent %s", res.ID, ev.ID)
						}
						a.seq = res.Seq
						if res.Duplicate {
							a.dups++
						}
					}
					acked.Add(1)
					select {
					case tick <- struct{}{}:
					default:
					}
					if k == 1 { // the root's turn 1
						mu.Lock()
						turnSeqs = append(turnSeqs, rootSeq{rootOf(n), a.seq})
						mu.Unlock()
						queryRoot(ctx, t, c, rootOf(n), 0, ref, &wrong, &unavailable)
					}
				}
			}
		}()
	}
	// An auditor asks about random acknowledged roots while all this goes
	// on, with the root's turn sequence as min_seq.
	auditCtx, stopAudit := context.WithCancel(ctx)
	auditDone := make(chan int)
	go func() {
		aud := client.New(nc, client.Options{Timeout: opts.Timeout, Retries: 2})
		rng := mrand.New(mrand.NewPCG(seed, 7))
		n := 0
		for auditCtx.Err() == nil {
			mu.Lock()
			var rs rootSeq
			if len(turnSeqs) > 0 {
				rs = turnSeqs[rng.IntN(len(turnSeqs))]
			}
			mu.Unlock()
			if rs.root == "" {
				select {
				case <-auditCtx.Done():
				case <-time.After(5 * time.Millisecond):
				}
				continue
			}
			queryRoot(auditCtx, t, aud, rs.root, rs.seq, ref, &wrong, &unavailable)
			n++
			select { // a steady trickle, not a busy loop
			case <-auditCtx.Done():
			case <-time.After(5 * time.Millisecond):
			}
		}
		auditDone <- n
	}()
	wg.Wait()
	stopAudit()
	audits := <-auditDone
	if t.Failed() {
		cancel() // the killer may still wait for acknowledgements that will not come
	}
	<-killerDone
	if t.Failed() {
		procMu.Lock()
		t.Fatalf("writers failed; ledger stderr:\n%s", proc.Stderr())
	}

	// Every acknowledged append is in the stream exactly once, at the
	// sequence it was acknowledged with; nothing is in it twice.
	counts, recs := idCount(t, log)
	if want := 1 + len(all); len(recs) != want {
		t.Errorf("the stream holds %d records, %d events were appended", len(recs), want)
	}
	dups, fails := 0, 0
	for _, a := range all {
		dups += a.dups
		fails += a.fails
		if counts[a.id] != 1 {
			t.Errorf("acknowledged id %s (seq %d) is in the stream %d times", a.id, a.seq, counts[a.id])
		} else if recs[a.seq-1].ID != a.id {
			t.Errorf("id %s acknowledged at %d, but %d holds %s", a.id, a.seq, a.seq, recs[a.seq-1].ID)
		}
	}
	for id, n := range counts {
		if n != 1 {
			t.Errorf("id %s is in the stream %d times", id, n)
		}
	}
	if wrong.Load() > 0 {
		t.Errorf("%d queries answered wrongly", wrong.Load())
	}

	// The restarted process catches up; stopped with SIGTERM its
	// projection equals a clean rebuild.
	head := uint64(len(recs))
	procMu.Lock()
	final := proc
	procMu.Unlock()
	final.waitCaughtUp(t, head, 30*time.Second)
	if err := final.term(t); err != nil {
		t.Fatalf("ledger serve after SIGTERM: %v; stderr:\n%s", err, final.Stderr())
	}
	got, cp := storeHash(t, projectionPath(data))
	if cp != head {
		t.Errorf("projection checkpoint %d, log head %d", cp, head)
	}
	if want := rebuildHash(t, log, 0); got != want {
		t.Errorf("projection after SIGKILL and restart %s, clean rebuild %s", got, want)
	}
	t.Logf("%d records; %d failed attempts re-sent, %d answered duplicate; %d audit queries, %d unavailable during the crash",
		head, fails, dups, audits, unavailable.Load())
}

type rootSeq struct {
	root events.SessionKey
	seq  uint64
}

// queryRoot asks for the root's tools and a check of "gateway" at its first
// turn and compares them with the reference. An answer that is wrong
// (including "unknown session" for a root whose turn was acknowledged) is
// an error; no answer while the ledger is down is counted as unavailable.
func queryRoot(ctx context.Context, t *testing.T, c *client.Client, root events.SessionKey, minSeq uint64, ref answers, wrong, unavailable *atomic.Int64) {
	ts, err := c.Tools(ctx, root, client.AtTurn(1), client.WithMinSeq(minSeq))
	switch {
	case err == nil:
		if got := normTools(ts.Tools); got != ref.tools {
			wrong.Add(1)
			t.Errorf("tools of %s at turn 1: %s, want %s", root, got, ref.tools)
		}
	case ctx.Err() != nil:
		return
	case queryUnavailable(err):
		unavailable.Add(1)
	default:
		wrong.Add(1)
		t.Errorf("tools of %s at turn 1 (min_seq %d): %v", root, minSeq, err)
	}
	chk, err := c.Check(ctx, root, "gateway", client.AtTurn(1), client.WithMinSeq(minSeq))
	switch {
	case err == nil:
		if got := normVerdict(chk.Decision, chk.Reason); got != ref.gateway {
			wrong.Add(1)
			t.Errorf("check gateway on %s at turn 1: %s, want %s", root, got, ref.gateway)
		}
	case ctx.Err() != nil:
	case queryUnavailable(err):
		unavailable.Add(1)
	default:
		wrong.Add(1)
		t.Errorf("check gateway on %s at turn 1 (min_seq %d): %v", root, minSeq, err)
	}
}

// queryUnavailable reports whether a query error means "no answer now"
// (the ledger is down or catching up) rather than an answer.
func queryUnavailable(err error) bool {
	if events.CodeOf(err) == events.CodeNotCaughtUp {
		return true
	}
	return events.CodeOf(err) == "" && strings.Contains(err.Error(), "no answer after")
}

// newID makes a record id the way the client does: a ULID.
func newID() string { return events.NewID(time.Now(), rand.Reader) }
