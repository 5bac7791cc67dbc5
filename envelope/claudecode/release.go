package claudecode

import (
	"slices"
	"strings"
)

// LatestRelease is the newest Claude Code release whose tables this package
// holds: the release `ledger policy import` names by default.
const LatestRelease = "2.1.328"

// release is what one pinned Claude Code release does that a document's
// rules do not say: which tools exist, which built-in agents it has, and
// how its pools differ from the written spec. Each table was read off the
// release's own CLI (internal/claudecodetest TestPools, recorded in
// testdata/claude-code-cli/pools-<release>.json).
type release struct {
	name string
	// tools is the release's catalogue when no --tools narrows it: every
	// tool a session may be given, sorted. Tools that exist only when
	// --tools names them (TaskCreate, TaskGet, TaskList, TaskUpdate in
	// 2.1.328) are not in it: an explicit catalogue gives them.
	tools []string
	// searchViaBash: Grep and Glob are left out of every pool that holds
	// Bash (Bash searches with rg and find), and given to a pool without
	// it (an agent whose tools: names Grep but not Bash, or a session
	// whose Bash is denied).
	searchViaBash bool
	// planToolSubOnly: ExitPlanMode is given only to a sub-agent in plan
	// mode, never to a main thread (in plan mode too) or a fork.
	planToolSubOnly bool
	// builtIns are the release's built-in agents, in a fixed order.
	builtIns []string
}

var releases = map[string]*release{
	"2.1.328": {
		name: "2.1.328",
		tools: []string{"Agent", "Bash", "CronCreate", "CronDelete", "CronList", "Edit", "EnterWorktree",
			"ExitPlanMode", "ExitWorktree", "Glob", "Grep", "ListAgents", "Monitor", "NotebookEdit", "Read", "ReportFindings",
			"ScheduleWakeup", "SendMessage", "Skill", "TaskStop", "ToolSearch", "WebFetch", "WebSearch",
			"Workflow", "Write"},
		searchViaBash:   true,
		planToolSubOnly: true,
		builtIns:        []string{"claude", "general-purpose", "Explore", "Plan", "statusline-setup"},
	},
}

// Releases lists the Claude Code releases this package holds tables for,
// sorted.
func Releases() []string {
	out := make([]string, 0, len(releases))
	for r := range releases {
		out = append(out, r)
	}
	slices.Sort(out)
	return out
}

// Catalogue returns the built-in catalogue of a release (every tool name a
// session of that release may be given, sorted), and false for a release
// this package does not know.
func Catalogue(name string) ([]string, bool) {
	r, ok := releases[name]
	if !ok {
		return nil, false
	}
	return slices.Clone(r.tools), true
}

func knownReleases() string { return strings.Join(Releases(), ", ") }
