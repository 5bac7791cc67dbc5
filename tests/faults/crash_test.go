package faults

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"flag"
	"fmt"
	mrand "math/rand/v2"
	"net"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

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
	crashSync   = flag.String("crash.sync", "", "TestCrashSafety: run `ledger serve` with its embedded NATS server (killed with it) and this sync mode:\n"+
		"'group' (serve's default: the ledger's group sync), 'always' (--server-fsync: the server fsyncs every write), a --sync-interval\n"+
		"duration such as 1s or 2m, a comma-separated list of modes (trial i uses mode i mod len), or 'all' (group,always,1s,2m);\n"+
		"empty (the default) is 'external,group'; 'external': serve\n"+
		"--nats against a NATS server in the test process, which the kill leaves running")
)

// syncMode is where a crash trial's `ledger serve` keeps its log: against
// the NATS server in the test process (external: the SIGKILL leaves the
// log's server running), or in its own embedded server, which dies with it,
// with the sync mode of --sync-interval.
type syncMode struct {
	name     string
	embedded bool
	interval time.Duration // --sync-interval; 0 makes every write durable before it is answered
	server   bool          // with interval 0: --server-fsync (else the ledger's group sync)
}

// parseSyncModes reads -crash.sync.
func parseSyncModes(s string) ([]syncMode, error) {
	if s == "all" {
		s = "group,always,1s,2m"
	}
	if s == "" {
		// serve against a server the kill leaves running, and serve's
		// default on its own embedded server, which dies with it.
		s = "external,group"
	}
	var modes []syncMode
	for _, name := range strings.Split(s, ",") {
		name = strings.TrimSpace(name)
		switch name {
		case "external":
			modes = append(modes, syncMode{name: name})
		case "group", "0", "0s":
			modes = append(modes, syncMode{name: "group", embedded: true})
		case "always":
			modes = append(modes, syncMode{name: "always", embedded: true, server: true})
		default:
			d, err := time.ParseDuration(name)
			if err != nil || d <= 0 {
				return nil, fmt.Errorf("-crash.sync: %q is not external, group, always, all or a positive duration", name)
			}
			modes = append(modes, syncMode{name: d.String(), embedded: true, interval: d})
		}
	}
	return modes, nil
}

// crashCounts is what one trial, or every trial of a sync mode, counted.
type crashCounts struct {
	trials, failed int
	acked          int // acknowledged appends, the policy included
	lost           int // acknowledged ids not in the stream
	duplicated     int // ids in the stream more than once
	wrongSeq       int // acknowledged ids in the stream once, at another sequence
	dupAcks        int // acknowledgements that said duplicate
	resent         int // attempts that ended in an error and were sent again
	wrongQueries   int
	unavailable    int
	ran, refused   int // one-record calls that ran (answered allow), and that failed closed
	twice          int // one-record calls recorded more than once (a request re-sent across a kill)
	took, longest  time.Duration
}

func (c *crashCounts) add(o *crashCounts) {
	c.trials += o.trials
	c.failed += o.failed
	c.acked += o.acked
	c.lost += o.lost
	c.duplicated += o.duplicated
	c.wrongSeq += o.wrongSeq
	c.dupAcks += o.dupAcks
	c.resent += o.resent
	c.wrongQueries += o.wrongQueries
	c.unavailable += o.unavailable
	c.ran += o.ran
	c.refused += o.refused
	c.twice += o.twice
	c.took += o.took
	c.longest = max(c.longest, o.longest)
}

// TestCrashSafety kills `ledger serve` with SIGKILL under append and query
// load, restarts it, and checks that nothing acknowledged is lost or
// doubled, that no query answered wrongly, and that the restarted
// projection equals a clean rebuild. See the package documentation.
func TestCrashSafety(t *testing.T) {
	modes, err := parseSyncModes(*crashSync)
	if err != nil {
		t.Fatal(err)
	}
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
	var sumMu sync.Mutex
	sums := map[string]*crashCounts{}
	for _, m := range modes {
		sums[m.name] = &crashCounts{}
	}
	// Trials run in parallel (up to -test.parallel at once): each has its
	// own NATS server and ledger process, and the extra scheduling noise
	// only moves the kill points around.
	t.Run("trials", func(t *testing.T) {
		for i, seed := range seeds {
			mode := modes[i%len(modes)]
			t.Run(fmt.Sprintf("%02d", i), func(t *testing.T) {
				t.Parallel()
				replay := fmt.Sprintf("-crash.seed=%d", seed)
				if mode.name != "external" {
					replay += " -crash.sync=" + mode.name
				}
				t.Logf("seed %d, sync %s (replay with -run 'TestCrashSafety' %s)", seed, mode.name, replay)
				c := &crashCounts{trials: 1}
				began := time.Now()
				defer func() {
					c.took = time.Since(began)
					c.longest = c.took
					if t.Failed() {
						c.failed = 1
					}
					sumMu.Lock()
					sums[mode.name].add(c)
					sumMu.Unlock()
				}()
				crashTrial(t, seed, ref, mode, c)
			})
		}
	})
	t.Logf("%d trials in %s", len(seeds), time.Since(start).Round(time.Millisecond))
	for _, m := range modes {
		c := sums[m.name]
		if c.trials == 0 {
			continue
		}
		where := "serve --nats to the test's server, which the kill leaves running"
		if m.embedded {
			where = "embedded --sync-interval " + m.interval.String()
			switch {
			case m.interval == 0 && m.server:
				where = "embedded, the server fsyncs every write (--server-fsync)"
			case m.interval == 0:
				where = "embedded, the ledger's group sync"
			}
		}
		t.Logf("sync %s (%s): %d trials (%d failed), %d acknowledged appends, %d lost, %d duplicated, %d at a wrong sequence; "+
			"%d acks said duplicate, %d failed attempts re-sent, %d queries answered wrongly, %d unavailable; "+
			"one-record calls: %d ran, each with its record, %d failed closed, %d recorded twice (re-sent across a kill); trial time %s in all, longest %s",
			m.name, where, c.trials, c.failed, c.acked, c.lost, c.duplicated, c.wrongSeq,
			c.dupAcks, c.resent, c.wrongQueries, c.unavailable, c.ran, c.refused, c.twice, c.took.Round(time.Millisecond), c.longest.Round(time.Millisecond))
	}
}

// crashPorts are the client ports handed to the trials' embedded servers,
// so two trials never pick the same one.
var (
	crashPortMu sync.Mutex
	crashPorts  = map[int]bool{}
)

// freeLoopbackAddr picks a free loopback port below the usual ephemeral
// range (32768 and up on Linux), so that no outgoing connection takes it
// while the ledger holding it is down between a kill and its restart.
func freeLoopbackAddr(t *testing.T, rng *mrand.Rand) string {
	t.Helper()
	crashPortMu.Lock()
	defer crashPortMu.Unlock()
	for range 200 {
		port := 20000 + rng.IntN(12000)
		if crashPorts[port] {
			continue
		}
		addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			continue
		}
		ln.Close()
		crashPorts[port] = true
		return addr
	}
	t.Fatal("no free loopback port between 20000 and 32000")
	return ""
}

// embeddedServeCmd is `ledger serve` with its own embedded NATS server on
// data, accepting clients on addr, with the sync mode of m.
func embeddedServeCmd(t *testing.T, data, addr string, m syncMode) *exec.Cmd {
	path, err := binary()
	if err != nil {
		t.Errorf("building ledger: %v", err)
		return exec.Command("false")
	}
	args := []string{"serve", "--data", data, "--name", "faults", "--listen", addr, "--sync-interval", m.interval.String()}
	if m.server {
		args = append(args, "--server-fsync")
	}
	return exec.Command(path, args...)
}

// crashParams is what a seed decides about a trial.
type crashParams struct {
	writers     int             // concurrent orchestrator clients
	sessionsPer int             // workload sessions per writer, 13 events each
	killAt      []int           // acknowledged session appends at which to SIGKILL
	killDelay   []time.Duration // how long after reaching killAt the SIGKILL comes (requests in flight by then)
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
		p.killDelay = append(p.killDelay, time.Duration(rng.IntN(3000))*time.Microsecond)
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

// oneCall is a call checked and started by one record (CheckAndStart)
// during a trial: ran is the sequence its answer named when it was
// allowed, so the tool ran; 0 when it failed closed.
type oneCall struct {
	root events.SessionKey
	call string
	ran  uint64
}

// startedCalls checks the one-record path across the kills (issue 28):
// every call that ran has its record at the sequence it was answered with
// (a tool.checked with effect: true, its call id, allow), so nothing ran
// without its record and nothing acknowledged is lost; a call that failed
// closed may have a record or not (its answer, not its record, was lost).
// It returns how many such records the stream holds, each of an attempted
// call.
func startedCalls(t *testing.T, recs []*events.Record, calls []*oneCall, counts *crashCounts) int {
	t.Helper()
	attempted := map[string]*oneCall{}
	for _, c := range calls {
		attempted[c.call] = c
		if c.ran == 0 {
			counts.refused++
			continue
		}
		counts.ran++
		if c.ran > uint64(len(recs)) {
			t.Errorf("call %s ran on record %d, beyond the stream's %d", c.call, c.ran, len(recs))
			continue
		}
		var d events.CheckedData
		var dec projection.CheckDecided
		r := recs[c.ran-1]
		if r.Type != events.ToolChecked || json.Unmarshal(r.Data, &d) != nil || json.Unmarshal(r.Decided, &dec) != nil ||
			!d.Effect || d.Call != c.call || r.Session != c.root || dec.Decision != envelope.Allow {
			t.Errorf("call %s ran on record %d, which is %s %s %s", c.call, c.ran, r.Type, r.Session, r.Data)
		}
	}
	n := 0
	per := map[string]int{}
	for _, r := range recs {
		var d events.CheckedData
		if r.Type != events.ToolChecked || json.Unmarshal(r.Data, &d) != nil || !d.Effect {
			continue
		}
		n++
		if per[d.Call]++; per[d.Call] == 2 {
			counts.twice++
		}
		if attempted[d.Call] == nil {
			t.Errorf("record %s starts call %s, which no caller made", r.ID, d.Call)
		}
	}
	return n
}

// ack is what the trial knows about one appended event.
type ack struct {
	id    string
	seq   uint64 // 0 until acknowledged
	dups  int    // acknowledgements that said duplicate
	fails int    // attempts that ended in an error
}

func crashTrial(t *testing.T, seed uint64, ref answers, mode syncMode, counts *crashCounts) {
	p := newCrashParams(seed)
	t.Logf("%d writers x %d sessions (%d appends), SIGKILL after %v acknowledged appends, down for %v",
		p.writers, p.sessionsPer, p.writers*p.sessionsPer*13, p.killAt, p.downtime)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	dir := t.TempDir()
	data := filepath.Join(dir, "serve")

	var procMu sync.Mutex
	var proc *serveProc
	var nc *nats.Conn
	var log *natslog.Log
	var serve func() *exec.Cmd
	if mode.embedded {
		// The ledger's own server holds the log and dies with it; the
		// test is a client over TCP that reconnects after each restart.
		addr := freeLoopbackAddr(t, mrand.New(mrand.NewPCG(seed, 11)))
		serve = func() *exec.Cmd { return embeddedServeCmd(t, data, addr, mode) }
		proc = startServeCmd(t, serve())
		proc.waitCaughtUp(t, 0, 30*time.Second)
		var err error
		nc, err = nats.Connect("nats://"+addr, nats.Name("faults"), nats.MaxReconnects(-1),
			nats.ReconnectWait(20*time.Millisecond), nats.ReconnectJitter(0, 0))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(nc.Close)
		log = openLog(t, nc, natslog.StreamConfig{})
	} else {
		ns := startServer(t, filepath.Join(dir, "nats"))
		nc = connect(t, ns, "faults")
		log = openLog(t, nc, natslog.StreamConfig{})
		serve = func() *exec.Cmd { return serveCmd(t, ns.ClientURL(), data) }
		proc = startServeCmd(t, serve())
		proc.waitCaughtUp(t, 0, 30*time.Second)
	}

	opts := client.Options{Timeout: 300 * time.Millisecond, Retries: 10}
	ops := client.New(nc, opts)
	pol := workload.ClientEvent(workload.Policy())
	pol.ID = newID()
	res, err := ops.Append(ctx, pol)
	if err != nil || res.Seq != 1 {
		t.Fatalf("policy: %+v %v", res, err)
	}
	polAck := &ack{id: pol.ID, seq: res.Seq}

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
			// A moment later, so that the writers' next requests (appends,
			// one-record calls) are in flight: decided, published, not yet
			// acknowledged.
			select {
			case <-time.After(p.killDelay[k]):
			case <-ctx.Done():
				return
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
			next, err := spawn(t, serve())
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
	var calls []*oneCall   // one-record calls (CheckAndStart), as a pre-tool hook makes them
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
					if k >= 1 {
						// After every event from the root's first turn on, a
						// call of the root checked and started by one
						// record, as the hooks make it, so that kills land
						// between its decision and its acknowledgement too:
						// the tool runs only on an answer (allow); an error
						// fails it closed, never re-sent.
						oc := &oneCall{root: rootOf(n), call: "one-" + newID()}
						r, err := c.CheckAndStart(ctx, oc.root, "read", oc.call)
						switch {
						case err == nil && r.Decision == envelope.Allow:
							oc.ran = r.Recorded
						case err == nil:
							t.Errorf("one-record call %s of %s: %s (%s), want allow", oc.call, oc.root, r.Decision, r.Reason.Code)
						}
						mu.Lock()
						calls = append(calls, oc)
						mu.Unlock()
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

	// Every acknowledged append (the policy's too) is in the stream
	// exactly once, at the sequence it was acknowledged with; nothing is
	// in it twice.
	ids, recs := idCount(t, log)
	checked := append([]*ack{polAck}, all...)
	started := startedCalls(t, recs, calls, counts)
	if want := len(checked) + started; len(recs) != want {
		t.Errorf("the stream holds %d records, %d events were appended and %d one-record calls recorded", len(recs), len(checked), started)
	}
	dups, fails := 0, 0
	for _, a := range checked {
		dups += a.dups
		fails += a.fails
		if a.seq != 0 {
			counts.acked++
		}
		switch n := ids[a.id]; {
		case n == 0:
			counts.lost++
			t.Errorf("acknowledged id %s (seq %d) is not in the stream", a.id, a.seq)
		case n > 1:
			t.Errorf("acknowledged id %s (seq %d) is in the stream %d times", a.id, a.seq, n)
		case a.seq == 0 || a.seq > uint64(len(recs)):
			counts.wrongSeq++
			t.Errorf("id %s acknowledged at %d, but the stream holds %d records", a.id, a.seq, len(recs))
		case recs[a.seq-1].ID != a.id:
			counts.wrongSeq++
			t.Errorf("id %s acknowledged at %d, but %d holds %s", a.id, a.seq, a.seq, recs[a.seq-1].ID)
		}
	}
	for id, n := range ids {
		if n != 1 {
			counts.duplicated++
			t.Errorf("id %s is in the stream %d times", id, n)
		}
	}
	counts.dupAcks, counts.resent = dups, fails
	counts.wrongQueries, counts.unavailable = int(wrong.Load()), int(unavailable.Load())
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
	// The clean rebuild reads the log before SIGTERM: an embedded server
	// stops with the ledger.
	want := rebuildHash(t, log, 0)
	if err := final.term(t); err != nil {
		t.Fatalf("ledger serve after SIGTERM: %v; stderr:\n%s", err, final.Stderr())
	}
	got, cp := storeHash(t, projectionPath(data))
	if cp != head {
		t.Errorf("projection checkpoint %d, log head %d", cp, head)
	}
	if got != want {
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
