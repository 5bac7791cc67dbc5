package report

import (
	"encoding/json"

	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/projection"
	"github.com/sessionledger/ledger/wire"
)

// Selection chooses the records an operator asked about: those of the
// spawn trees whose root passes a filter (its scope and the identity it
// started with) and, optionally, is one named root; and the policy records
// (policy.set, grant.added, grant.revoked, deny.added, deny.lifted) of the
// scopes those trees are bound to. A policy record holds for every session
// of its scope, so it goes with them; the policy records of a scope the
// filter names are kept even when no tree of it is selected. The zero
// filter with no root selects the whole log.
//
// A Selection learns the sessions from the records themselves (Observe),
// so it needs no projection: log reads the raw log with it. Observe every
// record in stream order before asking Keep about any record, so that a
// scope's policy records, which come before its first session, are kept.
type Selection struct {
	root   events.SessionKey
	filter wire.Filter
	// tree maps every session seen to what its tree's root started with:
	// whether the root passes the filter, and its scope.
	tree map[events.SessionKey]treeOf
	// sessions holds the selected sessions; tops the selected trees' tops
	// (the roots, or the session named) in the order they were seen.
	sessions map[events.SessionKey]bool
	tops     []events.SessionKey
	// scopes holds the selected scopes, by events.ScopeName.
	scopes map[string]bool
}

type treeOf struct {
	pass  bool
	scope string
}

// NewSelection selects the trees whose root passes f, or the tree under
// root ("" for every tree; it may be a sub-agent) when its root passes f.
func NewSelection(root events.SessionKey, f wire.Filter) *Selection {
	s := &Selection{root: root, filter: f, tree: map[events.SessionKey]treeOf{},
		sessions: map[events.SessionKey]bool{}, scopes: map[string]bool{}}
	if f.Scope != "" {
		s.scopes[events.ScopeName(f.Scope)] = true
	}
	return s
}

// SelectIn makes the selection from a state rather than from records: it
// knows every session st holds. A named root st does not hold is
// unknown_session.
func SelectIn(st *projection.State, root events.SessionKey, f wire.Filter) (*Selection, error) {
	s := NewSelection(root, f)
	tops := []events.SessionKey{root}
	if root == "" {
		tops = nil
		for _, k := range st.Keys() {
			if st.Session(k).Root() {
				tops = append(tops, k)
			}
		}
	} else if st.Session(root) == nil {
		return nil, events.UnknownSession(root)
	}
	for _, top := range tops {
		r := st.Session(RootOf(st, top))
		if !f.Match(r.Scope, r.Start) {
			continue
		}
		s.tops = append(s.tops, top)
		s.scopes[events.ScopeName(r.Scope)] = true
		for _, k := range Subtree(st, top) {
			s.sessions[k] = true
		}
	}
	return s, nil
}

// Tops lists the tops of the selected trees: the roots that pass the
// filter, or the session named.
func (s *Selection) Tops() []events.SessionKey { return s.tops }

// All reports whether the selection is the whole log.
func (s *Selection) All() bool { return s.root == "" && s.filter.Empty() }

// Filter is the filter the selection applies to roots.
func (s *Selection) Filter() wire.Filter { return s.filter }

// Observe learns the session a record starts or spawns, and whether it is
// selected.
func (s *Selection) Observe(rec *events.Record) {
	var t treeOf
	switch rec.Type {
	case events.SessionStarted:
		var d events.StartedData
		if json.Unmarshal(rec.Data, &d) != nil {
			return
		}
		t = treeOf{pass: s.filter.Match(d.Scope, &d), scope: events.ScopeName(d.Scope)}
	case events.SessionSpawned:
		var d events.SpawnedData
		if json.Unmarshal(rec.Data, &d) != nil {
			return
		}
		t = s.tree[d.Parent]
		if s.sessions[d.Parent] {
			s.sessions[rec.Session] = true
			return
		}
	default:
		return
	}
	s.tree[rec.Session] = t
	if t.pass && (s.root == "" && rec.Type == events.SessionStarted || s.root == rec.Session) {
		s.sessions[rec.Session] = true
		s.tops = append(s.tops, rec.Session)
		s.scopes[t.scope] = true
	}
}

// Keep reports whether a record observed before is selected.
func (s *Selection) Keep(rec *events.Record) bool {
	if s.All() {
		return true
	}
	if rec.Type.IsPolicy() {
		return s.scopes[PolicyScope(rec)]
	}
	return s.sessions[rec.Session]
}

// Session reports whether a session observed before is selected.
func (s *Selection) Session(key events.SessionKey) bool { return s.All() || s.sessions[key] }

// Scope reports whether the policy records of a scope are selected.
func (s *Selection) Scope(name string) bool { return s.All() || s.scopes[events.ScopeName(name)] }

// PolicyScope is the scope a policy record (policy.set, a grant or a
// revocation) belongs to, "default" when it names none.
func PolicyScope(rec *events.Record) string {
	var d struct {
		Scope string `json:"scope"`
	}
	_ = json.Unmarshal(rec.Data, &d)
	return events.ScopeName(d.Scope)
}
