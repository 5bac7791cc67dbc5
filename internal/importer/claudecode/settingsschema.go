package ccimport

import (
	"math"
	"net/url"
	"strconv"
	"strings"

	"github.com/sessionledger/ledger/internal/importer"
)

// What Claude Code 2.1.328 checks before it loads a settings file: one
// function, CheckSettings, that the importer (which skips a file it would
// ignore) and `ledger hook install` (which refuses to write its hooks
// into one: internal/cchook) both use, so that they cannot disagree about
// which files Claude Code loads (TestCheckSettings, and the install's
// TestHookInstallRefusesIgnoredSettings).
//
// Claude Code ignores a whole file that does not match its settings schema
// (CLI: "Invalid setting skipped" in the debug log, and none of the file's
// rules applied; observed for the permissions keys below and for
// "model": 5). It reads the file with JSON.parse, so a repeated key is
// checked as its last value. Checked here:
//
//   - permissions and env, the keys the importer reads, as readSettings
//     documents (CLI for each);
//   - the type of the other top-level keys of settingsKeys, read from the
//     release's own settings schema (the zod schema bundled in the pinned
//     binary); a key whose schema falls back to a default on a bad value
//     (".catch") is left out, as Claude Code keeps the file then, and so
//     is every key not listed (Claude Code keeps a key it does not know);
//   - hooks, an object of events; of the guard events (PreToolUse and
//     PermissionRequest: guardEvents) each a list of matcher groups, each
//     an object whose "matcher" (when there) is a string and whose
//     "hooks" is a list of handlers, each an object whose "type" is
//     command, prompt, agent, http or mcp_tool with that type's required
//     string (command, prompt, prompt, url, server and tool), whose
//     "timeout" (when there) is a positive number, "shell" and "onFailure"
//     (when there) one of their values, and an http handler's url
//     absolute. Another event's malformed entry is dropped and the file
//     loads (CLI), so it is not checked, nor the handlers' other fields.

// SchemaError says why Claude Code 2.1.328 ignores a whole settings file
// that is strict JSON: the value at Path is not what its settings schema
// wants there. It prints as "PATH must be WANT, got GOT".
type SchemaError struct {
	Pos  Pos
	Path string // "model", "permissions.deny", "hooks.Stop[0].hooks"; "" for the file's top-level value
	Want string // "a string", "a list of strings", "one of ..."
	Got  string // what is there: "number 5", "list"
}

func (e *SchemaError) Error() string {
	path := e.Path
	if path == "" {
		path = "settings"
	}
	return path + " must be " + e.Want + ", got " + e.Got
}

// CheckSettings returns why Claude Code 2.1.328 would ignore the whole
// settings file whose value is root (read as JSON.parse reads it: the last
// of a repeated key wins, parseStrictJSON), or nil when it loads it. The
// first problem is returned, in the order the file is written.
func CheckSettings(root *Value) *SchemaError { return checkSettings(root, true) }

// checkSettings is CheckSettings; without all, it checks only the keys
// the importer reads (permissions and env: observed on the CLI, each), not
// the other keys' types nor the hooks (read from the release's schema,
// one of them, "model", observed), which readSettings only warns about.
func checkSettings(root *Value, all bool) *SchemaError {
	if root.Kind != Object {
		return &SchemaError{Pos: root.Pos, Want: "an object", Got: root.Kind.String()}
	}
	for _, top := range root.Members {
		var err *SchemaError
		switch top.Key {
		case "permissions":
			err = checkPermissions(top.Value)
		case "env":
			if top.Value.Kind != Object {
				err = &SchemaError{Pos: top.Value.Pos, Path: "env", Want: "an object", Got: top.Value.Kind.String()}
			}
		case "hooks":
			if all {
				err = checkHooks(top.Value)
			}
		default:
			if k, ok := settingsKeys[top.Key]; ok && all {
				err = k(importer.JoinPath("", top.Key), top.Value)
			}
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// CheckSettingsFile reads src, a settings file, as Claude Code 2.1.328
// reads it (strict JSON after an optional byte order mark, the last of a
// repeated key winning) and returns why it would ignore the whole file: an
// *importer.Error naming the line and column of a syntax error, or a
// *SchemaError (CheckSettings); nil when it loads it. An empty src (no
// file) is nil. A file nested deeper than the reader takes is a
// *jsontree.DepthError (not a file Claude Code would ignore).
func CheckSettingsFile(file string, src []byte) error {
	var warns []importer.Warning
	root, err := parseStrictJSON(file, src, &warns)
	if err != nil {
		return err
	}
	if e := CheckSettings(root); e != nil {
		return e
	}
	return nil
}

// checkPermissions checks the permissions keys the importer reads (CLI for
// each: readSettings). A non-string in allow, ask or deny is dropped alone
// (the file still loads), so it is not a problem here.
func checkPermissions(p *Value) *SchemaError {
	if p.Kind != Object {
		return &SchemaError{Pos: p.Pos, Path: "permissions", Want: "an object", Got: p.Kind.String()}
	}
	for _, m := range p.Members {
		key := importer.JoinPath("permissions", m.Key)
		v := m.Value
		switch {
		case contains(permLists, m.Key):
			if v.Kind != Array {
				return &SchemaError{Pos: v.Pos, Path: key, Want: "a list of strings", Got: v.Kind.String()}
			}
			if m.Key != "additionalDirectories" {
				continue
			}
			for i, e := range v.Elems {
				if e.Kind != String {
					return &SchemaError{Pos: e.Pos, Path: importer.IndexPath(key, i), Want: "a string", Got: e.Kind.String()}
				}
			}
		case m.Key == "defaultMode":
			if v.Kind != String || !contains(settingsModes, v.Str) {
				return &SchemaError{Pos: v.Pos, Path: key, Want: "one of " + strings.Join(settingsModes, ", "), Got: short(v)}
			}
		case m.Key == "disableBypassPermissionsMode":
			if v.Kind != String || v.Str != "disable" {
				return &SchemaError{Pos: v.Pos, Path: key, Want: `"disable"`, Got: short(v)}
			}
		case m.Key == blockReadsKey || m.Key == blockWritesKey:
			if v.Kind != Bool {
				return &SchemaError{Pos: v.Pos, Path: key, Want: "true or false", Got: short(v)}
			}
		}
	}
	return nil
}

// hookTypes are the handler types of the release's hooks schema, each with
// the string fields it requires.
var hookTypes = map[string][]string{
	"command":  {"command"},
	"prompt":   {"prompt"},
	"agent":    {"prompt"},
	"http":     {"url"},
	"mcp_tool": {"server", "tool"},
}

// guardEvents are the hook events whose malformed entries make Claude Code
// 2.1.328 ignore the whole file: its loader drops an invalid entry of any
// other event with a warning ("This entry was ignored.") and loads the
// rest (CLI: "Stop": "x", a Stop command handler without its command, a
// timeout of 0, a numeric matcher, a handler type "script" all loaded the
// file; the same under PreToolUse did not).
var guardEvents = map[string]bool{"PreToolUse": true, "PermissionRequest": true}

// checkHooks checks the shape of the guard events' hooks (see the list
// above).
func checkHooks(h *Value) *SchemaError {
	if h.Kind != Object {
		return &SchemaError{Pos: h.Pos, Path: "hooks", Want: "an object of events", Got: got(h)}
	}
	for _, ev := range h.Members {
		if !guardEvents[ev.Key] {
			continue
		}
		path := importer.JoinPath("hooks", ev.Key)
		groups := ev.Value
		if groups.Kind != Array {
			return &SchemaError{Pos: groups.Pos, Path: path, Want: "a list of matcher groups", Got: got(groups)}
		}
		for gi, g := range groups.Elems {
			gpath := importer.IndexPath(path, gi)
			if g.Kind != Object {
				return &SchemaError{Pos: g.Pos, Path: gpath, Want: `a matcher group (an object with a "hooks" list)`, Got: got(g)}
			}
			var handlers *Member
			for i := range g.Members {
				m := &g.Members[i]
				switch m.Key {
				case "matcher":
					if m.Value.Kind != String {
						return &SchemaError{Pos: m.Value.Pos, Path: gpath + ".matcher", Want: "a string", Got: got(m.Value)}
					}
				case "hooks":
					handlers = m
				}
			}
			if handlers == nil {
				return &SchemaError{Pos: g.Pos, Path: gpath + ".hooks", Want: "a list of hook handlers", Got: "nothing (no \"hooks\" key)"}
			}
			if handlers.Value.Kind != Array {
				return &SchemaError{Pos: handlers.Value.Pos, Path: gpath + ".hooks", Want: "a list of hook handlers", Got: got(handlers.Value)}
			}
			for hi, e := range handlers.Value.Elems {
				if err := checkHandler(importer.IndexPath(gpath+".hooks", hi), e); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// checkHandler checks one hook handler: its type, that type's required
// strings, and its timeout.
func checkHandler(path string, e *Value) *SchemaError {
	if e.Kind != Object {
		return &SchemaError{Pos: e.Pos, Path: path, Want: "a hook handler (an object with a \"type\")", Got: got(e)}
	}
	t := e.Get("type")
	if t == nil {
		return &SchemaError{Pos: e.Pos, Path: path + ".type", Want: "one of command, prompt, agent, http, mcp_tool", Got: "nothing (no \"type\" key)"}
	}
	need, ok := hookTypes[t.Value.Str]
	if t.Value.Kind != String || !ok {
		return &SchemaError{Pos: t.Value.Pos, Path: path + ".type", Want: "one of command, prompt, agent, http, mcp_tool", Got: got(t.Value)}
	}
	for _, k := range need {
		f := e.Get(k)
		if f == nil {
			return &SchemaError{Pos: e.Pos, Path: path + "." + k, Want: "a string (a " + t.Value.Str + " handler needs one)", Got: "nothing (no \"" + k + "\" key)"}
		}
		if f.Value.Kind != String {
			return &SchemaError{Pos: f.Value.Pos, Path: path + "." + k, Want: "a string", Got: got(f.Value)}
		}
	}
	if to := e.Get("timeout"); to != nil {
		if n, ok := number(to.Value); !ok || n <= 0 {
			return &SchemaError{Pos: to.Value.Pos, Path: path + ".timeout", Want: "a positive number of seconds", Got: got(to.Value)}
		}
	}
	// CLI: "shell": "zsh", "onFailure": "Block" and an http handler's
	// "url": "not a url" each made it ignore the file.
	for _, f := range []struct {
		key    string
		values []string
	}{{"shell", []string{"bash", "powershell"}}, {"onFailure", []string{"continue", "block"}}} {
		if v := e.Get(f.key); v != nil && (v.Value.Kind != String || !contains(f.values, v.Value.Str)) {
			return &SchemaError{Pos: v.Value.Pos, Path: path + "." + f.key, Want: "one of " + strings.Join(f.values, ", "), Got: got(v.Value)}
		}
	}
	if t.Value.Str == "http" {
		u := e.Get("url").Value
		if p, err := url.Parse(u.Str); err != nil || p.Scheme == "" || p.Host == "" {
			return &SchemaError{Pos: u.Pos, Path: path + ".url", Want: "an absolute URL", Got: got(u)}
		}
	}
	return nil
}

// keyCheck checks one top-level key's value; path is its name as a
// message prints it.
type keyCheck func(path string, v *Value) *SchemaError

// settingsKeys are the top-level keys besides permissions, env and hooks
// whose type is checked, each as the release's settings schema declares it
// (zod: z.string(), z.boolean(), z.number().int().positive(),
// z.array(z.string()), z.enum, all optional, none with a fallback). CLI:
// "model": 5 made Claude Code 2.1.328 ignore the file; the others are the
// same schema's.
var settingsKeys = map[string]keyCheck{
	// strings
	"apiKeyHelper":        isString,
	"awsAuthRefresh":      isString,
	"awsCredentialExport": isString,
	"gcpAuthRefresh":      isString,
	"otelHeadersHelper":   isString,
	"model":               isString,
	"outputStyle":         isString,
	"language":            isString,
	"agent":               isString,
	"plansDirectory":      isString,
	// booleans
	"respectGitignore":           isBool,
	"includeCoAuthoredBy":        isBool,
	"includeGitInstructions":     isBool,
	"enableAllProjectMcpServers": isBool,
	"disableAllHooks":            isBool,
	"allowManagedHooksOnly":      isBool,
	"alwaysThinkingEnabled":      isBool,
	"verbose":                    isBool,
	"autoCompactEnabled":         isBool,
	"spinnerTipsEnabled":         isBool,
	"skipWebFetchPreflight":      isBool,
	"fastMode":                   isBool,
	"autoMemoryEnabled":          isBool,
	"showTurnDuration":           isBool,
	// whole numbers of at least 1
	"cleanupPeriodDays": isPositiveInt,
	// lists of strings
	"enabledMcpjsonServers":  isStringList,
	"disabledMcpjsonServers": isStringList,
	"availableModels":        isStringList,
	"companyAnnouncements":   isStringList,
	"allowedHttpHookUrls":    isStringList,
	"httpHookAllowedEnvVars": isStringList,
	"claudeMdExcludes":       isStringList,
	"fallbackModel":          isStringList, // CLI: "opus" made it ignore the file
	// objects
	"sandbox": isObject, // CLI: "yes" made it ignore the file
	// one of a few strings
	"autoUpdatesChannel": oneOf("latest", "stable", "rc"),
	"defaultShell":       oneOf("bash", "powershell"),
	// {"type": "command", "command": "..."}
	"statusLine": isCommandObject,
}

func isString(path string, v *Value) *SchemaError {
	if v.Kind != String {
		return &SchemaError{Pos: v.Pos, Path: path, Want: "a string", Got: got(v)}
	}
	return nil
}

func isObject(path string, v *Value) *SchemaError {
	if v.Kind != Object {
		return &SchemaError{Pos: v.Pos, Path: path, Want: "an object", Got: got(v)}
	}
	return nil
}

func isBool(path string, v *Value) *SchemaError {
	if v.Kind != Bool {
		return &SchemaError{Pos: v.Pos, Path: path, Want: "true or false", Got: got(v)}
	}
	return nil
}

func isPositiveInt(path string, v *Value) *SchemaError {
	if n, ok := number(v); !ok || n < 1 || n != math.Trunc(n) {
		return &SchemaError{Pos: v.Pos, Path: path, Want: "a whole number of at least 1", Got: got(v)}
	}
	return nil
}

func isStringList(path string, v *Value) *SchemaError {
	if v.Kind != Array {
		return &SchemaError{Pos: v.Pos, Path: path, Want: "a list of strings", Got: got(v)}
	}
	for i, e := range v.Elems {
		if e.Kind != String {
			return &SchemaError{Pos: e.Pos, Path: importer.IndexPath(path, i), Want: "a string", Got: got(e)}
		}
	}
	return nil
}

func oneOf(values ...string) keyCheck {
	return func(path string, v *Value) *SchemaError {
		if v.Kind != String || !contains(values, v.Str) {
			return &SchemaError{Pos: v.Pos, Path: path, Want: "one of " + strings.Join(values, ", "), Got: got(v)}
		}
		return nil
	}
}

func isCommandObject(path string, v *Value) *SchemaError {
	if v.Kind != Object {
		return &SchemaError{Pos: v.Pos, Path: path, Want: `an object {"type": "command", "command": "..."}`, Got: got(v)}
	}
	if t := v.Get("type"); t == nil || t.Value.Kind != String || t.Value.Str != "command" {
		g := "nothing (no \"type\" key)"
		if t != nil {
			g = got(t.Value)
		}
		return &SchemaError{Pos: v.Pos, Path: path + ".type", Want: `"command"`, Got: g}
	}
	if c := v.Get("command"); c == nil || c.Value.Kind != String {
		g := "nothing (no \"command\" key)"
		if c != nil {
			g = got(c.Value)
		}
		return &SchemaError{Pos: v.Pos, Path: path + ".command", Want: "a string", Got: g}
	}
	return nil
}

// number is a JSON number's value.
func number(v *Value) (float64, bool) {
	if v.Kind != Number {
		return 0, false
	}
	n, err := strconv.ParseFloat(v.Num, 64)
	return n, err == nil
}

// got says what a value is, for a message: its kind, and a scalar's value
// ("number 5", `string "thirty"`, "boolean true", "list").
func got(v *Value) string {
	switch v.Kind {
	case String:
		s := v.Str
		if r := []rune(s); len(r) > 40 {
			s = string(r[:37]) + "..."
		}
		return "string " + strconv.Quote(s)
	case Number:
		return "number " + v.Num
	case Bool:
		return "boolean " + strconv.FormatBool(v.Bool)
	}
	return v.Kind.String()
}
