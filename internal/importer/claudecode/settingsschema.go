package ccimport

import (
	"math"
	"net/url"
	"regexp"
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
//   - every other top-level key of the release's own settings schema (the
//     zod schema bundled in the pinned binary) whose wrong value makes it
//     ignore the file, settingsKeys, each as the schema declares it (a
//     string, a boolean, a number within its bounds, one of its values, a
//     list of strings, an object and the keys the schema names in it);
//     left out, as Claude Code keeps the file whatever they hold: a key
//     whose schema falls back to nothing on a bad value (".catch"), one
//     its loader repairs or deletes first, one that takes anything, and
//     every key the schema does not name (settingsKeys says which; CLI
//     for a sample of each kind, and of each reason to leave one out:
//     internal/claudecodetest TestSettingsSchema);
//   - hooks, an object of events (the loader deletes a "hooks" that is
//     not an object, but a list holding an object, and the file loads:
//     CLI);
//     of the guard events (PreToolUse and PermissionRequest: guardEvents)
//     each a list of matcher groups (a null the loader deletes: CLI), each
//     an object whose "matcher" (when there) is a string and whose
//     "hooks" is a list of handlers, each an object whose "type" is
//     command, prompt, agent, http or mcp_tool with that type's required
//     string (command, prompt, prompt, url, server and tool), whose
//     "timeout" (when there) is a positive number, "shell" and "onFailure"
//     (when there) one of their values, and an http handler's url
//     absolute. Another event's malformed entry is dropped and the file
//     loads (CLI), so it is not checked, nor the handlers' other fields;
//   - hooks written where Claude Code does not run them, which its loader
//     takes for guard hooks that cannot be loaded and so ignores the file
//     (guardHooksAt): a PreToolUse or PermissionRequest key anywhere but
//     as an event of "hooks", or a matcher group (an object with a
//     "hooks" list) anywhere but in an event's list, "hooks" itself a
//     single matcher group, and an unknown event of "hooks" holding either
//     (CLI for each; the loader's f_, m_ and Nn: guardHooksAt says where).

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
// the other keys nor the hooks (read from the release's schema, a sample
// of each kind observed), which readSettings only warns about.
func checkSettings(root *Value, all bool) *SchemaError {
	if root.Kind != Object {
		return &SchemaError{Pos: root.Pos, Want: "an object", Got: root.Kind.String()}
	}
	for _, top := range root.Members {
		if all {
			if err := outsideHooks(root, top); err != nil {
				return err
			}
		}
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
			k, ok := settingsKeys[top.Key]
			switch {
			case !ok || !all:
			case top.Value.Kind == Null && absentWhenNull[top.Key]:
				// The loader deletes it.
			case top.Key == "allowedMarketplaces" && (top.Value.Kind == Null || hasNonNull(root, "strictKnownMarketplaces")):
				// The loader deletes the alias (with a warning when
				// strictKnownMarketplaces is set); else it is
				// strictKnownMarketplaces.
			default:
				err = k(importer.JoinPath("", top.Key), top.Value)
			}
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// hasNonNull reports whether the object v has key, not null.
func hasNonNull(v *Value, key string) bool {
	m := v.Get(key)
	return m != nil && m.Value.Kind != Null
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

// checkHooks checks "hooks" as the loader leaves it for the schema (m_ and
// Nn, at bytes 307,105,020 and 306,713,247 of the binary): it deletes a
// value that is not an object, but a list holding an object or a matcher
// group (which the schema refuses); it keeps a single matcher group (which
// the schema refuses: its keys are not events); it deletes an unknown
// event, but one that holds guard hooks or, when not a list, a matcher
// group (refused); it deletes an event that is not a list, but a guard
// event's other than null and one holding guard hooks (refused); it
// ignores the file for a matcher group, of any event, that holds guard
// hooks; and it checks the guard events' matcher groups (see the list
// above), dropping another event's malformed ones.
func checkHooks(h *Value) *SchemaError {
	if h.Kind == Array && (anyObject(h.Elems) || holdsMatcher(h)) {
		return &SchemaError{Pos: h.Pos, Path: "hooks", Want: hooksWant, Got: got(h)}
	}
	if h.Kind != Object {
		return nil // deleted
	}
	if isMatcherGroup(h) {
		return &SchemaError{Pos: h.Pos, Path: "hooks", Want: hooksWant, Got: "a single matcher group"}
	}
	for _, ev := range h.Members {
		path := importer.JoinPath("hooks", ev.Key)
		groups := ev.Value
		if !hookEvents[ev.Key] {
			if err := guardHooksAt(path, groups, 3, groups.Kind != Array, false, nil); err != nil {
				return err
			}
			continue // deleted
		}
		if groups.Kind != Array {
			if guardEvents[ev.Key] && groups.Kind != Null {
				return &SchemaError{Pos: groups.Pos, Path: path, Want: "a list of matcher groups", Got: got(groups)}
			}
			if err := guardHooksAt(path, groups, 3, false, false, nil); err != nil {
				return err
			}
			continue // deleted
		}
		for gi, g := range groups.Elems {
			gpath := importer.IndexPath(path, gi)
			if err := guardHooksAt(gpath, g, 3, false, false, nil); err != nil {
				return err
			}
			if !guardEvents[ev.Key] {
				continue // dropped when malformed
			}
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

// hooksWant is what "hooks" must be.
const hooksWant = `an object of events ({"PreToolUse": [matcher groups], ...})`

// hookEvents are the release's hook events ("var gc=[" at byte
// 306,688,706 of the binary).
var hookEvents = map[string]bool{}

func init() {
	for _, e := range []string{"PreToolUse", "PostToolUse", "PostToolUseFailure", "PostToolBatch", "Notification",
		"UserPromptSubmit", "UserPromptExpansion", "SessionStart", "SessionEnd", "Stop", "StopFailure", "SubagentStart",
		"SubagentStop", "PreCompact", "PostCompact", "PreModelSwitch", "PostModelSwitch", "PermissionRequest",
		"PermissionDenied", "Setup", "TeammateIdle", "TaskCreated", "TaskCompleted", "Elicitation", "ElicitationResult",
		"ConfigChange", "WorktreeCreate", "WorktreeRemove", "InstructionsLoaded", "CwdChanged", "FileChanged",
		"DirectoryAdded", "MessageDisplay"} {
		hookEvents[e] = true
	}
}

// unscannedKeys are the keys in which the loader does not look for guard
// hooks outside "hooks", at any depth ("Ei=new Set(" at 306,712,552).
var unscannedKeys = map[string]bool{"mcpServers": true, "managedMcpServers": true, "lspServers": true, "pluginConfigs": true,
	"enabledPlugins": true, "extraKnownMarketplaces": true, "env": true, "skillOverrides": true, "modelSettings": true}

// deletedFirst are the top-level keys the loader of a user, project or
// local file deletes before it looks for guard hooks outside "hooks"
// (rp: the managed-only keys), besides additionalMarketplaces, which it
// moves to extraKnownMarketplaces (not scanned) or deletes.
var deletedFirst = map[string]bool{"managedMcpServers": true, "isolation": true, "attributionProjectPolicy": true,
	"deniedModels": true, "availableModelsMatch": true, "additionalMarketplaces": true}

// outsideHooks is the loader's f_ ("function f_(" at byte 307,104,715)
// for one top-level member of root: a PreToolUse or PermissionRequest key
// other than null or [] (Ai), or within three levels of a key (but
// "hooks", the keys it does not scan and those it deletes first) such a
// key or a matcher group (rot), makes it ignore the whole file ("are
// declared outside "hooks"", severity fatal).
func outsideHooks(root *Value, top Member) *SchemaError {
	k, v := top.Key, top.Value
	switch {
	case guardEvents[k]:
		if guardHolds(v) {
			return misplacedGuard(k, k, v)
		}
		return nil
	case k == "hooks" || unscannedKeys[k] || deletedFirst[k]:
		return nil
	case k == "allowedMarketplaces" && hasNonNull(root, "strictKnownMarketplaces"):
		return nil // deleted
	case k == "permissions":
		v = withoutDroppedRules(v)
	}
	return guardHooksAt(k, v, 3, !hookEvents[k], false, unscannedKeys)
}

// withoutDroppedRules is permissions as the loader leaves it before it
// looks for hooks outside "hooks": only the strings of allow, deny and
// ask (c_ drops the others first).
func withoutDroppedRules(p *Value) *Value {
	if p.Kind != Object {
		return p
	}
	c := *p
	c.Members = make([]Member, len(p.Members))
	for i, m := range p.Members {
		if (m.Key == "allow" || m.Key == "deny" || m.Key == "ask") && m.Value.Kind == Array {
			kept := *m.Value
			kept.Elems = nil
			for _, e := range m.Value.Elems {
				if e.Kind == String {
					kept.Elems = append(kept.Elems, e)
				}
			}
			m.Value = &kept
		}
		c.Members[i] = m
	}
	return &c
}

// guardHooksAt is the loader's rot ("function rot(" at byte 306,711,880):
// the first PreToolUse or PermissionRequest key other than null or [] in
// v or within depth levels below it, or, while matchers, a matcher group
// (an object with a "hooks" list, isMatcherGroup); a key of unscanned is
// not looked into, nor a key named after an event for matcher groups,
// nor a handler (an object with a string "type" in a "hooks" list).
func guardHooksAt(path string, v *Value, depth int, matchers, inHooksList bool, unscanned map[string]bool) *SchemaError {
	if v.Kind != Object && v.Kind != Array {
		return nil
	}
	if v.Kind == Object {
		for _, m := range v.Members {
			if guardEvents[m.Key] && guardHolds(m.Value) {
				return misplacedGuard(importer.JoinPath(path, m.Key), m.Key, m.Value)
			}
		}
	}
	if matchers && isMatcherGroup(v) {
		return &SchemaError{Pos: v.Pos, Path: path, Want: `in the list of a hook event (hooks.EVENT: [...]; Claude Code ignores the whole file ` +
			`that has a matcher group anywhere else, as it may hold PreToolUse or PermissionRequest hooks: move it there or remove it)`,
			Got: `a matcher group (an object with a "hooks" list)`}
	}
	if depth == 0 {
		return nil
	}
	if v.Kind == Array {
		for i, e := range v.Elems {
			if err := guardHooksAt(importer.IndexPath(path, i), e, depth-1, matchers, inHooksList, unscanned); err != nil {
				return err
			}
		}
		return nil
	}
	if t := v.Get("type"); inHooksList && t != nil && t.Value.Kind == String {
		return nil
	}
	for _, m := range v.Members {
		if unscanned[m.Key] {
			continue
		}
		if err := guardHooksAt(importer.JoinPath(path, m.Key), m.Value, depth-1, matchers && !hookEvents[m.Key],
			m.Key == "hooks" && m.Value.Kind == Array, unscanned); err != nil {
			return err
		}
	}
	return nil
}

// guardHolds is what the loader takes for guard hooks under a PreToolUse
// or PermissionRequest key: any value but null and [].
func guardHolds(v *Value) bool {
	return v.Kind != Null && !(v.Kind == Array && len(v.Elems) == 0)
}

// misplacedGuard is the guard event ev, at path, where Claude Code does not
// run its hooks.
func misplacedGuard(path, ev string, v *Value) *SchemaError {
	return &SchemaError{Pos: v.Pos, Path: path, Want: `an event of "hooks" (hooks.` + ev + `; Claude Code ignores the whole file ` +
		`that has PreToolUse or PermissionRequest hooks anywhere else: move them there or remove them)`, Got: got(v)}
}

// isMatcherGroup is the loader's ABe ("function ABe(" at byte
// 306,711,611): an object whose "hooks" is a list that is not empty, or
// an object beside a "matcher" or holding a string "type"; not an object
// without "matcher" that has a key named after an event.
func isMatcherGroup(v *Value) bool {
	if v.Kind != Object {
		return false
	}
	matcher := v.Get("matcher") != nil
	if !matcher {
		for _, m := range v.Members {
			if hookEvents[m.Key] {
				return false
			}
		}
	}
	h := v.Get("hooks")
	if h == nil {
		return false
	}
	switch h.Value.Kind {
	case Array:
		return len(h.Value.Elems) > 0
	case Object:
		t := h.Value.Get("type")
		return matcher || t != nil && t.Value.Kind == String
	}
	return false
}

// holdsMatcher is the loader's Sq ("function Sq(" at byte 306,712,981):
// v, or an element of it when a list (in lists), is a matcher group or an
// object with guard hooks.
func holdsMatcher(v *Value) bool {
	switch {
	case isMatcherGroup(v):
		return true
	case v.Kind == Array:
		for _, e := range v.Elems {
			if holdsMatcher(e) {
				return true
			}
		}
	case v.Kind == Object:
		for _, m := range v.Members {
			if guardEvents[m.Key] && guardHolds(m.Value) {
				return true
			}
		}
	}
	return false
}

func anyObject(vs []*Value) bool {
	for _, v := range vs {
		if v.Kind == Object {
			return true
		}
	}
	return false
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

// keyCheck checks one top-level key's value (or a value inside one);
// path is its name as a message prints it.
type keyCheck func(path string, v *Value) *SchemaError

// settingsKeys are the top-level keys besides permissions, env and hooks
// whose value makes Claude Code 2.1.328 ignore the whole file when it is
// wrong, each checked as the release's settings schema declares it.
//
// How they were read: the schema is one function of the JS bundled in the
// pinned bin/claude.exe (byte offsets by `grep -abo`), "function
// ld(e,{strictPolicyHelperKeys" at 306,904,752, which returns a map from
// each key to a builder of its zod type, from "$schema:()=>n().optional()"
// at 306,905,213 (cleanupPeriodDays:()=>v().int().positive() at
// 306,910,194) to "agentPushNotifEnabled" at 306,984,217, and the keys of
// its feature shapes ("var Nr={autoMode:" at 306,867,183:
// skipAutoPermissionPrompt, useAutoModeDuringPlan, autoMode,
// disableDeepLinkRegistration, voiceEnabled, defaultView, axScreenReader).
// In that bundle n() is z.string, I() z.boolean, v() z.number, T()
// z.array, U() z.enum, E() z.literal, c() z.object (which drops the keys
// it does not name, so only those it names are checked here), he()
// z.record, Ge() z.union, Ks() z.preprocess, ae() z.unknown, and int() is
// a safe integer. Before the schema, the loader of a user, project or
// local file ("function TA(e,o,r){" at 307,138,635, "function rp(e,o){"
// at 307,133,477, "function Yt(e,o,r){" at 307,119,956) changes it:
//
//   - it deletes managedMcpServers, isolation, attributionProjectPolicy,
//     deniedModels and availableModelsMatch (managed settings only, "was
//     ignored here"), so they are left out;
//   - it repairs or drops a wrong extraKnownMarketplaces (and its alias
//     additionalMarketplaces), modelPicker, modelPricing, remoteControl,
//     crossSessionInbound, teammateMode, allowedMcpServers and
//     deniedMcpServers, with a warning, and loads the file: left out;
//   - it takes a string of letters, digits, "_" and "-" in
//     enabledMcpjsonServers and disabledMcpjsonServers as a list of that
//     one name (mcpjsonServers);
//   - it moves allowedMarketplaces to strictKnownMarketplaces unless that
//     is set (allowedMarketplaces below);
//   - it deletes a null of the keys of absentWhenNull.
//
// Left out as well, the file loading whatever they hold: the keys whose
// schema falls back to nothing on a bad value (".catch(void 0)":
// bashOutputMaxChars, taskOutputMaxChars, strictPluginOnlyCustomization,
// footerLinksRegexes, subagentStatusLine, prependPlugins, appendPlugins,
// forceLoginMethod, forceLoginGatewayUrl, gatewayInternalNetworks,
// allowedProviders, viewMode, spinnerTipsOverride, maxProseWidth,
// spellcheck, promptCacheTtl, subagentPromptCacheTtl, effortLevel,
// maxEffortLevel, modelSettings, ultracode, autoCompactWindow,
// askUserQuestionTimeout, dialogExpiry, modelProposedGoals, theme,
// editorMode, keybindingFlavor, vimInsertModeRemaps,
// preferredNotifChannel, precomputeArmTokens, autoCompactRaisedForLoad,
// autoCompactOfferAnswer, remoteMessageReceipts, policyHelper,
// policyHelpers); sshHostCommands, which takes anything (z.unknown);
// xaaIdp, in the schema only when CLAUDE_CODE_ENABLE_XAA is set; and every
// key the schema does not name (it passes through). Of the nested
// objects, the keys the schema names are checked as it declares them,
// but for sandbox.credentials (an object), plugin marketplace sources (an
// object with a "source" string) and a status line's refreshInterval
// (which falls back).
//
// CLI (internal/claudecodetest TestSettingsSchema): a wrong value of each
// kind below made Claude Code 2.1.328 ignore the file, a left-out key's
// did not. A one-off run (not kept: some 300 runs of the CLI) agreed for
// every key here, each with a wrong value, and every left-out key named
// above, each with 0.5, a string and [1].
var settingsKeys = map[string]keyCheck{
	// strings
	"$schema":                isString,
	"apiKeyHelper":           isString,
	"proxyAuthHelper":        isString,
	"awsCredentialExport":    isString,
	"awsAuthRefresh":         isString,
	"gcpAuthRefresh":         isString,
	"processWrapper":         isString,
	"attributionProject":     isString,
	"model":                  isString,
	"prUrlTemplate":          isString,
	"otelHeadersHelper":      isString,
	"outputStyle":            isString,
	"language":               isString,
	"advisorModel":           isString,
	"agent":                  isString,
	"minimumVersion":         isString,
	"requiredMinimumVersion": isString,
	"requiredMaximumVersion": isString,
	"plansDirectory":         isString,
	"timeFormat":             isString, // one of its names or any string: any string
	"timeZone":               isString,
	"autoMemoryDirectory":    isString,
	"claudeMd":               isString,
	"pluginTrustMessage":     isString,
	// booleans
	"respectGitignore":                      isBool,
	"syncClaudeAiSkills":                    isBool,
	"syncClaudeAiPlugins":                   isBool,
	"wslInheritsWindowsSettings":            isBool,
	"includeCoAuthoredBy":                   isBool,
	"includeGitInstructions":                isBool,
	"enforceAvailableModels":                isBool,
	"enableAllProjectMcpServers":            isBool,
	"disableClaudeAiConnectors":             isBool,
	"disableBundledSkills":                  isBool,
	"disableAllHooks":                       isBool,
	"disableReplyCheck":                     isBool,
	"disableAgentView":                      isBool,
	"disableRemoteControl":                  isBool,
	"disableWorkflows":                      isBool,
	"disableArtifact":                       isBool,
	"enableArtifact":                        isBool,
	"enableWorkflows":                       isBool,
	"workflowKeywordTriggerEnabled":         isBool,
	"disableSkillShellExecution":            isBool,
	"disableWindowsBashCommandSplit":        isBool,
	"bashEditDiffEnabled":                   isBool,
	"respondToBashCommands":                 isBool,
	"allowManagedHooksOnly":                 isBool,
	"allowManagedPermissionRulesOnly":       isBool,
	"allowManagedMcpServersOnly":            isBool,
	"allowAllClaudeAiMcps":                  isBool,
	"allowClaudeInChromeWithManagedMcp":     isBool,
	"disableCommandPluginSources":           isBool,
	"disableSideloadFlags":                  isBool,
	"allowNestedModelAccessUnderForceLogin": isBool,
	"forceRemoteSettingsRefresh":            isBool,
	"skipWebFetchPreflight":                 isBool,
	"spinnerTipsEnabled":                    isBool,
	"clawdFileProgressEnabled":              isBool,
	"syntaxHighlightingDisabled":            isBool,
	"terminalTitleFromRename":               isBool,
	"alwaysThinkingEnabled":                 isBool,
	"fastMode":                              isBool,
	"fastModePerSessionOptIn":               isBool,
	"promptSuggestionEnabled":               isBool,
	"emojiCompletionEnabled":                isBool,
	"awaySummaryEnabled":                    isBool,
	"responseComparisonEnabled":             isBool,
	"showClearContextOnPlanAccept":          isBool,
	"channelsEnabled":                       isBool,
	"prefersReducedMotion":                  isBool,
	"doneMeansMerged":                       isBool,
	"totalTokensReminderAfterUserTurn":      isBool,
	"autoMemoryEnabled":                     isBool,
	"autoDreamEnabled":                      isBool,
	"showThinkingSummaries":                 isBool,
	"skipDangerousModePermissionPrompt":     isBool,
	"skipWorkflowUsageWarning":              isBool,
	"verbose":                               isBool,
	"autoCompactEnabled":                    isBool,
	"precomputeCompactionEnabled":           isBool,
	"idleCompaction":                        isBool,
	"switchModelsOnFlag":                    isBool,
	"autoContinueAtUsageLimit":              isBool,
	"autoScrollEnabled":                     isBool,
	"wheelScrollAccelerationEnabled":        isBool,
	"fileCheckpointingEnabled":              isBool,
	"showTurnDuration":                      isBool,
	"showMessageTimestamps":                 isBool,
	"terminalProgressBarEnabled":            isBool,
	"todoFeatureEnabled":                    isBool,
	"remoteControlAtStartup":                isBool,
	"isolatePeerMachines":                   isBool,
	"autoUploadSessions":                    isBool,
	"inputNeededNotifEnabled":               isBool,
	"agentPushNotifEnabled":                 isBool,
	"skipAutoPermissionPrompt":              isBool,
	"useAutoModeDuringPlan":                 isBool,
	"voiceEnabled":                          isBool,
	"axScreenReader":                        isBool,
	// numbers
	"cleanupPeriodDays":               intAtLeast(1),
	"desktopSessionCleanupPeriodDays": intAtLeast(0),
	"skillListingMaxDescChars":        intAtLeast(1),
	"totalTokensReminderBudget":       intAtLeast(1),
	"skillListingBudgetFraction":      numberIn(0, false, 1), // z.number().gt(0).lte(1)
	"feedbackSurveyRate":              numberIn(0, true, 1),  // z.number().min(0).max(1)
	// one of a few strings
	"autoUpdatesChannel":          oneOf("latest", "stable", "rc"),
	"defaultShell":                oneOf("bash", "powershell"),
	"workflowSizeGuideline":       oneOf("unrestricted", "small", "medium", "large"),
	"parentSettingsBehavior":      oneOf("first-wins", "merge"),
	"managedSourcesBehavior":      oneOf("first-wins", "merge"),
	"feedbackDrafts":              oneOf("notify", "quiet", "off"),
	"tui":                         oneOf("default", "fullscreen"),
	"totalTokensReminder":         oneOf("off", "infinite", "fixed", "countdown", "padded-countdown"),
	"disableAutoMode":             oneOf("disable"),
	"daemonColdStart":             oneOf("transient", "ask"),
	"disableDeepLinkRegistration": oneOf("disable"),
	"defaultView":                 oneOf("chat", "transcript"),
	// lists of strings
	"fallbackModel":                isStringList, // CLI: "opus" made it ignore the file
	"availableModels":              isStringList,
	"enabledMcpjsonServers":        mcpjsonServers,
	"disabledMcpjsonServers":       mcpjsonServers,
	"allowedHttpHookUrls":          isStringList,
	"httpHookAllowedEnvVars":       isStringList,
	"pluginSuggestionMarketplaces": isStringList,
	"companyAnnouncements":         isStringList,
	"claudeMdExcludes":             isStringList,
	"forceLoginOrgUUID":            stringOrStringList,
	// objects
	"sandbox":        sandbox, // CLI: "yes" made it ignore the file
	"modelOverrides": recordOf("an object of strings", isString),
	"skillOverrides": recordOf("an object of skill settings", oneOf("on", "name-only", "user-invocable-only", "off")),
	"enabledPlugins": recordOf("an object of plugins", boolOrStringList),
	"pluginConfigs": recordOf("an object of plugin configurations", object(
		field{key: "mcpServers", check: recordOf("an object of servers", recordOf("an object of options", isOptionValue))},
		field{key: "options", check: recordOf("an object of options", isOptionValue)})),
	"attribution": attribution,
	"statusLine": allOf(isCommandObject, object(
		field{key: "padding", check: isNumber},
		field{key: "hideVimModeIndicator", check: isBool})),
	"fileSuggestion": isCommandObject,
	"breakReminder": object(
		field{key: "enabled", check: isBool},
		field{key: "intervalMinutes", check: intAtLeast(1)},
		field{key: "breakThresholdMinutes", check: intAtLeast(1)},
		field{key: "message", check: isString}),
	"quietHours": object(
		field{key: "enabled", check: isBool},
		field{key: "start", check: isClockTime},
		field{key: "end", check: isClockTime}),
	"worktree": object(
		field{key: "symlinkDirectories", check: isStringList},
		field{key: "sparsePaths", check: isStringList},
		field{key: "baseRef", check: oneOf("fresh", "head")}),
	"spinnerVerbs": object(
		field{key: "mode", check: oneOf("append", "replace"), required: true},
		field{key: "verbs", check: isStringList, required: true}),
	"remote":      object(field{key: "defaultEnvironmentId", check: isString}),
	"remoteTools": object(field{key: "allowUnattendedServing", check: isBool}),
	"voice": object(
		field{key: "enabled", check: isBool},
		field{key: "mode", check: oneOf("hold", "tap")},
		field{key: "autoSubmit", check: isBool}),
	"autoMode": object(
		field{key: "allow", check: isStringList},
		field{key: "soft_deny", check: isStringList},
		field{key: "hard_deny", check: isStringList},
		field{key: "environment", check: isStringList},
		field{key: "classifyAllShell", check: isBool}),
	// lists of objects
	"sshConfigs": listOf("a list of SSH configurations", object(
		field{key: "id", check: isString, required: true},
		field{key: "name", check: isString, required: true},
		field{key: "sshHost", check: isString, required: true},
		field{key: "sshPort", check: isInt},
		field{key: "sshIdentityFile", check: isString},
		field{key: "startDirectory", check: isString})),
	"allowedChannelPlugins": listOf("a list of channel plugins", object(
		field{key: "marketplace", check: isString, required: true},
		field{key: "plugin", check: isString, required: true})),
	"strictKnownMarketplaces": listOf("a list of marketplace sources", marketplaceSource),
	"blockedMarketplaces":     listOf("a list of marketplace sources", marketplaceSource),
	// an alias of strictKnownMarketplaces (checkSettings)
	"allowedMarketplaces": listOf("a list of marketplace sources", marketplaceSource),
}

// absentWhenNull are the keys whose null Claude Code's loader deletes
// before the schema sees it (the marketplace lists and the restrictive
// policy keys of one level that are a boolean or one string and do not
// fall back: "po=p(()=>[" at byte 306,985,341 of the binary, from the
// list at "OY=p(()=>" at 306,844,000), so that a null there is no problem;
// a null of any other key is (the schema's optional() takes no null).
var absentWhenNull = map[string]bool{
	"strictKnownMarketplaces": true, "blockedMarketplaces": true,
	"allowManagedPermissionRulesOnly": true, "allowManagedHooksOnly": true, "allowManagedMcpServersOnly": true,
	"enforceAvailableModels": true, "disableClaudeAiConnectors": true, "disableCommandPluginSources": true,
	"disableSideloadFlags": true, "disableSkillShellExecution": true, "disableWindowsBashCommandSplit": true,
	"disableRemoteControl": true, "disableAgentView": true, "disableWorkflows": true, "disableArtifact": true,
	"disableBundledSkills": true, "fastModePerSessionOptIn": true, "isolatePeerMachines": true,
	"disableAutoMode": true, "disableDeepLinkRegistration": true, "enableArtifact": true, "enableWorkflows": true,
	"syncClaudeAiSkills": true, "syncClaudeAiPlugins": true, "useAutoModeDuringPlan": true,
	"skipDangerousModePermissionPrompt": true, "skipAutoPermissionPrompt": true, "enableAllProjectMcpServers": true,
	"channelsEnabled": true, "skipWebFetchPreflight": true, "skipWorkflowUsageWarning": true,
	"autoUploadSessions": true, "remoteControlAtStartup": true, "autoContinueAtUsageLimit": true,
	"responseComparisonEnabled": true, "feedbackDrafts": true,
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

// isNumber is z.number(): any finite number.
func isNumber(path string, v *Value) *SchemaError {
	if _, ok := number(v); !ok {
		return &SchemaError{Pos: v.Pos, Path: path, Want: "a number", Got: got(v)}
	}
	return nil
}

// maxSafeInt is the largest integer zod's int() takes (JavaScript's
// Number.MAX_SAFE_INTEGER).
const maxSafeInt = 1<<53 - 1

// isInt is z.number().int(): a whole number within JavaScript's safe
// integers.
func isInt(path string, v *Value) *SchemaError {
	if n, ok := number(v); !ok || n != math.Trunc(n) || math.Abs(n) > maxSafeInt {
		return &SchemaError{Pos: v.Pos, Path: path, Want: "a whole number", Got: got(v)}
	}
	return nil
}

// intAtLeast is z.number().int() with a least value: positive() is 1,
// nonnegative() 0.
func intAtLeast(least float64) keyCheck {
	want := "a whole number of at least " + strconv.FormatFloat(least, 'f', -1, 64)
	return func(path string, v *Value) *SchemaError {
		if n, ok := number(v); !ok || n < least || n != math.Trunc(n) || n > maxSafeInt {
			return &SchemaError{Pos: v.Pos, Path: path, Want: want, Got: got(v)}
		}
		return nil
	}
}

// numberIn is z.number() from lo (taken when withLo, else only above it)
// to hi, taken.
func numberIn(lo float64, withLo bool, hi float64) keyCheck {
	l, h := strconv.FormatFloat(lo, 'f', -1, 64), strconv.FormatFloat(hi, 'f', -1, 64)
	want := "a number from " + l + " to " + h
	if !withLo {
		want = "a number greater than " + l + " and at most " + h
	}
	return func(path string, v *Value) *SchemaError {
		if n, ok := number(v); !ok || n < lo || (!withLo && n == lo) || n > hi {
			return &SchemaError{Pos: v.Pos, Path: path, Want: want, Got: got(v)}
		}
		return nil
	}
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

// mcpServerName is the string the loader takes in enabledMcpjsonServers
// or disabledMcpjsonServers as a list of that one name.
var mcpServerName = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// mcpjsonServers is enabledMcpjsonServers and disabledMcpjsonServers: a
// list of strings, or one server name, which the loader makes a list.
func mcpjsonServers(path string, v *Value) *SchemaError {
	if v.Kind == String && mcpServerName.MatchString(v.Str) {
		return nil
	}
	if v.Kind == String {
		return &SchemaError{Pos: v.Pos, Path: path, Want: `a list of strings (or one server name of letters, digits, "_" and "-")`, Got: got(v)}
	}
	return isStringList(path, v)
}

// stringOrStringList is z.union([z.string(), z.array(z.string())]).
func stringOrStringList(path string, v *Value) *SchemaError {
	if v.Kind == String {
		return nil
	}
	if v.Kind != Array {
		return &SchemaError{Pos: v.Pos, Path: path, Want: "a string or a list of strings", Got: got(v)}
	}
	return isStringList(path, v)
}

// boolOrStringList is an enabledPlugins entry: true, false or a list of
// strings.
func boolOrStringList(path string, v *Value) *SchemaError {
	if v.Kind == Bool {
		return nil
	}
	if v.Kind != Array {
		return &SchemaError{Pos: v.Pos, Path: path, Want: "true, false or a list of strings", Got: got(v)}
	}
	return isStringList(path, v)
}

// isOptionValue is a plugin option's value: a string, a number, true or
// false, or a list of strings.
func isOptionValue(path string, v *Value) *SchemaError {
	switch v.Kind {
	case String, Bool:
		return nil
	case Number:
		return isNumber(path, v)
	case Array:
		return isStringList(path, v)
	}
	return &SchemaError{Pos: v.Pos, Path: path, Want: "a string, number, true or false, or a list of strings", Got: got(v)}
}

// clockTime is quietHours' start and end: a 24-hour "HH:MM".
var clockTime = regexp.MustCompile(`^([01]?[0-9]|2[0-3]):[0-5][0-9]$`)

func isClockTime(path string, v *Value) *SchemaError {
	if v.Kind != String || !clockTime.MatchString(v.Str) {
		return &SchemaError{Pos: v.Pos, Path: path, Want: `a 24-hour time "HH:MM"`, Got: got(v)}
	}
	return nil
}

// attribution is true, false or an object of the commit and PR texts.
func attribution(path string, v *Value) *SchemaError {
	if v.Kind == Bool {
		return nil
	}
	if v.Kind != Object {
		return &SchemaError{Pos: v.Pos, Path: path, Want: "true, false or an object", Got: got(v)}
	}
	return object(field{key: "commit", check: isString}, field{key: "pr", check: isString}, field{key: "sessionUrl", check: isBool})(path, v)
}

// sandbox is the sandbox settings: their keys of one level, and those of
// network, filesystem, windows and ripgrep; credentials is checked as an
// object only, and bwrapPath and socatPath fall back on a bad value.
var sandbox = object(
	field{key: "enabled", check: isBool},
	field{key: "failIfUnavailable", check: isBool},
	field{key: "autoAllowBashIfSandboxed", check: isBool},
	field{key: "allowUnsandboxedCommands", check: isBool},
	field{key: "network", check: object(
		field{key: "allowedDomains", check: isStringList},
		field{key: "deniedDomains", check: isStringList},
		field{key: "strictAllowlist", check: isBool},
		field{key: "allowManagedDomainsOnly", check: isBool},
		field{key: "allowUnixSockets", check: isStringList},
		field{key: "allowAllUnixSockets", check: isBool},
		field{key: "allowLocalBinding", check: isBool},
		field{key: "allowMachLookup", check: listOf("a list of strings", isMachService)},
		field{key: "httpProxyPort", check: isNumber},
		field{key: "socksProxyPort", check: isNumber},
		field{key: "tlsTerminate", check: object(
			field{key: "caCertPath", check: isNonEmptyString},
			field{key: "caKeyPath", check: isNonEmptyString})})},
	field{key: "filesystem", check: object(
		field{key: "allowWrite", check: isStringList},
		field{key: "denyWrite", check: isStringList},
		field{key: "denyRead", check: isStringList},
		field{key: "allowRead", check: isStringList},
		field{key: "allowManagedReadPathsOnly", check: isBool},
		field{key: "disabled", check: isBool})},
	field{key: "credentials", check: isObject},
	field{key: "windows", check: object(field{key: "backend", check: oneOf("sandboxuser", "mxc")})},
	field{key: "ignoreViolations", check: recordOf("an object of lists of strings", isStringList)},
	field{key: "enableWeakerNestedSandbox", check: isBool},
	field{key: "allowNestedUserNamespaces", check: isBool},
	field{key: "enableWeakerNetworkIsolation", check: isBool},
	field{key: "allowAppleEvents", check: isBool},
	field{key: "excludedCommands", check: isStringList},
	field{key: "ripgrep", check: object(
		field{key: "command", check: isString, required: true},
		field{key: "args", check: isStringList})})

// isNonEmptyString is z.string().min(1).
func isNonEmptyString(path string, v *Value) *SchemaError {
	if v.Kind != String || v.Str == "" {
		return &SchemaError{Pos: v.Pos, Path: path, Want: "a string, not empty", Got: got(v)}
	}
	return nil
}

// isMachService is an entry of sandbox.network.allowMachLookup: a string
// whose only wildcard, if any, is one "*" at its end.
func isMachService(path string, v *Value) *SchemaError {
	if v.Kind != String || strings.Contains(strings.TrimSuffix(v.Str, "*"), "*") {
		return &SchemaError{Pos: v.Pos, Path: path, Want: `a string with no "*" but one at its end`, Got: got(v)}
	}
	return nil
}

// marketplaceSource is an entry of strictKnownMarketplaces or
// blockedMarketplaces: an object whose "source" string names its kind
// (the schema's union of them is not checked further).
var marketplaceSource = object(field{key: "source", check: isString, required: true})

func oneOf(values ...string) keyCheck {
	return func(path string, v *Value) *SchemaError {
		if v.Kind != String || !contains(values, v.Str) {
			return &SchemaError{Pos: v.Pos, Path: path, Want: "one of " + strings.Join(values, ", "), Got: got(v)}
		}
		return nil
	}
}

// field is one key of a nested object: how its value is checked, and
// whether the schema requires it.
type field struct {
	key      string
	check    keyCheck
	required bool
}

// object is z.object: an object whose keys of fields are checked, in the
// order the file writes them, then the required ones that are missing;
// its other keys are not checked (zod drops them).
func object(fields ...field) keyCheck {
	return func(path string, v *Value) *SchemaError {
		if v.Kind != Object {
			return &SchemaError{Pos: v.Pos, Path: path, Want: "an object", Got: got(v)}
		}
		for _, m := range v.Members {
			for _, f := range fields {
				if f.key == m.Key {
					if err := f.check(importer.JoinPath(path, m.Key), m.Value); err != nil {
						return err
					}
				}
			}
		}
		for _, f := range fields {
			if f.required && v.Get(f.key) == nil {
				// What the key must be, as its check says of a null.
				err := f.check(importer.JoinPath(path, f.key), &Value{Kind: Null, Pos: v.Pos})
				err.Got = `nothing (no "` + f.key + `" key)`
				return err
			}
		}
		return nil
	}
}

// recordOf is z.record: an object each of whose values passes check.
func recordOf(want string, check keyCheck) keyCheck {
	return func(path string, v *Value) *SchemaError {
		if v.Kind != Object {
			return &SchemaError{Pos: v.Pos, Path: path, Want: want, Got: got(v)}
		}
		for _, m := range v.Members {
			if err := check(importer.JoinPath(path, m.Key), m.Value); err != nil {
				return err
			}
		}
		return nil
	}
}

// listOf is z.array: a list each of whose elements passes check.
func listOf(want string, check keyCheck) keyCheck {
	return func(path string, v *Value) *SchemaError {
		if v.Kind != Array {
			return &SchemaError{Pos: v.Pos, Path: path, Want: want, Got: got(v)}
		}
		for i, e := range v.Elems {
			if err := check(importer.IndexPath(path, i), e); err != nil {
				return err
			}
		}
		return nil
	}
}

// allOf is every check in turn, the first problem first.
func allOf(checks ...keyCheck) keyCheck {
	return func(path string, v *Value) *SchemaError {
		for _, c := range checks {
			if err := c(path, v); err != nil {
				return err
			}
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
