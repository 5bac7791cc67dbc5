package hostile

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf16"
)

// utf16le encodes s as UTF-16LE, with a byte order mark when bom.
func utf16le(s string, bom bool) string {
	var b bytes.Buffer
	if bom {
		b.Write([]byte{0xff, 0xfe})
	}
	for _, u := range utf16.Encode([]rune(s)) {
		b.WriteByte(byte(u))
		b.WriteByte(byte(u >> 8))
	}
	return b.String()
}

// i24HeldPayloads are payloads that are, or could be, a PreToolUse of a
// call the ledger denies (rm under Bash(rm *)), each of which must be
// answered with a denial; none of them is in the text.
func i24HeldPayloads(sid, cwd string) []struct{ name, body string } {
	base := func(id string) string {
		return fmt.Sprintf(`"session_id":%q,"cwd":%q,"tool_name":"Bash","tool_use_id":%q`, sid, cwd, id)
	}
	rm := `{"command":"rm -rf x"}`
	pre := func(id, input string) string {
		return "{" + base(id) + `,"hook_event_name":"PreToolUse","tool_input":` + input + "}"
	}
	nest := func(levels int) string { // the payload is level 1, tool_input 2
		return "{" + base("deep") + `,"hook_event_name":"PreToolUse","tool_input":{"command":"rm -rf x","x":` +
			strings.Repeat("[", levels-2) + strings.Repeat("]", levels-2) + "}}"
	}
	return []struct{ name, body string }{
		{"event key spelled with \\u escapes", "{" + base("k1") + `,"\u0068ook_event_name":"PreToolUse","tool_input":` + rm + "}"},
		{"event value spelled with \\u escapes", "{" + base("k2") + `,"hook_event_name":"\u0050re\u0054oolUse","tool_input":` + rm + "}"},
		{"event key upper-case only", "{" + base("k3") + `,"HOOK_EVENT_NAME":"PreToolUse","tool_input":` + rm + "}"},
		{"event key twice, PreToolUse last", "{" + base("k4") + `,"hook_event_name":"Stop","hook_event_name":"PreToolUse","tool_input":` + rm + "}"},
		{"event key in two cases, PreToolUse in the variant", "{" + base("k5") + `,"hook_event_name":"Stop","Hook_Event_Name":"PreToolUse","tool_input":` + rm + "}"},
		{"command key in two cases", pre("k6", `{"command":"rm -rf x","Command":"echo hi"}`)},
		{"UTF-8 byte order mark", "\xef\xbb\xbf" + pre("b1", rm)},
		{"trailing NUL byte", pre("b2", rm) + "\x00"},
		{"NUL byte inside the object", strings.Replace(pre("b3", rm), `,"tool_input"`, "\x00,\"tool_input\"", 1)},
		{"UTF-16LE", utf16le(pre("b4", rm), false)},
		{"UTF-16LE with BOM", utf16le(pre("b5", rm), true)},
		{"tool_input null", pre("i1", "null")},
		{"tool_input a string", pre("i2", `"{\"command\":\"rm -rf x\"}"`)},
		{"tool_input an array", pre("i3", "["+rm+"]")},
		{"tool_input a number", pre("i4", "1e999")},
		{"tool_input absent", "{" + base("i5") + `,"hook_event_name":"PreToolUse"}`},
		{"command an object", pre("i6", `{"command":{"rm":"-rf x"}}`)},
		{"session_id an array", strings.Replace(pre("f1", rm), fmt.Sprintf(`"session_id":%q`, sid), fmt.Sprintf(`"session_id":[%q]`, sid), 1)},
		{"tool_name an array", strings.Replace(pre("f2", rm), `"tool_name":"Bash"`, `"tool_name":["Bash"]`, 1)},
		{"tool_use_id a number", strings.Replace(pre("f3", rm), `"tool_use_id":"f3"`, `"tool_use_id":3`, 1)},
		{"hook_event_name an array", "{" + base("f4") + `,"hook_event_name":["PreToolUse"],"tool_input":` + rm + "}"},
		{"hook_event_name null", "{" + base("f5") + `,"hook_event_name":null,"tool_input":` + rm + "}"},
		{"hook_event_name an object", "{" + base("f6") + `,"hook_event_name":{"PreToolUse":1},"tool_input":` + rm + "}"},
		{"huge number at the top level", "{" + base("n1") + `,"x":1e999,"hook_event_name":"PreToolUse","tool_input":` + rm + "}"},
		{"huge exponent in tool_use_id's place", strings.Replace(pre("n2", rm), `"tool_use_id":"n2"`, `"tool_use_id":1e99999999`, 1)},
		{"tool name with NATS wildcards", strings.Replace(pre("w1", rm), `"tool_name":"Bash"`, `"tool_name":"Bash.>"`, 1)},
		{"tool name *", strings.Replace(pre("w2", rm), `"tool_name":"Bash"`, `"tool_name":"*"`, 1)},
		{"tool name lower-case", strings.Replace(pre("w3", rm), `"tool_name":"Bash"`, `"tool_name":"bash"`, 1)},
		{"session id of 5000 bytes", strings.Replace(pre("w4", rm), fmt.Sprintf(`"session_id":%q`, sid), `"session_id":"`+strings.Repeat("a", 5000)+`"`, 1)},
		{"session id with NATS wildcards", strings.Replace(pre("w5", rm), fmt.Sprintf(`"session_id":%q`, sid), `"session_id":"s.>"`, 1)},
		{"agent id with path characters", strings.Replace(pre("w6", `{"command":"echo hi"}`), `"tool_name"`, `"agent_id":"../../etc","agent_type":"general-purpose","tool_name"`, 1)},
		{"agent id with a NUL", strings.Replace(pre("w7", `{"command":"echo hi"}`), `"tool_name"`, `"agent_id":"a\u0000b","agent_type":"general-purpose","tool_name"`, 1)},
		{"command with \\u0020 for the space", pre("c1", `{"command":"rm\u0020-rf x"}`)},
		{"command with a tab", pre("c2", `{"command":"rm\t-rf x"}`)},
		{"command with a lone surrogate", pre("c3", `{"command":"rm -rf \ud800"}`)},
		{"command with invalid UTF-8", pre("c4", "{\"command\":\"rm -rf \xff\"}")},
		{"command with a NUL at the end", pre("c5", `{"command":"rm -rf x\u0000"}`)},
		{"nested 1000 deep (at the bound)", nest(1000)},
		{"nested 1001 deep (one over)", nest(1001)},
		{"cut after one byte", pre("t1", rm)[:1]},
		{"cut before the last brace", strings.TrimSuffix(pre("t2", rm), "}")},
		{"object then a second value", pre("t3", rm) + " 1"},
		{"empty", ""},
		{"whitespace only", " \n\t "},
	}
}

// TestI24HookPayloadsServeHeld: every payload of i24HeldPayloads POSTed to
// `serve --hooks` is answered with status 200 and a PreToolUse denial, and
// the ledger's API still answers after.
func TestI24HookPayloadsServeHeld(t *testing.T) {
	s := startHookServe(t)
	cwd := s.project(t, "p", i24Settings)
	s.prompt(t, "s1", cwd)
	if code, body, _ := s.post(t, []byte(call("s1", cwd, "Bash", "ok1", `{"command":"echo hi"}`))); code != 200 || body != "{}" {
		t.Fatalf("an allowed call: %d %s", code, body)
	}
	for _, c := range i24HeldPayloads("s1", cwd) {
		t.Run(c.name, func(t *testing.T) {
			code, body, _ := s.post(t, []byte(c.body))
			if code != 200 || !isDeny(body) {
				t.Errorf("answered %d %.300s, want 200 and a denial", code, body)
			}
		})
	}
	s.apiAnswers(t)
}

// TestI24HookPayloadsStdinHeld: the same payloads on the command hook's
// standard input are answered with a denial or exit 2.
func TestI24HookPayloadsStdinHeld(t *testing.T) {
	s := startHookServe(t)
	cwd := s.project(t, "p", i24Settings)
	s.prompt(t, "s1", cwd)
	env := []string{"CLAUDE_PROJECT_DIR=" + cwd}
	for _, c := range i24HeldPayloads("s1", cwd) {
		t.Run(c.name, func(t *testing.T) {
			r := runHookCmd(t, s.dir, env, []byte(c.body), "--nats", s.nats, "--timeout", "2s", "--import-cache", "off")
			if !r.blocks() {
				t.Errorf("exit %d, output %.300s: neither a denial nor exit 2", r.exit, r.out)
			}
		})
	}
}

// TestI24HookPayloadBounds: a payload of exactly 16 MiB is decided (its
// rm denied, its echo allowed); one byte over is denied unread, with and
// without a Content-Length (chunked).
//
// The bound under test is the payload's size, not the time its decision
// takes: the server gets a budget (--hooks-timeout 60s) that a 16 MiB
// payload meets on a loaded machine too, where the default 5 s once
// answered "could not decide in time" for it.
func TestI24HookPayloadBounds(t *testing.T) {
	s := startHookServe(t, "--hooks-timeout", "60s")
	cwd := s.project(t, "p", i24Settings)
	s.prompt(t, "s1", cwd)
	const max = 16 << 20
	padded := func(id, command string, size int) []byte {
		prefix := fmt.Sprintf(`{"session_id":"s1","cwd":%q,"hook_event_name":"PreToolUse","tool_name":"Bash","tool_use_id":%q,"tool_input":{"command":%q,"pad":"`, cwd, id, command)
		const suffix = `"}}`
		return []byte(prefix + strings.Repeat("y", size-len(prefix)-len(suffix)) + suffix)
	}
	rmAt := padded("b1", "rm -rf x", max)
	echoAt := padded("b2", "echo hi", max)
	over := padded("b3", "echo hi", max+1)
	if len(rmAt) != max || len(over) != max+1 {
		t.Fatalf("sizes %d %d", len(rmAt), len(over))
	}
	if code, body, _ := s.post(t, rmAt); code != 200 || !isDeny(body) || !strings.Contains(body, "permission:deny") {
		t.Errorf("rm at 16 MiB: %d %.300s", code, body)
	}
	if code, body, _ := s.post(t, echoAt); code != 200 || body != "{}" {
		t.Errorf("echo at 16 MiB: %d %.300s", code, body)
	}
	if code, body, _ := s.post(t, over); code != 200 || !isDeny(body) {
		t.Errorf("16 MiB + 1: %d %.300s", code, body)
	}
	// Chunked: no Content-Length, so only the read bound can refuse it.
	code, body, _ := s.postWith(t, s.url, nil, func(r *http.Request) {
		r.Body = io.NopCloser(bytes.NewReader(over))
		r.ContentLength = -1
	})
	if code != 200 || !isDeny(body) || !strings.Contains(body, "could not read") {
		t.Errorf("chunked 16 MiB + 1: %d %.300s", code, body)
	}
	s.apiAnswers(t)
}

// TestI24NonFiniteNumberFailsOpen is a finding of the i24 pass: a Bash call
// the ledger denies (rm under Bash(rm *)) whose tool_input carries a number
// that is not a finite float64 (1e999, -1e400, a 400-digit integer) in
// another parameter is answered {} (no decision) by serve --hooks and by the
// command hook. The payload parses, checkInput accepts it, and CallInput
// (cchook/plan.go) drops the whole input when events.Canonical refuses the
// non-finite number, so the ledger checks "Bash" with no input at all
// (recorded tool.checked without "input", decision ask, default:prompt).
// Claude Code itself serialises with JSON.stringify and sends null for
// such a number, so this needs a payload Claude Code did not write.
func TestI24NonFiniteNumberFailsOpen(t *testing.T) {
	s := startHookServe(t)
	cwd := s.project(t, "p", i24Settings)
	s.prompt(t, "s1", cwd)
	inputs := map[string]string{
		"1e999":          `{"command":"rm -rf x","timeout":1e999}`,
		"-1e400":         `{"command":"rm -rf x","timeout":-1e400}`,
		"400-digit int":  `{"command":"rm -rf x","timeout":1` + strings.Repeat("0", 400) + `}`,
		"in description": `{"command":"rm -rf x","description":"d","run_in_background":false,"x":1e309}`,
	}
	n := 0
	for name, input := range inputs {
		n++
		t.Run("serve/"+name, func(t *testing.T) {
			code, body, _ := s.post(t, []byte(call("s1", cwd, "Bash", fmt.Sprintf("nf%d", n), input)))
			if code != 200 || !isDeny(body) {
				t.Errorf("finding: rm with a non-finite number answered %d %.200s, want a denial", code, body)
			}
		})
		t.Run("stdin/"+name, func(t *testing.T) {
			r := runHookCmd(t, s.dir, []string{"CLAUDE_PROJECT_DIR=" + cwd}, []byte(call("s1", cwd, "Bash", fmt.Sprintf("nfc%d", n), input)),
				"--nats", s.nats, "--timeout", "2s", "--import-cache", "off")
			if !r.blocks() {
				t.Errorf("finding: rm with a non-finite number: exit %d, output %.200s, want a denial", r.exit, r.out)
			}
		})
	}
}

// TestI24CaseVariantKeysFailOpen is a finding of the i24 pass: the payload
// is decoded into a struct, and encoding/json matches object keys without
// regard to case, taking the last match, so a second spelling of
// tool_input or tool_name ("Tool_Input", "TOOL_NAME") replaces the first
// one. A reader that matches keys exactly (JavaScript, Claude Code) sees
// the rm call; the ledger checks the other input or tool and answers {}.
// The hook already refuses exactly this ambiguity for hook_event_name
// (PeekAt, "not one string"), but not for the fields that name the call.
// Claude Code does not send such keys: the payload has to be written by
// someone else (a serve --hooks client with the token).
func TestI24CaseVariantKeysFailOpen(t *testing.T) {
	s := startHookServe(t)
	cwd := s.project(t, "p", i24Settings)
	s.prompt(t, "s1", cwd)
	for name, body := range map[string]string{
		"Tool_Input after tool_input": strings.TrimSuffix(call("s1", cwd, "Bash", "cv1", `{"command":"rm -rf x"}`), "}") + `,"Tool_Input":{"command":"echo hi"}}`,
		"TOOL_NAME after tool_name":   strings.TrimSuffix(call("s1", cwd, "Bash", "cv2", `{"command":"rm -rf x"}`), "}") + `,"TOOL_NAME":"Read"}`,
	} {
		t.Run(name, func(t *testing.T) {
			code, out, _ := s.post(t, []byte(body))
			if code != 200 || !isDeny(out) {
				t.Errorf("finding: answered %d %.200s, want a denial (the exact-key reading is rm -rf x)", code, out)
			}
		})
	}
}

// TestI24NullPrimaryFailsOpen is a finding of the i24 pass: the fix of issue
// 24 point 7 (a non-string primary field is denied) lets null through.
// checkInput (cchook/payload.go) tests the primary field with
// json.Unmarshal into a string, which succeeds on null; CallInput then
// drops the null and the ledger checks the call with no input (decision
// ask, default:prompt), answered {}. docs/claude-code-hooks.md: "a
// tool_input that is an object whose primary parameter (Bash's command,
// which must be there, ...) is a string ... Anything else ... is answered
// with the PreToolUse denial".
func TestI24NullPrimaryFailsOpen(t *testing.T) {
	s := startHookServe(t)
	cwd := s.project(t, "p", i24Settings)
	s.prompt(t, "s1", cwd)
	code, body, _ := s.post(t, []byte(call("s1", cwd, "Bash", "np1", `{"command":null}`)))
	if code != 200 || !isDeny(body) {
		t.Errorf("finding: Bash with command null answered %d %.200s, want a denial", code, body)
	}
	r := runHookCmd(t, s.dir, []string{"CLAUDE_PROJECT_DIR=" + cwd}, []byte(call("s1", cwd, "Bash", "np2", `{"command":null}`)),
		"--nats", s.nats, "--timeout", "2s", "--import-cache", "off")
	if !r.blocks() {
		t.Errorf("finding: Bash with command null on stdin: exit %d, output %.200s, want a denial", r.exit, r.out)
	}
}

// TestI24LongParameterEvadesParamRule is a finding of the i24 pass: a deny
// rule on a tool parameter (dialect section 4: Tool(param:glob), deny and
// ask only) never sees a string parameter over 256 bytes, because the hook
// records (and checks) a call's input without any string over maxParam
// bytes but the primary field's (cchook/plan.go CallInput). Under the
// project's deny mcp__srv__tool(target:prod*), a call whose target is
// "prod-1" is denied and one whose target is "prod-" and 300 more bytes is
// answered {}: the same prefix, the rule's glob matches both.
func TestI24LongParameterEvadesParamRule(t *testing.T) {
	s := startHookServe(t)
	cwd := s.project(t, "p", `{"permissions":{"allow":["mcp__srv__tool","Bash(echo *)"],"deny":["mcp__srv__tool(target:prod*)","Bash(description:*deploy*)"]}}`)
	s.prompt(t, "s1", cwd)
	// Changed expectation: the two mcp__srv__tool cases expected the
	// parameter rule's denial, but Claude Code 2.1.328 ignores parameter
	// rules on MCP tools (internal/claudecodetest
	// TestDifferential/i25-mcp-param-rules: a deny mcp__srv__danger(text:a)
	// lets {"text":"a"} run), and the dialect follows the release: the
	// rule decides neither call, short or long, so both are checked as the
	// allow rule says.
	for _, c := range []struct {
		name, tool, input string
		control           bool
	}{
		{"short description (control)", "Bash", `{"command":"echo hi","description":"deploy it"}`, true},
		{"description of 310 bytes", "Bash", `{"command":"echo hi","description":"deploy it` + strings.Repeat(" ", 300) + `"}`, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out, _ := s.post(t, []byte(call("s1", cwd, c.tool, "lp-"+strings.ReplaceAll(c.name, " ", "-"), c.input)))
			if code != 200 || !isDeny(out) {
				if c.control {
					t.Fatalf("control: %d %.200s", code, out)
				}
				t.Errorf("finding: answered %d %.200s, want the parameter rule's denial", code, out)
			}
		})
	}
	for _, in := range []string{`{"target":"prod-1"}`, `{"target":"prod-` + strings.Repeat("x", 300) + `"}`} {
		code, out, _ := s.post(t, []byte(call("s1", cwd, "mcp__srv__tool", "lp-mcp-"+strconv.Itoa(len(in)), in)))
		if code != 200 || isDeny(out) {
			t.Errorf("an MCP parameter rule decided %s: %d %.200s (Claude Code 2.1.328 ignores it)", in[:20], code, out)
		}
	}
}

// TestI24PathFormsHeld: under the project's deny Read(/secret/**) (from
// the project root), other spellings of the same path are denied too:
// "./", "..", a double slash, a trailing slash, a relative path, upper
// case is not the same file on Linux (not probed). A symbolic link into
// secret/ is logged, not asserted: the ledger reads no file of a call,
// and whether Claude Code's own check follows it was not verified here.
func TestI24PathFormsHeld(t *testing.T) {
	s := startHookServe(t)
	q := s.project(t, "q", `{"permissions":{"allow":["Read"],"deny":["Read(/secret/**)"]}}`)
	writeFile(t, filepath.Join(q, "secret", "x"), "s", 0o644)
	if err := os.Symlink("secret", filepath.Join(q, "link")); err != nil {
		t.Fatal(err)
	}
	s.prompt(t, "q1", q)
	n := 0
	read := func(path string) string {
		n++
		return fmt.Sprintf(`{"session_id":"q1","cwd":%q,"hook_event_name":"PreToolUse","tool_name":"Read","tool_use_id":"pf%d","tool_input":{"file_path":%s}}`, q, n, jstr(path))
	}
	for _, p := range []string{
		q + "/secret/x", q + "/./secret/x", q + "/secret/../secret/x", q + "//secret/x", q + "/secret/x/",
		q + "/secret//x", "secret/x", "./secret/x", q + "/other/../secret/x", q + "/secret/./x",
	} {
		t.Run(strings.TrimPrefix(p, s.roots), func(t *testing.T) {
			if code, out, _ := s.post(t, []byte(read(p))); code != 200 || !isDeny(out) {
				t.Errorf("answered %d %.200s, want a denial", code, out)
			}
		})
	}
	_, out, _ := s.post(t, []byte(read(q+"/link/x")))
	t.Logf("Read through a link into secret/ (not asserted): %.160s", out)
}

// TestI24BashCompoundsHeld: under the project's deny Bash(rm *) and allow
// Bash(echo *), an rm hidden in a compound command is still denied:
// after ;, &&, ||, |, a newline, inside $( ) and backticks, in a
// subshell, after a variable assignment, behind a backslash or quotes.
// Forms whose denial depends on what Claude Code itself does (a path to
// rm, bash -c, xargs, env) are logged, not asserted.
func TestI24BashCompoundsHeld(t *testing.T) {
	s := startHookServe(t)
	cwd := s.project(t, "p", i24Settings)
	s.prompt(t, "s1", cwd)
	n := 0
	post := func(cmd string) string {
		n++
		_, out, _ := s.post(t, []byte(call("s1", cwd, "Bash", fmt.Sprintf("bc%d", n), `{"command":`+jstr(cmd)+`}`)))
		return out
	}
	for _, c := range []string{
		"echo hi; rm -rf x", "echo hi && rm -rf x", "echo hi || rm -rf x", "echo hi | rm -rf x", "echo hi\nrm -rf x",
		"echo $(rm -rf x)", "echo `rm -rf x`", "(rm -rf x)", "{ rm -rf x; }", "X=1 rm -rf x", "\\rm -rf x", "'rm' -rf x",
		`"rm" -rf x`, "echo hi &\nrm -rf x", "echo hi; \trm -rf x", "rm\t-rf x",
	} {
		t.Run(c, func(t *testing.T) {
			if out := post(c); !isDeny(out) {
				t.Errorf("answered %.200s, want a denial", out)
			}
		})
	}
	logged := map[string]string{}
	for _, c := range []string{"/bin/rm -rf x", "bash -c 'rm -rf x'", "sh -c 'rm -rf x'", "echo x | xargs rm", "env rm -rf x", "command rm -rf x",
		"r''m -rf x", "echo hi; \\rm -rf x", "eval 'rm -rf x'"} {
		post(c)
		logged[fmt.Sprintf("bc%d", n)] = c
	}
	for _, r := range s.log(t) {
		d, _ := r["data"].(map[string]any)
		dec, _ := r["decided"].(map[string]any)
		if c, ok := logged[fmt.Sprint(d["call"])]; ok && r["type"] == "tool.checked" {
			t.Logf("%-28q -> %v %v", c, dec["decision"], dec["reason"])
		}
	}
}

// TestI24BackslashInWordEvadesDeny is a finding of the i24 pass: bash
// removes a backslash inside a word (r\m is rm), and the claude-code
// dialect removes quotes inside one (rm -rf x with an empty pair of single
// quotes between r and m, and \rm -rf x, are denied under Bash(rm *)), but
// not that backslash: r\m -rf x is decided ask
// (default:prompt) and answered {}, alone or after "echo hi;". (An ask
// leaves the call to Claude Code's own rules and prompt; what Claude Code
// makes of r\m was not checked here.)
func TestI24BackslashInWordEvadesDeny(t *testing.T) {
	s := startHookServe(t)
	cwd := s.project(t, "p", i24Settings)
	s.prompt(t, "s1", cwd)
	for i, c := range []string{"r''m -rf x", "r\\m -rf x", "echo hi; r\\m -rf x"} {
		t.Run(c, func(t *testing.T) {
			_, out, _ := s.post(t, []byte(call("s1", cwd, "Bash", fmt.Sprintf("bs%d", i), `{"command":`+jstr(c)+`}`)))
			if !isDeny(out) {
				t.Errorf("finding: %q answered %.200s, want the Bash(rm *) denial", c, out)
			}
		})
	}
}
