package claudecodetest

// The fifth round of how a shell reads a command line: removals judged
// where their targets resolve (the working directory, its ancestors, home,
// a top-level directory spelled with '.' and '..'), and here-documents.

// matrixShell5 is the round's cases.
func matrixShell5() []dcase {
	var out []dcase
	for _, f := range []func() []dcase{matrixCritical5, matrixHeredoc5} {
		out = append(out, f()...)
	}
	return out
}

// matrixCritical5: rm and rmdir targets that resolve to a critical path
// (the project, its ancestors, HOME, the root or a top-level directory,
// a mounted drive) and ones that do not, under an rm allow rule. Every
// target is harmless if removed: -i with no answer removes nothing, rm
// refuses '.', '..' and '/', and the others do not exist (or are inside
// the run's temporary project).
func matrixCritical5() []dcase {
	probes := shs("rm -ri "+projP, "rm -ri "+projP+"/", "rm -ri "+projP+"/sub/..", "rm -ri "+projP+"/.", "rm -ri "+BaseToken,
		"rm -ri "+projP+"/..", "rm -ri "+homeP, "rm -ri "+homeP+"/x5/..", "rm -ri ~/x5/..", "rm -ri $HOME/x5/..", "rm -ri sub/..",
		"rm -ri x5/../..", "rm -ri ./.", "rm -rf x6/../x7", "rm -rf "+projP+"/x8", "rm -rf "+projP+"/sub/x9", "rm -rf /sh5none/x/../..",
		"rm -rf /sh5none/../sh5none2", "rm -rf /usr/../sh5none", "rm -rf /sh5none/./", "rm -rf /sh5none/x/.", "rm -rf /usr/sh5none/.",
		"rm -r /mnt/sh5none", "rm -r /media/sh5none", "rm /mnt/sh5none", "rm -rf /mnt/sh5none/x/y", "rm -ri "+projP+"/*",
		"rm -rf sub/*/*", "rm -rf sh5none*/*", "rm -rf sub/x10/..", "rmdir "+projP+"/..", "cd sub && rm -ri ..",
		"sudo rm -rf /sh5none/.", "echo $(rm -rf /sh5none/..)", "rm -rf -- /sh5none/.", "rm -rf x11 /sh5none/..")
	return sh4Cases("sh5-critical", "sh5 critical removals", []string{"default", "bypassPermissions", "dontAsk"},
		Settings{Allow: []string{"Bash(rm:*)", "Bash(rmdir:*)"}}, map[string]string{"x6": "x\n", "x7": "x\n"}, probes)
}

// matrixHeredoc5: here-documents with a quoted delimiter (plain text)
// after read-only and allowed commands, with what follows them on their
// line and after their body, bodies that hold operators, quotes and
// commands, a shell reading the body, <<- with tabs, two on a line, one
// never closed, and the << of arithmetic.
func matrixHeredoc5() []dcase {
	probes := shs("cat << 'EOF'\nx\nEOF", "cat <<-'EOF'\n\tx\n\tEOF", "cat <<'EOF'\nit's; a | b && c\nEOF",
		"cat <<'EOF'\nrm hd10.txt\nEOF", "cat <<'EOF'\n$(rm hd7.txt)\n`rm hd7.txt`\nEOF", "cat <<'EOF'\nx\nEOF\nrm hd9.txt",
		"cat <<'EOF'\nx\nEOF\nls", "cat <<'EOF' && ls\nx\nEOF", "cat <<'EOF' | grep x\nx\nEOF", "cat <<'EOF' > hd8.txt\nx\nEOF",
		"cat <<'EOF' 2>/dev/null\nx\nEOF", "cat <<'EOF' -n\nx\nEOF", "cat <<'E1' <<'E2'\na\nE1\nb\nE2", "cat <<'EOF'\nx",
		"cat <<'EOF'\nx\n EOF\nEOF", "cat <<'EOF'\nx\nEOF ", "bash <<'EOF'\nrm hd5.txt\nEOF", "cat <<'EOF' | sh\nrm hd6.txt\nEOF",
		"sort <<'EOF' | head -1\nb\na\nEOF", "python3 - <<'EOF'\nimport os\nprint(1)\nEOF", "python3 - <<\\EOF\nprint(2)\nEOF",
		"python3 - <<'EOF' && rm hd11.txt\nprint(1)\nEOF", "echo $((1<<2))", "wc -l <<\\EOF\na\nb\nEOF", "cat <<'EOF'\n'\nEOF",
		"cat <<'EOF'\n\\\nEOF", "cat <<\"E\\F\"\nx\nE\\F", "grep -c x <<'EOF'\nx\nEOF")
	return sh4Cases("sh5-heredoc", "sh5 here-documents", []string{"default", "acceptEdits", "bypassPermissions"},
		Settings{Allow: []string{"Bash(python3 -:*)"}, Deny: []string{"Bash(rm:*)"}},
		map[string]string{"hd5.txt": "x\n", "hd6.txt": "x\n", "hd7.txt": "x\n", "hd9.txt": "x\n", "hd10.txt": "x\n", "hd11.txt": "x\n"}, probes)
}
