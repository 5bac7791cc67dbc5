package service

import (
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/projection"
	"github.com/sessionledger/ledger/wire"
)

// SessionView is what the session query answers (wire.SessionView).
type SessionView = wire.SessionView

// TurnView is one turn of a SessionView (wire.TurnView).
type TurnView = wire.TurnView

// ViewSession builds the session view at a state.
func ViewSession(st *projection.State, key events.SessionKey) (*SessionView, error) {
	s := st.Session(key)
	if s == nil {
		return nil, events.UnknownSession(key)
	}
	v := &SessionView{Key: s.Key, Agent: s.Agent, State: s.State, Depth: s.Depth, Parent: s.Parent,
		Envelope: s.Envelope, Context: s.Context, Children: append([]events.SessionKey{}, s.Children...), Turns: []TurnView{}}
	for t := 1; t <= s.Turn; t++ {
		if ts, seq, ok := st.TurnSet(key, t); ok {
			v.Turns = append(v.Turns, TurnView{Turn: t, Seq: seq, ToolSet: ts})
		}
	}
	return v, nil
}

// TreeNode is one session of a spawn tree (wire.TreeNode).
type TreeNode = wire.TreeNode

// MaxTreeDepth bounds how deep a printed tree goes.
const MaxTreeDepth = 64

// BuildTree builds the spawn tree under key at a state.
func BuildTree(st *projection.State, key events.SessionKey) *TreeNode {
	return buildTree(st, key, 0)
}

func buildTree(st *projection.State, key events.SessionKey, depth int) *TreeNode {
	s := st.Session(key)
	n := &TreeNode{Key: key, Agent: s.Agent, State: s.State, Depth: s.Depth, Turns: s.Turn, Source: s.Context.Source, Children: []*TreeNode{}}
	if depth >= MaxTreeDepth {
		return n
	}
	for _, c := range s.Children {
		n.Children = append(n.Children, buildTree(st, c, depth+1))
	}
	return n
}

// Trees builds the tree under root, or every root's tree when root is "".
func Trees(st *projection.State, root events.SessionKey) ([]*TreeNode, error) {
	if root != "" {
		if st.Session(root) == nil {
			return nil, events.UnknownSession(root)
		}
		return []*TreeNode{BuildTree(st, root)}, nil
	}
	trees := []*TreeNode{}
	for _, k := range st.Keys() {
		if st.Session(k).Root() {
			trees = append(trees, BuildTree(st, k))
		}
	}
	return trees, nil
}
