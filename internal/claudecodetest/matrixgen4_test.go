package claudecodetest

import (
	"fmt"
	"math/rand/v2"
)

// genToolRuleCases draws cases of n calls in all: each case has random
// allow, ask and deny rules over the tools that take no path (MCP tools by
// server, wildcard and name, WebFetch by domain, WebSearch, TodoWrite),
// well-formed and not (but for an empty specifier, which the dialect
// refuses with the policy and the release skips), against calls of every MCP tool of the run, fetches
// of hosts near the rules' domains and of a preapproved one, and searches,
// in every mode. A call the dialect runs where the release asks or denies
// is a rule or a mode approving more than it does: a fail-open.
func genToolRuleCases(seed uint64, n int) []dcase {
	r := rand.New(rand.NewPCG(seed, 0x7001))
	pick := func(l []string) string { return l[r.IntN(len(l))] }
	mcp := map[string][]string{"srv": {"echo", "danger"}, "other": {"ping"}, "wide": {"echo", "danger", "ping"}}
	rules := []string{"mcp__srv", "mcp__srv__*", "mcp__srv__echo", "mcp__srv__danger", "mcp__other", "mcp__other__ping",
		"mcp__wide__*", "mcp__wide__echo", "mcp__wide", "mcp__*", "mcp__srv__ech*", "mcp__SRV__echo", "mcp__srv__echo(x)",
		"mcp__srv__", "mcp", "*", "mcp__wide__*o", "mcp__other__*", "mcp__srv*",
		"WebFetch", "WebFetch(domain:example.com)", "WebFetch(domain:*.example.com)",
		"WebFetch(domain:sub.example.com)", "WebFetch(domain:evil.test)", "WebFetch(domain:*)", "WebFetch(domain:*.test)",
		"WebFetch(example.com)", "WebFetch(domain:EXAMPLE.com)", "WebFetch(*)", "WebFetch(domain:example.com:8443)",
		"WebFetch(domain:go.dev)", "WebFetch(domain:*.go.dev)", "WebFetch(domain:)", "WebFetch(domain:example.*)",
		"WebSearch", "WebSearch(ledger)", "WebSearch(*)", "TodoWrite", "TodoWrite(*)"}
	urls := []string{"https://example.com/", "https://sub.example.com/x", "https://a.b.example.com/", "https://EXAMPLE.com/",
		"https://example.com:8443/", "https://evil.test/", "https://x.evil.test/", "http://example.com/",
		"https://example.com.evil.test/", "https://notexample.com/", "https://go.dev/doc/effective_go", "https://x.go.dev/",
		"https://example.org/", "https://example.com./"}
	var out []dcase
	for c := 0; n > 0; c++ {
		var s Settings
		for range 1 + r.IntN(3) {
			s.Allow = append(s.Allow, pick(rules))
		}
		if r.IntN(2) == 0 {
			s.Ask = append(s.Ask, pick(rules))
		}
		if r.IntN(2) == 0 {
			s.Deny = append(s.Deny, pick(rules))
		}
		var probes []probe
		for range 20 {
			switch k := r.IntN(10); {
			case k < 4:
				srv := pick([]string{"srv", "other", "wide"})
				tool := pick(mcp[srv])
				in := map[string]any{"text": "a"}
				if tool == "ping" {
					in = map[string]any{}
				}
				probes = append(probes, probe{"mcp__" + srv + "__" + tool, in})
			case k < 8:
				probes = append(probes, fetch(pick(urls)))
			case k == 8:
				probes = append(probes, probe{"WebSearch", map[string]any{"query": pick([]string{"ledger", "go docs"})}})
			default:
				probes = append(probes, probe{"TodoWrite", map[string]any{"todos": []any{map[string]any{"content": "x",
					"status": "pending", "activeForm": "x"}}}})
			}
		}
		modes := []string{pick([]string{"default", "acceptEdits"}), pick([]string{"bypassPermissions", "dontAsk", "plan"})}
		n -= len(modes) * len(probes)
		for _, d := range filesCases(fmt.Sprintf("gen-tools%d", c), "generated tool rules", modes, "", Settings{}, s, nil,
			[][]probe{probes}) {
			d.mcp = mcp
			out = append(out, d)
		}
	}
	return out
}

// matrixGenToolsPlan: MCP tools allowed by tool, server and wildcard rules
// in plan mode, where the release holds them before its allow rules, and
// in default mode, where the rules run them; with ask and deny rules and a
// WebFetch allow beside them (gen-tools seed 1).
func matrixGenToolsPlan() []dcase {
	mcp := map[string][]string{"srv": {"echo", "danger"}, "other": {"ping"}, "wide": {"echo", "danger", "ping"}}
	call := func(srv, tool string) probe {
		if tool == "ping" {
			return probe{"mcp__" + srv + "__" + tool, map[string]any{}}
		}
		return probe{"mcp__" + srv + "__" + tool, map[string]any{"text": "a"}}
	}
	probes := []probe{call("srv", "echo"), call("srv", "danger"), call("other", "ping"), call("wide", "echo"), call("wide", "danger"),
		call("wide", "ping"), fetch("https://example.com/"), fetch("https://evil.test/")}
	var out []dcase
	for _, d := range filesCases("gentools-plan", "generated tool rules", []string{"plan", "default"}, "", Settings{},
		Settings{Allow: []string{"mcp__srv__echo", "mcp__other", "mcp__wide__*", "WebFetch(domain:example.com)"},
			Ask: []string{"mcp__wide__ping"}, Deny: []string{"mcp__srv__danger"}}, nil, [][]probe{probes}) {
		d.mcp = mcp
		out = append(out, d)
	}
	return out
}

// matrixGenToolsPlanReadOnly: an MCP tool its server marks read-only
// (readOnlyHint), which the release runs in plan mode under an allow rule
// and the dialect holds (section 0.3), beside one it does not mark.
func matrixGenToolsPlanReadOnly() []dcase {
	probes := []probe{{"mcp__srv__ro_echo", map[string]any{"text": "a"}}, {"mcp__srv__echo", map[string]any{"text": "a"}},
		{"mcp__other__ro_echo", map[string]any{"text": "a"}}}
	var out []dcase
	for _, d := range filesCases("gentools-plan-readonly", "generated tool rules", []string{"plan", "default"}, "", Settings{},
		Settings{Allow: []string{"mcp__srv"}}, nil, [][]probe{probes}) {
		d.mcp = map[string][]string{"srv": {"ro_echo", "echo"}, "other": {"ro_echo"}}
		out = append(out, d)
	}
	return out
}

// matrixGenDomainStar: WebFetch(domain:*) is a domain rule that matches
// every host, not the bare rule: denied, WebFetch stays in the pool and
// each call is denied; allowed and asked, every host (gen-tools seed 2).
func matrixGenDomainStar() []dcase {
	fetches := []probe{fetch("https://example.com/"), fetch("https://a.b.example.com/"), fetch("https://example.com:8443/"),
		fetch("http://127.0.0.1:9/"), fetch("https://go.dev/doc/effective_go"), fetch("http://[::1]:9/")}
	out := filesCases("gentools-domainstar-deny", "generated tool rules", []string{"default", "bypassPermissions"}, "", Settings{},
		Settings{Deny: []string{"WebFetch(domain:*)"}}, nil, [][]probe{fetches})
	out = append(out, filesCases("gentools-domainstar-allow", "generated tool rules", []string{"default", "plan"}, "", Settings{},
		Settings{Allow: []string{"WebFetch(domain:*)"}}, nil, [][]probe{fetches})...)
	return append(out, filesCases("gentools-domainstar-ask", "generated tool rules", []string{"bypassPermissions"}, "", Settings{},
		Settings{Ask: []string{"WebFetch(domain:*)"}}, nil, [][]probe{fetches})...)
}

// matrixGenToolsAgentModes: an allowed and an unlisted MCP tool in
// sub-agents whose permissionMode is plan, acceptEdits, bypassPermissions
// or none, under a plan, default and bypassPermissions main session: which
// mode holds a child's MCP call (row 87).
func matrixGenToolsAgentModes() []dcase {
	probes := func() [][]probe {
		return [][]probe{{{"mcp__srv__echo", map[string]any{"text": "a"}}, {"mcp__srv__danger", map[string]any{"text": "a"}},
			fetch("https://example.com/")}}
	}
	agents := []Agent{{Name: "pm-plan", PermissionMode: "plan"}, {Name: "pm-accept", PermissionMode: "acceptEdits"},
		{Name: "pm-bypass", PermissionMode: "bypassPermissions"}, {Name: "pm-none"}}
	var out []dcase
	for _, m := range []string{"plan", "default", "bypassPermissions"} {
		mode := m
		if m == "default" {
			mode = ""
		}
		sessions := []session{root(nil)}
		for _, a := range agents {
			sessions = append(sessions, child(a.Name, a.Name, "main", probes()))
		}
		out = append(out, dcase{name: "gentools-agent-modes-" + m, group: "generated tool rules", mode: mode, paths: true,
			settings: Settings{Allow: []string{"mcp__srv__echo", "WebFetch(domain:example.com)"}},
			mcp:      map[string][]string{"srv": {"echo", "danger"}}, agents: agents, sessions: sessions})
	}
	return out
}
