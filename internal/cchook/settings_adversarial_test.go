package cchook

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// settingsShapes are settings files of odd but valid shapes: CRLF line
// ends, tabs, a one-line file, an empty "hooks", escaped keys, unicode,
// no trailing newline, deep nesting of the user's own values.
var settingsShapes = []string{
	"{}",
	"{ }",
	"{\r\n  \"model\": \"opus\"\r\n}\r\n",
	"{\n\t\"model\": \"opus\",\n\t\"hooks\": {\n\t\t\"Stop\": []\n\t}\n}",
	`{"hooks":{}}`,
	`{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"x"}]}]},"env":{"A":"<&>"}}`,
	"{\n  \"hooks\": {},\n  \"x\": 1\n}\n",
	// An escaped key that reads "hooks2" holding an event: not PreToolUse
	// or PermissionRequest, which Claude Code's loader takes for guard
	// hooks outside "hooks" and ignores the file for (CLI:
	// internal/claudecodetest TestSettingsSchema "hooks: a guard event
	// under an escaped key"; "hooks: another event under an escaped key"
	// loads).
	"{\n  \"h\\u006foks2\": {\"Stop\": 5},\n  \"\u00e9\": \"\\u00e9\\n\",\n  \"big\": 12345678901234567890123\n}\n",
	"{\n  \"hooks\": {\n    \"PreToolUse\": []\n  }\n}\n",
	"{\n  \"hooks\": {\n    \"PreToolUse\": [\n      {\"matcher\": \"*\", \"hooks\": []}\n    ]\n  }\n}\n",
	"    {\n        \"model\": \"opus\"\n    }    \n",
	// Whitespace before a closing bracket, CRLF line ends, a byte order
	// mark: kept (install review 8, 9).
	"{\n  \"model\": \"opus\"\n\n}\n",
	"{\n  \"model\": \"opus\"   \n}\n",
	`{"model": "opus" }`,
	"{\r\n  \"model\": \"opus\",\r\n  \"hooks\": {\r\n    \"Stop\": [\r\n      {\"hooks\": [{\"type\": \"command\", \"command\": \"mine\"}]}\r\n    ]\r\n\r\n  }\r\n}\r\n",
	"{\r\n\t\"hooks\": {\r\n\t\t\"PreToolUse\": [\r\n\t\t\t{\"matcher\": \"Bash\", \"hooks\": [{\"type\": \"command\", \"command\": \"mine\"}]}\r\n\t\t]\r\n\t}\r\n}",
	"\ufeff{\n  \"model\": \"opus\"\n}\n",
	"\ufeff{}",
}

// notByteForByte are the shapes whose uninstall gives back the same JSON
// but not the same bytes: an empty "hooks" or event list that was there
// before goes with the last handler, and an empty object keeps none of the
// whitespace inside it ("{ }" comes back "{}"). Every other shape comes
// back byte for byte.
var notByteForByte = map[string]bool{
	"{ }":                                  true,
	`{"hooks":{}}`:                         true,
	"{\n  \"hooks\": {},\n  \"x\": 1\n}\n": true,
	"{\n  \"hooks\": {\n    \"PreToolUse\": []\n  }\n}\n": true,
}

// TestInstallAdversarialShapes: on every shape, the install is valid
// JSON holding exactly one ledger handler per event of the block, leaves
// the user's values as they were, writes its lines with the file's line
// end, changes nothing when run again, and the uninstall gives back the
// original bytes (but for the shapes of notByteForByte, which give back
// the same JSON).
func TestInstallAdversarialShapes(t *testing.T) {
	for _, blk := range [][]EventGroup{CommandBlock(testCommand, 10), HTTPBlockWith("http://127.0.0.1:8787"+HTTPPath, "$TOK", 10, "ledger-hook --hooks x")} {
		for _, src := range settingsShapes {
			got, ch, err := Install([]byte(src), blk)
			if err != nil {
				t.Errorf("%q: %v", src, err)
				continue
			}
			body := bytes.TrimPrefix(got, []byte("\ufeff"))
			if !json.Valid(body) {
				t.Errorf("%q: installed invalid JSON:\n%s", src, got)
				continue
			}
			if bytes.HasPrefix([]byte(src), []byte("\ufeff")) != (len(body) < len(got)) {
				t.Errorf("%q: the byte order mark was not kept as it was:\n%q", src, got)
			}
			if strings.Contains(src, "\r\n") && bytes.Count(got, []byte("\n")) != bytes.Count(got, []byte("\r\n")) {
				t.Errorf("%q: a CRLF file got LF line ends:\n%q", src, got)
			}
			if len(ch.Added) != len(blk) {
				t.Errorf("%q: added %v", src, ch.Added)
			}
			var parsed struct {
				Hooks map[string][]struct {
					Hooks []map[string]any `json:"hooks"`
				} `json:"hooks"`
			}
			if err := json.Unmarshal(body, &parsed); err != nil {
				t.Fatalf("%q: %v", src, err)
			}
			for _, eg := range blk {
				n := 0
				for _, g := range parsed.Hooks[eg.Event] {
					for _, h := range g.Hooks {
						if Own(h) {
							n++
						}
					}
				}
				if n != 1 {
					t.Errorf("%q: %s has %d ledger handlers:\n%s", src, eg.Event, n, got)
				}
			}
			var before, after map[string]any
			_ = json.Unmarshal(bytes.TrimPrefix([]byte(src), []byte("\ufeff")), &before)
			_ = json.Unmarshal(body, &after)
			for k, v := range before {
				if k != "hooks" && !reflect.DeepEqual(after[k], v) {
					t.Errorf("%q: %s changed to %v", src, k, after[k])
				}
			}
			again, ch2, err := Install(got, blk)
			if err != nil || !bytes.Equal(again, got) || ch2.Changed() {
				t.Errorf("%q: second install %v %v:\n%s", src, err, ch2, again)
			}
			back, _, err := Uninstall(got)
			if err != nil {
				t.Errorf("%q: uninstall: %v", src, err)
				continue
			}
			if string(back) != src {
				// The documented exceptions: an empty "hooks" or event
				// list there before, the whitespace inside an empty
				// object.
				var b map[string]any
				if !notByteForByte[src] {
					t.Errorf("%q: uninstalled to %q, want the original bytes", src, back)
				} else if json.Unmarshal(back, &b) != nil || !reflect.DeepEqual(withoutEmptyHooks(before), b) {
					t.Errorf("%q: uninstalled to %q", src, back)
				}
			}
		}
	}
}

func withoutEmptyHooks(m map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		if h, ok := v.(map[string]any); k == "hooks" && ok {
			kept := map[string]any{}
			for ev, l := range h {
				if l, ok := l.([]any); !ok || len(l) > 0 {
					kept[ev] = l
				}
			}
			if len(kept) == 0 {
				continue
			}
			v = kept
		}
		out[k] = v
	}
	return out
}

// TestUninstallAdversarialMixedGroup: a ledger handler that shares a group
// with the user's, at any position, goes alone; the group and the user's
// handlers around it stay, byte for byte.
func TestUninstallAdversarialMixedGroup(t *testing.T) {
	mine1 := `{"type": "command", "command": "mine-1"}`
	mine2 := `{"type": "command", "command": "mine-2"}`
	own := `{"type": "command", "command": "ledger hook claude-code"}`
	ownHTTP := `{"type": "http", "url": "http://127.0.0.1:1/hooks/claude-code/"}`
	for _, hooks := range []string{
		own + ", " + mine1,
		mine1 + ", " + own,
		mine1 + ", " + own + ", " + mine2,
		own + ", " + mine1 + ", " + ownHTTP,
		ownHTTP + ", " + mine1 + ", " + own + ", " + mine2,
	} {
		src := `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [` + hooks + `]}]}}`
		got, ch, err := Uninstall([]byte(src))
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		var v struct {
			Hooks map[string][]struct {
				Matcher string           `json:"matcher"`
				Hooks   []map[string]any `json:"hooks"`
			} `json:"hooks"`
		}
		if err := json.Unmarshal(got, &v); err != nil {
			t.Fatalf("%s: uninstalled invalid JSON %q", src, got)
		}
		g := v.Hooks["PreToolUse"]
		var cmds []string
		for _, h := range g[0].Hooks {
			cmds = append(cmds, h["command"].(string))
		}
		want := []string{"mine-1"}
		if bytes.Contains([]byte(hooks), []byte("mine-2")) {
			want = append(want, "mine-2")
		}
		if len(g) != 1 || g[0].Matcher != "Bash" || !reflect.DeepEqual(cmds, want) || len(ch.Removed) != 1 {
			t.Errorf("%s: uninstalled %s (%v)", src, got, ch)
		}
		for _, m := range []string{mine1, mine2} {
			if bytes.Contains([]byte(src), []byte(m)) && !bytes.Contains(got, []byte(m)) {
				t.Errorf("%s: lost %s byte for byte: %s", src, m, got)
			}
		}
	}
}
