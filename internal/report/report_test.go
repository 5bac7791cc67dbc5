package report_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"html"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/dialects"
	"github.com/sessionledger/ledger/internal/report"
	"github.com/sessionledger/ledger/internal/service"
	"github.com/sessionledger/ledger/projection"
	"github.com/sessionledger/ledger/replay"
	"github.com/sessionledger/ledger/wire"
)

func TestDiff(t *testing.T) {
	deny := func(tool, code string) envelope.Denial {
		return envelope.Denial{Tool: tool, Reason: envelope.Reason{Code: code}}
	}
	tests := []struct {
		name   string
		prev   []string
		cur    envelope.ToolSet
		gained []string
		lost   []envelope.Denial
	}{
		{"first turn gains every allowed tool", nil, envelope.ToolSet{Allowed: []string{"read", "exec"}, Denied: []envelope.Denial{deny("web", "global:deny")}},
			[]string{"read", "exec"}, []envelope.Denial{}},
		{"no change", []string{"read"}, envelope.ToolSet{Allowed: []string{"read"}}, []string{}, []envelope.Denial{}},
		{"a tool lost with its reason, one gained", []string{"read", "exec"},
			envelope.ToolSet{Allowed: []string{"read", "web"}, Denied: []envelope.Denial{deny("exec", "inherited:deny")}},
			[]string{"web"}, []envelope.Denial{deny("exec", "inherited:deny")}},
		{"a tool that left the catalogue", []string{"read", "gone"}, envelope.ToolSet{Allowed: []string{"read"}},
			[]string{}, []envelope.Denial{deny("gone", "catalogue:unknown")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gained, lost := report.Diff(tt.prev, tt.cur)
			if !slices.Equal(gained, tt.gained) || fmt.Sprint(lost) != fmt.Sprint(tt.lost) {
				t.Fatalf("got %v %v, want %v %v", gained, lost, tt.gained, tt.lost)
			}
		})
	}
}

// ledger appends events to an in-memory log with a fixed clock and returns
// its records.
func ledger(t *testing.T, evs ...string) []*events.Record {
	t.Helper()
	ctx := context.Background()
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	log := &service.MemLog{}
	svc := service.New(service.Config{Log: log, Dialects: dialects.All(), Clock: func() time.Time { return clock }})
	for _, ev := range evs {
		if _, err := svc.Append(ctx, []byte(ev)); err != nil {
			t.Fatalf("%s: %v", ev, err)
		}
		clock = clock.Add(time.Second)
	}
	recs, err := service.ReadRecords(ctx, log, 1, svc.Position())
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

var story = []string{
	`{"type":"policy.set","v":1,"actor":"ops","data":{"dialect":"openclaw","document":{"tools":{"deny":["gateway"]}},"catalogue":["read","exec","gateway"]}}`,
	`{"type":"session.started","v":1,"session":"agent:main:main","actor":"o","data":{"agent":"main"}}`,
	`{"type":"turn.started","v":1,"session":"agent:main:main","actor":"o","data":{"turn":1}}`,
	`{"type":"session.spawned","v":1,"session":"agent:main:subagent:x","actor":"o","data":{"parent":"agent:main:main","agent":"main","label":"<img src=x onerror=alert(1)>"}}`,
	`{"type":"tool.checked","v":1,"session":"agent:main:main","actor":"o","data":{"turn":1,"tool":"gateway","call":"c1"}}`,
}

func render(t *testing.T, recs []*events.Record, opts report.Options) string {
	t.Helper()
	r, err := report.Build(dialects.All(), recs, opts)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := report.Render(&b, r); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestBuild(t *testing.T) {
	recs := ledger(t, story...)
	page := render(t, recs, report.Options{})
	for _, want := range []string{
		"<title>ledger audit report</title>",
		"the log up to sequence 5",
		"&lt;img src=x onerror=alert(1)&gt;", // labels are text, never markup
		`id="s1-r5-why"`,                     // the denied call's trace
		"ledger why --call c1 --record 5",    // the denied call's own record
		"<code>global:deny</code>",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if strings.Contains(page, "<img src=x") {
		t.Error("a label reached the page as markup")
	}
	if again := render(t, recs, report.Options{}); again != page {
		t.Error("the same records rendered twice differ")
	}
	if _, err := report.Build(dialects.All(), recs, report.Options{Root: "ghost"}); events.CodeOf(err) != events.CodeUnknownSession {
		t.Errorf("an unknown root: %v", err)
	}
	if page := render(t, nil, report.Options{Title: "empty"}); !strings.Contains(page, "No sessions yet.") || !strings.Contains(page, "<title>empty</title>") {
		t.Errorf("the report of an empty log:\n%s", page)
	}
}

func TestExporter(t *testing.T) {
	recs := ledger(t, story...)
	st, err := replay.Fold(dialects.All(), recs, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := report.Subtree(st, "agent:main:main"); !slices.Equal(got, []events.SessionKey{"agent:main:main", "agent:main:subagent:x"}) {
		t.Errorf("Subtree = %v", got)
	}
	if got := report.RootOf(st, "agent:main:subagent:x"); got != "agent:main:main" {
		t.Errorf("RootOf = %s", got)
	}
	sel, err := report.SelectIn(st, "agent:main:subagent:x", wire.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	x, err := report.NewExporter(st, sel)
	if err != nil {
		t.Fatal(err)
	}
	var kept []events.Type
	for i, rec := range recs {
		raw, _ := rec.Encode()
		l, err := x.Line(uint64(i)+1, raw)
		if err != nil {
			t.Fatal(err)
		}
		if l != nil {
			kept = append(kept, l.Type)
		}
	}
	// The child's tree: its spawn and the policy, not its parent's records.
	if want := []events.Type{events.PolicySet, events.SessionSpawned}; !slices.Equal(kept, want) {
		t.Errorf("exported %v, want %v", kept, want)
	}
	if _, err := report.SelectIn(projection.New(dialects.All()), "ghost", wire.Filter{}); events.CodeOf(err) != events.CodeUnknownSession {
		t.Errorf("an unknown root: %v", err)
	}
}

// TestHostileToolNameCommand: the page's why command of a call whose id
// (and tool) is x$(touch f);id names it quoted, with its record, and every
// command the page prints, split by a shell, runs nothing (issue 15).
func TestHostileToolNameCommand(t *testing.T) {
	recs := ledger(t, append(slices.Clone(story[:3]),
		`{"type":"tool.checked","v":1,"session":"agent:main:main","actor":"o","data":{"turn":1,"tool":"x$(touch f);id","call":"x$(touch f);id"}}`)...)
	page := html.UnescapeString(render(t, recs, report.Options{}))
	const want = `ledger why --call 'x$(touch f);id' --record 4`
	if !strings.Contains(page, want) {
		i := strings.Index(page, "ledger why")
		t.Fatalf("the page lacks %s; it has %.120s", want, page[max(i, 0):])
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	dir := t.TempDir()
	cmds := regexp.MustCompile(`<code>(ledger [^<]*)</code>`).FindAllStringSubmatch(page, -1)
	if len(cmds) == 0 {
		t.Fatal("the page prints no command")
	}
	for _, m := range cmds {
		cmd := exec.Command(sh, "-c", `printf '%s\0' `+strings.TrimPrefix(m[1], "ledger "))
		cmd.Dir = dir
		if _, err := cmd.Output(); err != nil {
			t.Errorf("%s: sh: %v", m[1], err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "f")); err == nil {
		t.Error("a printed command ran code")
	}
}

// TestDeniedCallShowsItsInput: the why of a denied call names its record
// and shows the input its tool.checked recorded, so the page says what
// was refused.
func TestDeniedCallShowsItsInput(t *testing.T) {
	recs := ledger(t, append(slices.Clone(story[:3]),
		`{"type":"tool.checked","v":1,"session":"agent:main:main","actor":"o","data":{"turn":1,"tool":"gateway","call":"c9","input":{"command":"rm -rf x"}}}`)...)
	page := html.UnescapeString(render(t, recs, report.Options{}))
	if want := `Input <code>{"command":"rm -rf x"}</code>. In a terminal: <code>ledger why --call c9 --record 4</code>`; !strings.Contains(page, want) {
		i := strings.Index(page, "In a terminal")
		t.Fatalf("the page lacks %s; it has %.200s", want, page[max(i-100, 0):])
	}
}

// TestTurnShowsWhatChanged (issue 26, point 8): a turn shows the tools it
// gained and lost, each with what it was, the record that changed it and,
// for a release's rule, what that release does; the whole tool set is
// shown open on the session's first turn only.
func TestTurnShowsWhatChanged(t *testing.T) {
	recs := ledger(t,
		`{"type":"policy.set","v":1,"actor":"ops","data":{"dialect":"claude-code","document":{"release":"2.1.328","permissions":{"allow":["Bash","Read","Glob","Grep"]}},"catalogue":["Bash","Read","Glob","Grep"]}}`,
		`{"type":"session.started","v":1,"session":"lead","actor":"o","data":{"agent":"main"}}`,
		`{"type":"turn.started","v":1,"session":"lead","actor":"o","data":{"turn":1}}`,
		`{"type":"grant.added","v":1,"actor":"ops-alice","data":{"kind":"permission","agent":"*","target":"*","behavior":"deny","rule":"Bash"}}`,
		`{"type":"turn.started","v":1,"session":"lead","actor":"o","data":{"turn":2}}`,
	)
	r, err := report.Build(dialects.All(), recs, report.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var turns []*report.Turn
	for _, e := range r.Sessions[0].Timeline {
		if e.Turn != nil {
			turns = append(turns, e.Turn)
		}
	}
	if len(turns) != 2 || !turns[0].First || turns[1].First {
		t.Fatalf("turns %+v", turns)
	}
	if got := turns[0].Allowed; !slices.Equal(got, []string{"Bash", "Read"}) {
		t.Fatalf("turn 1 allowed %v, want Bash and Read (the release gives Glob and Grep only to a pool without Bash)", got)
	}
	t2 := turns[1]
	var gained []string
	for _, g := range t2.Gained {
		gained = append(gained, g.Tool)
		if !strings.HasPrefix(g.Was, "deny release:search_via_bash") || !strings.Contains(g.Explain, "gives Grep and Glob only to a pool without Bash") {
			t.Errorf("gained %s: was %q, explained %q", g.Tool, g.Was, g.Explain)
		}
		if g.Cause == nil || g.Cause.Seq != 4 || g.Cause.Link != "p4" || !strings.Contains(g.Cause.Text, "grant added") || !strings.Contains(g.Cause.Text, "ops-alice") {
			t.Errorf("gained %s: cause %+v, want the grant at seq 4", g.Tool, g.Cause)
		}
	}
	if !slices.Equal(gained, []string{"Glob", "Grep"}) {
		t.Errorf("turn 2 gained %v, want Glob and Grep", gained)
	}
	if len(t2.Lost) != 1 || t2.Lost[0].Tool != "Bash" || !strings.HasPrefix(t2.Lost[0].Was, "allow") || t2.Lost[0].Cause == nil || t2.Lost[0].Cause.Seq != 4 {
		t.Errorf("turn 2 lost %+v", t2.Lost)
	}

	page := render(t, recs, report.Options{})
	i := strings.Index(page, `id="s1-t2"`)
	if i < 0 {
		t.Fatal("no row for turn 2")
	}
	row := page[i:]
	row = row[:strings.Index(row, "</li>\n")]
	for _, want := range []string{`<span class="tool ok">+Glob</span>`, `changed by <a href="#p4">`, `<details class="toolset"><summary>tool set: 3 allowed, 1 denied</summary>`} {
		if !strings.Contains(row, want) {
			t.Errorf("turn 2's row lacks %q:\n%s", want, row)
		}
	}
	if j := strings.Index(row, `<span class="name">allowed (3)</span>`); j < strings.Index(row, `<details class="toolset">`) {
		t.Error("turn 2's row lists its whole tool set outside the closed tool set")
	}
}

// TestCallRowShowsItsInput: a call's row shows what it was to do (the
// command, the path, the url), shortened, with line breaks and
// bidirectional controls written as escapes and markup as text.
func TestCallRowShowsItsInput(t *testing.T) {
	long := strings.Repeat("a", 200)
	recs := ledger(t, append(slices.Clone(story[:3]),
		`{"type":"tool.checked","v":1,"session":"agent:main:main","actor":"o","data":{"turn":1,"tool":"exec","call":"c1","input":{"command":"ls\nrm -rf /\u202e <b>x</b>"}}}`,
		`{"type":"tool.checked","v":1,"session":"agent:main:main","actor":"o","data":{"turn":1,"tool":"read","call":"c2","input":{"path":"/etc/`+long+`"}}}`,
		`{"type":"tool.checked","v":1,"session":"agent:main:main","actor":"o","data":{"turn":1,"tool":"read","call":"c3","input":{"other":1}}}`,
	)...)
	page := render(t, recs, report.Options{})
	for _, want := range []string{
		`<code class="input">ls\nrm -rf /\u202e &lt;b&gt;x&lt;/b&gt;</code>`,
		`<code class="input">/etc/` + long[:115] + `…</code>`,
		`<code class="input">{&#34;other&#34;:1}</code>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
}

// TestSessionsCarryTheirIdentity: every session of a tree (a sub-agent
// its root's), the spawn tree's root line, the time axis and the denials
// index name the scope and the identity the root started with.
func TestSessionsCarryTheirIdentity(t *testing.T) {
	recs := ledger(t,
		`{"type":"policy.set","v":1,"actor":"ops","data":{"scope":"cc:api","dialect":"openclaw","document":{"tools":{"deny":["gateway"]}},"catalogue":["read","gateway"]}}`,
		`{"type":"session.started","v":1,"session":"agent:main:main","actor":"o","data":{"agent":"main","scope":"cc:api","runtime":"claude-code","runtime_version":"2.1.328","project":"/srv/api","user":"alice","host":"h3"}}`,
		`{"type":"turn.started","v":1,"session":"agent:main:main","actor":"o","data":{"turn":1}}`,
		`{"type":"session.spawned","v":1,"session":"agent:main:subagent:x","actor":"o","data":{"parent":"agent:main:main","agent":"main"}}`,
		`{"type":"turn.started","v":1,"session":"agent:main:subagent:x","actor":"o","data":{"turn":1}}`,
		`{"type":"tool.checked","v":1,"session":"agent:main:subagent:x","actor":"o","data":{"turn":1,"tool":"gateway","call":"c1"}}`,
	)
	page := render(t, recs, report.Options{})
	const who = "claude-code 2.1.328, alice@h3, /srv/api"
	for _, want := range []string{
		`scope <b>cc:api</b>; runtime <b>claude-code</b> 2.1.328; user <b>alice</b>; host <b>h3</b>; project <span class="mono">/srv/api</span>`,
		`<span class="meta">scope <b>cc:api</b>, ` + who + `;</span>`,
		`<td class="mono">agent:main:subagent:x</td><td>` + who + `</td>`,
		`<title>agent:main:subagent:x (agent main, active; scope cc:api; ` + who + `)</title>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
	if n := strings.Count(page, `<p class="meta identity">scope <b>cc:api</b>; runtime <b>claude-code</b>`); n != 2 {
		t.Errorf("%d sessions show the identity, want both", n)
	}
}

// TestOneRecordCallIsMarkedStarted: a call checked and started by one
// record (tool.checked with effect: true) is marked so when it was
// allowed; a denied one is a denied call like any other, started by
// nothing.
func TestOneRecordCallIsMarkedStarted(t *testing.T) {
	recs := ledger(t, append(slices.Clone(story[:3]),
		`{"type":"tool.checked","v":1,"session":"agent:main:main","actor":"o","data":{"turn":1,"tool":"read","call":"s1","effect":true}}`,
		`{"type":"tool.checked","v":1,"session":"agent:main:main","actor":"o","data":{"turn":1,"tool":"gateway","call":"s2","effect":true}}`,
	)...)
	r, err := report.Build(dialects.All(), recs, report.Options{})
	if err != nil {
		t.Fatal(err)
	}
	page := render(t, recs, report.Options{})
	if !strings.Contains(page, "read (turn 1, call s1): allow") || !strings.Contains(page, "check, effect started") {
		t.Errorf("the allowed call's row is not marked started")
	}
	if !strings.Contains(page, "gateway (turn 1, call s2): deny (") || regexp.MustCompile(`call s2\): deny \([^)]*\), effect started`).MatchString(page) {
		t.Errorf("the denied call's row is not a denial, or says it started")
	}
	denied := 0
	for _, d := range r.Denials {
		if d.Tool == "gateway" {
			denied++
		}
	}
	if denied != 1 {
		t.Errorf("%d denials of gateway, want the one-record call's", denied)
	}
}

// TestContentSecurityPolicy: the page a report renders holds one script,
// whose hash its policy names, and loads nothing.
func TestContentSecurityPolicy(t *testing.T) {
	page := render(t, ledger(t, story...), report.Options{})
	if n := strings.Count(page, "<script"); n != 1 {
		t.Fatalf("the page holds %d scripts, want 1 (the policy names one by its hash)", n)
	}
	_, rest, _ := strings.Cut(page, "<script>")
	script, _, _ := strings.Cut(rest, "</script>")
	sum := sha256.Sum256([]byte(script))
	policy := report.ContentSecurityPolicy([]byte(page))
	if want := "script-src 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"; len(script) < 100 || !strings.Contains(policy, want) {
		t.Errorf("ContentSecurityPolicy = %q, want %s", policy, want)
	}
	for _, ext := range []string{"<img", "<link", "<iframe", "<object", "<embed", "url("} {
		if strings.Contains(page, ext) {
			t.Errorf("the page loads something (%q), which default-src 'none' refuses", ext)
		}
	}
}
