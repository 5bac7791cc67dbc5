package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/report"
	"github.com/sessionledger/ledger/internal/service"
	"github.com/sessionledger/ledger/projection"
	"github.com/sessionledger/ledger/wire"
)

func runSession(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fl := newFlags("session", "", "Prints a session: its agent, state, envelope (with its hash), current context and policy\n"+
		"source, every turn with the tool set resolved at its start, and its children.", stderr)
	var q queryFlags
	q.register(fl, false)
	if _, err := parseFlags(fl, args); err != nil {
		return helpOK(err)
	}
	svc, err := q.open(ctx)
	if err != nil {
		return err
	}
	defer q.close()
	key := events.SessionKey(q.session)
	return svc.View(ctx, key, q.position(), func(st *projection.State) error {
		sv, err := service.ViewSession(st, key)
		if err != nil {
			return err
		}
		if q.json {
			return writeJSON(stdout, sv)
		}
		fmt.Fprintf(stdout, "session %s (agent %s, depth %d, %s)\n", sv.Key, sv.Agent, sv.Depth, sv.State)
		if sv.Parent != "" {
			fmt.Fprintf(stdout, "parent:   %s\n", sv.Parent)
		}
		fmt.Fprintf(stdout, "scope:    %s\n", sv.Scope)
		if id := identityLong(sv.Identity); id != "" {
			if sv.Parent != "" {
				id += " (its root's)"
			}
			fmt.Fprintf(stdout, "identity: %s\n", id)
		}
		src := sv.Context.Source
		if sv.Context.SourceReason != "" {
			src += " (" + sv.Context.SourceReason + ")"
		}
		fmt.Fprintf(stdout, "context:  %s, set by seq %d %s\n", src, sv.Context.SetBy.Seq, sv.Context.SetBy.Type)
		if sv.Envelope != nil {
			b, _ := json.Marshal(sv.Envelope)
			fmt.Fprintf(stdout, "envelope: %s\n", b)
		}
		for _, t := range sv.Turns {
			fmt.Fprintf(stdout, "turn %d (seq %d): %s\n", t.Turn, t.Seq, describeSet(&t.ToolSet))
		}
		if len(sv.Children) > 0 {
			fmt.Fprintf(stdout, "children: %s\n", joinKeys(sv.Children))
		}
		return nil
	})
}

func describeSet(ts *envelope.ToolSet) string {
	var b strings.Builder
	fmt.Fprintf(&b, "allowed [%s]", strings.Join(ts.Allowed, ", "))
	if len(ts.Denied) > 0 {
		parts := make([]string, len(ts.Denied))
		for i, d := range ts.Denied {
			parts[i] = d.Tool + " " + d.Reason.Code
		}
		fmt.Fprintf(&b, "; denied [%s]", strings.Join(parts, ", "))
	}
	return b.String()
}

func joinKeys(keys []events.SessionKey) string {
	s := make([]string, len(keys))
	for i, k := range keys {
		s[i] = string(k)
	}
	return strings.Join(s, ", ")
}

func runTree(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fl := newFlags("tree", "", "Prints the spawn tree under a root session (--session), or every root's tree in the order\n"+
		"they started; each root's line names its scope, runtime, user@host and project. --scope,\n"+
		"--user-identity, --project and --runtime keep the trees whose root has them.", stderr)
	var q queryFlags
	q.register(fl, false)
	q.optionalSession = true
	var ff filterFlags
	ff.register(fl, "print only")
	color := registerColor(fl)
	if _, err := parseFlags(fl, args); err != nil {
		return helpOK(err)
	}
	if err := ff.check(fl, &q.ledgerFlags); err != nil {
		return err
	}
	pal, err := paletteFor(*color, stdout)
	if err != nil {
		return err
	}
	svc, err := q.open(ctx)
	if err != nil {
		return err
	}
	defer q.close()
	key := events.SessionKey(q.session)
	return svc.View(ctx, key, q.position(), func(st *projection.State) error {
		f := ff.filter()
		trees, err := service.Trees(st, key, f)
		if err != nil {
			return err
		}
		if key != "" && !f.Empty() {
			// Trees names the tree asked for whatever the filter; the
			// filter applies to its root as to every other.
			if r := st.Session(report.RootOf(st, key)); r == nil || !f.Match(r.Scope, r.Start) {
				trees = trees[:0]
			}
		}
		if q.json {
			return writeJSON(stdout, trees)
		}
		for _, t := range trees {
			printTreeTo(stdout, t, "", true, true, pal)
		}
		return nil
	})
}

// printTree prints a spawn tree in plain text.
func printTree(w io.Writer, n *wire.TreeNode, prefix string, last, root bool) {
	printTreeTo(w, n, prefix, last, root, palette{})
}

// printTreeTo prints a spawn tree, coloured when pal is on: the branches
// fade, keys are bold, states and policy sources are coloured.
func printTreeTo(w io.Writer, n *wire.TreeNode, prefix string, last, root bool, pal palette) {
	branch := ""
	if !root {
		branch = "├── "
		if last {
			branch = "└── "
		}
	}
	who := ""
	if root {
		// The root's line names what its whole tree shares.
		who = "  (scope " + n.Scope
		if id := report.IdentityText(n.Identity); id != "" {
			who += "; " + id
		}
		who = pal.paint(sgrGray, who+")")
	}
	fmt.Fprintf(w, "%s%s  [%s, %s, %d turn(s), %s]%s\n", pal.paint(sgrGray, prefix+branch), pal.paint(sgrBold, string(n.Key)),
		pal.paint(sgrBlue, n.Agent), pal.paint(stateColor(n.State), string(n.State)), n.Turns, pal.paint(sgrMagenta, n.Source), who)
	next := prefix
	if !root {
		if last {
			next += "    "
		} else {
			next += "│   "
		}
	}
	for i, c := range n.Children {
		printTreeTo(w, c, next, i == len(n.Children)-1, false, pal)
	}
}

// identityLong is an identity as 'ledger session' prints it: every field
// recorded, named.
func identityLong(id *wire.Identity) string {
	if id == nil {
		return ""
	}
	var parts []string
	for _, kv := range [][2]string{{"runtime", strings.TrimSpace(id.Runtime + " " + id.RuntimeVersion)}, {"user", id.User},
		{"host", id.Host}, {"project", id.Project}, {"repository", id.Repository}, {"branch", id.Branch}, {"model", id.Model}} {
		if kv[1] != "" {
			parts = append(parts, kv[0]+" "+kv[1])
		}
	}
	return strings.Join(parts, ", ")
}
