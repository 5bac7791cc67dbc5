package claudecodetest

// Cases for the differences the differential round of seeds 5501 on
// found.

// matrixZeroToolsTask: a tools list naming Task (Agent's old name) that a
// disallowedTools entry Task or Agent takes away, beside the same with
// Agent (gen-agents seed 5503 found g3, tools Task and disallowedTools
// Task, Monitor, refused by Claude Code 2.1.328 as spawned with zero
// tools where the dialect spawned it: fail-open).
func matrixZeroToolsTask() []dcase {
	files := agentFiles(Agent{Name: "zt1", Tools: "Task", DisallowedTools: "Task"}, Agent{Name: "zt2", Tools: "Task", DisallowedTools: "Agent"},
		Agent{Name: "zt3", Tools: "Agent", DisallowedTools: "Task"}, Agent{Name: "zt4", Tools: "Agent", DisallowedTools: "Agent"},
		Agent{Name: "zt5", Tools: "Task"}, Agent{Name: "zt6", Tools: "Bash(git:*)", DisallowedTools: "Bash"},
		Agent{Name: "zt7", Tools: "Task(Explore)", DisallowedTools: "Agent"}, Agent{Name: "zt8", Tools: "Agent(Explore)", DisallowedTools: "Agent"},
		Agent{Name: "zt9", Tools: "Agent(*)", DisallowedTools: "Agent"})
	calls := [][]probe{{rd("a.txt")}}
	var out []dcase
	for _, m := range []string{"default", "dontAsk"} {
		out = append(out, dcase{name: "zerotoolstask-" + m, group: "generated agents", mode: cliMode(m), paths: true, imported: true, files: files,
			sessions: []session{root(nil), child("zt1", "zt1", "main", calls), child("zt2", "zt2", "main", calls), child("zt3", "zt3", "main", calls),
				child("zt4", "zt4", "main", calls), child("zt5", "zt5", "main", calls), child("zt6", "zt6", "main", calls),
				child("zt7", "zt7", "main", calls), child("zt8", "zt8", "main", calls), child("zt9", "zt9", "main", calls)}})
	}
	return out
}

// matrixEditAllowHeld: an Edit allow rule in the user's settings beside
// an Edit deny or ask rule that covers the path read (gen-user seed 5525
// found Read ~/a.txt and ~/gp/a.txt under allow Edit(~/**/*) and deny
// Edit(~/*), which Claude Code 2.1.328 asks for where the dialect read
// them: fail-open).
func matrixEditAllowHeld() []dcase {
	files := map[string]string{"../home/gp/a.txt": "h\n", "../home/a.txt": "h\n"}
	calls := [][]probe{{rd(homeP + "/gp/a.txt"), rd(homeP + "/a.txt")}}
	mk := func(n string, u Settings) dcase {
		return dcase{name: "editallowheld-" + n, group: "generated user settings", paths: true, files: files, user: u, sessions: []session{root(calls)}}
	}
	return []dcase{
		mk("deny", Settings{Allow: []string{"Edit(~/**/*)"}, Deny: []string{"Edit(~/*)"}}),
		mk("ask", Settings{Allow: []string{"Edit(~/**)"}, Ask: []string{"Edit(~/*)"}}),
		mk("allowonly", Settings{Allow: []string{"Edit(~/**/*)"}}),
		mk("otherdeny", Settings{Allow: []string{"Edit(~/**)"}, Deny: []string{"Edit(~/zz.txt)"}}),
	}
}
