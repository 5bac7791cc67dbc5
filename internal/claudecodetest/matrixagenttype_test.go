package claudecodetest

// A round on the case of an Agent call's subagent_type: Agent(type) deny
// and ask rules written in one case against a call naming the type in
// another, a main-thread agent's and a sub-agent's tools: Agent(type)
// list against such a call, and custom agent names that differ only in
// case (matrixAgentType).

// askedChild is a sub-agent of main whose spawn call names asked, which
// the CLI resolves to the agent typ.
func askedChild(script, typ, asked string) session {
	s := child(script, typ, "main", [][]probe{{rd("a.txt")}})
	s.asked = asked
	return s
}

// spawnProbe is an Agent call of subagent_type typ whose sub-agent, if
// the CLI starts one, has no script (it answers "done"): for calls the CLI
// refuses in its Agent tool, after permission.
func spawnProbe(typ, script string) probe {
	return probe{"Agent", map[string]any{"description": "probe " + script, "prompt": "script:" + script, "subagent_type": typ,
		"run_in_background": false}}
}

// matrixAgentType: the case of a subagent_type against Agent(type) rules,
// tools: Agent(type) lists and agent names.
func matrixAgentType() []dcase {
	md := func(front string) string { return "---\n" + front + "---\nDo what the prompt says.\n" }
	var out []dcase
	out = append(out, dcase{name: "agents-type-case-deny", group: "agents type case",
		settings: Settings{Deny: []string{"Agent(Explore)", "Agent(Worker)", "Agent(plan)"}},
		agents:   []Agent{{Name: "worker"}, {Name: "Other"}},
		sessions: []session{root([][]probe{{spawnProbe("Worker", "wx"), spawnProbe("plan", "px"), spawnProbe("Explore", "ex")}}),
			askedChild("ex1", "Explore", "explore"), askedChild("ex2", "Explore", "EXPLORE"),
			askedChild("w1", "worker", "worker"), askedChild("w3", "worker", "WORKER"),
			askedChild("o1", "Other", "other"), askedChild("pl1", "Plan", "Plan"), askedChild("pl2", "Plan", "PLAN"),
			askedChild("g1", "general-purpose", "General_Purpose")}})
	out = append(out, dcase{name: "agents-type-case-ask", group: "agents type case",
		settings: Settings{Ask: []string{"Agent(Explore)", "Agent(worker)"}},
		agents:   []Agent{{Name: "worker"}},
		sessions: []session{root(nil), askedChild("ex1", "Explore", "explore"), askedChild("ex3", "Explore", "Explore"),
			askedChild("w1", "worker", "worker"), askedChild("w3", "worker", "WORKER")}})
	out = append(out, dcase{name: "agents-type-case-listed", group: "agents type case", agent: "lead",
		agents: []Agent{{Name: "lead", Tools: "Agent(worker, Plan), Read"}, {Name: "worker", Tools: "Read"}},
		sessions: []session{root([][]probe{{spawnProbe("Worker", "wx"), spawnProbe("WORKER", "wy"), spawnProbe("plan", "px")}}),
			askedChild("w1", "worker", "worker")}})
	// A sub-agent's tools: Agent(worker) (the type list is ignored there).
	out = append(out, dcase{name: "agents-type-case-sub", group: "agents type case",
		agents: []Agent{{Name: "sub", Tools: "Agent(worker), Read"}, {Name: "worker", Tools: "Read"}},
		sessions: []session{root(nil), child("sub", "sub", "main", [][]probe{{spawnProbe("Explore", "sy")}}),
			{script: "sw1", typ: "worker", parent: "sub", asked: "Worker", turns: [][]probe{{rd("a.txt")}}},
			{script: "sw2", typ: "worker", parent: "sub", asked: "worker", turns: [][]probe{{rd("a.txt")}}}}})
	out = append(out, dcase{name: "agents-type-case-upper-listed", group: "agents type case", agent: "lead",
		agents: []Agent{{Name: "lead", Tools: "Agent(Worker), Read"}, {Name: "worker"}},
		sessions: []session{root([][]probe{{spawnProbe("worker", "wx"), spawnProbe("WORKER", "wy")}}),
			askedChild("w2", "worker", "Worker")}})
	out = append(out, dcase{name: "agents-type-case-names", group: "agents type case", imported: true,
		files: map[string]string{
			".claude/agents/twin-lower.md": md("name: twin\ndescription: lower\ntools: Read\n"),
			".claude/agents/twin-upper.md": md("name: Twin\ndescription: upper\ntools: Read, Bash\n"),
			".claude/agents/solo.md":       md("name: Solo\ndescription: solo\ntools: Read\n"),
		},
		sessions: []session{root([][]probe{{spawnProbe("TWIN", "tx")}}),
			askedChild("t1", "twin", "twin"), askedChild("t2", "Twin", "Twin"),
			askedChild("s1", "Solo", "solo"), askedChild("s2", "Solo", "SOLO")}})
	return out
}
