package openclaw

import (
	"fmt"
	"strings"

	ocdialect "github.com/sessionledger/ledger/envelope/openclaw"
	"github.com/sessionledger/ledger/internal/importer"
	"github.com/sessionledger/ledger/internal/jsontree"
	"github.com/sessionledger/ledger/internal/safefile"
)

// shape describes what the openclaw policy document accepts at one place
// (docs/dialects/openclaw.md section 1.1).
type shape struct {
	kind   shapeKind
	fields []field // object: the keys kept, everything else is dropped
	elem   *shape  // map values
}

type shapeKind uint8

const (
	shObject    shapeKind = iota // known keys
	shMap                        // any keys, each value of elem's shape
	shStrings                    // list of strings
	shString                     // string
	shBool                       // boolean
	shInt                        // number (the dialect checks range and integrality)
	shAnyObject                  // an object kept as written (tools.exec, tools.fs)
)

type field struct {
	name  string
	shape *shape
}

func object(fields ...field) *shape { return &shape{kind: shObject, fields: fields} }
func mapOf(elem *shape) *shape      { return &shape{kind: shMap, elem: elem} }

var (
	strs      = &shape{kind: shStrings}
	str       = &shape{kind: shString}
	boolean   = &shape{kind: shBool}
	integer   = &shape{kind: shInt}
	anyObject = &shape{kind: shAnyObject}
)

func (s *shape) field(name string) *shape {
	for _, f := range s.fields {
		if f.name == name {
			return f.shape
		}
	}
	return nil
}

// The openclaw policy document, section 1.1 of its dialect reference.
var (
	ocScope     = object(field{"allow", strs}, field{"alsoAllow", strs}, field{"deny", strs})
	ocProvider  = object(field{"profile", str}, field{"allow", strs}, field{"alsoAllow", strs}, field{"deny", strs})
	ocWrapper   = object(field{"tools", ocScope})
	ocSandbox   = object(field{"mode", str})
	ocAgentTool = object(
		field{"profile", str}, field{"allow", strs}, field{"alsoAllow", strs}, field{"deny", strs},
		field{"byProvider", mapOf(ocProvider)}, field{"sandbox", ocWrapper},
		field{"toolsBySender", mapOf(ocScope)}, field{"exec", anyObject}, field{"fs", anyObject})
	ocTools = object(
		field{"profile", str}, field{"allow", strs}, field{"alsoAllow", strs}, field{"deny", strs},
		field{"byProvider", mapOf(ocProvider)}, field{"sandbox", ocWrapper}, field{"subagents", ocWrapper},
		field{"toolsBySender", mapOf(ocScope)}, field{"exec", anyObject}, field{"fs", anyObject})
	ocDefaults = object(
		field{"subagents", object(field{"maxSpawnDepth", integer}, field{"maxChildrenPerAgent", integer},
			field{"allowAgents", strs}, field{"requireAgentId", boolean})},
		field{"sandbox", ocSandbox})
	ocAgent = object(
		field{"id", str}, field{"tools", ocAgentTool},
		field{"subagents", object(field{"allowAgents", strs}, field{"delegateToolsTo", strs}, field{"requireAgentId", boolean})},
		field{"sandbox", ocSandbox})
	ocChannels = mapOf(object(field{"groups", mapOf(object(field{"tools", ocScope}, field{"toolsBySender", mapOf(ocScope)}))}))
)

// Import converts an OpenClaw config (openclaw.json, JSON5) to the
// openclaw policy document: tools, agents (defaults, list) and channels,
// with every other key dropped and reported. Agents written as an
// agents.entries map (id → agent) become agents.list entries. file names
// the input in errors and warnings.
//
// The config is first validated as the newest OpenClaw release this build
// pins validates it (envelope/openclaw's NewestRelease; validateOpenClaw): a config
// that release refuses is refused here, each problem located, and the
// document names the release it was validated for.
func Import(file string, src []byte) (*importer.Result, error) {
	return ImportRelease(file, src, ocdialect.NewestRelease())
}

// ImportRelease is Import for a given pinned release.
//
// A config over DefaultMaxFileSize is refused before it is parsed (its
// parsed form would take some 20 times its size); read it with
// safefile.ReadFile(file, DefaultMaxFileSize).
func ImportRelease(file string, src []byte, release string) (*importer.Result, error) {
	if len(src) > importer.DefaultMaxFileSize {
		return nil, &importer.Error{File: file, Msg: fmt.Sprintf("larger than the limit of %s for a config: nothing was imported", safefile.Size(importer.DefaultMaxFileSize))}
	}
	root, err := jsontree.ParseJSON5(file, src)
	if err != nil {
		return nil, err
	}
	c := &converter{file: file, r: &importer.Result{Dialect: importer.DialectOpenClaw, Source: file}}
	if root.Kind != jsontree.Object {
		return nil, c.errorf(root.Pos, "the config must be an object, got %s", root.Kind)
	}
	if err := validateOpenClaw(file, root, release); err != nil {
		return nil, err
	}
	doc := &jsontree.Value{Kind: jsontree.Object, Pos: root.Pos}
	doc.Members = append(doc.Members, jsontree.Member{Key: "release", KeyPos: root.Pos, Value: &jsontree.Value{Kind: jsontree.String, Pos: root.Pos, Str: release}})
	for _, m := range root.Members {
		var kept *jsontree.Value
		switch m.Key {
		case "tools":
			kept, err = c.walk(ocTools, m.Value, "tools", "tools")
		case "agents":
			kept, err = c.agents(m.Value)
		case "channels":
			kept, err = c.walk(ocChannels, m.Value, "channels", "channels")
		default:
			c.drop(m, m.Key)
			continue
		}
		if err != nil {
			return nil, err
		}
		if kept != nil {
			c.r.Record(m.Key, file, m.KeyPos)
			doc.Members = append(doc.Members, jsontree.Member{Key: m.Key, KeyPos: m.KeyPos, Value: kept})
		}
	}
	if c.r.Document, err = doc.AppendJSON(make([]byte, 0, len(src)+512), file); err != nil { // no larger than the config, roughly
		return nil, err
	}
	return c.r, nil
}

type converter struct {
	file string
	r    *importer.Result
}

func (c *converter) errorf(at jsontree.Pos, format string, args ...any) *importer.Error {
	return &importer.Error{File: c.file, Line: at.Line, Col: at.Col, Msg: fmt.Sprintf(format, args...)}
}

func (c *converter) warn(at jsontree.Pos, path, format string, args ...any) {
	c.r.Warnings = append(c.r.Warnings, importer.Warning{File: c.file, Line: at.Line, Col: at.Col, Path: path, Msg: fmt.Sprintf(format, args...)})
}

func (c *converter) drop(m jsontree.Member, path string) {
	c.warn(m.KeyPos, path, "dropped %s: not part of the openclaw policy document", path)
}

// walk keeps the parts of v that shape s accepts. in is v's path as
// written (for warnings), out its path in the document (for locating the
// dialect's complaints). An object whose every key was dropped is left out
// (nil): the warnings already say why.
func (c *converter) walk(s *shape, v *jsontree.Value, in, out string) (*jsontree.Value, error) {
	c.r.Record(out, c.file, v.Pos)
	switch s.kind {
	case shObject, shMap:
		if v.Kind != jsontree.Object {
			return nil, c.errorf(v.Pos, "%s must be an object, got %s", in, v.Kind)
		}
		kept := &jsontree.Value{Kind: jsontree.Object, Pos: v.Pos}
		for _, m := range v.Members {
			fs := s.elem
			if s.kind == shObject {
				if fs = s.field(m.Key); fs == nil {
					c.drop(m, importer.JoinPath(in, m.Key))
					continue
				}
			}
			w, err := c.walk(fs, m.Value, importer.JoinPath(in, m.Key), importer.JoinPath(out, m.Key))
			if err != nil {
				return nil, err
			}
			if w != nil {
				c.r.Record(importer.JoinPath(out, m.Key), c.file, m.KeyPos)
				kept.Members = append(kept.Members, jsontree.Member{Key: m.Key, KeyPos: m.KeyPos, Value: w})
			}
		}
		if len(kept.Members) == 0 && len(v.Members) > 0 {
			return nil, nil
		}
		return kept, nil
	case shStrings:
		if v.Kind != jsontree.Array {
			return nil, c.errorf(v.Pos, "%s must be a list of strings, got %s", in, v.Kind)
		}
		for i, e := range v.Elems {
			if e.Kind != jsontree.String {
				return nil, c.errorf(e.Pos, "%s must be a string, got %s", importer.IndexPath(in, i), e.Kind)
			}
			c.r.Record(importer.IndexPath(out, i), c.file, e.Pos)
		}
		return v, nil
	case shString:
		if v.Kind != jsontree.String {
			return nil, c.errorf(v.Pos, "%s must be a string, got %s", in, v.Kind)
		}
	case shBool:
		if v.Kind != jsontree.Bool {
			return nil, c.errorf(v.Pos, "%s must be true or false, got %s", in, v.Kind)
		}
	case shInt:
		if v.Kind != jsontree.Number || v.NonFinite != "" {
			got := v.Kind.String()
			if v.NonFinite != "" {
				got = v.NonFinite
			}
			return nil, c.errorf(v.Pos, "%s must be an integer, got %s", in, got)
		}
	case shAnyObject:
		if v.Kind != jsontree.Object {
			return nil, c.errorf(v.Pos, "%s must be an object, got %s", in, v.Kind)
		}
	}
	return v, nil
}

// agents converts the agents section. Besides the document's own
// agents.list, real configs write agents as an agents.entries map keyed by
// agent id (reference/openclaw.md, e.g. agents.entries.<id>.tools); its
// entries are appended to agents.list in the order written, with the key as
// the id.
func (c *converter) agents(v *jsontree.Value) (*jsontree.Value, error) {
	c.r.Record("agents", c.file, v.Pos)
	if v.Kind != jsontree.Object {
		return nil, c.errorf(v.Pos, "agents must be an object, got %s", v.Kind)
	}
	out := &agentsOut{c: c, kept: &jsontree.Value{Kind: jsontree.Object, Pos: v.Pos}, ids: map[string]string{}}
	for _, m := range v.Members {
		var err error
		switch m.Key {
		case "defaults":
			err = out.defaults(m)
		case "list":
			err = out.fromList(m)
		case "entries":
			err = out.fromEntries(m)
		default:
			c.drop(m, importer.JoinPath("agents", m.Key))
		}
		if err != nil {
			return nil, err
		}
	}
	if len(out.kept.Members) == 0 && len(v.Members) > 0 {
		return nil, nil
	}
	return out.kept, nil
}

// agentsOut is the agents section being written: what it keeps, and the
// agents.list written out (created at the first list or entries key), with
// where each agent id was defined.
type agentsOut struct {
	c    *converter
	kept *jsontree.Value
	list *jsontree.Value
	ids  map[string]string
}

// ensureList creates agents.list at the key m.
func (o *agentsOut) ensureList(m jsontree.Member) {
	if o.list == nil {
		o.list = &jsontree.Value{Kind: jsontree.Array, Pos: m.Value.Pos}
		o.c.r.Record("agents.list", o.c.file, m.KeyPos)
		o.kept.Members = append(o.kept.Members, jsontree.Member{Key: "list", KeyPos: m.KeyPos, Value: o.list})
	}
}

// add appends an agent to agents.list, refusing an id defined before.
func (o *agentsOut) add(a *jsontree.Value, in string, at jsontree.Pos) error {
	if m := a.Get("id"); m != nil {
		id := m.Value.Str
		if prev, dup := o.ids[id]; dup {
			return o.c.errorf(at, "%s: agent id %q is already defined at %s", in, id, prev)
		}
		o.ids[id] = fmt.Sprintf("%d:%d", at.Line, at.Col)
	}
	o.list.Elems = append(o.list.Elems, a)
	return nil
}

// defaults keeps agents.defaults.
func (o *agentsOut) defaults(m jsontree.Member) error {
	c := o.c
	w, err := c.walk(ocDefaults, m.Value, "agents.defaults", "agents.defaults")
	if err != nil || w == nil {
		return err
	}
	c.r.Record("agents.defaults", c.file, m.KeyPos)
	o.kept.Members = append(o.kept.Members, jsontree.Member{Key: m.Key, KeyPos: m.KeyPos, Value: w})
	return nil
}

// fromList appends the agents of agents.list.
func (o *agentsOut) fromList(m jsontree.Member) error {
	c := o.c
	if m.Value.Kind != jsontree.Array {
		return c.errorf(m.Value.Pos, "agents.list must be a list, got %s", m.Value.Kind)
	}
	o.ensureList(m)
	for i, e := range m.Value.Elems {
		in := importer.IndexPath("agents.list", i)
		w, err := c.walk(ocAgent, e, in, importer.IndexPath("agents.list", len(o.list.Elems)))
		if err != nil {
			return err
		}
		if w == nil {
			w = &jsontree.Value{Kind: jsontree.Object, Pos: e.Pos}
		}
		if err := o.add(w, in, e.Pos); err != nil {
			return err
		}
	}
	return nil
}

// fromEntries appends the agents of an agents.entries map, in the order
// written, each with its key (as OpenClaw normalizes it) as its id.
func (o *agentsOut) fromEntries(m jsontree.Member) error {
	c := o.c
	if m.Value.Kind != jsontree.Object {
		return c.errorf(m.Value.Pos, "agents.entries must be an object mapping agent ids to agents, got %s", m.Value.Kind)
	}
	o.ensureList(m)
	names := make([]string, 0, len(m.Value.Members))
	for _, e := range m.Value.Members {
		names = append(names, e.Key)
	}
	switch len(names) {
	case 0:
		c.warn(m.KeyPos, "agents.entries", "converted agents.entries to agents.list (no agents)")
	case 1:
		c.warn(m.KeyPos, "agents.entries", "converted agents.entries to agents.list (%d %s: %s)", len(names), "agent", strings.Join(names, ", "))
	default:
		c.warn(m.KeyPos, "agents.entries", "converted agents.entries to agents.list (%d %s: %s)", len(names), "agents", strings.Join(names, ", "))
	}
	for _, e := range m.Value.Members {
		if err := o.fromEntry(e); err != nil {
			return err
		}
	}
	return nil
}

// fromEntry appends one agents.entries entry.
func (o *agentsOut) fromEntry(e jsontree.Member) error {
	c := o.c
	in := importer.JoinPath("agents.entries", e.Key)
	out := importer.IndexPath("agents.list", len(o.list.Elems))
	if e.Value.Kind != jsontree.Object {
		return c.errorf(e.Value.Pos, "%s must be an object, got %s", in, e.Value.Kind)
	}
	if idm := e.Value.Get("id"); idm != nil && (idm.Value.Kind != jsontree.String || idm.Value.Str != e.Key) {
		return c.errorf(idm.Value.Pos, "%s.id must equal its key %q (or be left out)", in, e.Key)
	}
	id := ocdialect.NormalizeAgentID(e.Key)
	if id != e.Key {
		// OpenClaw resolves every agent id through normalizeAgentId: the
		// entry is agent id.
		c.warn(e.KeyPos, in, "agents.entries key %q is agent %q (OpenClaw normalizes agent ids)", e.Key, id)
	}
	w, err := c.walk(ocAgent, e.Value, in, out)
	if err != nil {
		return err
	}
	if w == nil {
		w = &jsontree.Value{Kind: jsontree.Object, Pos: e.Value.Pos}
	}
	if w.Get("id") == nil {
		idm := jsontree.Member{Key: "id", KeyPos: e.KeyPos, Value: &jsontree.Value{Kind: jsontree.String, Pos: e.KeyPos, Str: id}}
		w.Members = append([]jsontree.Member{idm}, w.Members...)
	}
	c.r.Record(out, c.file, e.KeyPos)
	c.r.Record(out+".id", c.file, e.KeyPos)
	return o.add(w, in, e.KeyPos)
}
