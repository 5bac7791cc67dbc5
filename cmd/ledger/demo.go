package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/ledgercmd"
	"github.com/sessionledger/ledger/internal/service"
	"github.com/sessionledger/ledger/projection"
	"github.com/sessionledger/ledger/wire"
)

// The demo's story, on the openclaw dialect: a main agent spawns a coder and
// a reviewer and yields; the reviewer completes; an operator revokes the
// browser grant the coder relied on, so the coder's already-checked browser
// call is refused when its effect starts; the coder completes and the main
// agent resumes under the policy its children captured.
const (
	demoMain     = "agent:main:main"
	demoCoder    = "agent:coder:subagent:fix-login"
	demoReviewer = "agent:reviewer:subagent:review-login"
)

var demoPolicy = `{
  "tools": {"deny": ["gateway"]},
  "agents": {
    "defaults": {"subagents": {"maxSpawnDepth": 2}},
    "list": [
      {"id": "main", "subagents": {"allowAgents": ["coder", "reviewer"]}},
      {"id": "coder", "tools": {"allow": ["read", "write", "edit", "apply_patch", "exec", "process", "web_fetch"]}},
      {"id": "reviewer", "tools": {"deny": ["write", "edit", "apply_patch", "exec", "process"]}}
    ]
  }
}`

var demoCatalogue = []string{"read", "write", "edit", "apply_patch", "exec", "process", "web_search", "web_fetch",
	"browser", "sessions_spawn", "sessions_yield", "subagents", "session_status", "gateway", "message"}

type demoStep struct {
	say   string
	event string // JSON; "{batch}" is replaced by the yield's record id
}

func demoSteps() []demoStep {
	ev := func(typ, session, actor, data string) string {
		s := ""
		if session != "" {
			s = fmt.Sprintf(`"session":%q,`, session)
		}
		return fmt.Sprintf(`{"type":%q,"v":1,%s"actor":%q,"data":%s}`, typ, s, actor, data)
	}
	cat, _ := json.Marshal(demoCatalogue)
	return []demoStep{
		{"the operator sets the deployment's policy (openclaw dialect)",
			ev("policy.set", "", "ops:alice", `{"dialect":"openclaw","document":`+demoPolicy+`,"catalogue":`+string(cat)+`}`)},
		{"the operator grants the coder the browser for this rollout",
			ev("grant.added", "", "ops:alice", `{"kind":"also_allow","agent":"coder","target":"coder","tools":["browser"]}`)},
		{"a person starts the main agent", ev("session.started", demoMain, "orchestrator", `{"agent":"main"}`)},
		{"main: turn 1", ev("turn.started", demoMain, "orchestrator", `{"turn":1}`)},
		{"main spawns a coder", ev("session.spawned", demoCoder, "orchestrator", `{"parent":"`+demoMain+`","agent":"coder","label":"fix the login bug"}`)},
		{"main spawns a reviewer", ev("session.spawned", demoReviewer, "orchestrator", `{"parent":"`+demoMain+`","agent":"reviewer","label":"review the fix"}`)},
		{"main yields while both work", ev("session.yielded", demoMain, "orchestrator", `{"children":["`+demoCoder+`","`+demoReviewer+`"]}`)},
		{"coder: turn 1", ev("turn.started", demoCoder, "orchestrator", `{"turn":1}`)},
		{"coder checks the browser (allowed by the grant) before opening the login page",
			ev("tool.checked", demoCoder, "orchestrator", `{"turn":1,"tool":"browser","call":"call-browse-1"}`)},
		{"coder checks exec for the test run", ev("tool.checked", demoCoder, "orchestrator", `{"turn":1,"tool":"exec","call":"call-exec-1"}`)},
		{"reviewer: turn 1", ev("turn.started", demoReviewer, "orchestrator", `{"turn":1}`)},
		{"reviewer asks for exec (its agent policy denies it)", ev("tool.checked", demoReviewer, "orchestrator", `{"turn":1,"tool":"exec","call":"call-exec-2"}`)},
		{"the reviewer completes", ev("session.completed", demoReviewer, "orchestrator", `{"status":"ok"}`)},
		{"the operator revokes the browser grant mid-run", ev("grant.revoked", "", "ops:alice", `{"kind":"also_allow","agent":"coder","target":"coder","tools":["browser"]}`)},
		{"the coder's browser effect starts: its check is stale", ev("tool.effect_started", demoCoder, "orchestrator", `{"turn":1,"tool":"browser","call":"call-browse-1"}`)},
		{"the coder's exec effect starts: its authority did not change", ev("tool.effect_started", demoCoder, "orchestrator", `{"turn":1,"tool":"exec","call":"call-exec-1"}`)},
		{"the coder completes", ev("session.completed", demoCoder, "orchestrator", `{"status":"ok"}`)},
		{"main resumes: the settled batch is checked", ev("session.resumed", demoMain, "orchestrator", `{"handoff":"settle_batch","batch":"{batch}","from":["`+demoCoder+`","`+demoReviewer+`"]}`)},
		{"main: turn 2, under the captured policy", ev("turn.started", demoMain, "orchestrator", `{"turn":2}`)},
	}
}

func runDemo(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fl := newFlags("demo", "", "Tells a realistic story on the embedded ledger (nothing to install): a main agent spawns a\n"+
		"coder and a reviewer and yields, a child completes, an operator revokes a grant mid-run, a\n"+
		"stale effect is refused and the continuation is checked. Then prints the spawn tree, the tool\n"+
		"set of every turn, a why answer and a verify report. Uses a fresh temp dir unless --data names one.", stderr)
	var lf ledgerFlags
	lf.register(fl)
	lf.create = true
	keep := fl.Bool("keep", false, "keep the temp data directory and print its path")
	asJSON := fl.Bool("json", false, "print what happened as JSON")
	if _, err := parseFlags(fl, args); err != nil {
		return helpOK(err)
	}
	dataGiven := false
	fl.Visit(func(f *flag.Flag) {
		if f.Name == "data" {
			dataGiven = true
		}
	})
	if !dataGiven {
		dir, err := os.MkdirTemp("", "ledger-demo-")
		if err != nil {
			return err
		}
		lf.data = dir
		if !*keep {
			defer os.RemoveAll(dir)
		}
	}
	h, err := lf.open(ctx)
	if err != nil {
		return err
	}
	defer h.Close()
	if h.svc.Position() != 0 {
		return fmt.Errorf("the demo needs an empty log; %s already holds %d records (give a new --data)", lf.data, h.svc.Position())
	}
	type outcome struct {
		Step  string `json:"step"`
		Seq   uint64 `json:"seq,omitempty"`
		Error string `json:"error,omitempty"`
	}
	var outcomes []outcome
	human := func(format string, a ...any) {
		if !*asJSON {
			fmt.Fprintf(stdout, format, a...)
		}
	}
	human("ledger demo: embedded NATS JetStream and a bbolt projection in %s\n\n", lf.data)
	batch := ""
	var coderDone uint64 // the coder's session.completed
	for i, st := range demoSteps() {
		raw := strings.ReplaceAll(st.event, "{batch}", batch)
		res, err := h.svc.Append(ctx, []byte(raw))
		o := outcome{Step: st.say, Seq: res.Seq}
		switch {
		case err != nil && events.CodeOf(err) == events.CodeAuthorizationChanged:
			o.Error = err.Error()
			human("%2d. %-78s refused: %s\n    (the refusal is recorded at seq %d for audits)\n", i+1, st.say, err, h.svc.Position())
		case err != nil:
			return fmt.Errorf("demo step %d (%s): %w", i+1, st.say, err)
		default:
			human("%2d. %-78s seq %d\n", i+1, st.say, res.Seq)
		}
		if strings.Contains(raw, `"session.completed"`) && strings.Contains(raw, `"`+string(demoCoder)+`"`) {
			coderDone = res.Seq
		}
		if strings.Contains(raw, `"session.yielded"`) {
			batch = res.ID
		}
		outcomes = append(outcomes, o)
	}
	var trees []*wire.TreeNode
	var sessions []*wire.SessionView
	var context envelope.Context
	// The why the demo prints is the coder's last decision while it could
	// still make a call, before it completed: at the head, a completed
	// session is denied session_not_active whatever the tool.
	whyAt := projection.Position{Seq: coderDone - 1}
	a, err := h.svc.Why(ctx, demoCoder, "browser", nil, whyAt)
	if err != nil {
		return err
	}
	why := a.Verdict
	err = h.svc.View(ctx, "", projection.Position{}, func(st *projection.State) error {
		trees = []*wire.TreeNode{service.BuildTree(st, demoMain)}
		for _, k := range []events.SessionKey{demoMain, demoCoder, demoReviewer} {
			sv, err := service.ViewSession(st, k)
			if err != nil {
				return err
			}
			sessions = append(sessions, sv)
		}
		context = st.Session(demoMain).Context
		if !*asJSON {
			fmt.Fprintln(stdout, "\nspawn tree:")
			printTree(stdout, trees[0], "  ", true, true)
			fmt.Fprintln(stdout, "\ntool set at every turn:")
			for _, sv := range sessions {
				for _, t := range sv.Turns {
					fmt.Fprintf(stdout, "  %s turn %d (seq %d): %s\n", sv.Key, t.Turn, t.Seq, describeSet(&t.ToolSet))
				}
			}
			fmt.Fprintf(stdout, "\nmain's continuation: %s %s\n", context.Source, context.SourceReason)
			// The data directory is named only when it is kept: a
			// temporary one is gone by the time the command could run.
			var where ledgercmd.Conn
			if *keep || dataGiven {
				where = lf.conn()
			}
			fmt.Fprintf(stdout, "\n$ %s\n", where.Command("why", "--session", string(demoCoder), "--tool", "browser", "--seq", strconv.FormatUint(whyAt.Seq, 10)))
			printWhy(stdout, demoCoder, a)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(stdout, map[string]any{"data": lf.data, "steps": outcomes, "tree": trees, "sessions": sessions,
			"why": why, "main_context": context})
	}
	if *keep || dataGiven {
		c := lf.conn()
		fmt.Fprintf(stdout, "\nthe log and projection are in %s; try:\n  %s\n  %s\n", lf.data, c.Command("tree"), c.Command("verify"))
	}
	return nil
}
