package cchook

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sessionledger/ledger/envelope"
)

// gatewayListing serves a 'ledger mcp' listing at /mcp/catalogue (the
// JSON mcpgw.Listing writes; TestHookListsTheGateway in internal/mcpgw
// runs MCPTools against the real gateway), requiring header want when set.
func gatewayListing(t *testing.T, body string, want [2]string) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet || r.URL.Path != "/mcp/catalogue" {
			http.NotFound(w, r)
			return
		}
		if want[0] != "" && r.Header.Get(want[0]) != want[1] {
			http.Error(w, "no token", http.StatusUnauthorized)
			return
		}
		fmt.Fprint(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/mcp"
}

func writeMCPJSON(t *testing.T, servers string) string {
	t.Helper()
	dir := t.TempDir()
	if servers != "" {
		if err := os.WriteFile(filepath.Join(dir, ".mcp.json"), []byte(`{"mcpServers": {`+servers+`}}`), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

const listingFS = `{"format":"ledger-mcp-catalogue/1","expose":"prefixed","tools":[{"server":"fs","tool":"read_file","exposed":"fs__read_file"},{"server":"fs","tool":"write_file","exposed":"fs__write_file"}]}`

// TestMCPTools: the names MCPTools learns from a project's .mcp.json, and
// the warning for every server whose tools stay unknown.
func TestMCPTools(t *testing.T) {
	gw := gatewayListing(t, listingFS, [2]string{"Authorization", "Bearer tok"})
	bare := gatewayListing(t, `{"format":"ledger-mcp-catalogue/1","expose":"bare","tools":[{"server":"fs","tool":"read.file","exposed":"read.file"}]}`, [2]string{})
	partial := gatewayListing(t, `{"format":"ledger-mcp-catalogue/1","expose":"prefixed","tools":[{"server":"fs","tool":"read_file","exposed":"fs__read_file"}],"unlisted":[{"server":"web","error":"connection refused"}]}`, [2]string{})
	other := gatewayListing(t, `{"tools":[]}`, [2]string{})
	down := httptest.NewServer(http.NotFoundHandler())
	downURL := down.URL + "/mcp"
	down.Close()
	env := func(k string) (string, bool) {
		if k == "TOKEN" {
			return "tok", true
		}
		return "", false
	}
	for _, c := range []struct {
		name    string
		servers string
		want    []string
		warns   []string // what each warning says, in server order
	}{
		{"no .mcp.json", "", nil, nil},
		{"a gateway, its token from the environment", fmt.Sprintf(`"ledger": {"type": "http", "url": %q, "headers": {"Authorization": "Bearer ${TOKEN}"}}`, gw),
			[]string{"mcp__fs__read_file", "mcp__fs__write_file", "mcp__ledger__fs__read_file", "mcp__ledger__fs__write_file"}, nil},
		{"a default in the url", fmt.Sprintf(`"ledger": {"type": "http", "url": "${GW_URL:-%s}", "headers": {"Authorization": "Bearer ${TOKEN}"}}`, gw),
			[]string{"mcp__fs__read_file", "mcp__fs__write_file", "mcp__ledger__fs__read_file", "mcp__ledger__fs__write_file"}, nil},
		{"without the token", fmt.Sprintf(`"ledger": {"type": "http", "url": %q, "headers": {"Authorization": "Bearer ${NOPE}"}}`, gw),
			nil, []string{`MCP server "ledger"`, "401", "--catalogue FILE"}},
		{"bare, an entry and a tool name Claude Code rewrites", fmt.Sprintf(`"my gw": {"type": "http", "url": %q}`, bare),
			[]string{"mcp__fs__read.file", "mcp__my_gw__read_file"}, nil},
		{"a gateway missing an upstream", fmt.Sprintf(`"ledger": {"type": "http", "url": %q}`, partial),
			[]string{"mcp__fs__read_file", "mcp__ledger__fs__read_file"}, []string{"some tools", "web (connection refused)"}},
		{"a stdio server and a server that is no gateway, beside a gateway", fmt.Sprintf(`"s": {"command": "srv"}, "o": {"type": "http", "url": %q}, "z": {"type": "http", "url": %q, "headers": {"Authorization": "Bearer tok"}}`, other, gw),
			[]string{"mcp__fs__read_file", "mcp__fs__write_file", "mcp__z__fs__read_file", "mcp__z__fs__write_file"},
			[]string{`MCP server "o"`, "not a 'ledger mcp' gateway", `MCP server "s"`, "a stdio server", "mcp__s__TOOL"}},
		{"a gateway that is down", fmt.Sprintf(`"ledger": {"type": "http", "url": %q}`, downURL),
			nil, []string{"is the gateway running?"}},
		{"not JSON", `"x": `, nil, []string{"not an MCP configuration"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, warns := MCPTools(t.Context(), writeMCPJSON(t, c.servers), "", nil, env)
			if !slices.Equal(got, c.want) {
				t.Errorf("names %v, want %v", got, c.want)
			}
			all := strings.Join(warns, "\n")
			for _, w := range c.warns {
				if !strings.Contains(all, w) {
					t.Errorf("the warnings do not say %q:\n%s", w, all)
				}
			}
			if len(c.warns) == 0 && len(warns) > 0 {
				t.Errorf("warnings %v, want none", warns)
			}
		})
	}
}

// TestMCPCatalogue: the project's MCP tools join the catalogue of the
// policy the hook installs, so a call to one is decided by the policy's
// rules; a tool no server lists is denied catalogue:unknown with a reason
// that says how to make it known; a listing that changes is a new
// policy.set at the next prompt, and one that is the same appends none.
func TestMCPCatalogue(t *testing.T) {
	l := newLedger(t, "")
	doc := `{"permissions":{"allow":["mcp__ledger"],"deny":["mcp__ledger__fs__write_file"]}}`
	tools := []string{"mcp__fs__read_file", "mcp__fs__write_file", "mcp__ledger__fs__read_file", "mcp__ledger__fs__write_file"}
	listed := tools
	var warned []string
	h := &Hook{L: l, Opts: Options{Catalogue: testCatalogue, Import: fixedDoc(doc), ReadFile: metaFiles(nil),
		Locate: func(string) Location { return testLoc }, Who: func() Who { return testWho },
		MCPTools: func(context.Context, string) ([]string, []string) { return listed, warned }}}
	res := h.Handle(t.Context(), loadPayload(t, "SessionStart.json", nil))
	want := `policy.set {"dialect":"claude-code","document":` + doc + `,"catalogue":` + jsonOf(t, append(slices.Clone(testCatalogue), tools...)) + `,"scope":"` + testScope + `"}`
	if len(l.log) == 0 || l.log[0] != want {
		t.Fatalf("the start appended:\n  %s\nwant first:\n  %s", strings.Join(l.log, "\n  "), want)
	}
	checkOutput(t, res, "{}", nil)
	for _, c := range []struct {
		tool string
		want envelope.Decision
		says []string
	}{
		{"mcp__ledger__fs__read_file", envelope.Allow, nil},
		{"mcp__ledger__fs__write_file", envelope.Deny, []string{"permission:deny"}},
		{"mcp__ledger__web__fetch", envelope.Deny, []string{"catalogue:unknown", "does not name mcp__ledger__web__fetch", "'ledger mcp' gateways", "--catalogue FILE"}},
	} {
		res := h.Handle(t.Context(), loadPayload(t, "PreToolUse.json", map[string]any{"tool_name": c.tool, "tool_input": map[string]any{}, "tool_use_id": "toolu_" + c.tool}))
		if res.Decision != c.want {
			t.Errorf("%s decided %s (%s), want %s", c.tool, res.Decision, res.Reason, c.want)
		}
		for _, s := range c.says {
			if !strings.Contains(res.Reason, s) {
				t.Errorf("%s: the denial does not say %q: %s", c.tool, s, res.Reason)
			}
		}
	}
	// The same listing at a prompt: no policy.set; a new tool: one, with
	// it; the gateway down (nothing listed, a warning): none, the tools as
	// recorded kept, and the warning shown; back with a tool less: one
	// without it.
	for i, c := range []struct {
		listed, warned []string
		set            bool
		has, hasNot    string
	}{
		{tools, nil, false, "", ""},
		{append(slices.Clone(tools), "mcp__ledger__fs__list"), nil, true, `"mcp__ledger__fs__list"`, ""},
		{nil, []string{"the tools of MCP server \"ledger\" are unknown"}, false, "", ""},
		{tools, nil, true, `"mcp__ledger__fs__write_file"`, `"mcp__ledger__fs__list"`},
	} {
		listed, warned = c.listed, c.warned
		l.log = nil
		res := h.Handle(t.Context(), loadPayload(t, "UserPromptSubmit.json", map[string]any{"prompt_id": fmt.Sprint("p", i)}))
		set := len(l.log) > 0 && strings.HasPrefix(l.log[0], "policy.set")
		if set != c.set || (set && (!strings.Contains(l.log[0], c.has) || c.hasNot != "" && strings.Contains(l.log[0], c.hasNot))) {
			t.Errorf("prompt %d appended %q; want a policy.set: %v, with %s, without %s", i, l.log, c.set, c.has, c.hasNot)
		}
		if len(c.warned) > 0 && !strings.Contains(string(res.Output), "are unknown") {
			t.Errorf("prompt %d: the warning is not shown: %s", i, res.Output)
		}
	}
	res = h.Handle(t.Context(), loadPayload(t, "PreToolUse.json", map[string]any{"tool_name": "mcp__ledger__fs__read_file", "tool_input": map[string]any{}, "tool_use_id": "toolu_last"}))
	if res.Decision != envelope.Allow {
		t.Errorf("the read after the gateway came back: %s (%s)", res.Decision, res.Reason)
	}
}

// TestMCPServerScopes: the servers Claude Code loads for a project come
// from the user's .claude.json (its own and the project's local ones) and
// the project's .mcp.json; of two of one name, local beats project beats
// user.
func TestMCPServerScopes(t *testing.T) {
	dir := writeMCPJSON(t, `"p": {"type": "http", "url": "http://p"}, "both": {"type": "http", "url": "http://project"}`)
	cj := filepath.Join(t.TempDir(), ".claude.json")
	doc := fmt.Sprintf(`{"mcpServers": {"u": {"type": "http", "url": "http://u"}, "both": {"type": "http", "url": "http://user"}},
		"projects": {%q: {"mcpServers": {"l": {"command": "x"}, "both": {"type": "http", "url": "http://local"}}}, "/elsewhere": {"mcpServers": {"e": {"command": "y"}}}},
		"numStartups": 3}`, dir)
	if err := os.WriteFile(cj, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := ReadMCPServers(dir, cj)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range got {
		names = append(names, s.Name+"="+s.URL+s.Command)
	}
	if want := []string{"both=http://local", "l=x", "p=http://p", "u=http://u"}; !slices.Equal(names, want) {
		t.Errorf("servers %v, want %v", names, want)
	}
	if got, err := ReadMCPServers(dir, filepath.Join(t.TempDir(), "none.json")); err != nil || len(got) != 2 {
		t.Errorf("without a .claude.json: %v %v, want the project's two", got, err)
	}
	if err := os.WriteFile(cj, []byte(`{`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadMCPServers(dir, cj); err == nil || !strings.Contains(err.Error(), "not an MCP configuration") {
		t.Errorf("a broken .claude.json: %v", err)
	}
}
