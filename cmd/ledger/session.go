package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/projection"
)

// sessionView is what the session query answers.
type sessionView struct {
	Key      events.SessionKey   `json:"key"`
	Agent    string              `json:"agent"`
	State    envelope.State      `json:"state"`
	Depth    int                 `json:"depth"`
	Parent   events.SessionKey   `json:"parent,omitempty"`
	Envelope *envelope.Envelope  `json:"envelope"`
	Context  envelope.Context    `json:"context"`
	Turns    []turnView          `json:"turns"`
	Children []events.SessionKey `json:"children"`
}

type turnView struct {
	Turn    int              `json:"turn"`
	Seq     uint64           `json:"seq"`
	ToolSet envelope.ToolSet `json:"tool_set"`
}

func viewSession(st *projection.State, key events.SessionKey) (*sessionView, error) {
	s := st.Session(key)
	if s == nil {
		return nil, events.Errorf(events.CodeUnknownSession, "session %q does not exist", key)
	}
	v := &sessionView{Key: s.Key, Agent: s.Agent, State: s.State, Depth: s.Depth, Parent: s.Parent,
		Envelope: s.Envelope, Context: s.Context, Children: append([]events.SessionKey{}, s.Children...), Turns: []turnView{}}
	for t := 1; t <= s.Turn; t++ {
		ts, seq, ok := st.TurnSet(key, t)
		if ok {
			v.Turns = append(v.Turns, turnView{Turn: t, Seq: seq, ToolSet: ts})
		}
	}
	return v, nil
}

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
		sv, err := viewSession(st, key)
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

// treeNode is one session of a spawn tree.
type treeNode struct {
	Key      events.SessionKey `json:"key"`
	Agent    string            `json:"agent"`
	State    envelope.State    `json:"state"`
	Depth    int               `json:"depth"`
	Turns    int               `json:"turns"`
	Source   string            `json:"policy_source"`
	Children []*treeNode       `json:"children"`
}

func buildTree(st *projection.State, key events.SessionKey, depth int) *treeNode {
	s := st.Session(key)
	n := &treeNode{Key: key, Agent: s.Agent, State: s.State, Depth: s.Depth, Turns: s.Turn, Source: s.Context.Source, Children: []*treeNode{}}
	if depth > 64 {
		return n
	}
	for _, c := range s.Children {
		n.Children = append(n.Children, buildTree(st, c, depth+1))
	}
	return n
}

func runTree(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fl := newFlags("tree", "", "Prints the spawn tree under a root session (--session), or every root's tree.", stderr)
	var q queryFlags
	q.register(fl, false)
	q.optionalSession = true
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
		var roots []events.SessionKey
		if key != "" {
			if st.Session(key) == nil {
				return events.Errorf(events.CodeUnknownSession, "session %q does not exist", key)
			}
			roots = []events.SessionKey{key}
		} else {
			for _, k := range st.Keys() {
				if st.Session(k).Root() {
					roots = append(roots, k)
				}
			}
		}
		trees := make([]*treeNode, 0, len(roots))
		for _, r := range roots {
			trees = append(trees, buildTree(st, r, 0))
		}
		if q.json {
			return writeJSON(stdout, trees)
		}
		for _, t := range trees {
			printTree(stdout, t, "", true, true)
		}
		return nil
	})
}

func printTree(w io.Writer, n *treeNode, prefix string, last, root bool) {
	branch := ""
	if !root {
		branch = "├── "
		if last {
			branch = "└── "
		}
	}
	fmt.Fprintf(w, "%s%s%s  [%s, %s, %d turn(s), %s]\n", prefix, branch, n.Key, n.Agent, n.State, n.Turns, n.Source)
	next := prefix
	if !root {
		if last {
			next += "    "
		} else {
			next += "│   "
		}
	}
	for i, c := range n.Children {
		printTree(w, c, next, i == len(n.Children)-1, false)
	}
}
