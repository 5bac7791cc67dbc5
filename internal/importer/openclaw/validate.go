package openclaw

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	ocdialect "github.com/sessionledger/ledger/envelope/openclaw"
	"github.com/sessionledger/ledger/internal/importer"
	"github.com/sessionledger/ledger/internal/jsontree"
)

// maxIssues bounds how many problems one refusal lists.
const maxIssues = 20

// validateOpenClaw checks a config as OpenClaw's validateConfigObject does
// for a release: its migration of agents.list (kept only when every id is
// already canonical), its schema (the release's OpenClawSchema, as JSON
// Schema) and the refinements its schema runs in code on the sections the
// ledger reads (allow with alsoAllow in one scope; the agent roster). A
// refusal lists each problem at the place it was written.
//
// Caveats: refinements of the sections the ledger drops (gateway, models,
// channels' own settings, ...) are not run, nor the checks OpenClaw makes
// after its schema (secret references, duplicate agent directories,
// avatars): such a config is imported, and only its policy is.
func validateOpenClaw(file string, root *jsontree.Value, release string) error {
	schema, err := openclawSchema(release)
	if err != nil {
		return err
	}
	var all []schemaIssue
	view, lists := migrateRoster(root, &all)
	schema.validate(view, "", &all)
	refineOpenClaw(view, &all)
	// A value the policy document keeps is left to the conversion and the
	// dialect, which check it under the same release, with the document's
	// path in the message (Check places it back in the source).
	var iss []schemaIssue
	for _, is := range all {
		is.path = lists.rewrite(is.path)
		if !is.key && keptValue(is.path) {
			continue
		}
		iss = append(iss, is)
	}
	if len(iss) == 0 {
		return nil
	}
	sortIssues(iss)
	var errs []error
	for i, is := range iss {
		if i == maxIssues {
			errs = append(errs, &importer.Error{File: file, Msg: fmt.Sprintf("... and %d more problems", len(iss)-maxIssues)})
			break
		}
		path := is.path
		msg := is.msg
		if path != "" {
			msg = path + ": " + msg
		}
		errs = append(errs, &importer.Error{File: file, Line: is.at.Line, Col: is.at.Col, Msg: "openclaw " + release + " refuses the config: " + msg})
	}
	if len(errs) == 1 {
		return errs[0]
	}
	return errors.Join(errs...)
}

// listPaths maps agents.entries.<id> paths of a migrated agents.list back
// to agents.list[i].
type listPaths map[string]int

// rewrite turns a path under agents.entries.<id> into agents.list[i]. The
// id is read from the path and looked up, not each id tried in turn: that
// was every problem times every agent.
func (l listPaths) rewrite(path string) string {
	const prefix = "agents.entries"
	rest, ok := strings.CutPrefix(path, prefix)
	if !ok || len(l) == 0 {
		return path
	}
	// join writes a simple key as .id (up to the next . or [) and any other
	// as ["id"].
	var id, after string
	switch {
	case strings.HasPrefix(rest, "."):
		end := strings.IndexAny(rest[1:], ".[")
		if end < 0 {
			end = len(rest) - 1
		}
		id, after = rest[1:1+end], rest[1+end:]
	case strings.HasPrefix(rest, "["):
		q, err := strconv.QuotedPrefix(rest[1:])
		if err != nil || !strings.HasPrefix(rest[1+len(q):], "]") {
			return path
		}
		id, _ = strconv.Unquote(q)
		after = rest[1+len(q)+1:]
	default:
		return path
	}
	i, ok := l[id]
	if !ok || importer.JoinPath(prefix, id) != path[:len(path)-len(after)] {
		return path
	}
	return importer.IndexPath("agents.list", i) + after
}

// migrateRoster returns the config as OpenClaw's schema sees it: an
// agents.list whose entries are all objects with canonical, distinct ids
// becomes agents.entries (migratePersistedImplicitMainRoster); any other
// agents.list stays, and the schema refuses it (an unrecognized key), with
// the reason added here.
func migrateRoster(root *jsontree.Value, iss *[]schemaIssue) (*jsontree.Value, listPaths) {
	am := root.Get("agents")
	if am == nil || am.Value.Kind != jsontree.Object {
		return root, nil
	}
	lm := am.Value.Get("list")
	if lm == nil || am.Value.Get("entries") != nil {
		return root, nil
	}
	if lm.Value.Kind != jsontree.Array {
		return root, nil
	}
	entries := &jsontree.Value{Kind: jsontree.Object, Pos: lm.Value.Pos}
	paths := listPaths{}
	for i, e := range lm.Value.Elems {
		why := ""
		var id *jsontree.Member
		if e.Kind != jsontree.Object {
			why = fmt.Sprintf("agents.list[%d] is not an object", i)
		} else if id = e.Get("id"); id == nil || id.Value.Kind != jsontree.String || id.Value.Str == "" {
			why = fmt.Sprintf("agents.list[%d] has no id", i)
		} else if n := ocdialect.NormalizeAgentID(id.Value.Str); n != id.Value.Str || strings.TrimSpace(id.Value.Str) != id.Value.Str {
			why = fmt.Sprintf("agents.list[%d].id %q is not a canonical agent id (write %q)", i, id.Value.Str, n)
		} else if _, dup := paths[id.Value.Str]; dup {
			why = fmt.Sprintf("agents.list[%d].id %q repeats an earlier id", i, id.Value.Str)
		}
		if why != "" {
			*iss = append(*iss, schemaIssue{path: "agents", at: lm.KeyPos, msg: "agents.list is kept only when OpenClaw can move it to agents.entries: " + why})
			return root, nil
		}
		entry := &jsontree.Value{Kind: jsontree.Object, Pos: e.Pos}
		for _, m := range e.Members {
			if m.Key != "id" {
				entry.Members = append(entry.Members, m)
			}
		}
		paths[id.Value.Str] = i
		entries.Members = append(entries.Members, jsontree.Member{Key: id.Value.Str, KeyPos: e.Pos, Value: entry})
	}
	agents := &jsontree.Value{Kind: jsontree.Object, Pos: am.Value.Pos}
	for _, m := range am.Value.Members {
		if m.Key == "list" {
			if len(entries.Members) > 0 {
				agents.Members = append(agents.Members, jsontree.Member{Key: "entries", KeyPos: m.KeyPos, Value: entries})
			}
			continue
		}
		agents.Members = append(agents.Members, m)
	}
	view := &jsontree.Value{Kind: jsontree.Object, Pos: root.Pos}
	for _, m := range root.Members {
		if m.Key == "agents" {
			m.Value = agents
		}
		view.Members = append(view.Members, m)
	}
	return view, paths
}

// refineOpenClaw runs the refinements of OpenClaw's schema on the tools and
// agents sections (zod-schema.agent-runtime.ts addAllowAlsoAllowConflictIssue
// and ToolPolicySchema; zod-schema.agents.ts AgentsSchema).
func refineOpenClaw(root *jsontree.Value, iss *[]schemaIssue) {
	refineToolScopes("tools", member(root, "tools"), "tools", iss)
	refineRoster(member(root, "agents"), iss)
}

// allowMerge is the issue of a scope that sets both allow and alsoAllow.
const allowMerge = " cannot set both allow and alsoAllow in the same scope (merge alsoAllow into allow, or remove allow and use profile + alsoAllow)"

// member returns the value at keys below v, or nil where a key or an
// object is missing.
func member(v *jsontree.Value, keys ...string) *jsontree.Value {
	for _, k := range keys {
		if v == nil || v.Kind != jsontree.Object {
			return nil
		}
		m := v.Get(k)
		if m == nil {
			return nil
		}
		v = m.Value
	}
	return v
}

// allowAndAlsoAllow reports whether a tools scope sets both allow and
// alsoAllow, each a non-empty list.
func allowAndAlsoAllow(v *jsontree.Value) bool {
	if v == nil || v.Kind != jsontree.Object {
		return false
	}
	a, b := v.Get("allow"), v.Get("alsoAllow")
	return a != nil && b != nil && a.Value.Kind == jsontree.Array && b.Value.Kind == jsontree.Array && len(a.Value.Elems) > 0 && len(b.Value.Elems) > 0
}

// refineToolScopes checks a tools section: its own lists and those of its
// byProvider, sandbox, subagents and toolsBySender scopes. allow with
// alsoAllow is a value of the document (the dialect refuses it itself), so
// its issues are value issues.
func refineToolScopes(path string, t *jsontree.Value, what string, iss *[]schemaIssue) {
	if t == nil || t.Kind != jsontree.Object {
		return
	}
	add := func(path string, at jsontree.Pos, msg string) {
		*iss = append(*iss, schemaIssue{path: path, at: at, msg: msg})
	}
	if allowAndAlsoAllow(t) {
		add(path, t.Pos, what+allowMerge)
	}
	for _, sub := range []struct{ key, what string }{{"byProvider", "tools.byProvider policy"}, {"toolsBySender", "tools policy"}} {
		m := member(t, sub.key)
		if m == nil || m.Kind != jsontree.Object {
			continue
		}
		for _, e := range m.Members {
			if allowAndAlsoAllow(e.Value) {
				add(importer.JoinPath(importer.JoinPath(path, sub.key), e.Key), e.Value.Pos, sub.what+allowMerge)
			}
		}
	}
	for _, k := range []string{"sandbox", "subagents"} {
		if s := member(t, k, "tools"); allowAndAlsoAllow(s) {
			add(importer.JoinPath(importer.JoinPath(path, k), "tools"), s.Pos, "tools policy"+allowMerge)
		}
	}
}

// refineRoster checks the agents section: unique agent ids, at most one
// default marker, and the ownership rule of a multi-agent roster. The
// roster's issues are not about values the document keeps (the document
// has no ownership or default markers): key issues, never deferred.
func refineRoster(agents *jsontree.Value, iss *[]schemaIssue) {
	add := func(path string, at jsontree.Pos, msg string) {
		*iss = append(*iss, schemaIssue{path: path, at: at, msg: msg, key: true})
	}
	if agents == nil || agents.Kind != jsontree.Object {
		return
	}
	o := member(agents, "ownership")
	explicit := o != nil && o.Kind == jsontree.String && o.Str == "explicit"
	entries := member(agents, "entries")
	if entries == nil || entries.Kind != jsontree.Object {
		return
	}
	if len(entries.Members) == 0 && explicit {
		add("agents.entries", entries.Pos, "agents.entries must contain at least one configured agent")
	}
	first := map[string]string{}
	marked := 0
	for _, e := range entries.Members {
		id := ocdialect.NormalizeAgentID(e.Key)
		if prev, dup := first[id]; dup {
			add("agents.entries", e.KeyPos, fmt.Sprintf("agents.entries keys %q and %q resolve to the same agent id %q; rename one key so each agent has a unique id", prev, e.Key, id))
		} else {
			first[id] = e.Key
		}
		if d := member(e.Value, "default"); d != nil && d.Kind == jsontree.Bool && d.Bool {
			marked++
		}
		refineToolScopes(importer.JoinPath(importer.JoinPath("agents.entries", e.Key), "tools"), member(e.Value, "tools"), "agent tools", iss)
	}
	switch {
	case marked > 1:
		add("agents.entries", entries.Pos, fmt.Sprintf("agents.entries must contain at most one default=true entry (found %d)", marked))
	case explicit && marked > 0:
		add("agents.ownership", agents.Pos, "agents.ownership=explicit cannot be combined with a legacy default=true marker")
	case len(entries.Members) > 1 && marked == 0 && !explicit:
		add("agents.ownership", agents.Pos, `multi-agent rosters require agents.ownership="explicit" or one legacy default=true marker; add agents.ownership="explicit" or run openclaw doctor`)
	}
}

// keptValue reports whether a config path (as the schema issues name it,
// agents.list[i] for a listed agent) is a value the policy document keeps
// and checks itself: a leaf of the document's shape, or a scope object
// whose lists the dialect validates. What the document keeps as written
// without checking (tools.exec, tools.fs) is not.
func keptValue(path string) bool {
	segs := splitPath(path)
	if len(segs) == 0 {
		return false
	}
	var s *shape
	switch segs[0] {
	case "tools":
		s = ocTools
	case "channels":
		s = ocChannels
	case "agents":
		if len(segs) < 2 {
			return false
		}
		switch segs[1] {
		case "defaults":
			s, segs = ocDefaults, segs[1:]
		case "list", "entries":
			if len(segs) < 3 {
				return false
			}
			s, segs = ocAgent, segs[2:]
		default:
			return false
		}
	default:
		return false
	}
	for _, seg := range segs[1:] {
		switch s.kind {
		case shObject:
			if s = s.field(seg); s == nil {
				return false
			}
		case shMap:
			s = s.elem
		case shStrings:
			return true // an element of a list
		default:
			return false
		}
	}
	return s.kind != shAnyObject
}

// splitPath splits a.b["c d"][0] into a, b, c d, 0.
func splitPath(p string) []string {
	var out []string
	for len(p) > 0 {
		switch p[0] {
		case '.':
			p = p[1:]
		case '[':
			end := strings.IndexByte(p, ']')
			if end < 0 {
				return append(out, p)
			}
			seg := p[1:end]
			if uq, err := strconv.Unquote(seg); err == nil {
				seg = uq
			} else if strings.HasPrefix(seg, "\"") {
				// A quoted key with a ] in it: find the closing quote.
				if i := strings.Index(p, "\"]"); i > 0 {
					if uq, err := strconv.Unquote(p[1 : i+1]); err == nil {
						out = append(out, uq)
						p = p[i+2:]
						continue
					}
				}
			}
			out = append(out, seg)
			p = p[end+1:]
		default:
			end := strings.IndexAny(p, ".[")
			if end < 0 {
				end = len(p)
			}
			out = append(out, p[:end])
			p = p[end:]
		}
	}
	return out
}
