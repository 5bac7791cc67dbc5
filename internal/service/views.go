package service

import (
	"cmp"
	"slices"

	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/projection"
	"github.com/sessionledger/ledger/wire"
)

// ViewSession builds the session view at a state.
func ViewSession(st *projection.State, key events.SessionKey) (*wire.SessionView, error) {
	s := st.Session(key)
	if s == nil {
		return nil, events.UnknownSession(key)
	}
	v := &wire.SessionView{Key: s.Key, Scope: events.ScopeName(s.Scope), Identity: identity(st, s), Agent: s.Agent, State: s.State, Depth: s.Depth, Parent: s.Parent,
		Envelope: s.Envelope, Context: s.Context, Children: append([]events.SessionKey{}, s.Children...), Turns: []wire.TurnView{}}
	for t := 1; t <= s.Turn; t++ {
		if ts, seq, ok := st.TurnSet(key, t); ok {
			v.Turns = append(v.Turns, wire.TurnView{Turn: t, Seq: seq, ToolSet: ts})
		}
	}
	return v, nil
}

// MaxTreeDepth bounds how deep a printed tree goes.
const MaxTreeDepth = 64

// identity is the identity of a session's root.
func identity(st *projection.State, s *envelope.Session) *wire.Identity {
	if root := envelope.RootOf(st, s); root != nil {
		return wire.IdentityOf(root.Start)
	}
	return nil
}

// BuildTree builds the spawn tree under key at a state.
func BuildTree(st *projection.State, key events.SessionKey) *wire.TreeNode {
	s := st.Session(key)
	return buildTree(st, key, identity(st, s), 0)
}

func buildTree(st *projection.State, key events.SessionKey, id *wire.Identity, depth int) *wire.TreeNode {
	s := st.Session(key)
	n := &wire.TreeNode{Key: key, Scope: events.ScopeName(s.Scope), Identity: id, Started: s.Origin.Seq, Agent: s.Agent, State: s.State,
		Depth: s.Depth, Turns: s.Turn, Source: s.Context.Source, Children: []*wire.TreeNode{}}
	if depth >= MaxTreeDepth {
		return n
	}
	for _, c := range s.Children {
		n.Children = append(n.Children, buildTree(st, c, id, depth+1))
	}
	return n
}

// Trees builds the tree under root, or every root's tree when root is ""
// (those the filter selects, in the order they started).
func Trees(st *projection.State, root events.SessionKey, f wire.Filter) ([]*wire.TreeNode, error) {
	if root != "" {
		if st.Session(root) == nil {
			return nil, events.UnknownSession(root)
		}
		return []*wire.TreeNode{BuildTree(st, root)}, nil
	}
	trees := []*wire.TreeNode{}
	for _, k := range st.Keys() {
		if s := st.Session(k); s.Root() && f.Match(s.Scope, s.Start) {
			trees = append(trees, BuildTree(st, k))
		}
	}
	slices.SortFunc(trees, func(a, b *wire.TreeNode) int { return cmp.Compare(a.Started, b.Started) })
	return trees, nil
}
