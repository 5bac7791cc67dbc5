package main

import (
	"io"
	"os"
	"regexp"
	"strings"
	"testing"
)

var ansi = regexp.MustCompile("\x1b\\[[0-9]*m")

// TestColorKeepsThePlainLayout checks that coloured tree and why output is
// the plain output plus colour codes only: stripped of them, it is byte for
// byte what a pipe gets, so the columns line up the same on a terminal.
func TestColorKeepsThePlainLayout(t *testing.T) {
	tests := []struct {
		name string
		args []string
	}{
		{"why openclaw", []string{"why", "--scenario", ocScenario, "--session", "agent:main:discord:direct:alice", "--tool", "exec"}},
		{"why openclaw at a turn", []string{"why", "--scenario", ocScenario, "--session", "agent:main:discord:direct:alice", "--tool", "read", "--turn", "1"}},
		{"why claude-code", []string{"why", "--scenario", ccScenario, "--session", "lead", "--tool", "WebFetch", "--input", "https://example.com/docs"}},
		{"tree", []string{"tree", "--scenario", ocScenario}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plain, _, err := runCLI(t, "", tt.args...)
			if err != nil {
				t.Fatal(err)
			}
			colored, _, err := runCLI(t, "", append(tt.args, "--color=always")...)
			if err != nil {
				t.Fatal(err)
			}
			if !ansi.MatchString(colored) {
				t.Fatalf("--color=always printed no colour:\n%s", colored)
			}
			if got := ansi.ReplaceAllString(colored, ""); got != plain {
				t.Errorf("coloured output without its colour codes differs from the plain output:\n--- got\n%s\n--- want\n%s", got, plain)
			}
			never, _, err := runCLI(t, "", append(tt.args, "--color=never")...)
			if err != nil || never != plain {
				t.Errorf("--color=never: %v\n%s", err, never)
			}
		})
	}
}

// TestGoldenColor pins the colours themselves.
func TestGoldenColor(t *testing.T) {
	for name, args := range map[string][]string{
		"why-openclaw-color.txt":  {"why", "--color=always", "--scenario", ocScenario, "--session", "agent:main:discord:direct:alice", "--tool", "exec"},
		"tree-openclaw-color.txt": {"tree", "--color=always", "--scenario", ocScenario},
	} {
		t.Run(name, func(t *testing.T) {
			out, _, err := runCLI(t, "", args...)
			if err != nil {
				t.Fatal(err)
			}
			golden(t, name, out)
		})
	}
}

func TestPaletteFor(t *testing.T) {
	// /dev/null is a character device, so auto treats it as a terminal:
	// it stands in for one here.
	tty, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Skipf("no %s: %v", os.DevNull, err)
	}
	defer tty.Close()
	var buf strings.Builder
	tests := []struct {
		name, mode, noColor string
		w                   io.Writer
		want                bool
	}{
		{"auto on a terminal", "auto", "", tty, true},
		{"auto on a terminal with NO_COLOR", "auto", "1", tty, false},
		{"auto on a buffer", "auto", "", &buf, false},
		{"auto on a regular file", "auto", "", mustCreate(t), false},
		{"always overrides NO_COLOR", "always", "1", &buf, true},
		{"never on a terminal", "never", "", tty, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("NO_COLOR", tt.noColor)
			pal, err := paletteFor(tt.mode, tt.w)
			if err != nil || pal.on != tt.want {
				t.Fatalf("paletteFor(%q) = %v, %v; want %v", tt.mode, pal.on, err, tt.want)
			}
		})
	}
	_, _, err = runCLI(t, "", "tree", "--scenario", ocScenario, "--color", "sometimes")
	var msg strings.Builder
	if code := exitCode(err, &msg); code != 2 || !strings.Contains(msg.String(), "use auto, always or never") {
		t.Fatalf("--color sometimes: exit %d %q", code, msg.String())
	}
}

func mustCreate(t *testing.T) *os.File {
	t.Helper()
	f, err := os.Create(t.TempDir() + "/out")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}
