package openclaw

import (
	"slices"
	"strconv"
	"strings"
)

// Release is one OpenClaw release as the dialect decides it: the built-in
// tables of that release and the rules its code follows. A policy document
// names the release it targets ("release"; default: the newest release this
// build pins), and what a policy.set decided keeps the release it was
// compiled with, so that a replay decides with the tables that decided
// then.
//
// The tables of a packaged release are generated from the installed
// package (tables_<version>.go, go generate); the legacy release holds the
// tables the dialect had before releases were versioned, which decide
// every record that names none.
type Release struct {
	Name  string
	Rules rules

	// Catalogue is the release's core tool ids, in catalogue order (for
	// documentation and the differential suite: the policy catalogue of a
	// log is its own).
	Catalogue []string
	// Aliases maps a trimmed, lower-cased name to its canonical name.
	Aliases map[string]string
	// Renames and Families rewrite policy entries (not tool names): an
	// entry naming a renamed tool means the new name; an entry naming a
	// family head also means the family's members.
	Renames  map[string]string
	Families map[string][]string
	// Groups maps "group:<id>" to its members, in order; group:plugins is
	// not here (it matches every MCP tool).
	Groups map[string][]string
	// Profiles maps a profile id to its allow list; "full" is ["*"] (no
	// restriction, no profile step).
	Profiles map[string][]string
	// The sub-agent layer's fixed deny groups and the sandbox defaults.
	HardDeny, DepthCapDeny    []string
	SandboxAllow, SandboxDeny []string
	SenderKeyTypes            []string
	ChannelAliases            map[string]string
	groupSets                 map[string]map[string]bool
}

// rules names the behaviour a release's code follows, where it is more
// than its tables.
type rules uint8

const (
	// rulesSpec is the written reference the dialect was pinned to before
	// releases were versioned (docs/dialects/openclaw.md, the rules marked
	// legacy release, with the pinned decisions of its section 15).
	rulesSpec rules = iota
	// rulesPackage is OpenClaw's own code as of the 2026.9 releases,
	// established against the package by tests/openclawdiff; where it
	// and the written reference differ is docs/dialects/openclaw.md
	// section 16.2.
	rulesPackage
)

// LegacyRelease names the release of records that name none: the tables
// and rules of the written spec.
const LegacyRelease = "legacy"

var releases = map[string]*Release{}

func register(r *Release) {
	if _, dup := releases[r.Name]; dup {
		panic("openclaw: release " + r.Name + " registered twice")
	}
	r.groupSets = make(map[string]map[string]bool, len(r.Groups))
	for g, members := range r.Groups {
		s := make(map[string]bool, len(members))
		for _, t := range members {
			s[t] = true
		}
		r.groupSets[g] = s
	}
	releases[r.Name] = r
}

// Releases lists the releases this build knows, the legacy one first and
// the packaged ones from oldest to newest.
func Releases() []string {
	var names []string
	for n := range releases {
		if n != LegacyRelease {
			names = append(names, n)
		}
	}
	slices.SortFunc(names, compareVersions)
	return append([]string{LegacyRelease}, names...)
}

// NewestRelease is the release a document that names none targets: the
// newest packaged release this build pins.
func NewestRelease() string {
	r := Releases()
	return r[len(r)-1]
}

// lookupRelease returns a known release by name.
func lookupRelease(name string) (*Release, bool) {
	r, ok := releases[name]
	return r, ok
}

func newest() *Release { return releases[NewestRelease()] }

// Catalogue is the core tool ids of release ("" for the newest), in the
// release's catalogue order: what its gateway offers before plugins and
// MCP servers add theirs. ok is false for a release this build does not
// know.
func Catalogue(release string) (tools []string, ok bool) {
	if release == "" {
		release = NewestRelease()
	}
	r, ok := lookupRelease(release)
	if !ok {
		return nil, false
	}
	return append([]string(nil), r.Catalogue...), true
}

func legacy() *Release { return releases[LegacyRelease] }

// compareVersions orders release names numerically part by part
// (2026.9.6 < 2026.10.1), then as strings.
func compareVersions(a, b string) int {
	pa, pb := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < len(pa) && i < len(pb); i++ {
		x, errx := strconv.Atoi(pa[i])
		y, erry := strconv.Atoi(pb[i])
		switch {
		case errx == nil && erry == nil && x != y:
			if x < y {
				return -1
			}
			return 1
		case (errx != nil || erry != nil) && pa[i] != pb[i]:
			return strings.Compare(pa[i], pb[i])
		}
	}
	return len(pa) - len(pb)
}

// The legacy release: the tables of the written reference
// (docs/dialects/openclaw.md sections 2.1, 2.4, 2.7, 6.2 and 7.1, legacy
// release), exactly as the dialect held them before releases were
// versioned.
var releaseLegacy = &Release{
	Name:  LegacyRelease,
	Rules: rulesSpec,
	Aliases: map[string]string{
		"bash":        "exec",
		"apply-patch": "apply_patch",
		"cron":        "automations",
		"tool_call":   "dispatch_action",
		"update_plan": "progress_card",
	},
	Groups: map[string][]string{
		"group:runtime": {"exec", "process", "code_execution"},
		"group:fs":      {"read", "write", "edit", "apply_patch"},
		"group:sessions": {"sessions", "sessions_list", "sessions_history", "sessions_search",
			"conversations_list", "conversations_send", "conversations_turn", "sessions_send",
			"sessions_spawn", "sessions_yield", "subagents", "session_status", "suggest_task", "dismiss_task"},
		"group:memory":     {"memory_search", "memory_get"},
		"group:web":        {"web_search", "x_search", "web_fetch"},
		"group:ui":         {"browser", "screen", "dashboard", "terminal", "portal", "canvas", "show_widget"},
		"group:automation": {"heartbeat_respond", "automations", "gateway"},
		"group:messaging":  {"message"},
		"group:nodes":      {"nodes", "computer"},
		"group:agents": {"agents_list", "get_goal", "create_goal", "update_goal", "progress_card",
			"ask_user", "skill_workshop"},
		"group:media": {"view_image", "image_generate", "music_generate", "video_generate", "tts"},
		"group:openclaw": {"code_execution", "sessions", "sessions_list", "sessions_history",
			"sessions_search", "conversations_list", "conversations_send", "conversations_turn",
			"sessions_send", "sessions_spawn", "sessions_yield", "subagents", "session_status",
			"suggest_task", "dismiss_task", "memory_search", "memory_get", "web_search", "x_search",
			"web_fetch", "browser", "screen", "dashboard", "terminal", "portal", "show_widget",
			"heartbeat_respond", "automations", "gateway", "message", "nodes", "computer",
			"agents_list", "get_goal", "create_goal", "update_goal", "progress_card", "ask_user",
			"skill_workshop", "view_image", "image_generate", "music_generate", "video_generate", "tts"},
	},
	Profiles: map[string][]string{
		"minimal": {"session_status"},
		"coding": {"read", "write", "edit", "apply_patch", "exec", "process", "code_execution",
			"web_search", "x_search", "web_fetch", "sessions", "sessions_list", "sessions_history",
			"sessions_search", "conversations_list", "conversations_send", "conversations_turn",
			"sessions_send", "sessions_spawn", "sessions_yield", "subagents", "session_status",
			"suggest_task", "dismiss_task", "memory_search", "memory_get", "automations", "get_goal",
			"create_goal", "update_goal", "progress_card", "ask_user", "skill_workshop", "view_image",
			"image_generate", "music_generate", "video_generate", "bundle-mcp"},
		"messaging": {"message", "sessions", "sessions_list", "sessions_history", "sessions_search",
			"conversations_list", "conversations_send", "conversations_turn", "sessions_send",
			"sessions_spawn", "sessions_yield", "subagents", "session_status", "ask_user", "bundle-mcp"},
	},
	HardDeny: []string{"gateway", "agents_list", "session_status", "progress_card", "automations",
		"message", "sessions_send", "conversations_*"},
	DepthCapDeny: []string{"subagents", "sessions_list", "sessions_history", "sessions_search", "sessions_spawn"},
	SandboxAllow: []string{"exec", "process", "read", "write", "edit", "apply_patch", "view_image",
		"sessions_list", "sessions_history", "sessions_send", "sessions_spawn", "sessions_yield",
		"subagents", "session_status"},
	SandboxDeny:    []string{"browser", "canvas", "nodes", "automations", "gateway"},
	SenderKeyTypes: []string{"id", "channel"},
}

func init() { register(releaseLegacy) }

// profileIDs lists a release's profiles that make a profile step ("full"
// restricts nothing), sorted.
func (r *Release) profileIDs() []string {
	var ids []string
	for id, allow := range r.Profiles {
		if !(len(allow) == 1 && allow[0] == "*") {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids
}

// knownProfile reports whether id is one of the release's profiles
// ("full" included).
func (r *Release) knownProfile(id string) bool {
	_, ok := r.Profiles[id]
	return ok || (r.Rules == rulesPackage && id == "full")
}

// LookupRelease returns a known release's tables by name (read-only: the
// dialect shares them).
func LookupRelease(name string) (*Release, bool) { return lookupRelease(name) }

// NormalizeIn returns a tool name's canonical form under a release as a
// policy's state names it (envelope.PolicyState.Release: "" for a
// policy.set that recorded none, the legacy release), for a program that
// names tools for the ledger without compiling the policy (the MCP
// gateway). ok is false for a release this build does not know
// (TestNormalizeIn).
func NormalizeIn(release, tool string) (string, bool) {
	if release == "" {
		release = LegacyRelease
	}
	r, ok := lookupRelease(release)
	if !ok {
		return "", false
	}
	return r.normalize(tool), true
}
