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
		s := drawRules(r, rules, 3, "allow")
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
		mode := cliMode(m)
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

// genParamRuleCases draws cases of n calls in all: each case has random
// deny, ask and allow parameter rules (tool(p:v): scalar parameters other
// than the content fields, with globs, booleans and numbers) against calls
// that set those parameters or not, in default mode and bypassPermissions.
// A call the dialect runs where the release asks or denies is a parameter
// rule the dialect missed: a fail-open.
func genParamRuleCases(seed uint64, n int) []dcase {
	r := rand.New(rand.NewPCG(seed, 0x9a7a))
	pick := func(l []string) string { return l[r.IntN(len(l))] }
	rules := []string{"Read(limit:5)", "Read(limit:*)", "Read(offset:1*)", "Read(limit:05)", "Read(limit:5.0)",
		"Grep(output_mode:content)", "Grep(output_mode:*)", "Grep(-i:true)", "Grep(-i:false)", "Grep(-i:*)", "Grep(glob:*.txt)",
		"Grep(head_limit:1*)", "Grep(pattern:a)", "Grep(pattern:*)", "Glob(pattern:*.txt)", "Glob(pattern:**)",
		"Bash(description:*secret*)", "Bash(description:probe)", "Bash(timeout:5000)", "Bash(timeout:5*)", "Bash(run_in_background:true)",
		"Bash(description:Probe)", "Edit(replace_all:true)", "Edit(old_string:old)", "Edit(new_string:*new*)",
		"Write(content:*key*)", "Write(content:x*)", "WebFetch(prompt:*secret*)", "WebFetch(prompt:summarise)",
		"WebSearch(query:led*)", "WebSearch(query:ledger)", "Read(file_path:*a.txt)", "Bash(command:ls)", "Grep(path:src)",
		"TodoWrite(todos:*)", "WebSearch(allowed_domains:*)", "Read(pages:1)"}
	files := map[string]string{"a.txt": "a\nold\n", "src/m.txt": "a\n"}
	for i := range 24 {
		files[fmt.Sprintf("e%d.txt", i)] = "old\n" // one file an edit: an edit that ran leaves no "old" behind
	}
	var out []dcase
	for c := 0; n > 0; c++ {
		s := drawRules(r, rules, 3, "deny")
		probes := []probe{rd("a.txt")}
		edits := 0
		for range 20 {
			switch k := r.IntN(9); k {
			case 0:
				in := map[string]any{"file_path": "a.txt"}
				for _, p := range []string{"limit", "offset"} {
					if r.IntN(2) == 0 {
						in[p] = []int{1, 5, 50, 10}[r.IntN(4)]
					}
				}
				probes = append(probes, probe{"Read", in})
			case 1:
				in := map[string]any{"pattern": pick([]string{"a", "old", "x"})}
				if r.IntN(2) == 0 {
					in["output_mode"] = pick([]string{"content", "files_with_matches", "count"})
				}
				if r.IntN(2) == 0 {
					in["-i"] = r.IntN(2) == 0
				}
				if r.IntN(3) == 0 {
					in["glob"] = "*.txt"
				}
				if r.IntN(3) == 0 {
					in["head_limit"] = []int{1, 10}[r.IntN(2)]
				}
				if r.IntN(3) == 0 {
					in["path"] = "src"
				}
				probes = append(probes, probe{"Grep", in})
			case 2:
				probes = append(probes, probe{"Glob", map[string]any{"pattern": pick([]string{"*.txt", "**/*.txt", "src/*"})}})
			case 3:
				in := map[string]any{"command": pick([]string{"ls", "echo hi", "cat a.txt"}),
					"description": pick([]string{"probe", "Probe", "a secret probe", "list"})}
				if r.IntN(2) == 0 {
					in["timeout"] = []int{5000, 50000, 60000}[r.IntN(3)]
				}
				probes = append(probes, probe{"Bash", in})
			case 4:
				f := fmt.Sprintf("e%d.txt", edits)
				edits++
				in := map[string]any{"file_path": f, "old_string": "old", "new_string": pick([]string{"new", "newer", "x"})}
				if r.IntN(2) == 0 {
					in["replace_all"] = r.IntN(2) == 0
				}
				probes = append(probes, rd(f), probe{"Edit", in})
			case 5:
				probes = append(probes, probe{"Write", map[string]any{"file_path": fmt.Sprintf("w%d-%d.txt", c, len(probes)),
					"content": pick([]string{"x\n", "key=1\n", "y\n"})}})
			case 6:
				probes = append(probes, probe{"WebFetch", map[string]any{"url": "https://example.com/",
					"prompt": pick([]string{"summarise", "find the secret", "Summarise"})}})
			case 7:
				probes = append(probes, probe{"WebSearch", map[string]any{"query": pick([]string{"ledger", "ledgers", "go docs"})}})
			default:
				probes = append(probes, probe{"TodoWrite", map[string]any{"todos": []any{map[string]any{"content": "x",
					"status": "pending", "activeForm": "x"}}}})
			}
		}
		modes := []string{"default", "bypassPermissions"}
		n -= len(modes) * len(probes)
		out = append(out, filesCases(fmt.Sprintf("gen-params%d", c), "generated parameter rules", modes, "", Settings{}, s, files,
			[][]probe{probes})...)
	}
	return out
}

// matrixGenParamTools: a deny parameter rule on each kind of tool, against
// a call that sets the parameter to a matching value: which tools the
// release reads a p:v specifier on as a parameter (gen-params seed 1).
func matrixGenParamTools() []dcase {
	probes := []probe{rd("a.txt"), {"Read", map[string]any{"file_path": "a.txt", "limit": 5}},
		{"Grep", map[string]any{"pattern": "a", "-i": true}}, {"Grep", map[string]any{"pattern": "a", "output_mode": "count"}},
		{"Glob", map[string]any{"pattern": "*.txt"}}, {"Bash", map[string]any{"command": "ls", "description": "a secret probe"}},
		{"Bash", map[string]any{"command": "ls", "description": "probe", "timeout": 5000}},
		rd("e0.txt"), {"Edit", map[string]any{"file_path": "e0.txt", "old_string": "old", "new_string": "new", "replace_all": true}},
		{"Write", map[string]any{"file_path": "w1.txt", "content": "key=1\n"}},
		{"WebFetch", map[string]any{"url": "https://example.com/", "prompt": "find the secret"}},
		{"WebSearch", map[string]any{"query": "ledger"}},
		{"TodoWrite", map[string]any{"todos": []any{map[string]any{"content": "x", "status": "pending", "activeForm": "x"}}}}}
	files := map[string]string{"a.txt": "a\n", "e0.txt": "old\n"}
	return filesCases("genparams-tools", "generated parameter rules", []string{"default", "bypassPermissions"}, "", Settings{},
		Settings{Deny: []string{"Read(limit:5)", "Grep(-i:true)", "Glob(pattern:*.txt)", "Bash(description:*secret*)",
			"Edit(replace_all:true)", "Write(content:*key*)", "WebFetch(prompt:*secret*)", "WebSearch(query:led*)", "TodoWrite(todos:*)"},
			Ask: []string{"Grep(output_mode:count)", "Bash(timeout:5000)"}}, files, [][]probe{probes})
}

// matrixGenParamStar: parameter rules whose value is `*` or ends in `:*`,
// on the tools the release reads parameters on, and a WebSearch query
// rule without a wildcard.
func matrixGenParamStar() []dcase {
	probes := []probe{rd("a.txt"), {"Read", map[string]any{"file_path": "a.txt", "limit": 5}},
		{"Grep", map[string]any{"pattern": "a", "-i": true}}, {"Grep", map[string]any{"pattern": "a", "output_mode": "count"}},
		{"Glob", map[string]any{"pattern": "*.txt"}}, rd("e0.txt"),
		{"Edit", map[string]any{"file_path": "e0.txt", "old_string": "old", "new_string": "new", "replace_all": true}},
		{"WebSearch", map[string]any{"query": "ledger"}}, {"WebSearch", map[string]any{"query": "go docs"}},
		{"Read", map[string]any{"file_path": "a.txt", "offset": 1}}}
	files := map[string]string{"a.txt": "a\n", "e0.txt": "old\n"}
	return filesCases("genparams-star", "generated parameter rules", []string{"default", "bypassPermissions"}, "", Settings{},
		Settings{Deny: []string{"Read(limit:*)", "Grep(-i:*)", "Glob(pattern:*)", "Edit(replace_all:*)", "WebSearch(query:ledger)",
			"Read(offset:1*)"}, Ask: []string{"Grep(output_mode:c*)"}}, files, [][]probe{probes})
}

// matrixGenParamPaths: what a Read or Edit rule `p:*` is to the release
// (it is no parameter rule there), against files whose names start with
// its text.
func matrixGenParamPaths() []dcase {
	probes := []probe{rd("limit:x.txt"), rd("limitx.txt"), rd("limit/a.txt"), rd("sub/limit:y.txt"), rd("a.txt"),
		{"Read", map[string]any{"file_path": "a.txt", "limit": 5}}, rd("replace_all:e.txt"), wr("replace_all:n.txt"),
		wr("replace_allx.txt")}
	files := map[string]string{"a.txt": "a\n", "limit:x.txt": "l\n", "limitx.txt": "l\n", "limit/a.txt": "l\n", "sub/limit:y.txt": "l\n",
		"replace_all:e.txt": "old\n"}
	return filesCases("genparams-paths", "generated parameter rules", []string{"default", "acceptEdits"}, "", Settings{},
		Settings{Deny: []string{"Read(limit:*)", "Edit(replace_all:*)"}}, files, [][]probe{probes})
}

// matrixGenWebSearchRules: WebSearch rules whose specifier is a query, not
// a parameter, in deny and ask.
func matrixGenWebSearchRules() []dcase {
	probes := []probe{{"WebSearch", map[string]any{"query": "ledger"}}, {"WebSearch", map[string]any{"query": "go docs"}},
		{"WebSearch", map[string]any{"query": "ledgers"}}}
	return filesCases("genparams-websearch", "generated parameter rules", []string{"bypassPermissions"}, "", Settings{},
		Settings{Deny: []string{"WebSearch(ledger)"}, Ask: []string{"WebSearch(go docs)"}}, nil, [][]probe{probes})
}

// matrixGenParamLeadingStar: parameter rules on Read, Edit and Write whose
// value starts with * (which the release does not read as parameter
// rules) beside the same values without it (gen-params seeds 2 and 3).
func matrixGenParamLeadingStar() []dcase {
	files := map[string]string{"a.txt": "a\n", "e0.txt": "old\n", "e1.txt": "old\n", "e2.txt": "old\n"}
	probes := []probe{rd("a.txt"), {"Read", map[string]any{"file_path": "a.txt", "offset": 1}},
		{"Read", map[string]any{"file_path": "a.txt", "limit": 5}},
		{"Write", map[string]any{"file_path": "w1.txt", "content": "key=1\n"}}, {"Write", map[string]any{"file_path": "w2.txt", "content": "kez=1\n"}},
		{"Write", map[string]any{"file_path": "w3.txt", "content": "a:key\n"}},
		rd("e0.txt"), {"Edit", map[string]any{"file_path": "e0.txt", "old_string": "old", "new_string": "new"}},
		rd("e1.txt"), {"Edit", map[string]any{"file_path": "e1.txt", "old_string": "old", "new_string": "brew"}},
		rd("e2.txt"), {"Edit", map[string]any{"file_path": "e2.txt", "old_string": "old", "new_string": "x"}}}
	return filesCases("genparams-leadingstar", "generated parameter rules", []string{"bypassPermissions"}, "", Settings{},
		Settings{Deny: []string{"Read(offset:*1)", "Read(limit:5*)", "Write(content:*key*)", "Write(content:kez*)", "Write(content:a:*)",
			"Edit(new_string:*ew)", "Edit(new_string:x*)"}}, files, [][]probe{probes})
}

// matrixGenSkills: the Skill tool on project skills under Skill rules:
// name, prefix (":*") and glob forms in allow, ask and deny; skills the
// release approves by themselves (no key beyond name, description and
// model) and ones it does not (allowed-tools).
func matrixGenSkills() []dcase {
	files := map[string]string{
		".claude/skills/hello/SKILL.md":     "---\nname: hello\ndescription: Says hello\n---\nSay hello.\n",
		".claude/skills/helper/SKILL.md":    "---\nname: helper\ndescription: Helps\n---\nHelp.\n",
		".claude/skills/deploy-it/SKILL.md": "---\nname: deploy-it\ndescription: Deploys\n---\nDeploy.\n",
		".claude/skills/tooly/SKILL.md":     "---\nname: tooly\ndescription: Uses tools\nallowed-tools: Bash(ls:*)\n---\nList.\n",
		".claude/skills/toolz/SKILL.md":     "---\nname: toolz\ndescription: Uses tools\nallowed-tools: Read\n---\nRead.\n",
		".claude/skills/modely/SKILL.md":    "---\nname: modely\ndescription: Picks a model\nmodel: haiku\n---\nThink.\n",
	}
	skill := func(name string) probe { return probe{"Skill", map[string]any{"skill": name}} }
	probes := []probe{skill("hello"), skill("helper"), skill("deploy-it"), skill("/hello"), skill("tooly"), skill("toolz"),
		skill("modely"), skill("/tooly")}
	out := filesCases("genskills-rules", "generated skill rules", []string{"default", "bypassPermissions"}, "", Settings{},
		Settings{Allow: []string{"Skill(hello)", "Skill(tool*)", "Skill(model:*)", "Skill(/toolz)"}, Ask: []string{"Skill(help*)"},
			Deny: []string{"Skill(deploy:*)"}}, files, [][]probe{probes})
	return append(out, filesCases("genskills-ask", "generated skill rules", []string{"bypassPermissions"}, "", Settings{},
		Settings{Ask: []string{"Skill(helper)", "Skill(hello:*)", "Skill(skill:deploy*)", "Skill(tooly)"}}, files,
		[][]probe{probes})...)
}

// matrixGenAgentRuleForms: Agent rules in forms beyond a list of types:
// a glob, a ":*" prefix, a list with blanks, the Task alias, and
// parameter rules, in deny and ask.
func matrixGenAgentRuleForms() []dcase {
	spawn := func(typ, script string) probe {
		return probe{"Agent", map[string]any{"description": "probe " + script, "prompt": "script:" + script, "subagent_type": typ,
			"run_in_background": false}}
	}
	probes := []probe{spawn("Explore", "r1"), spawn("plain", "r2"), spawn("worker", "r3"), spawn("general-purpose", "r4"),
		spawn("Plan", "r5"), spawn("workhorse", "r6")}
	var out []dcase
	for _, m := range []string{"default", "bypassPermissions"} {
		mode := cliMode(m)
		out = append(out, dcase{name: "genagents-forms-" + m, group: "generated agent rules", paths: true, mode: mode,
			agents: []Agent{{Name: "plain"}, {Name: "worker"}, {Name: "workhorse"}},
			settings: Settings{Deny: []string{"Agent(Expl*)", "Agent(work:*)", "Task(description:*r5*)"},
				Ask: []string{"Agent( plain ,  other )", "Agent(general-*)"}},
			sessions: []session{root([][]probe{probes})}})
	}
	return out
}

// genSkillRuleCases draws cases of n calls in all: random Skill rules in
// name, prefix, glob, parameter and odd forms against calls of project
// skills spelled several ways, in default mode and bypassPermissions.
func genSkillRuleCases(seed uint64, n int) []dcase {
	r := rand.New(rand.NewPCG(seed, 0x5c111))
	pick := func(l []string) string { return l[r.IntN(len(l))] }
	files := map[string]string{
		".claude/skills/hello/SKILL.md":     "---\nname: hello\ndescription: Says hello\n---\nSay hello.\n",
		".claude/skills/helper/SKILL.md":    "---\nname: helper\ndescription: Helps\nallowed-tools: Read\n---\nHelp.\n",
		".claude/skills/deploy-it/SKILL.md": "---\nname: deploy-it\ndescription: Deploys\nallowed-tools: Bash(ls:*)\n---\nDeploy.\n",
		".claude/skills/Mixed/SKILL.md":     "---\nname: Mixed\ndescription: Mixed case\nallowed-tools: Read\n---\nMix.\n",
	}
	rules := []string{"Skill(hello)", "Skill(hel*)", "Skill(hel:*)", "Skill(hello *)", "Skill(/hello)", "Skill(/hel:*)", "Skill(Hello)",
		"Skill(helper)", "Skill(deploy:*)", "Skill(deploy-it)", "Skill(skill:dep*)", "Skill(skill:hello)", "Skill(skill:*)",
		"Skill(mixed)", "Skill(Mixed)", "Skill(Mix:*)", "Skill(*)", "Skill", "Skill(args:*x*)", "Skill( hello )", "Skill(hello:*)",
		"Skill(d:*)", "Skill(deploy)", "Skill(skill:/hello)", "Skill(skill:Mixed)"}
	names := []string{"hello", "helper", "deploy-it", "Mixed", "/hello", "/deploy-it", " helper", "/Mixed"}
	var out []dcase
	for c := 0; n > 0; c++ {
		s := drawRules(r, rules, 2, "allow")
		var probes []probe
		for range 10 {
			in := map[string]any{"skill": pick(names)}
			if r.IntN(4) == 0 {
				in["args"] = pick([]string{"x", "fix it"})
			}
			probes = append(probes, probe{"Skill", in})
		}
		modes := []string{"default", "bypassPermissions"}
		n -= len(modes) * len(probes)
		out = append(out, filesCases(fmt.Sprintf("gen-skills%d", c), "generated skill rules", modes, "", Settings{}, s, files,
			[][]probe{probes})...)
	}
	return out
}

// drawRules draws a generated case's rules from pool: 1 to most rules in
// the list first names ("allow" or "deny"), then one ask rule half the
// time, then one rule in the other list half the time.
func drawRules(r *rand.Rand, pool []string, most int, first string) Settings {
	s := &Settings{}
	pick := func() string { return pool[r.IntN(len(pool))] }
	lead, last := &s.Allow, &s.Deny
	if first == "deny" {
		lead, last = &s.Deny, &s.Allow
	}
	for range 1 + r.IntN(most) {
		*lead = append(*lead, pick())
	}
	if r.IntN(2) == 0 {
		s.Ask = append(s.Ask, pick())
	}
	if r.IntN(2) == 0 {
		*last = append(*last, pick())
	}
	return *s
}
