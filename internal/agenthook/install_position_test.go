package agenthook

import (
	"encoding/json"
	"reflect"
	"strconv"
	"testing"
)

// positions are the handlers of a hooks file under event, each as
// "GROUP:INDEX COMMAND", in order.
func positions(t *testing.T, src []byte, event string) []string {
	t.Helper()
	var f struct {
		Hooks map[string][]struct {
			Hooks []struct {
				Command string `json:"command"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(src, &f); err != nil {
		t.Fatalf("not a hooks file: %v\n%s", err, src)
	}
	var out []string
	for gi, g := range f.Hooks[event] {
		for hi, h := range g.Hooks {
			out = append(out, strconv.Itoa(gi)+":"+strconv.Itoa(hi)+" "+h.Command)
		}
	}
	return out
}

// TestInstallKeepsCodexPositions: codex trusts a handler by its position
// (FILE:EVENT:GROUP:INDEX), so a codex reinstall that changes the ledger's
// command line replaces its handler where it stands, and no handler of
// the user's moves: the user's audit hook after the ledger's group, and
// one in the ledger's own group, keep their keys (the review's
// reproduction: before the fix the ledger's group was removed and a new
// one appended, and ./audit.sh moved to pre_tool_use:0:0, whose trusted
// hash was the ledger's). A ledger handler in a group of the user's under
// another matcher, which it must not keep, is removed and appended, and
// Moved names the user's handler that moves with it. Gemini and qwen,
// which do not trust by position, keep the remove-and-append.
func TestInstallKeepsCodexPositions(t *testing.T) {
	const a, b = "ledger hook codex --scope a", "ledger hook codex --scope b"
	user := func(t *testing.T, src []byte, event string, groups ...string) []byte {
		t.Helper()
		var v map[string]any
		if err := json.Unmarshal(src, &v); err != nil {
			t.Fatal(err)
		}
		hooks := v["hooks"].(map[string]any)
		for _, g := range groups {
			var grp any
			if err := json.Unmarshal([]byte(g), &grp); err != nil {
				t.Fatal(err)
			}
			hooks[event] = append(hooks[event].([]any), grp)
		}
		out, _ := json.MarshalIndent(v, "", "  ")
		return out
	}
	installed, _, err := Codex.Install(nil, a, 10)
	if err != nil {
		t.Fatal(err)
	}

	t.Run("after the ledger's group", func(t *testing.T) {
		src := user(t, installed, "PreToolUse", `{"matcher": "Bash", "hooks": [{"type": "command", "command": "./audit.sh", "timeout": 5}]}`)
		out, ch, err := Codex.Install(src, b, 10)
		if err != nil || len(ch.Added) != len(Codex.Events()) {
			t.Fatalf("%v %v", ch, err)
		}
		if got, want := positions(t, out, "PreToolUse"), []string{"0:0 " + b, "1:0 ./audit.sh"}; !reflect.DeepEqual(got, want) {
			t.Errorf("PreToolUse after the reinstall: %q, want %q\n%s", got, want, out)
		}
		if m := Codex.Moved("/p/.codex/hooks.json", src, out); len(m) != 0 {
			t.Errorf("moved %+v", m)
		}
		if again, ch, err := Codex.Install(out, b, 10); err != nil || string(again) != string(out) || ch.Changed() {
			t.Errorf("installing twice changed the file (%v, %v)", ch, err)
		}
	})

	t.Run("in the ledger's group", func(t *testing.T) {
		// The user added a handler to the ledger's own group (its matcher,
		// none, is the one the ledger wants): the ledger's handler alone
		// is replaced.
		var v map[string]any
		_ = json.Unmarshal(installed, &v)
		g := v["hooks"].(map[string]any)["PreToolUse"].([]any)[0].(map[string]any)
		g["hooks"] = append(g["hooks"].([]any), map[string]any{"type": "command", "command": "./mine.sh"})
		src, _ := json.MarshalIndent(v, "", "  ")
		out, _, err := Codex.Install(src, b, 10)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := positions(t, out, "PreToolUse"), []string{"0:0 " + b, "0:1 ./mine.sh"}; !reflect.DeepEqual(got, want) {
			t.Errorf("PreToolUse after the reinstall: %q, want %q\n%s", got, want, out)
		}
	})

	t.Run("in a group of the user's under another matcher", func(t *testing.T) {
		src := []byte(`{"hooks": {"PreToolUse": [
  {"matcher": "Bash", "hooks": [{"type": "command", "command": "` + a + `"}, {"type": "command", "command": "./audit.sh"}]},
  {"hooks": [{"type": "command", "command": "./lint.sh"}]}
]}}`)
		out, _, err := Codex.Install(src, b, 10)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := positions(t, out, "PreToolUse"), []string{"0:0 ./audit.sh", "1:0 ./lint.sh", "2:0 " + b}; !reflect.DeepEqual(got, want) {
			t.Errorf("PreToolUse after the reinstall: %q, want %q\n%s", got, want, out)
		}
		want := []Moved{{Event: "PreToolUse", Command: "./audit.sh", From: "/p/.codex/hooks.json:pre_tool_use:0:1", To: "/p/.codex/hooks.json:pre_tool_use:0:0"}}
		if got := Codex.Moved("/p/.codex/hooks.json", src, out); !reflect.DeepEqual(got, want) {
			t.Errorf("moved %+v, want %+v", got, want)
		}
	})

	t.Run("gemini and qwen", func(t *testing.T) {
		for _, rt := range []Runtime{Gemini, Qwen} {
			first, _, _ := rt.Install(nil, "ledger hook "+rt.Command+" --scope a", 10)
			ev := rt.Events()[2] // BeforeTool, PreToolUse
			src := user(t, first, ev, `{"hooks": [{"type": "command", "command": "./audit.sh"}]}`)
			out, _, err := rt.Install(src, "ledger hook "+rt.Command+" --scope b", 10)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := positions(t, out, ev), []string{"0:0 ./audit.sh", "1:0 ledger hook " + rt.Command + " --scope b"}; !reflect.DeepEqual(got, want) {
				t.Errorf("%s %s after the reinstall: %q, want %q", rt.Name, ev, got, want)
			}
			if m := rt.Moved("/p/f", src, out); m != nil {
				t.Errorf("%s: moved %+v, for a runtime that does not trust by position", rt.Name, m)
			}
		}
	})
}

// TestUninstallMovedCodex: uninstalling the ledger's codex handlers moves
// the user's handlers after them up, and Moved names each with its codex
// key before and after (what `hook install --uninstall` warns of); none
// moves when nothing of the user's comes after the ledger's.
func TestUninstallMovedCodex(t *testing.T) {
	src := []byte(`{"hooks": {
  "PreToolUse": [
    {"hooks": [{"type": "command", "command": "ledger hook codex --scope a", "timeout": 10}]},
    {"matcher": "Bash", "hooks": [{"type": "command", "command": "./audit.sh", "timeout": 5}, {"type": "prompt", "prompt": "p"}]}
  ],
  "SessionStart": [
    {"hooks": [{"type": "command", "command": "./first.sh"}, {"type": "command", "command": "ledger hook codex --scope a"}]}
  ]
}}`)
	out, ch, err := Codex.Uninstall(src)
	if err != nil || len(ch.Removed) != 2 {
		t.Fatalf("%v %v", ch, err)
	}
	f := "/repo/.codex/hooks.json"
	want := []Moved{
		{Event: "PreToolUse", Command: "./audit.sh", From: f + ":pre_tool_use:1:0", To: f + ":pre_tool_use:0:0"},
		{Event: "PreToolUse", Command: "prompt", From: f + ":pre_tool_use:1:1", To: f + ":pre_tool_use:0:1"},
	}
	if got := Codex.Moved(f, src, out); !reflect.DeepEqual(got, want) {
		t.Errorf("moved %+v\nwant %+v", got, want)
	}
	for _, k := range []struct{ ev, want string }{{"SubagentStart", "F:subagent_start:0:1"}, {"UserPromptSubmit", "F:user_prompt_submit:0:1"}, {"SessionEnd", "F:session_end:0:1"}} {
		if got := CodexKey("F", k.ev, 0, 1); got != k.want {
			t.Errorf("CodexKey(%s) = %s, want %s", k.ev, got, k.want)
		}
	}
}
