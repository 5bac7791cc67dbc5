package cchook

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"path"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"

	ccimport "github.com/sessionledger/ledger/internal/importer/claudecode"
	"github.com/sessionledger/ledger/internal/jsontree"
)

// The hooks block `ledger hook install` merges into a project's Claude Code
// settings: one group per event the mapping records something for, each
// holding one handler. Events that map to nothing (Stop, PostToolUse, ...)
// are not installed, so Claude Code starts no process for them.

// Entry is one hook handler as Claude Code's settings hold it.
type Entry struct {
	Type    string `json:"type"`
	Command string `json:"command,omitempty"`
	// Name names the handler (Gemini CLI's settings; unused by Claude Code).
	Name string `json:"name,omitempty"`
	URL  string `json:"url,omitempty"`
	// Timeout is Claude Code's own bound on the handler, in seconds.
	Timeout int `json:"timeout,omitempty"`
	// OnFailure is what Claude Code does when the handler fails (cannot
	// start, times out, exits with a code other than 0 or 2, answers
	// with a status other than 2xx or with output it cannot read):
	// "block" counts the failure as exit code 2, which blocks a
	// PreToolUse. Set on PreToolUse only: every other event goes on
	// whatever happens. CLI: TestHookFailureBlocks
	// (internal/claudecodetest) has 2.1.328 block a call whose hook
	// timed out, exited 1, or whose HTTP server was down or answered
	// 500, and run it without the option.
	OnFailure string `json:"onFailure,omitempty"`
	// Headers are an HTTP handler's request headers; a value may name
	// an environment variable ($NAME) listed in AllowedEnvVars.
	Headers        map[string]string `json:"headers,omitempty"`
	AllowedEnvVars []string          `json:"allowedEnvVars,omitempty"`
}

// FailClosed is the OnFailure value that blocks a call whose hook failed.
const FailClosed = "block"

// Group is one matcher group of an event.
type Group struct {
	Matcher string  `json:"matcher,omitempty"`
	Hooks   []Entry `json:"hooks"`
}

// EventGroup is the group installed for one event.
type EventGroup struct {
	Event string
	Group Group
}

// InstallEvents are the events the command block installs, in order.
// PreToolUse matches every tool ("*").
var InstallEvents = []string{SessionStart, UserPromptSubmit, PreToolUse, PostToolBatch, SubagentStart, SubagentStop, SessionEnd}

// CommandBlock is the block of command hooks running command (the ledger
// binary and its `hook claude-code` arguments, or the slim SlimBinary and
// its flags, as one shell line).
func CommandBlock(command string, timeout int) []EventGroup {
	return block(InstallEvents, Entry{Type: "command", Command: command, Timeout: timeout})
}

// HTTPBlock is the block of HTTP hooks posting to u (a `ledger serve
// --hooks` address) with the header "Authorization: Bearer " + token
// (token may be "$NAME", an environment variable of Claude Code's, which
// is then listed in allowedEnvVars; "" sends no header). Claude Code
// 2.1.328 sends no SessionStart to HTTP hooks, so it is left out: the root
// session starts at its first prompt, and an ended one is reopened there.
// SessionEnd is sent to them.
func HTTPBlock(u, token string, timeout int) []EventGroup {
	return HTTPBlockWith(u, token, timeout, "")
}

// HTTPBlockWith is HTTPBlock with, when start is not "", a command hook
// running start (the thin hook, `ledger-hook --hooks URL ...`, posting to
// the same server) for SessionStart, the one event of InstallEvents Claude
// Code 2.1.328 sends command hooks only: the root then starts at
// SessionStart, as with command hooks (TestInstallHTTPStart, the
// real CLI TestThinHookSessionStart).
func HTTPBlockWith(u, token string, timeout int, start string) []EventGroup {
	e := Entry{Type: "http", URL: u, Timeout: timeout}
	if token != "" {
		e.Headers = map[string]string{"Authorization": "Bearer " + token}
		if name, ok := strings.CutPrefix(token, "$"); ok {
			e.AllowedEnvVars = []string{strings.Trim(name, "{}")}
		}
	}
	out := block(InstallEvents[1:], e)
	if start != "" {
		out = append(block(InstallEvents[:1], Entry{Type: "command", Command: start, Timeout: timeout}), out...)
	}
	return out
}

// block installs e for every event of evs; the PreToolUse handler matches
// every tool and fails closed.
func block(evs []string, e Entry) []EventGroup {
	out := make([]EventGroup, len(evs))
	for i, ev := range evs {
		g := Group{Hooks: []Entry{e}}
		if ev == PreToolUse {
			g.Matcher = "*"
			fc := e
			fc.OnFailure = FailClosed
			g.Hooks = []Entry{fc}
		}
		out[i] = EventGroup{ev, g}
	}
	return out
}

// SlimBinary is the name of the thin hook binary (cmd/ledger-hook), which
// hands a payload to `serve --hooks` (`ledger-hook --hooks URL`) without
// the rest of the ledger. A command whose first word is it is the ledger's
// (Own), whatever its flags: an install of an older release ran it with
// --nats, and a new install replaces it.
const SlimBinary = "ledger-hook"

// ownCommand matches the command of a handler the ledger installed that
// runs `... hook claude-code ...`. It is compiled on first use, not at
// start-up: every hook process imports this package, and only `hook
// install` matches commands.
var ownCommand = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(^|\s)hook\s+claude-code(\s+-|\s*$)`)
})

// Own reports whether a handler (as decoded from settings) is the
// ledger's, as install writes them: a command hook running `hook
// claude-code` followed by nothing or by flags (a word after it that is
// not a flag is another program's subcommand: `npx telemetry hook
// claude-code stop`), or the slim binary (a first word whose base name is
// SlimBinary), or an HTTP hook posting to HTTPPath over plain http, which
// is all install writes (it refuses https). A user's own handler that
// only looks like the ledger's is left alone by install and uninstall
// (TestOwnIsWhatInstallWrites).
func Own(h map[string]any) bool {
	switch h["type"] {
	case "command":
		c, _ := h["command"].(string)
		return path.Base(firstWord(c)) == SlimBinary || ownCommand().MatchString(c)
	case "http":
		s, _ := h["url"].(string)
		u, err := url.Parse(s)
		return err == nil && strings.EqualFold(u.Scheme, "http") && strings.TrimSuffix(u.Path, "/") == HTTPPath
	}
	return false
}

// firstWord is the first word of a shell command line, unquoted (single
// and double quotes, backslashes), as Quote writes it and a shell reads
// it; "" when the line starts with none.
func firstWord(line string) string {
	line = strings.TrimLeft(line, " \t")
	var w strings.Builder
	for i := 0; i < len(line); i++ {
		switch c := line[i]; c {
		case ' ', '\t', '\n', ';', '&', '|':
			return w.String()
		case '\'':
			j := strings.IndexByte(line[i+1:], '\'')
			if j < 0 {
				return ""
			}
			w.WriteString(line[i+1 : i+1+j])
			i += j + 1
		case '"':
			j := strings.IndexByte(line[i+1:], '"')
			if j < 0 {
				return ""
			}
			w.WriteString(line[i+1 : i+1+j])
			i += j + 1
		case '\\':
			if i+1 < len(line) {
				i++
				w.WriteByte(line[i])
			}
		default:
			w.WriteByte(c)
		}
	}
	return w.String()
}

// Change says what an install or uninstall did to a settings file.
type Change struct {
	// Added are the events whose ledger handler was added or replaced,
	// Removed those whose ledger handler was removed without a new one.
	Added   []string `json:"added"`
	Removed []string `json:"removed"`
}

// Changed reports whether anything changed.
func (c Change) Changed() bool { return len(c.Added) > 0 || len(c.Removed) > 0 }

// Install merges blk into a Claude Code settings file's bytes (empty: a new
// file) and returns the new bytes. Only the "hooks" key is touched, and
// within it only the ledger's own handlers (see Own): every other byte of
// the file stays as it was (a byte order mark, which Claude Code reads
// past, its line ends and the whitespace before a closing bracket
// included), and installing the same block twice changes nothing.
//
// A file Claude Code 2.1.328 would ignore as a whole (not strict JSON, or
// a key that does not match its settings schema, the hooks of the guard
// events PreToolUse and PermissionRequest included:
// ccimport.CheckSettings, which the importer uses too) is
// refused with an *IgnoredError: hooks written into it would never run
// (TestInstallRefusesIgnoredSettings).
func Install(src []byte, blk []EventGroup) ([]byte, Change, error) {
	out, ch, err := edit(src, blk, Own, true, false)
	if err != nil {
		return nil, Change{}, err
	}
	if err := loadable(src); err != nil {
		return nil, Change{}, err
	}
	return out, ch, nil
}

// IgnoredError is the refusal of a settings file that Claude Code 2.1.328
// would ignore as a whole (its settings schema: ccimport.CheckSettings).
// Line and Col (1-based, Col in characters) place the value at Key.
type IgnoredError struct {
	Line, Col int
	Key       string // the offending key's path, "model", "hooks.Stop"
	Problem   string // "model must be a string, got number 5"
}

func (e *IgnoredError) Error() string {
	return fmt.Sprintf("line %d, column %d: %s: Claude Code 2.1.328 ignores this whole file when a key does not match its settings schema, "+
		"so it would run none of the ledger's hooks (every call would go ahead unchecked) and apply none of the file's settings; fix %s (or remove it) and run install again",
		e.Line, e.Col, e.Problem, e.Key)
}

// loadable refuses a settings file Claude Code would ignore whole; src
// has been read by the editor already (strict JSON, an object).
func loadable(src []byte) error {
	if len(bytes.TrimSpace(src)) == 0 {
		return nil
	}
	err := ccimport.CheckSettingsFile("", src)
	var se *ccimport.SchemaError
	if errors.As(err, &se) {
		key := se.Path
		if key == "" {
			key = "the settings"
		}
		return &IgnoredError{Line: se.Pos.Line, Col: se.Pos.Col, Key: key, Problem: se.Error()}
	}
	return err
}

// InstallOwn is Install for another runtime's hooks file of the same shape
// (Codex CLI's hooks.json, Gemini CLI's settings.json): own tells the
// ledger's handlers (internal/agenthook). Claude Code's settings schema is
// not checked, and a byte order mark is refused, saying to remove it
// (whether those runtimes read past one was not observed).
func InstallOwn(src []byte, blk []EventGroup, own func(map[string]any) bool) ([]byte, Change, error) {
	return edit(src, blk, own, false, false)
}

// InstallOwnInPlace is InstallOwn for a runtime that trusts a handler by
// its position (Codex CLI keys a handler's trust by its file, event, group
// index and index in the group): a ledger handler that is to change is
// replaced where it stands, so that no handler of the user's moves. The
// first of an event's ledger handlers keeps its place: its whole group is
// replaced when the group holds the ledger's handlers alone, else the
// handler alone when its group's matcher is the one wanted. Otherwise
// (a ledger handler in a group of the user's under another matcher, which
// it must not keep, or a second ledger handler) it is removed as Install
// removes it, and the wanted group appended (internal/agenthook's
// TestInstallKeepsCodexPositions and its golden codex-stale).
func InstallOwnInPlace(src []byte, blk []EventGroup, own func(map[string]any) bool) ([]byte, Change, error) {
	return edit(src, blk, own, false, true)
}

// UninstallOwn is Uninstall with own telling the ledger's handlers.
func UninstallOwn(src []byte, own func(map[string]any) bool) ([]byte, Change, error) {
	if len(bytes.TrimSpace(src)) == 0 {
		return src, Change{}, nil
	}
	return edit(src, nil, own, false, false)
}

// Uninstall removes the ledger's own handlers from a settings file's bytes,
// then any group, event and "hooks" key that this leaves empty; every other
// byte stays as it was. It does not check Claude Code's settings schema: a
// file Claude Code ignores may still lose the ledger's handlers.
func Uninstall(src []byte) ([]byte, Change, error) {
	if len(bytes.TrimSpace(src)) == 0 {
		return src, Change{}, nil
	}
	return edit(src, nil, Own, true, false)
}

// Holding is what a settings file holds of the ledger's handlers (Own),
// against the block an install is to write (Holds).
type Holding struct {
	// Has says the file holds at least one of the ledger's handlers, and
	// Same that they are exactly the block: installing it would change
	// nothing.
	Has, Same bool
	// Runs are what the ledger's handlers run, each once: a command line,
	// or an HTTP hook's URL.
	Runs []string
}

// Holds reads what the settings file src holds of the ledger's handlers,
// against blk. A file with none (an empty one, one that is not there) is
// the zero Holding; one the editor refuses, or that Claude Code would
// ignore whole (Install's refusals), is an error: its hooks do not run.
func Holds(src []byte, blk []EventGroup) (Holding, error) {
	var h Holding
	if len(bytes.TrimSpace(src)) == 0 {
		return h, nil
	}
	_, rm, err := edit(src, nil, Own, true, false)
	if err != nil {
		return h, err
	}
	if err := loadable(src); err != nil {
		return h, err
	}
	if h.Has = rm.Changed(); !h.Has {
		return h, nil
	}
	_, add, err := edit(src, blk, Own, true, false)
	if err != nil {
		return h, err
	}
	h.Same = !add.Changed()
	root, err := parseJSON(src)
	if err != nil {
		return h, err
	}
	hooks := root.Get("hooks")
	if hooks == nil || hooks.Value.Kind != jsontree.Object {
		return h, nil
	}
	for _, ev := range hooks.Value.Members {
		if ev.Value.Kind != jsontree.Array {
			continue
		}
		own, err := ownHandlers(src, ev.Value, Own)
		if err != nil {
			return h, err
		}
		for _, o := range own {
			run, _ := o.value["command"].(string)
			if o.value["type"] == "http" {
				run, _ = o.value["url"].(string)
			}
			if !slices.Contains(h.Runs, run) {
				h.Runs = append(h.Runs, run)
			}
		}
	}
	return h, nil
}

// byteOrderMark is UTF-8's, which Claude Code reads past (CLI: a settings
// file starting with it applied; docs/importer-claude-code.md).
var byteOrderMark = []byte("\ufeff")

// edit installs blk (nil: uninstalls) in src. With bom a byte order mark
// at the start is read past and kept; without, it is refused. With
// inPlace a ledger handler that changes is replaced where it stands
// (InstallOwnInPlace).
func edit(src []byte, blk []EventGroup, own func(map[string]any) bool, bom, inPlace bool) ([]byte, Change, error) {
	var ch Change
	if len(bytes.TrimSpace(src)) == 0 {
		if len(blk) == 0 {
			return src, ch, nil
		}
		return newSettings(blk, &ch), ch, nil
	}
	if !bom && bytes.HasPrefix(src, byteOrderMark) {
		return nil, ch, errors.New("not valid JSON: line 1, column 1: the file starts with a UTF-8 byte order mark (bytes EF BB BF); remove the byte order mark (save the file as UTF-8 without BOM)")
	}
	root, err := parseJSON(src)
	if err != nil {
		return nil, ch, fmt.Errorf("not valid JSON: %v", err)
	}
	if root.Kind != jsontree.Object {
		return nil, ch, errors.New("the settings must be a JSON object")
	}
	unit, eol := indentUnit(src, root), lineEnd(src)
	hi, err := member(root, "hooks", "")
	if err != nil {
		return nil, ch, err
	}
	if hi < 0 {
		if len(blk) == 0 {
			return src, ch, nil
		}
		ind := childIndent(src, root, unit)
		edits := editContainer(src, root, nil, []string{renderMember("hooks", nil, "", unit) + renderBlock(blk, ind, unit)}, unit, eol)
		for _, eg := range blk {
			ch.Added = append(ch.Added, eg.Event)
		}
		return apply(src, edits), ch, nil
	}
	hv := root.Members[hi].Value
	if hv.Kind != jsontree.Object {
		return nil, ch, errors.New(`"hooks" must be an object of events`)
	}
	e := &hooksEdit{src: src, unit: unit, eol: eol, ch: &ch, want: map[string]Group{}, own: own, inPlace: inPlace}
	for _, eg := range blk {
		e.want[eg.Event] = eg.Group
	}
	delEvent := make([]bool, len(hv.Members))
	seen := map[string]bool{}
	for mi, m := range hv.Members {
		if seen[m.Key] {
			return nil, ch, fmt.Errorf(`"hooks" has the event %q twice`, m.Key)
		}
		seen[m.Key] = true
		if delEvent[mi], err = e.event(m); err != nil {
			return nil, ch, err
		}
	}
	var add []string
	ind := itemIndent(src, hv, unit)
	for _, eg := range blk {
		if !seen[eg.Event] {
			add = append(add, renderMember(eg.Event, []Group{eg.Group}, ind, unit))
			ch.Added = append(ch.Added, eg.Event)
		}
	}
	edits := e.edits
	if len(blk) == 0 && !slices.Contains(delEvent, false) && len(hv.Members) > 0 {
		// Nothing is left under "hooks": remove the key itself.
		del := make([]bool, len(root.Members))
		del[hi] = true
		edits = editContainer(src, root, del, nil, unit, eol)
	} else {
		edits = append(edits, editContainer(src, hv, delEvent, add, unit, eol)...)
	}
	sort.Strings(ch.Removed)
	return apply(src, edits), ch, nil
}

// newSettings is a settings file holding only the hooks of blk.
func newSettings(blk []EventGroup, ch *Change) []byte {
	var b bytes.Buffer
	b.WriteString("{\n  \"hooks\": ")
	b.WriteString(renderBlock(blk, "  ", "  "))
	b.WriteString("\n}\n")
	for _, eg := range blk {
		ch.Added = append(ch.Added, eg.Event)
	}
	return b.Bytes()
}

// hooksEdit collects the edits of an existing "hooks" object: for each
// event, the ledger's own handlers are removed and, for an event of want,
// the wanted group added (unless it is installed as wanted already), or
// with inPlace put where the ledger's first handler stands (replace).
type hooksEdit struct {
	src     []byte
	unit    string
	eol     string // the file's line end (lineEnd)
	ch      *Change
	want    map[string]Group
	edits   []span
	own     func(map[string]any) bool
	inPlace bool
}

// event edits one event's list; it reports whether the whole event is to
// be removed (nothing of it left).
func (e *hooksEdit) event(m jsontree.Member) (bool, error) {
	w, ours := e.want[m.Key]
	arr := m.Value
	if arr.Kind != jsontree.Array {
		if ours {
			return false, fmt.Errorf(`"hooks.%s" must be a list of matcher groups`, m.Key)
		}
		return false, nil
	}
	own, err := ownHandlers(e.src, arr, e.own)
	if err != nil {
		return false, fmt.Errorf(`"hooks.%s": %v`, m.Key, err)
	}
	if ours && len(own) == 1 && own[0].matches(w) {
		return false, nil // already installed as wanted
	}
	if len(own) == 0 && !ours {
		return false, nil
	}
	replaced := false
	if ours && e.inPlace {
		own, replaced = e.replace(arr, own, w)
	}
	delGroup := e.removeOwn(arr, own)
	var add []string
	if ours {
		if !replaced {
			add = []string{renderJSON(w, itemIndent(e.src, arr, e.unit), e.unit)}
		}
		e.ch.Added = append(e.ch.Added, m.Key)
	} else {
		e.ch.Removed = append(e.ch.Removed, m.Key)
	}
	if add == nil && !slices.Contains(delGroup, false) {
		return true, nil
	}
	e.edits = append(e.edits, editContainer(e.src, arr, delGroup, add, e.unit, e.eol)...)
	return false, nil
}

// replace puts the wanted group w where the event's first ledger handler
// stands (InstallOwnInPlace): its whole group when that holds the ledger's
// handlers alone, else the handler alone when its group's matcher is w's.
// It returns the ledger's handlers left to remove, and whether w was put
// in place (if not, all of own are left, and w is to be appended).
func (e *hooksEdit) replace(arr *jsontree.Value, own []ownHandler, w Group) ([]ownHandler, bool) {
	if len(own) == 0 || len(w.Hooks) != 1 {
		return own, false
	}
	first := own[0]
	inGroup := 0
	for _, o := range own {
		if o.group == first.group {
			inGroup++
		}
	}
	switch {
	case inGroup == len(first.hooks.Elems):
		g := arr.Elems[first.group]
		e.edits = append(e.edits, span{g.Start, g.End, e.renderIn(arr, w)})
		return slices.DeleteFunc(slices.Clone(own), func(o ownHandler) bool { return o.group == first.group }), true
	case first.matcher == w.Matcher:
		h := first.hooks.Elems[first.index]
		e.edits = append(e.edits, span{h.Start, h.End, e.renderIn(first.hooks, w.Hooks[0])})
		return own[1:], true
	}
	return own, false
}

// renderIn renders v as an item of the list c: on one line when c is
// written on one line, else indented as c's items.
func (e *hooksEdit) renderIn(c *jsontree.Value, v any) string {
	if !bytes.ContainsRune(e.src[c.Start:c.End], '\n') {
		return renderJSON(v, "", "")
	}
	return renderJSON(v, itemIndent(e.src, c, e.unit), e.unit)
}

// removeOwn removes the ledger's handlers from an event's groups: a group
// left with none of its handlers is marked for deletion (returned), the
// others lose only the ledger's.
func (e *hooksEdit) removeOwn(arr *jsontree.Value, own []ownHandler) []bool {
	delGroup := make([]bool, len(arr.Elems))
	for gi := range arr.Elems {
		var del []bool
		n := 0
		for _, o := range own {
			if o.group == gi {
				if del == nil {
					del = make([]bool, len(o.hooks.Elems))
				}
				del[o.index] = true
				n++
			}
		}
		if del == nil {
			continue
		}
		if n == len(del) {
			delGroup[gi] = true
			continue
		}
		e.edits = append(e.edits, editContainer(e.src, own[slices.IndexFunc(own, func(o ownHandler) bool { return o.group == gi })].hooks, del, nil, e.unit, e.eol)...)
	}
	return delGroup
}

// ownHandler is one of the ledger's handlers found in an event's list.
type ownHandler struct {
	group   int
	matcher string
	hooks   *jsontree.Value // the group's "hooks" list
	index   int             // the handler's index in it
	value   map[string]any
}

func (o ownHandler) matches(g Group) bool {
	if o.matcher != g.Matcher || len(g.Hooks) != 1 {
		return false
	}
	b, _ := json.Marshal(g.Hooks[0])
	var w map[string]any
	_ = json.Unmarshal(b, &w)
	return reflect.DeepEqual(o.value, w)
}

func ownHandlers(src []byte, arr *jsontree.Value, isOwn func(map[string]any) bool) ([]ownHandler, error) {
	var out []ownHandler
	for gi, g := range arr.Elems {
		if g.Kind != jsontree.Object {
			continue
		}
		hi, err := member(g, "hooks", "")
		if err != nil {
			return nil, err
		}
		if hi < 0 || g.Members[hi].Value.Kind != jsontree.Array {
			continue
		}
		matcher := ""
		if mi, _ := member(g, "matcher", ""); mi >= 0 {
			if v := g.Members[mi].Value; v.Kind == jsontree.String {
				matcher = v.Str
			}
		}
		hooks := g.Members[hi].Value
		for i, h := range hooks.Elems {
			var v map[string]any
			if h.Kind != jsontree.Object || json.Unmarshal(src[h.Start:h.End], &v) != nil {
				continue
			}
			if isOwn(v) {
				out = append(out, ownHandler{group: gi, matcher: matcher, hooks: hooks, index: i, value: v})
			}
		}
	}
	return out, nil
}

func renderBlock(blk []EventGroup, prefix, unit string) string {
	var b strings.Builder
	if unit == "" {
		b.WriteString("{")
		for i, eg := range blk {
			if i > 0 {
				b.WriteString(",")
			}
			b.WriteString(renderJSON(eg.Event, "", "") + ":" + renderJSON([]Group{eg.Group}, "", ""))
		}
		b.WriteString("}")
		return b.String()
	}
	b.WriteString("{")
	for i, eg := range blk {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString("\n" + prefix + unit + renderJSON(eg.Event, "", "") + ": " + renderJSON([]Group{eg.Group}, prefix+unit, unit))
	}
	b.WriteString("\n" + prefix + "}")
	return b.String()
}

// renderMember renders "key": value, or "key":value without a unit (a
// compact file); value nil renders the key and its colon only.
func renderMember(key string, v any, prefix, unit string) string {
	sep := ": "
	if unit == "" {
		sep = ":"
	}
	if v == nil {
		return renderJSON(key, "", "") + sep
	}
	return renderJSON(key, "", "") + sep + renderJSON(v, prefix, unit)
}

// renderJSON renders v with HTML left unescaped; with a unit, indented as
// a value whose first line sits at prefix.
func renderJSON(v any, prefix, unit string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if unit != "" {
		enc.SetIndent(prefix, unit)
	}
	_ = enc.Encode(v)
	return strings.TrimSuffix(b.String(), "\n")
}

// parseJSON reads a settings file into the positioned tree of package
// jsontree, every member kept as written (a key written twice included,
// which member refuses), with the byte spans the edits need (offsets into
// src, a byte order mark included). The file must be strict JSON after an
// optional byte order mark (json.Valid): the error names the line and
// column (in bytes, after the mark) of the offending byte.
func parseJSON(src []byte) (*jsontree.Value, error) {
	body := bytes.TrimPrefix(src, byteOrderMark)
	if !json.Valid(body) {
		var v any
		err := json.Unmarshal(body, &v)
		var se *json.SyntaxError
		if errors.As(err, &se) {
			line, col := lineCol(body, int(se.Offset))
			return nil, fmt.Errorf("line %d, column %d: %v", line, col, err)
		}
		return nil, err
	}
	return jsontree.ParseStrict("", src, nil)
}

// lineEnd is the file's line end: CRLF when its first line ends so, else
// LF. New lines are written with it, so that a CRLF file stays CRLF.
func lineEnd(src []byte) string {
	if i := bytes.IndexByte(src, '\n'); i > 0 && src[i-1] == '\r' {
		return "\r\n"
	}
	return "\n"
}

func lineCol(src []byte, off int) (int, int) {
	off = min(max(off-1, 0), len(src))
	line := 1 + bytes.Count(src[:off], []byte("\n"))
	return line, off - bytes.LastIndexByte(src[:off], '\n')
}

// member finds key among an object's members (-1 when absent); a key
// written twice is an error, since which one Claude Code reads is unknown.
func member(obj *jsontree.Value, key, where string) (int, error) {
	at := -1
	for i, m := range obj.Members {
		if m.Key == key {
			if at >= 0 {
				return -1, fmt.Errorf("%q is written twice%s", key, where)
			}
			at = i
		}
	}
	return at, nil
}

// span is one edit: replace src[start:end] with text.
type span struct {
	start, end int
	text       string
}

func apply(src []byte, edits []span) []byte {
	sort.Slice(edits, func(i, j int) bool { return edits[i].start > edits[j].start })
	out := append([]byte{}, src...)
	limit := len(src)
	for _, e := range edits {
		if e.end > limit {
			panic("cchook: overlapping settings edits")
		}
		out = append(out[:e.start], append([]byte(e.text), out[e.end:]...)...)
		limit = e.start
	}
	return out
}

// items returns where each item of a container starts and ends (a member
// from its key to the end of its value).
func items(c *jsontree.Value) (starts, ends []int) {
	for _, m := range c.Members {
		starts, ends = append(starts, m.KeyStart), append(ends, m.Value.End)
	}
	for _, e := range c.Elems {
		starts, ends = append(starts, e.Start), append(ends, e.End)
	}
	return starts, ends
}

// editContainer deletes the items of c marked in del and appends add (each
// rendered already, with LF line ends, which become eol), keeping the
// separators and indentation of the rest.
//
// Invariant: what follows c's last item (the whitespace before its closing
// bracket: a blank line, a space, a CRLF) stays after the items appended,
// and the whitespace before its first item stays before the first new one
// when every old item goes; a deletion removes an item with the separator
// before it. So an uninstall gives back the bytes the install was given
// whenever the container it appended to had an item
// (TestInstallAdversarialShapes, byte for byte).
func editContainer(src []byte, c *jsontree.Value, del []bool, add []string, unit, eol string) []span {
	starts, ends := items(c)
	n := len(starts)
	if del == nil {
		del = make([]bool, n)
	}
	last := -1
	for i := range n {
		if !del[i] {
			last = i
		}
	}
	var edits []span
	for i := 0; i < n; {
		if !del[i] {
			i++
			continue
		}
		j := i
		for j+1 < n && del[j+1] {
			j++
		}
		switch {
		case j == n-1 && len(add) > 0:
			// The tail goes with the appended items below.
		case i > 0:
			edits = append(edits, span{ends[i-1], ends[j], ""})
		case j+1 < n:
			edits = append(edits, span{starts[0], starts[j+1], ""})
		default:
			edits = append(edits, span{c.Start + 1, c.End - 1, ""})
		}
		i = j + 1
	}
	if len(add) == 0 {
		return edits
	}
	ind, closing, pretty := itemIndent(src, c, unit), closeIndent(src, c), true
	if n > 0 && !bytes.ContainsRune(src[c.Start+1:starts[0]], '\n') {
		pretty = false // an inline container stays inline
	}
	from, sep, lead := c.Start+1, "", true
	switch {
	case last >= 0:
		from, sep = ends[last], ","
	case n > 0:
		// Every item goes: the first new one takes the first old one's
		// place, after the whitespace before it.
		from, lead = starts[0], false
	}
	var b strings.Builder
	for _, a := range add {
		b.WriteString(sep)
		if pretty && lead {
			b.WriteString(eol + ind)
		}
		lead = true
		b.WriteString(strings.ReplaceAll(a, "\n", eol))
		sep = ","
	}
	switch {
	case n > 0:
		b.Write(src[ends[n-1] : c.End-1])
	case pretty:
		b.WriteString(eol + closing)
	}
	return append(edits, span{from, c.End - 1, b.String()})
}

// lineIndent is the leading whitespace of the line holding offset i.
func lineIndent(src []byte, i int) string {
	ls := bytes.LastIndexByte(src[:i], '\n') + 1
	j := ls
	for j < len(src) && (src[j] == ' ' || src[j] == '\t') {
		j++
	}
	return string(src[ls:j])
}

// itemIndent is the indentation of c's items: that of its first item when
// it has one on its own line, else one unit more than c's closing line.
func itemIndent(src []byte, c *jsontree.Value, unit string) string {
	starts, _ := items(c)
	if len(starts) > 0 && bytes.ContainsRune(src[c.Start+1:starts[0]], '\n') {
		return lineIndent(src, starts[0])
	}
	return closeIndent(src, c) + unit
}

// closeIndent is the indentation of the line that closes c.
func closeIndent(src []byte, c *jsontree.Value) string {
	starts, _ := items(c)
	if len(starts) > 0 && bytes.ContainsRune(src[c.Start:c.End], '\n') {
		return lineIndent(src, c.End-1)
	}
	return lineIndent(src, c.Start)
}

// childIndent is the indentation a new member of the top-level object gets.
func childIndent(src []byte, root *jsontree.Value, unit string) string {
	return itemIndent(src, root, unit)
}

// indentUnit is the file's indentation step: the indentation of the
// top-level object's first member when it sits on its own line; none (a
// compact rendering) when the object is written on one line; two spaces
// for an empty object.
func indentUnit(src []byte, root *jsontree.Value) string {
	if len(root.Members) == 0 {
		return "  "
	}
	if !bytes.ContainsRune(src[root.Start+1:root.Members[0].KeyStart], '\n') {
		return ""
	}
	if u := lineIndent(src, root.Members[0].KeyStart); u != "" {
		return u
	}
	return "  "
}
