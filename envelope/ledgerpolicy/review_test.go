package ledgerpolicy

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
)

// verdictIs fails unless v has the decision and reason code.
func verdictIs(t testing.TB, what string, v envelope.Verdict, dec envelope.Decision, code string) {
	t.Helper()
	if v.Decision != dec || v.Reason.Code != code {
		t.Errorf("%q: got %s %s %q, want %s %s", what, v.Decision, v.Reason.Code, v.Reason.Rule, dec, code)
	}
}

func catalogueOf(t testing.TB, runtime string) []string {
	t.Helper()
	cat, ok := Catalogue(runtime)
	if !ok {
		t.Fatalf("no catalogue for %s", runtime)
	}
	return cat
}

// TestPatchIndentedHeaderNamesItsFile: a hunk header indented by spaces or
// a tab still names its file, as codex applies it, so a deny pattern sees
// it and an allow pattern must cover it.
func TestPatchIndentedHeaderNamesItsFile(t *testing.T) {
	w := newWorld(t, `{"runtime":"codex@0.169.0","default":"ask","permissions":{"allow":["apply_patch(src/**)"],"deny":["apply_patch(src/secrets/**)"]}}`, catalogueOf(t, "codex@0.169.0"))
	for _, tc := range []struct {
		patch string
		dec   envelope.Decision
		code  string
	}{
		{"*** Begin Patch\n *** Add File: src/secrets/k\n+x\n*** Add File: src/ok.go\n+y\n*** End Patch", envelope.Deny, codePermissionDeny},
		{"*** Begin Patch\n\t*** Delete File: /etc/passwd\n*** Add File: src/ok.go\n+y\n*** End Patch", envelope.Ask, codeDefaultAsk},
		{"*** Begin Patch\n*** Update File: src/a.go\n  *** Move to: /etc/x\n*** End Patch", envelope.Ask, codeDefaultAsk},
		{"*** Begin Patch\n*** Add File: src/ok.go\n+y\n*** End Patch", envelope.Allow, codePermissionAllow},
	} {
		verdictIs(t, tc.patch, w.decide("root", "apply_patch", map[string]string{"command": tc.patch}), tc.dec, tc.code)
	}
}

// TestURLHostAsTheRuntimeReadsIt: a URL's host is the one a WHATWG parser
// reads (user info before the last '@' dropped, tab and newlines inside a
// one-URL field removed, a URL ending only at ASCII white space), so a
// domain allow does not allow a fetch of another host.
func TestURLHostAsTheRuntimeReadsIt(t *testing.T) {
	gem := newWorld(t, `{"runtime":"gemini@0.61.0","default":"deny","permissions":{"allow":["web_fetch(domain:go.dev)"]}}`, catalogueOf(t, "gemini@0.61.0"))
	for _, p := range []string{
		"summarize https://go.dev'@evil.com/x",
		`summarize https://go.dev"@evil.com/x`,
		"summarize https://go.dev(@evil.com/x",
		"summarize https://evil.com\\@go.dev/",
		"summarize https://go.dev/a\u00a0https://evil.com/",
		"summarize https://2130706433/",
		"summarize https://go.dev:x@evil.com/",
	} {
		verdictIs(t, p, gem.decide("root", "web_fetch", map[string]string{"prompt": p}), envelope.Deny, codeDefaultDeny)
	}
	verdictIs(t, "control", gem.decide("root", "web_fetch", map[string]string{"prompt": "summarize https://go.dev/doc and HTTP://Blog.Go.Dev:443/x."}), envelope.Allow, codePermissionAllow)

	qw := newWorld(t, `{"runtime":"qwen@0.24.4","default":"deny","permissions":{"allow":["web_fetch(domain:go.dev)"]}}`, catalogueOf(t, "qwen@0.24.4"))
	for _, u := range []string{"https://go.dev'@evil.com/", "https://go.dev\t@evil.com/", "https://go.dev\n@evil.com/", " https://go.dev@evil.com"} {
		verdictIs(t, u, qw.decide("root", "web_fetch", map[string]string{"url": u, "prompt": "x"}), envelope.Deny, codeDefaultDeny)
		if c := newCall(qwen0244.spec("web_fetch"), json.RawMessage(`{"url":`+quote(u)+`}`), "/repo"); !slices.Equal(c.units, []string{"evil.com"}) {
			t.Errorf("%q: units %q (%s), want evil.com", u, c.units, c.why)
		}
	}
	verdictIs(t, "qwen control", qw.decide("root", "web_fetch", map[string]string{"url": "https://go.d\tev/doc", "prompt": "x"}), envelope.Allow, codePermissionAllow)
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestURLHostUnreadableMatchesDomainDeny: a URL whose host the ledger
// cannot be sure of (a percent escape, a non-ASCII host, a path Go's
// parser refuses) is matched by a domain deny, never passed by a bare
// allow.
func TestURLHostUnreadableMatchesDomainDeny(t *testing.T) {
	w := newWorld(t, `{"runtime":"gemini@0.61.0","default":"deny","permissions":{"allow":["web_fetch"],"deny":["web_fetch(domain:evil.com)"]}}`, catalogueOf(t, "gemini@0.61.0"))
	for _, p := range []string{"read https://evil.com/%zz", "read https://evil%2Ecom/", "read https://evil\uff0ecom/", "read https://evil.com/"} {
		verdictIs(t, p, w.decide("root", "web_fetch", map[string]string{"prompt": p}), envelope.Deny, codePermissionDeny)
	}
	verdictIs(t, "control", w.decide("root", "web_fetch", map[string]string{"prompt": "read https://go.dev/"}), envelope.Allow, codePermissionAllow)
	verdictIs(t, "no URL", w.decide("root", "web_fetch", map[string]string{"prompt": "read nothing"}), envelope.Allow, codePermissionAllow)
}

// TestNestedCommandQuotesRemoved: a denied command inside $(...), a
// subshell, a block or a compound command is matched with its quotes and
// backslashes removed, as at the top level.
func TestNestedCommandQuotesRemoved(t *testing.T) {
	cat := catalogueOf(t, "codex@0.169.0")
	w := newWorld(t, `{"runtime":"codex@0.169.0","default":"deny","permissions":{"allow":["Bash"],"deny":["Bash(git push *)"]}}`, cat)
	for _, cmd := range []string{`echo $(git 'push' origin)`, `(git "push" origin main)`, `{ git pu\sh origin; }`, `if true; then git "push"; fi`, `git 'push' origin`} {
		verdictIs(t, cmd, w.decide("root", "Bash", cmd), envelope.Deny, codePermissionDeny)
	}
	ask := newWorld(t, `{"runtime":"codex@0.169.0","default":"ask","permissions":{"deny":["Bash(git push *)"]}}`, cat)
	verdictIs(t, "default ask", ask.decide("root", "Bash", `(git 'push')`), envelope.Deny, codePermissionDeny)
}

// TestAgentAskDoesNotWidenAllowList: an agent layer's ask rule does not
// let through a call its allow list denies, so a spawn the allow list
// refuses stays refused and Decide agrees with the tool set.
func TestAgentAskDoesNotWidenAllowList(t *testing.T) {
	doc := `{"runtime":"codex@0.169.0","default":"deny","permissions":{"allow":["spawn_agent","web_search","Bash(go test *)"]},"agents":{"main":{"permissions":{"allow":["Bash(go test *)"],"ask":["spawn_agent","web_search","Bash(go test ./secret/...)"]}}}}`
	w := newWorld(t, doc, catalogueOf(t, "codex@0.169.0"))
	for _, tool := range []string{"web_search", "spawn_agent"} {
		verdictIs(t, tool, w.decide("root", tool, nil), envelope.Deny, codeAgentNotAllowed)
	}
	verdictIs(t, "allowed and asked", w.decide("root", "Bash", "go test ./secret/..."), envelope.Ask, codeAgentAsk)
	verdictIs(t, "allowed", w.decide("root", "Bash", "go test ./x"), envelope.Allow, codePermissionAllow)
	var e *events.Error
	if err := w.spawn(t, "c1", "root", "default"); !errors.As(err, &e) || e.Code != events.CodeAgentNotAllowed {
		t.Errorf("spawn: %v, want agent_not_allowed", err)
	}
	ts := New().Tools(w, w.sessions["root"])
	for _, d := range ts.Denied {
		if d.Tool == "spawn_agent" && d.Reason.Code != codeAgentNotAllowed {
			t.Errorf("tool set: %+v", d)
		}
	}
}

// TestRevocationUnreadableRuleDeniesItsTool: a revocation whose rule the
// scope's table cannot read (another table's tool, in a catalogue that
// names it) denies every call of the tool it names.
func TestRevocationUnreadableRuleDeniesItsTool(t *testing.T) {
	w := newWorld(t, `{"runtime":"codex@0.169.0","default":"allow"}`, []string{"Bash", "read_file"})
	d := New()
	in := json.RawMessage(`{"file_path":"/etc/passwd"}`)
	for _, rule := range []string{"read_file", "read_file(/etc/**)"} {
		if err := d.CheckRule(rule); err != nil {
			t.Fatalf("%s: %v", rule, err)
		}
		if !d.MatchRule(w.p, rule, "read_file", in, false) {
			t.Errorf("%s does not revoke a read_file call", rule)
		}
		if !d.MatchRuleFor(w, w.sessions["root"], w.p, rule, "read_file", in, true) {
			t.Errorf("%s does not revoke read_file whole", rule)
		}
		if d.MatchRule(w.p, rule, "Bash", json.RawMessage(`"ls"`), false) {
			t.Errorf("%s revokes Bash", rule)
		}
	}
}

// TestPatchRelativePathKeepsAbsoluteDeny: in a session without a project,
// a patch naming a relative file and an absolute one is still denied by
// an absolute deny pattern matching the absolute one.
func TestPatchRelativePathKeepsAbsoluteDeny(t *testing.T) {
	w := newWorld(t, `{"runtime":"codex@0.169.0","default":"deny","permissions":{"allow":["apply_patch"],"deny":["apply_patch(/etc/**)"]}}`, catalogueOf(t, "codex@0.169.0"))
	w.sessions["root"].Start.Project = ""
	for _, patch := range []string{
		"*** Begin Patch\n*** Add File: /etc/cron.d/x\n+x\n*** Add File: notes.txt\n+y\n*** End Patch",
		"*** Begin Patch\n*** Add File: notes.txt\n+y\n*** Add File: /etc/cron.d/x\n+x\n*** End Patch",
		"*** Begin Patch\n*** Add File: /etc/cron.d/x\n+x\n*** End Patch",
	} {
		verdictIs(t, patch, w.decide("root", "apply_patch", map[string]string{"command": patch}), envelope.Deny, codePermissionDeny)
	}
}

// TestGrantLayerAdmitsNoRoot: a grant to an agent type the document gives
// no layer does not admit roots of that type.
func TestGrantLayerAdmitsNoRoot(t *testing.T) {
	for _, b := range []string{"deny", "allow"} {
		w := newWorld(t, `{"runtime":"codex@0.169.0","default":"allow"}`, catalogueOf(t, "codex@0.169.0"),
			events.GrantData{Kind: events.GrantPermission, Agent: "explorer", Target: "*", Behavior: b, Rule: "web_search"})
		var e *events.Error
		if _, err := New().Start(w, "r2", &events.StartedData{Agent: "explorer"}); !errors.As(err, &e) || e.Code != events.CodeAgentNotConfigured {
			t.Errorf("%s grant: %v, want agent_not_configured", b, err)
		}
	}
}

// TestCommandPatternSpacingRefused: a command pattern with white space at
// an end or two spaces in a row, which no command's unit can match, is
// invalid_policy (and refused as a grant or revocation rule).
func TestCommandPatternSpacingRefused(t *testing.T) {
	for _, r := range []string{"Bash(git  push *)", "Bash( git push *)", "Bash(git push )", "Bash(git push :*)"} {
		doc := `{"runtime":"codex@0.169.0","default":"allow","permissions":{"deny":[` + quote(r) + `]}}`
		_, err := New().Compile(json.RawMessage(doc), nil)
		var e *events.Error
		if !errors.As(err, &e) || e.Code != events.CodeInvalidPolicy || !strings.HasPrefix(e.Msg, "document.permissions.deny[0]:") {
			t.Errorf("%s: %v, want invalid_policy", r, err)
		}
		if New().CheckRule(r) == nil {
			t.Errorf("%s: accepted as a revocation rule", r)
		}
	}
	if _, err := New().Compile(json.RawMessage(`{"runtime":"codex@0.169.0","permissions":{"deny":["Bash(git push:*)","Bash(git push *)"]}}`), nil); err != nil {
		t.Errorf("control: %v", err)
	}
}

// TestCompileRefusesNullMaxDepth: subagents.maxDepth must be a number;
// null is a value of the wrong type.
func TestCompileRefusesNullMaxDepth(t *testing.T) {
	for _, v := range []string{"null", "true", "[1]", `"1"`} {
		_, err := New().Compile(json.RawMessage(`{"runtime":"codex@0.169.0","subagents":{"maxDepth":`+v+`}}`), nil)
		var e *events.Error
		if !errors.As(err, &e) || e.Code != events.CodeInvalidPolicy || !strings.HasPrefix(e.Msg, "document.subagents.maxDepth:") {
			t.Errorf("maxDepth %s: %v, want invalid_policy", v, err)
		}
	}
	if _, err := New().Compile(json.RawMessage(`{"runtime":"codex@0.169.0","subagents":{"maxDepth":0}}`), nil); err != nil {
		t.Errorf("control: %v", err)
	}
}

// TestCompileRefusesTrailingData: nothing but white space may follow the
// document's object, a stray '}' or ']' included.
func TestCompileRefusesTrailingData(t *testing.T) {
	for _, doc := range []string{`{"runtime":"codex@0.169.0"}}`, `{"runtime":"codex@0.169.0"}]`, `{"runtime":"codex@0.169.0"} {}`, `{"runtime":"codex@0.169.0"} x`} {
		_, err := New().Compile(json.RawMessage(doc), nil)
		var e *events.Error
		if !errors.As(err, &e) || e.Code != events.CodeInvalidPolicy || !strings.HasPrefix(e.Msg, "document:") {
			t.Errorf("%s: %v, want invalid_policy", doc, err)
		}
	}
	if _, err := New().Compile(json.RawMessage("{\"runtime\":\"codex@0.169.0\"} \n"), nil); err != nil {
		t.Errorf("control: %v", err)
	}
}
