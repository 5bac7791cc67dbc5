package openclaw

import (
	"slices"
	"testing"
)

func TestNormalize(t *testing.T) {
	tests := []struct{ in, want string }{
		{"exec", "exec"},
		{" BASH ", "exec"},
		{"bash", "exec"},
		{"Apply-Patch", "apply_patch"},
		{" Cron ", "automations"},
		{"tool_call", "dispatch_action"},
		{"update_plan", "progress_card"},
		{"image", "image"}, // not an alias of view_image (A5)
		{"cron_x", "cron_x"},
		{"constructor", "constructor"},
		{"__proto__", "__proto__"},
		{"\t\nWEB_* ", "web_*"},
		{"\x1cread\x1f", "read"},
		{"\u00a0Read\u3000", "read"},
		{"", ""},
		{"   ", ""},
		{"Outlook__Send_Mail", "outlook__send_mail"},
	}
	for _, tt := range tests {
		if got := normalize(tt.in); got != tt.want {
			t.Errorf("normalize(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if got := normalize(normalize(tt.in)); got != tt.want {
			t.Errorf("normalize is not idempotent on %q: %q", tt.in, got)
		}
	}
}

func TestNormalizeDoesNotAllocateForCanonicalNames(t *testing.T) {
	if n := testing.AllocsPerRun(100, func() { _ = normalize("sessions_spawn") }); n != 0 {
		t.Errorf("normalize allocates %v times for a canonical name", n)
	}
}

func TestIsMCP(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{"outlook__send_mail", true},
		{"a__b", true},
		{"a__b__c", true},
		{"__proto__", false},
		{"__x", false},
		{"x__", false},
		{"exec", false},
		{"a_b", false},
	}
	for _, tt := range tests {
		if got := isMCP(tt.in); got != tt.want {
			t.Errorf("isMCP(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestNameList(t *testing.T) {
	names, written := nameList([]string{"bash", "", " EXEC ", "read", "  ", "Read", "cron"})
	if want := []string{"exec", "read", "automations"}; !slices.Equal(names, want) {
		t.Errorf("names = %q, want %q", names, want)
	}
	if want := []string{"bash", "read", "cron"}; !slices.Equal(written, want) {
		t.Errorf("written = %q, want %q", written, want)
	}
}

func TestMatch(t *testing.T) {
	tests := []struct {
		entry, tool string
		want        bool
	}{
		{"*", "anything", true},
		{"*", "outlook__x", true},
		{"group:plugins", "outlook__send_mail", true},
		{"group:plugins", "exec", false},
		{"bundle-mcp", "github__create_issue", true},
		{"bundle-mcp", "__proto__", false},
		{"group:runtime", "exec", true},
		{"group:runtime", "process", true},
		{"group:runtime", "read", false},
		{"group:fs", "apply_patch", true},
		{"group:openclaw", "exec", false},
		{"group:openclaw", "canvas", false},
		{"group:openclaw", "read", false},
		{"group:openclaw", "code_execution", true},
		{"group:openclaw", "tts", true},
		{"group:ui", "canvas", true},
		{"group:automation", "automations", true},
		{"group:nope", "group:nope", true}, // unknown groups are literals
		{"group:nope", "exec", false},
		{"group:*", "group:nope", true}, // and globs
		{"web_*", "web_fetch", true},
		{"web_*", "web_", true},
		{"web_*", "xweb_fetch", false},
		{"outlook__*", "outlook__send_mail", true},
		{"outlook__*", "github__x", false},
		{"apply_*", "apply_patch", true},
		{"*_*", "a_b", true},
		{"a*b*c", "aXbYc", true},
		{"a*b*c", "aXbYcd", false},
		{"a*b*c", "abc", true},
		{"**", "", true},
		{"exec", "exec", true},
		{"exec", "exec2", false},
		{"constructor", "constructor", true},
		// Legacy name rule: dispatch_action is matched as tool_call too.
		{"tool_*", "dispatch_action", true},
		{"*_call", "dispatch_action", true},
		{"dispatch_action", "dispatch_action", true},
		{"tool_*", "tool_call", true},
		{"dispatch_*", "dispatch_action", true},
		{"tool_*", "toolbox", false},
		{"skills_read", "read", false},
		{"view_image", "image", false},
	}
	for _, tt := range tests {
		p := classify(normalize(tt.entry))
		if got := p.matches(tt.tool); got != tt.want {
			t.Errorf("entry %q matches %q = %v, want %v", tt.entry, tt.tool, got, tt.want)
		}
	}
}

func TestGroupOpenclawIsTheOtherGroupsMinusCoreTools(t *testing.T) {
	excluded := []string{"read", "write", "edit", "apply_patch", "exec", "process", "canvas"}
	var want []string
	for g, members := range releaseLegacy.Groups {
		if g == "group:openclaw" {
			continue
		}
		for _, m := range members {
			if !contains(excluded, m) && !contains(want, m) {
				want = append(want, m)
			}
		}
	}
	got := slices.Clone(releaseLegacy.Groups["group:openclaw"])
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("group:openclaw = %q\nwant %q", got, want)
	}
	for _, n := range []string{"skills_read", "dispatch_action", "switch_model"} {
		for g, members := range releaseLegacy.Groups {
			if contains(members, n) {
				t.Errorf("%s belongs to %s; it belongs to no group", n, g)
			}
		}
	}
}

func TestProfilesExcludeWhatTheSpecSays(t *testing.T) {
	for _, n := range []string{"browser", "screen", "dashboard", "terminal", "portal", "canvas", "show_widget",
		"heartbeat_respond", "gateway", "message", "nodes", "computer", "agents_list", "tts"} {
		if contains(releaseLegacy.Profiles["coding"], n) {
			t.Errorf("coding includes %s", n)
		}
	}
	for _, n := range releaseLegacy.Groups["group:sessions"] {
		if !contains(releaseLegacy.Profiles["coding"], n) {
			t.Errorf("coding lacks %s of group:sessions", n)
		}
	}
}

func TestGlobMatchAgainstNaive(t *testing.T) {
	pats := []string{"*", "a*", "*a", "a*a", "*a*", "a**b", "*ab*ab*", "a*b*a", "", "ab"}
	names := []string{"", "a", "b", "ab", "aa", "aba", "abab", "aab", "baab", "abba", "ababab", "xabyabz"}
	for _, p := range pats {
		for _, n := range names {
			if got, want := globMatch(p, n), naiveGlob(p, n); got != want {
				t.Errorf("globMatch(%q, %q) = %v, want %v", p, n, got, want)
			}
		}
	}
}

func naiveGlob(p, n string) bool {
	if p == "" {
		return n == ""
	}
	if p[0] == '*' {
		for i := 0; i <= len(n); i++ {
			if naiveGlob(p[1:], n[i:]) {
				return true
			}
		}
		return false
	}
	return n != "" && p[0] == n[0] && naiveGlob(p[1:], n[1:])
}
