package claudecodetest

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// genAgentCases draws cases of about n calls in all: each case has four
// custom agents with random tools, disallowedTools and permissionMode
// values, random allow, ask and deny rules over the tools they call, and a
// random mode for the main session; each agent, spawned from the main
// thread, makes random reads, writes, Bash commands (read-only and not),
// MCP calls and fetches; in half the cases g2 spawns g3 instead of the
// main thread, and the rules may name the agents. A call the dialect runs
// in an agent where the release asks, denies or does not offer the tool is
// an agent's tools or mode allocating more than the release does: a
// fail-open. The dialect reads the agents as 'ledger policy import' reads
// their files.
func genAgentCases(seed uint64, n int) []dcase {
	r := rand.New(rand.NewPCG(seed, 0xa9e7))
	pick := func(l []string) string { return l[r.IntN(len(l))] }
	mcp := map[string][]string{"srv": {"echo", "danger"}, "other": {"ping"}}
	toolPool := []string{"Read", "Write", "Edit", "Bash", "WebFetch", "mcp__srv__echo", "mcp__srv__danger", "mcp__srv__*",
		"mcp__srv", "mcp__other", "mcp__other__ping", "*", "Bash(git:*)", "Bash(ls *)", "Read(a.txt)", "Write(*.txt)",
		"read", "BASH", "Agent", "Task", "TodoWrite", "NotebookEdit", "Glob", "Grep", "Monitor", "mcp__*", "WebSearch"}
	list := func(most int) string {
		var l []string
		for range r.IntN(most + 1) {
			l = append(l, pick(toolPool))
		}
		return strings.Join(l, ", ")
	}
	agentModes := []string{"", "", "default", "acceptEdits", "plan", "bypassPermissions", "dontAsk"}
	rules := []string{"Read", "Write", "Edit", "Bash", "Bash(ls *)", "Bash(ls)", "Bash(git status)", "Bash(touch *)",
		"Bash(git:*)", "Read(secret.txt)", "Read(./a.txt)", "Edit(w-*)", "Write(w-*)", "Edit(**)", "Edit(/sub/**)",
		"mcp__srv__echo", "mcp__srv", "mcp__srv__*", "mcp__other__ping", "mcp__other", "WebFetch(domain:example.com)",
		"WebFetch", "TodoWrite", "Agent(g1)", "Agent(g3)", "Task(g2)", "Agent"}
	var out []dcase
	for c := 0; n > 0; c++ {
		s := drawRules(r, rules, 3, pick([]string{"allow", "deny"}))
		var agents []Agent
		for i := range 4 {
			a := Agent{Name: fmt.Sprintf("g%d", i), PermissionMode: pick(agentModes)}
			switch r.IntN(3) {
			case 0:
				a.Tools = list(4)
			case 1:
				a.DisallowedTools = list(3)
			}
			if r.IntN(4) == 0 {
				a.DisallowedTools = list(2)
			}
			agents = append(agents, a)
		}
		m := pick([]string{"default", "default", "acceptEdits", "plan", "bypassPermissions", "dontAsk"})
		// Half the cases, g2 spawns g3 (if its tools and the rules let
		// it) instead of the main thread: a child spawns from its parent
		// after the parent's calls (dcase.scripts), so no Agent call is
		// drawn for it (one would run g3 twice, under one script).
		nested := r.IntN(2) == 0
		sessions := []session{root(nil)}
		for _, a := range agents {
			parent := "main"
			if nested && a.Name == "g3" {
				parent = "g2"
			}
			var probes []probe
			for i := range 8 {
				switch k := r.IntN(12); {
				case k < 2:
					probes = append(probes, rd(pick([]string{"a.txt", "secret.txt", "sub/anchored.txt", "docs/a.md"})))
				case k < 4:
					probes = append(probes, wr(fmt.Sprintf("%s-%s-%d.txt", pick([]string{"w", "sub/w", "x"}), a.Name, i)))
				case k < 7:
					probes = append(probes, sh(pick([]string{"ls", "git status", "cat a.txt", "ls sub",
						fmt.Sprintf("touch w-%s-t%d.txt", a.Name, i), fmt.Sprintf("echo x > x-%s-e%d.txt", a.Name, i)})))
				case k < 10:
					srv := pick([]string{"srv", "other"})
					tool := pick(mcp[srv])
					in := map[string]any{"text": "a"}
					if tool == "ping" {
						in = map[string]any{}
					}
					probes = append(probes, probe{"mcp__" + srv + "__" + tool, in})
				default:
					probes = append(probes, fetch(pick([]string{"https://example.com/", "https://evil.test/"})))
				}
			}
			sessions = append(sessions, child(a.Name, a.Name, parent, [][]probe{probes}))
		}
		n -= 8 * len(agents)
		out = append(out, dcase{name: fmt.Sprintf("gen-agents%d-%s", c, m), group: "generated agents", mode: cliMode(m),
			paths: true, imported: true, settings: s, mcp: mcp, files: agentFiles(agents...), sessions: sessions})
	}
	return out
}

// matrixGenAgentsNestedPlan: a sub-agent whose permissionMode is plan,
// spawned by a sub-agent that is not in plan mode, beside one with no
// mode: which gets ExitPlanMode, and what each is asked (gen-agents seed
// 11).
func matrixGenAgentsNestedPlan() []dcase {
	files := agentFiles(Agent{Name: "na-outer"}, Agent{Name: "na-plan", PermissionMode: "plan"}, Agent{Name: "na-none"})
	calls := func(who string) [][]probe {
		return [][]probe{{wr("w-" + who + ".txt"), rd("a.txt"), sh("ls"), sh("touch t-" + who + ".txt")}}
	}
	var out []dcase
	for _, m := range []string{"default", "acceptEdits", "bypassPermissions"} {
		out = append(out, dcase{name: "genagents-nested-plan-" + m, group: "generated agents", mode: cliMode(m), paths: true,
			imported: true, files: files, sessions: []session{root(nil), child("na-outer", "na-outer", "main", calls("outer")),
				child("na-plan", "na-plan", "na-outer", calls("plan")), child("na-none", "na-none", "na-outer", calls("none"))}})
	}
	return out
}

// matrixGenAgentsNestedSearch: Grep and Glob in a sub-agent spawned by a
// sub-agent whose disallowedTools removes Bash, bare and by a specifier
// (gen-agents seeds 13 to 15).
func matrixGenAgentsNestedSearch() []dcase {
	files := agentFiles(Agent{Name: "ns-outer", DisallowedTools: "Bash"}, Agent{Name: "ns-outer2", DisallowedTools: "Bash(git:*)"},
		Agent{Name: "ns-inner"})
	calls := [][]probe{{globP(), grepP(), rd("a.txt")}}
	return []dcase{{name: "genagents-nested-search", group: "generated agents", paths: true, imported: true, files: files,
		sessions: []session{root(nil), child("ns-outer", "ns-outer", "main", calls), child("ns-outer2", "ns-outer2", "main", calls),
			child("ns-inner", "ns-inner", "ns-outer", calls), child("ns-inner2", "ns-inner", "ns-outer2", calls)}}}
}

// matrixGenSkillsSlash: a skill named with a leading "/" under deny
// rules of the parameter form (skill:<glob>) and the name form, in
// default mode and bypassPermissions (gen-skills seed 9).
func matrixGenSkillsSlash() []dcase {
	files := map[string]string{
		".claude/skills/hello/SKILL.md":     "---\nname: hello\ndescription: Says hello\n---\nSay hello.\n",
		".claude/skills/deploy-it/SKILL.md": "---\nname: deploy-it\ndescription: Deploys\nallowed-tools: Bash(ls:*)\n---\nDeploy.\n",
		".claude/skills/Mixed/SKILL.md":     "---\nname: Mixed\ndescription: Mixed case\nallowed-tools: Read\n---\nMix.\n",
	}
	sk := func(name string) probe { return probe{"Skill", map[string]any{"skill": name}} }
	probes := []probe{sk("/hello"), sk("hello"), sk("/Mixed"), sk("/deploy-it"), sk("deploy-it")}
	return filesCases("genskills-slash", "generated skill rules", []string{"default", "bypassPermissions"}, "", Settings{},
		Settings{Allow: []string{"Skill(deploy-it)"}, Deny: []string{"Skill(skill:hello)", "Skill(skill:Mixed)", "Skill(skill:dep*)"}},
		files, [][]probe{probes})
}

// agentFiles are the agents' definition files in a project, as a case's
// files (read by the importer when the case is imported).
func agentFiles(agents ...Agent) map[string]string {
	files := map[string]string{}
	for _, a := range agents {
		files[".claude/agents/"+a.Name+".md"] = a.markdown()
	}
	return files
}
