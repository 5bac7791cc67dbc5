package claudecode

import "testing"

// TestCriticalResolved: rm and rmdir targets are judged where they
// resolve, as Claude Code 2.1.328's dangerous-removal check judges them
// (it resolves the target against the shell's directory first): the root,
// home, a top-level directory, the working directory and its ancestors
// ask, in bypassPermissions too (TestDifferential/sh5-critical-*).
func TestCriticalResolved(t *testing.T) {
	in := func(cmd, cwd string) map[string]any {
		return map[string]any{"command": cmd, PathsKey: map[string]any{"project": "/w/proj", "home": "/h/u", "cwd": cwd,
			"dirs": []any{"/added/d"}}}
	}
	doc := `{"permissions": {"allow": ["Bash(rm:*)", "Bash(rmdir:*)"], "additionalDirectories": ["/extra/e"]}}`
	var calls []call1
	for _, c := range []struct{ cmd, cwd string }{
		{"rm -rf /x/.", ""}, {"rm -rf /x/..", ""}, {"rm -rf /x/../y", ""}, {"rm -rf /x/y/../..", ""},
		{"rm -rf /w/proj", ""}, {"rm -rf /w/proj/", ""}, {"rm -rf /w", ""}, {"rm -rf /W/PROJ", ""}, {"rm -ri sub/../..", ""},
		{"rm -rf /w/proj/sub/..", ""}, {"rm -rf ../proj", ""}, {"rm -rf ..", "/w/proj/sub"}, {"rm -rf ../..", "/w/proj/sub"},
		{"rm -rf /w/proj/sub", "/w/proj/sub"}, {"rm -rf /h/u", ""}, {"rm -rf /h/u/.", ""}, {"rm -rf /h/u/x/..", ""},
		{"rm -rf $HOME/x/..", ""}, {"rm -rf ~/x/..", ""}, {"rm -rf /H/U", ""}, {"sudo rm -rf /x/.", ""}, {"echo $(rm -rf /x/..)", ""},
		{"rm -rf a /x/.", ""}, {"/bin/rm -rf /x/.", ""}, {"rmdir /x/.", ""}, {"rm -rf /w/proj/*", ""}, {"rm -rf /extra/e/*", ""},
		{"rm -rf /added/d/*", ""}, {"rm -rf /added/*", ""}, {"rm -rf sub/*/*", ""}, {"rm -rf src*/*", ""}, {"rm -rf sub/../*", ""},
		{"rm -rf ../x/*", ""}, {"rm -rf */", ""}, {"rm -rf -- /x/.", ""}, {"rm -r /mnt/usb", ""}, {"rm -rf /media/u/disk", ""},
		{"rm -r /Volumes/Disk", ""}, {"rm /mnt/usb/*", ""}, {"rm -rf //x/*", ""}, {"rm -rf ~u/*", ""},
	} {
		calls = append(calls, call1{"Bash", in(c.cmd, c.cwd), ask, codeCriticalPath})
	}
	for _, c := range []struct{ cmd, cwd string }{
		{"rm -rf /x/y", ""}, {"rm -rf /x/y/.", ""}, {"rm -rf sub", ""}, {"rm -rf sub/..x", ""}, {"rm -rf /w/proj/sub", ""},
		{"rm -rf /w/proj/sub/*", ""}, {"rm -rf /extra/e", ""}, {"rm -rf /added/d", ""}, {"rm -rf /h/u/x", ""},
		{"rm -rf /h/u/x/*", ""}, {"rm -rf sub/*", ""}, {"rm -rf ../other", "/w/proj/sub"}, {"rm /mnt/usb", ""},
		{"rm -r /mnt/usb/dir/x", ""}, {"rmdir /mnt/usb", ""}, {"rm -rf *.txt", ""}, {"rm -rf ~u/x", ""}, {"rm -rf a.x/..x", ""},
		{"echo rm -rf /x/y", ""}, {"rm -rf /x/y/z/..", ""},
	} {
		calls = append(calls, call1{"Bash", in(c.cmd, c.cwd), allow, codeModeBypass})
	}
	runCalls(t, doc, "bypassPermissions", calls)
	// Without ledger:paths an absolute target is resolved, and a relative
	// one that resolves to the working directory or an ancestor.
	runCalls(t, doc, "bypassPermissions", []call1{
		{"Bash", map[string]any{"command": "rm -rf /x/.."}, ask, codeCriticalPath},
		{"Bash", map[string]any{"command": "rm -rf /x/."}, ask, codeCriticalPath},
		{"Bash", map[string]any{"command": "rm -rf sub/../.."}, ask, codeCriticalPath},
		{"Bash", map[string]any{"command": "rm -rf sub/.."}, ask, codeCriticalPath},
		{"Bash", map[string]any{"command": "rm -rf ~/x/.."}, ask, codeCriticalPath},
		{"Bash", map[string]any{"command": "rm -rf ../x"}, allow, codeModeBypass},
		{"Bash", map[string]any{"command": "rm -rf /x/y/."}, allow, codeModeBypass},
		{"Bash", map[string]any{"command": "rm -rf /x"}, ask, codeCriticalPath},
		{"Bash", map[string]any{"command": "rm -rf ../.."}, ask, codeCriticalPath},
	})
}
