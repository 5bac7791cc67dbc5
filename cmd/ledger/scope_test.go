package main

import (
	"bufio"
	"context"
	"encoding/json"
	"github.com/nats-io/nats.go"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/ledgertest"
)

// twoScopes is a log with two scopes (the default, openclaw; cc,
// claude-code) and two users, alice and bob, each with a root in each
// scope; a revocation in each scope, and a call it denied.
var twoScopes = []string{
	`{"type":"policy.set","data":{"dialect":"openclaw","document":{},"catalogue":["exec","read","web_fetch"]}}`,
	`{"type":"policy.set","data":{"scope":"cc","dialect":"claude-code","document":{"permissions":{"allow":["Bash"]}},"catalogue":["Read","Bash","Agent"]}}`,
	`{"type":"session.started","session":"agent:main:main","data":{"agent":"main","user":"alice","host":"h1","project":"/srv/a","runtime":"openclaw","runtime_version":"2026.9.6"}}`,
	`{"type":"session.started","session":"agent:ops:main","data":{"agent":"ops","user":"bob","host":"h2","project":"/srv/b","runtime":"openclaw"}}`,
	`{"type":"session.started","session":"cc1","data":{"agent":"main","scope":"cc","user":"alice","host":"h3","project":"/srv/c","runtime":"claude-code","runtime_version":"2.1.328"}}`,
	`{"type":"session.started","session":"cc2","data":{"agent":"main","scope":"cc","user":"bob","runtime":"claude-code"}}`,
	`{"type":"turn.started","session":"agent:main:main","data":{"turn":1}}`,
	`{"type":"turn.started","session":"cc1","data":{"turn":1}}`,
	`{"type":"session.spawned","session":"cc1:sub:1","data":{"parent":"cc1","agent":"general-purpose"}}`,
	`{"type":"turn.started","session":"cc1:sub:1","data":{"turn":1}}`,
	`{"type":"deny.added","data":{"scope":"cc","rule":"Bash","session":"cc1","subtree":true,"note":"incident 42"}}`,
	`{"type":"tool.checked","session":"cc1:sub:1","data":{"turn":1,"tool":"Bash","input":"ls","call":"c1"}}`,
	`{"type":"deny.added","data":{"rule":"exec","user":"alice"}}`,
}

// The sequences of twoScopes' records.
const (
	seqPolicyDefault = 1
	seqPolicyCC      = 2
	seqDenyCC        = 11
	seqCheckDenied   = 12
	seqDenyDefault   = 13
)

// twoScopesLedger appends twoScopes to a fresh ledger in a data directory
// and returns it.
func twoScopesLedger(t *testing.T) string {
	t.Helper()
	data := filepath.Join(t.TempDir(), "data")
	out, errOut, err := runCLI(t, strings.Join(twoScopes, "\n")+"\n", "append", "--data", data)
	if err != nil || !strings.Contains(out, "13 accepted, 0 refused") {
		t.Fatalf("append: %v\n%s%s", err, out, errOut)
	}
	return data
}

// logRecord is what a filter test reads of a record.
type logRecord struct {
	Seq     uint64
	Type    events.Type
	Session events.SessionKey
}

// TestIdentityFilters: tree, log, export and report keep the spawn trees
// whose root has the scope, user, project and runtime asked for, and the
// policy records of those trees' scopes (and of --scope).
func TestIdentityFilters(t *testing.T) {
	data := twoScopesLedger(t)
	all := []events.SessionKey{"agent:main:main", "agent:ops:main", "cc1", "cc1:sub:1", "cc2"}
	tests := []struct {
		name     string
		filter   []string
		sessions []events.SessionKey
		// policy are the sequences of the policy records kept.
		policy []uint64
	}{
		{"none", nil, all, []uint64{seqPolicyDefault, seqPolicyCC, seqDenyCC, seqDenyDefault}},
		{"scope cc", []string{"--scope", "cc"}, []events.SessionKey{"cc1", "cc1:sub:1", "cc2"}, []uint64{seqPolicyCC, seqDenyCC}},
		{"scope default", []string{"--scope", "default"}, []events.SessionKey{"agent:main:main", "agent:ops:main"}, []uint64{seqPolicyDefault, seqDenyDefault}},
		{"user alice", []string{"--user-identity", "alice"}, []events.SessionKey{"agent:main:main", "cc1", "cc1:sub:1"},
			[]uint64{seqPolicyDefault, seqPolicyCC, seqDenyCC, seqDenyDefault}},
		// Without --nats, --user is the identity's user.
		{"user alice by --user", []string{"--user", "alice"}, []events.SessionKey{"agent:main:main", "cc1", "cc1:sub:1"},
			[]uint64{seqPolicyDefault, seqPolicyCC, seqDenyCC, seqDenyDefault}},
		{"user bob, runtime openclaw", []string{"--user-identity", "bob", "--runtime", "openclaw"}, []events.SessionKey{"agent:ops:main"},
			[]uint64{seqPolicyDefault, seqDenyDefault}},
		{"project /srv/c", []string{"--project", "/srv/c"}, []events.SessionKey{"cc1", "cc1:sub:1"}, []uint64{seqPolicyCC, seqDenyCC}},
		{"runtime claude-code", []string{"--runtime", "claude-code"}, []events.SessionKey{"cc1", "cc1:sub:1", "cc2"}, []uint64{seqPolicyCC, seqDenyCC}},
		{"scope cc, user bob", []string{"--scope", "cc", "--user-identity", "bob"}, []events.SessionKey{"cc2"}, []uint64{seqPolicyCC, seqDenyCC}},
		// A scope with no selected tree still has its policy records.
		{"scope cc, project /srv/a", []string{"--scope", "cc", "--project", "/srv/a"}, nil, []uint64{seqPolicyCC, seqDenyCC}},
		{"nobody", []string{"--user-identity", "carol"}, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// tree: the roots and their sub-agents.
			out, errOut, err := runCLI(t, "", append([]string{"tree", "--json", "--data", data}, tt.filter...)...)
			if err != nil {
				t.Fatalf("tree: %v %s", err, errOut)
			}
			var trees []struct {
				Key      events.SessionKey
				Children []struct{ Key events.SessionKey }
			}
			if err := json.Unmarshal([]byte(out), &trees); err != nil {
				t.Fatalf("tree: %v\n%s", err, out)
			}
			var got []events.SessionKey
			for _, tr := range trees {
				got = append(got, tr.Key)
				for _, c := range tr.Children {
					got = append(got, c.Key)
				}
			}
			slices.Sort(got)
			if !slices.Equal(got, tt.sessions) {
				t.Errorf("tree: sessions %v, want %v", got, tt.sessions)
			}

			// log and export: the same records.
			out, errOut, err = runCLI(t, "", append([]string{"log", "--json", "--data", data}, tt.filter...)...)
			if err != nil {
				t.Fatalf("log: %v %s", err, errOut)
			}
			var fromLog []logRecord
			for i, line := range nonEmptyLines(out) {
				rec, err := events.DecodeRecord([]byte(line))
				if err != nil {
					t.Fatalf("log line %d: %v", i+1, err)
				}
				fromLog = append(fromLog, logRecord{Type: rec.Type, Session: rec.Session})
			}
			out, errOut, err = runCLI(t, "", append([]string{"export", "--data", data}, tt.filter...)...)
			if err != nil {
				t.Fatalf("export: %v %s", err, errOut)
			}
			var fromExport []logRecord
			var policy []uint64
			sessions := map[events.SessionKey]bool{}
			for _, line := range nonEmptyLines(out) {
				var l struct {
					Seq     uint64
					Type    events.Type
					Session events.SessionKey
				}
				if err := json.Unmarshal([]byte(line), &l); err != nil {
					t.Fatal(err)
				}
				fromExport = append(fromExport, logRecord{Type: l.Type, Session: l.Session})
				if l.Type.IsPolicy() {
					policy = append(policy, l.Seq)
				} else {
					sessions[l.Session] = true
				}
			}
			if !slices.Equal(fromLog, fromExport) {
				t.Errorf("log kept %v, export %v", fromLog, fromExport)
			}
			if !slices.Equal(policy, tt.policy) {
				t.Errorf("export: policy records %v, want %v", policy, tt.policy)
			}
			exported := slices.Sorted(func(yield func(events.SessionKey) bool) {
				for k := range sessions {
					if !yield(k) {
						return
					}
				}
			})
			if !slices.Equal(exported, tt.sessions) && !(len(exported) == 0 && len(tt.sessions) == 0) {
				t.Errorf("export: sessions %v, want %v", exported, tt.sessions)
			}

			// report: the sessions' sections.
			out, errOut, err = runCLI(t, "", append([]string{"report", "--html", "-", "--data", data}, tt.filter...)...)
			if err != nil {
				t.Fatalf("report: %v %s", err, errOut)
			}
			for _, k := range all {
				in := strings.Contains(out, `data-key="`+string(k)+`"`)
				if want := slices.Contains(tt.sessions, k); in != want {
					t.Errorf("report: section of %s there: %v, want %v", k, in, want)
				}
			}
		})
	}
}

func nonEmptyLines(s string) []string {
	var out []string
	sc := bufio.NewScanner(strings.NewReader(s))
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) != "" {
			out = append(out, sc.Text())
		}
	}
	return out
}

// TestScopeAndIdentityShown: the human output of tree, session, log, why
// and check names the scope and identity, and a revocation's denial its
// rule, target, note and record.
func TestScopeAndIdentityShown(t *testing.T) {
	data := twoScopesLedger(t)
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"tree roots", []string{"tree"}, []string{
			"agent:main:main  [main, active, 1 turn(s), current_request]  (scope default; openclaw 2026.9.6, alice@h1, /srv/a)\n",
			"cc1  [main, active, 1 turn(s), current_request]  (scope cc; claude-code 2.1.328, alice@h3, /srv/c)\n",
			"└── cc1:sub:1  [general-purpose, active, 1 turn(s), current_request]\n",
			"cc2  [main, active, 0 turn(s), current_request]  (scope cc; claude-code, bob)\n",
		}},
		{"tree of a sub-agent", []string{"tree", "--session", "cc1:sub:1"}, []string{"cc1:sub:1  [general-purpose, active, 1 turn(s), current_request]  (scope cc; claude-code 2.1.328, alice@h3, /srv/c)\n"}},
		{"session of a root", []string{"session", "--session", "cc1"}, []string{"scope:    cc\n",
			"identity: runtime claude-code 2.1.328, user alice, host h3, project /srv/c\n"}},
		{"session of a sub-agent", []string{"session", "--session", "cc1:sub:1"}, []string{"scope:    cc\n",
			"identity: runtime claude-code 2.1.328, user alice, host h3, project /srv/c (its root's)\n"}},
		{"log", []string{"log"}, []string{"policy.set", "scope cc\n", "cc1                                      ",
			"scope cc; claude-code 2.1.328, alice@h3, /srv/c\n", "deny.added"}},
		{"why revoked", []string{"why", "--session", "cc1:sub:1", "--tool", "Bash", "--input", "ls"}, []string{
			"scope:    cc\n", "decision: deny (revocation:deny)\n",
			"revoked:  by deny.added at seq 11 (", "): deny Bash for session cc1 and its sub-agents (incident 42)\n",
			"decided  revocation:deny  deny Bash for session cc1 and its sub-agents (incident 42) (seq 11 deny.added ",
		}},
		{"check revoked", []string{"check", "--session", "cc1:sub:1", "--tool", "Bash", "--input", "ls"}, []string{
			"cc1:sub:1 Bash: deny (revocation:deny) in scope cc\n",
			"revoked by deny.added at seq 11 (", "): deny Bash for session cc1 and its sub-agents (incident 42)\n",
		}},
		{"check revoked for a user", []string{"check", "--session", "agent:main:main", "--tool", "exec"}, []string{
			"agent:main:main exec: deny (revocation:deny) in scope default\n", "): deny exec for user alice\n",
		}},
		{"check not revoked", []string{"check", "--session", "agent:ops:main", "--tool", "exec"}, []string{"agent:ops:main exec: allow (default:allow) in scope default\n"}},
		{"tools", []string{"tools", "--session", "cc1:sub:1"}, []string{"cc1:sub:1 at seq 13 in scope cc\n", "revocation:deny  deny Bash for session cc1 and its sub-agents (incident 42)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, err := runCLI(t, "", append(tt.args, "--data", data)...)
			if err != nil {
				t.Fatalf("%v: %v %s", tt.args, err, errOut)
			}
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("the output lacks %q:\n%s", w, out)
				}
			}
		})
	}
	// With --json, check and why name the scope and the revocation.
	for _, cmd := range []string{"check", "why"} {
		out, errOut, err := runCLI(t, "", cmd, "--json", "--data", data, "--session", "cc1:sub:1", "--tool", "Bash", "--input", "ls")
		var got struct {
			Scope   string
			Revoked struct {
				Rule   string
				Record struct {
					Seq  uint64
					Type events.Type
				}
			}
		}
		if err != nil || json.Unmarshal([]byte(out), &got) != nil {
			t.Fatalf("%s --json: %v %s\n%s", cmd, err, errOut, out)
		}
		if got.Scope != "cc" || got.Revoked.Rule != "deny Bash for session cc1 and its sub-agents (incident 42)" ||
			got.Revoked.Record.Seq != seqDenyCC || got.Revoked.Record.Type != events.DenyAdded {
			t.Errorf("%s --json: %+v", cmd, got)
		}
	}
}

// TestExportNamesScopeAndIdentity: every export line names its scope; a
// session's lines carry its root's identity.
func TestExportNamesScopeAndIdentity(t *testing.T) {
	data := twoScopesLedger(t)
	out, errOut, err := runCLI(t, "", "export", "--data", data)
	if err != nil {
		t.Fatalf("export: %v %s", err, errOut)
	}
	lines := nonEmptyLines(out)
	if len(lines) != len(twoScopes) {
		t.Fatalf("%d lines, want %d", len(lines), len(twoScopes))
	}
	wantScope := map[uint64]string{seqPolicyDefault: "default", seqPolicyCC: "cc", seqDenyCC: "cc", seqDenyDefault: "default"}
	for _, line := range lines {
		var l struct {
			Seq      uint64
			Type     events.Type
			Session  events.SessionKey
			Scope    *string
			Identity *struct{ Runtime, RuntimeVersion, User, Host, Project string }
			Derived  *struct {
				ToolSet struct {
					Denied []struct {
						Tool   string
						Reason struct{ Code, Rule string }
					}
				} `json:"tool_set"`
			}
		}
		if err := json.Unmarshal([]byte(line), &l); err != nil {
			t.Fatal(err)
		}
		if l.Scope == nil {
			t.Errorf("seq %d: no scope: %s", l.Seq, line)
			continue
		}
		want := wantScope[l.Seq]
		switch {
		case strings.HasPrefix(string(l.Session), "cc"):
			want = "cc"
		case l.Session != "":
			want = "default"
		}
		if *l.Scope != want {
			t.Errorf("seq %d (%s %s): scope %q, want %q", l.Seq, l.Type, l.Session, *l.Scope, want)
		}
		switch l.Session {
		case "cc1", "cc1:sub:1":
			if l.Identity == nil || l.Identity.User != "alice" || l.Identity.Host != "h3" || l.Identity.Project != "/srv/c" || l.Identity.Runtime != "claude-code" {
				t.Errorf("seq %d (%s): identity %+v, want alice@h3's", l.Seq, l.Session, l.Identity)
			}
		case "":
			if l.Identity != nil {
				t.Errorf("seq %d (a policy record): identity %+v", l.Seq, l.Identity)
			}
		}
	}
}

// TestReportNamesScopeAndIdentity: the report shows every session's scope
// and identity, every scope's policy with its revocations, and names the
// scope of every denial and why trace.
func TestReportNamesScopeAndIdentity(t *testing.T) {
	data := twoScopesLedger(t)
	out, errOut, err := runCLI(t, "", "report", "--html", "-", "--data", data)
	if err != nil {
		t.Fatalf("report: %v %s", err, errOut)
	}
	for _, w := range []string{
		`Policy in force in scope <b>cc</b>: claude-code`,
		`Policy in force in scope <b>default</b>: openclaw`,
		`1 revocation(s) in force; <span class="mono">deny Bash for session cc1 and its sub-agents (incident 42) (seq 11 deny.added`,
		`<p class="meta identity">scope <b>cc</b>; runtime <b>claude-code</b> 2.1.328; user <b>alice</b>; host <b>h3</b>; project <span class="mono">/srv/c</span></p>`,
		`<p class="meta identity">scope <b>default</b>; runtime <b>openclaw</b> 2026.9.6; user <b>alice</b>; host <b>h1</b>; project <span class="mono">/srv/a</span></p>`,
		`<p class="meta identity">scope <b>cc</b>; runtime <b>claude-code</b>; user <b>bob</b></p>`,
		`<a class="mono" href="#s3">cc1</a> <span class="meta">scope <b>cc</b>, claude-code 2.1.328, alice@h3, /srv/c;</span>`,
		`<td class="mono">cc</td><td class="mono">cc1:sub:1</td><td>claude-code 2.1.328, alice@h3, /srv/c</td><td><a class="tool no" href="#s4-r12-why">Bash</a></td><td>call denied</td><td><code>revocation:deny</code></td>`,
		`revocation added</td><td class="mono">scope cc: deny Bash for session cc1 and its sub-agents (incident 42) by cli`,
		`<p class="cmd">Scope <b>cc</b>. Policy revision seq 2, 0 grant(s) in force.`,
		`<td>revocation</td><td>decided</td><td><code>revocation:deny</code></td>`,
	} {
		if !strings.Contains(out, w) {
			t.Errorf("the report lacks %q", w)
		}
	}
	// A policy change shows on the timelines of its own scope's sessions.
	if strings.Contains(out, `id="s1-r11"`) || !strings.Contains(out, `id="s3-r11"`) {
		t.Error("the cc revocation at seq 11 is on a default session's timeline, or not on cc1's")
	}
}

// TestDenyCommand: ledger deny appends a deny.added (deny.lifted with
// --lift) and prints its sequence; what it cannot mean is a usage error,
// what the ledger refuses exits 1 with the ledger's code.
func TestDenyCommand(t *testing.T) {
	data := twoScopesLedger(t)
	out, errOut, err := runCLI(t, "", "deny", "--data", data, "--rule", "web_*", "--agent", "ops", "--note", "ticket 7")
	if err != nil || !strings.HasPrefix(out, "revoked at seq 14 (deny.added ") || !strings.HasSuffix(out, "): deny web_* for agent ops (ticket 7), in scope default\n") {
		t.Fatalf("deny: %v %q %s", err, out, errOut)
	}
	out, _, _ = runCLI(t, "", "check", "--data", data, "--session", "agent:ops:main", "--tool", "web_fetch")
	if !strings.Contains(out, "deny (revocation:deny)") || !strings.Contains(out, "revoked by deny.added at seq 14") {
		t.Errorf("after the deny: %q", out)
	}
	out, errOut, err = runCLI(t, "", "deny", "--json", "--data", data, "--rule", "web_*", "--agent", "ops", "--lift")
	var res struct {
		Seq                 uint64
		ID                  string
		Type                events.Type
		Scope, Rule, Target string
	}
	if err != nil || json.Unmarshal([]byte(out), &res) != nil || res.Seq != 15 || res.Type != events.DenyLifted || res.ID == "" ||
		res.Scope != "default" || res.Rule != "web_*" || res.Target != "agent ops" {
		t.Fatalf("deny --lift --json: %v %q %s", err, out, errOut)
	}
	out, _, _ = runCLI(t, "", "check", "--data", data, "--session", "agent:ops:main", "--tool", "web_fetch")
	if !strings.Contains(out, "allow") {
		t.Errorf("after the lift: %q", out)
	}
	out, errOut, err = runCLI(t, "", "deny", "--data", data, "--rule", "Bash(git push *)", "--scope", "cc", "--user-identity", "bob")
	if err != nil || !strings.Contains(out, "deny Bash(git push *) for user bob, in scope cc\n") {
		t.Fatalf("deny in scope cc: %v %q %s", err, out, errOut)
	}
	out, errOut, err = runCLI(t, "", "log", "--json", "--data", data, "--tail", "1")
	if rec, derr := events.DecodeRecord([]byte(strings.TrimSpace(out))); err != nil || derr != nil || rec.Type != events.DenyAdded || rec.Actor != "cli" ||
		string(rec.Data) != `{"rule":"Bash(git push *)","scope":"cc","user":"bob"}` {
		t.Errorf("the record: %v %v %s %s", err, derr, out, errOut)
	}
	// A session's revocation without --scope is in the session's scope.
	out, errOut, err = runCLI(t, "", "deny", "--data", data, "--rule", "Read", "--session", "cc1")
	if err != nil || !strings.Contains(out, "deny Read for session cc1, in scope cc\n") {
		t.Fatalf("deny --session cc1 without --scope: %v %q %s", err, out, errOut)
	}
	if out, _, _ = runCLI(t, "", "check", "--data", data, "--session", "cc1", "--tool", "Read"); !strings.Contains(out, "deny (revocation:deny)") {
		t.Errorf("cc1's Read after the deny: %q", out)
	}

	tests := []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"no rule", []string{"--session", "cc1"}, 2, "--rule is required"},
		{"two targets", []string{"--rule", "exec", "--session", "cc1", "--project", "/srv/a"}, 2,
			"a revocation targets one of --session, --agent, --user-identity and --project; this one names --session and --project"},
		{"subtree without a session", []string{"--rule", "exec", "--subtree"}, 2, "--subtree extends a session's revocation to its sub-agents"},
		{"a bad scope name", []string{"--rule", "exec", "--scope", "a.b"}, 2, `--scope "a.b": a scope name is`},
		{"a bad session key", []string{"--rule", "exec", "--session", "a b"}, 2, `--session "a b": a session key is`},
		{"an argument", []string{"exec"}, 2, `deny takes no arguments, got "exec"`},
		{"a mistyped flag", []string{"--rul", "exec"}, 2, "flag provided but not defined: -rul (did you mean --rule?)"},
		{"--user and --user-identity naming two users", []string{"--rule", "exec", "--user", "alice", "--user-identity", "bob"}, 2,
			"--user alice and --user-identity bob name two users"},
		{"a scope with no policy", []string{"--rule", "exec", "--scope", "nowhere"}, 1, "invalid_policy"},
		{"a rule the dialect cannot read", []string{"--rule", "exec(rm -rf /)"}, 1, "invalid_event"},
		{"lifting what is not in force", []string{"--rule", "exec", "--lift"}, 1, "unknown_revocation"},
		{"no ledger", []string{"--rule", "exec", "--data", "{tmp}/none"}, 2, "no ledger in"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"deny", "--data", data}, tt.args...)
			for i := range args {
				args[i] = strings.ReplaceAll(args[i], "{tmp}", t.TempDir())
			}
			out, _, err := runCLI(t, "", args...)
			var msg strings.Builder
			if code := exitCode(err, &msg); code != tt.code || !strings.Contains(msg.String(), tt.msg) || out != "" {
				t.Fatalf("exit %d %q (stdout %q), want %d containing %q", code, msg.String(), out, tt.code, tt.msg)
			}
		})
	}
	// Nothing refused was written: the last record is still the cc
	// session's revocation.
	out, _, _ = runCLI(t, "", "log", "--data", data, "--tail", "1")
	if !strings.HasPrefix(strings.TrimSpace(out), "17 ") {
		t.Errorf("the log's last record: %q, want seq 17", out)
	}
}

// TestFilterUsageErrors: --user and --user-identity naming two users, and
// a malformed scope, are usage errors on every command that filters.
func TestFilterUsageErrors(t *testing.T) {
	for _, cmd := range []string{"tree", "log", "export", "report"} {
		for _, tc := range []struct {
			args []string
			msg  string
		}{
			{[]string{"--user", "alice", "--user-identity", "bob"}, "--user alice and --user-identity bob name two users"},
			{[]string{"--scope", "a>b"}, `--scope "a>b": a scope name is`},
			{[]string{"--user-identiy", "alice"}, "(did you mean --user-identity?)"},
		} {
			args := append([]string{cmd, "--data", filepath.Join(t.TempDir(), "none")}, tc.args...)
			if cmd == "report" {
				args = append(args, "--html", "-")
			}
			_, _, err := runCLI(t, "", args...)
			var msg strings.Builder
			if code := exitCode(err, &msg); code != 2 || !strings.Contains(msg.String(), tc.msg) {
				t.Errorf("%v: exit %d %q, want 2 containing %q", args, code, msg.String(), tc.msg)
			}
		}
	}
}

// TestWhatIfInAScope: replay --policy --scope compares the candidate with
// one scope's policy, on that scope's sessions only.
func TestWhatIfInAScope(t *testing.T) {
	data := twoScopesLedger(t)
	dir := t.TempDir()
	write := func(name, body string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	denyRead := write("deny-read.json", `{"permissions":{"deny":["Read"]}}`)
	event := write("event.json", `{"type":"policy.set","data":{"scope":"cc","dialect":"claude-code","document":{"permissions":{"deny":["Read"]}}}}`)
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"scope cc", []string{"--policy", denyRead, "--scope", "cc"}, 3, "as the policy of scope cc, against sequences 1..13 (2 turns of its sessions compared)"},
		{"the event's scope", []string{"--policy", event}, 3, "2 flip(s): 2 allow -> deny, 0 deny -> allow, in 2 session(s)"},
		{"the default scope's sessions only", []string{"--policy", write("oc.json", `{"tools":{"deny":["read"]}}`)}, 3, "1 flip(s): 1 allow -> deny, 0 deny -> allow, in 1 session(s)"},
		{"a scope with no policy", []string{"--policy", denyRead, "--scope", "nowhere"}, 1, `scope "nowhere" has no policy`},
		{"two scopes named", []string{"--policy", event, "--scope", "default"}, 2, "is the policy of scope cc: name one scope"},
		{"--scope without --policy", []string{"--out", filepath.Join(dir, "p.db"), "--scope", "cc"}, 2, "--scope names the scope of a what-if replay"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, _, err := runCLI(t, "", append([]string{"replay", "--data", data}, tt.args...)...)
			var msg strings.Builder
			code := exitCode(err, &msg)
			if code != tt.code || !strings.Contains(out+msg.String(), tt.want) {
				t.Fatalf("exit %d, stdout %q, stderr %q; want exit %d and %q", code, out, msg.String(), tt.code, tt.want)
			}
		})
	}
}

// TestPolicyImportScope: policy import --scope names the scope in the
// policy.set it prints, which then appends to that scope.
func TestPolicyImportScope(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "openclaw.json"), []byte(`{tools: {deny: ["exec"]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, err := runCLI(t, "", "policy", "import", "--dialect", "openclaw", "--scope", "oc:team-a", "--tools", "read,exec", filepath.Join(dir, "openclaw.json"))
	if err != nil {
		t.Fatalf("import: %v %s", err, errOut)
	}
	var ev struct {
		Type events.Type
		Data events.PolicySetData
	}
	if err := json.Unmarshal([]byte(out), &ev); err != nil || ev.Type != events.PolicySet || ev.Data.Scope != "oc:team-a" || ev.Data.Dialect != "openclaw" {
		t.Fatalf("the event: %+v (%v): %s", ev, err, out)
	}
	data := twoScopesLedger(t)
	if out, errOut, err := runCLI(t, out, "append", "--data", data); err != nil || !strings.Contains(out, "1 accepted") {
		t.Fatalf("append: %v %s %s", err, out, errOut)
	}
	_, _, err = runCLI(t, "", "policy", "import", "--dialect", "openclaw", "--scope", "a b", filepath.Join(dir, "openclaw.json"))
	var msg strings.Builder
	if code := exitCode(err, &msg); code != 2 || !strings.Contains(msg.String(), `--scope "a b"`) {
		t.Errorf("a bad scope: exit %d %q", code, msg.String())
	}
}

// serveForTest runs `ledger serve` in-process with a NATS listener and
// returns its URL; the server stops when the test ends.
func serveForTest(t *testing.T) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--data", filepath.Join(t.TempDir(), "d"), "--listen", "127.0.0.1:-1"}, nil, outW, io.Discard)
		outW.Close()
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve after cancel: %v", err)
		}
	})
	urlCh := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(outR)
		re := regexp.MustCompile(`nats://[0-9.:]+`)
		for sc.Scan() {
			if u := re.FindString(sc.Text()); u != "" {
				urlCh <- u
			}
		}
		io.Copy(io.Discard, outR)
	}()
	select {
	case url := <-urlCh:
		waitForAPI(t, url)
		return url
	case err := <-done:
		t.Fatalf("serve exited: %v", err)
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not start")
	}
	return ""
}

// waitForAPI waits until the ledger's micro service serves every endpoint
// at url: serve prints its address before the service is registered, and
// the service answers a ping before its endpoints are added (the watch
// endpoint last: api.Server.addEndpoints), so a request in between finds
// no responders. The INFO answer comes after the endpoints' subscriptions
// on the service's connection, so the server has them once it lists
// watch.
func waitForAPI(t *testing.T, url string) {
	t.Helper()
	nc, err := nats.Connect(url)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	ledgertest.WaitFor(t, 30*time.Second, "the ledger's service listing its endpoints", func() bool {
		m, err := nc.Request("$SRV.INFO.ledger", nil, time.Second)
		if err != nil {
			return false
		}
		var info struct {
			Endpoints []struct {
				Name string `json:"name"`
			} `json:"endpoints"`
		}
		if json.Unmarshal(m.Data, &info) != nil {
			return false
		}
		for _, e := range info.Endpoints {
			if e.Name == "watch" { // wire.EndpointWatch
				return true
			}
		}
		return false
	})
}

// TestDenyOverNATS: against --nats with --user, deny goes through the
// ledger's API as that operator, as append does, and the operator is the
// record's actor.
func TestDenyOverNATS(t *testing.T) {
	url := serveForTest(t)
	out, errOut, err := runCLI(t, strings.Join(twoScopes[:3], "\n")+"\n", "append", "--nats", url, "--user", "ops-alice")
	if err != nil || !strings.Contains(out, "3 accepted, 0 refused") {
		t.Fatalf("append: %v %s %s", err, out, errOut)
	}
	out, errOut, err = runCLI(t, "", "deny", "--json", "--nats", url, "--user", "ops-alice", "--rule", "exec", "--session", "agent:main:main", "--note", "ticket 9")
	var res struct {
		Seq  uint64
		Type events.Type
	}
	if err != nil || json.Unmarshal([]byte(out), &res) != nil || res.Seq != 4 || res.Type != events.DenyAdded {
		t.Fatalf("deny: %v %q %s", err, out, errOut)
	}
	out, errOut, err = runCLI(t, "", "log", "--json", "--nats", url, "--tail", "1")
	rec, derr := events.DecodeRecord([]byte(strings.TrimSpace(out)))
	if err != nil || derr != nil || rec.Type != events.DenyAdded || rec.Actor != "ops-alice" {
		t.Fatalf("the record: %v %v %s %s", err, derr, out, errOut)
	}
	out, _, err = runCLI(t, "", "why", "--nats", url, "--session", "agent:main:main", "--tool", "exec")
	if err != nil || !strings.Contains(out, "revoked:  by deny.added at seq 4 (") || !strings.Contains(out, "deny exec for session agent:main:main (ticket 9)") {
		t.Errorf("why: %v\n%s", err, out)
	}
	_, _, err = runCLI(t, "", "deny", "--nats", url, "--user", "ops-alice", "--rule", "exec", "--session", "agent:main:main", "--lift")
	if err != nil {
		t.Fatalf("lift: %v", err)
	}
	_, _, err = runCLI(t, "", "deny", "--nats", url, "--user", "ops-alice", "--rule", "exec", "--session", "agent:main:main", "--lift")
	if events.CodeOf(err) != events.CodeUnknownRevocation {
		t.Errorf("lifting twice: %v, want unknown_revocation", err)
	}
}

// TestDenyOverNATSFindsTheSessionsScope: against --nats with --user and no
// --scope, deny asks the ledger for the session's scope, so a revocation
// of a session in a Claude Code project's scope lands there; with a
// --scope that is not the session's, the ledger refuses it, naming the
// scope to give.
func TestDenyOverNATSFindsTheSessionsScope(t *testing.T) {
	url := serveForTest(t)
	out, errOut, err := runCLI(t, strings.Join(twoScopes[:6], "\n")+"\n", "append", "--nats", url, "--user", "ops-alice")
	if err != nil || !strings.Contains(out, "6 accepted, 0 refused") {
		t.Fatalf("append: %v %s %s", err, out, errOut)
	}
	out, errOut, err = runCLI(t, "", "deny", "--json", "--nats", url, "--user", "ops-alice", "--rule", "Bash", "--session", "cc2")
	var res struct {
		Seq   uint64
		Scope string
	}
	if err != nil || json.Unmarshal([]byte(out), &res) != nil || res.Seq != 7 || res.Scope != "cc" {
		t.Fatalf("deny without --scope: %v %q %s", err, out, errOut)
	}
	_, _, err = runCLI(t, "", "deny", "--nats", url, "--user", "ops-alice", "--rule", "exec", "--scope", "default", "--session", "cc2")
	if events.CodeOf(err) != events.CodeInvalidEvent || (err == nil || !strings.Contains(err.Error(), `bound to scope "cc"`)) {
		t.Errorf("deny in the default scope of a session bound to cc: %v, want invalid_event naming cc", err)
	}
}
