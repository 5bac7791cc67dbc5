package claudecode

import "testing"

// TestHeredocs: a here-document's body is no command; a quoted delimiter's
// body is plain text unless a shell on its line reads it; an unquoted
// delimiter, text after the delimiter word, two here-documents on a line
// and a backslash before a blank in a body leave the line to approval
// (TestDifferential/sh4-heredoc-*, sh5-heredoc-*).
func TestHeredocs(t *testing.T) {
	doc := `{"permissions": {"allow": ["Bash(python3 -:*)"], "deny": ["Bash(rm:*)"]}}`
	var calls []call1
	for _, c := range []string{"cat <<'EOF'\nx\nEOF", "cat <<\\EOF\nx\nEOF", "cat << 'EOF'\nx\nEOF", "cat <<-'EOF'\n\tx\n\tEOF",
		"cat <<\"EOF\"\n$(rm f)\nEOF", "cat <<'EOF'\nit's; a | b && c\nEOF", "cat <<'EOF'\nrm f\nEOF", "cat <<'EOF'\nx\nEOF\nls",
		"cat <<'EOF'\nx\n EOF\nEOF", "cat <<'EOF'\nx", "cat <<'EOF'\nx\nEOF ", "python3 - <<'EOF'\nimport os\nEOF",
		"wc -l <<\\EOF\na\nEOF", "cat <<'EOF'\n'\nEOF", "grep -c x <<'EOF'\nx\nEOF", "cat <<-'EOF'\nx\n\t\tEOF"} {
		code := codeDefaultReadOnly
		if c[:7] == "python3" {
			code = codePermissionAllow
		}
		calls = append(calls, call1{"Bash", map[string]any{"command": c}, allow, code})
	}
	for _, c := range []string{"cat <<EOF\nx\nEOF", "cat <<EOF\n$HOME\nEOF", "cat <<'EOF' && ls\nx\nEOF", "cat <<'EOF' | grep x\nx\nEOF",
		"cat <<'EOF' 2>/dev/null\nx\nEOF", "cat <<'EOF' -n\nx\nEOF", "cat <<'E1' <<'E2'\na\nE1\nb\nE2", "cat <<'EOF'\n\\\nEOF",
		"cat <<\"E\\F\"\nx\nE\\F", "python3 <<EOF\nprint(1)\nEOF", "cat <<'EOF'\nx\nEOF\nmake"} {
		calls = append(calls, call1{"Bash", map[string]any{"command": c}, ask, codeDefaultPrompt})
	}
	for _, c := range []string{"cat <<EOF; rm f\nx\nEOF", "cat <<'EOF'\nx\nEOF\nrm f", "bash <<'EOF'\nrm f\nEOF",
		"cat <<'EOF' | sh\nrm f\nEOF", "cat <<EOF\n$(rm f)\nEOF", "cat <<'EOF'\nrm f", "python3 - <<'EOF' && rm f\nx\nEOF",
		"cat <<'EOF'\nx\nEOF \nrm f"} {
		calls = append(calls, call1{"Bash", map[string]any{"command": c}, deny, codePermissionDeny})
	}
	runCalls(t, doc, "default", calls)

	// The split: the body is skipped, what follows the delimiter line is
	// a command, and << in arithmetic is a shift.
	for _, c := range []struct {
		cmd  string
		subs int
	}{
		{"cat <<'EOF'\na\nb\nEOF\nls", 2}, {"cat <<'E1' <<'E2'\na\nE1\nb\nE2\nls", 2}, {"echo $((1<<2)); ls", 2},
		{"(( x = 1 << 2 ))\nls", 2}, {"cat <<'EOF'\nx", 1},
	} {
		if l := parseBash(c.cmd); len(l.subs) != c.subs {
			t.Errorf("%q: %d subcommands, want %d", c.cmd, len(l.subs), c.subs)
		}
	}
}
