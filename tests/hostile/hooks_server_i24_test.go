package hostile

import (
	"bufio"
	"context"
	"encoding/base64"
	"fmt"
	"hash/crc32"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/sessionledger/ledger/internal/ledgertest"
)

// rawRequest sends raw bytes on a fresh loopback connection and returns the
// response's status and body (read for at most 20 s).
func rawRequest(t *testing.T, hostPort, raw string) (int, string) {
	t.Helper()
	c, err := net.DialTimeout("tcp", hostPort, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(20 * time.Second))
	if _, err := c.Write([]byte(raw)); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("no response: %v", err)
	}
	defer resp.Body.Close()
	var b strings.Builder
	buf := make([]byte, 64<<10)
	for {
		n, err := resp.Body.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			break
		}
	}
	return resp.StatusCode, strings.TrimSpace(b.String())
}

// TestI24HookServerRequestFormsHeld: requests in forms Claude Code does not
// send, each carrying an allowed call (echo), are never served as a hook:
// answered with a denial (status 200), or not served at all (405 for
// another method, net/http's 400 for a Host it cannot parse), and nothing
// they carry is recorded. Forms that are the same request (a %2F, a query
// string, a loopback Host in another spelling) are served.
func TestI24HookServerRequestFormsHeld(t *testing.T) {
	s := startHookServe(t)
	cwd := s.project(t, "p", i24Settings)
	s.prompt(t, "s1", cwd)
	u, _ := url.Parse(s.url)
	hp, port := u.Host, u.Port()
	n := 0
	body := func() string {
		n++
		return call("s1", cwd, "Bash", fmt.Sprintf("rf%d", n), `{"command":"echo hi"}`)
	}
	raw := func(method, path string, headers ...string) string {
		b := body()
		h := strings.Join(headers, "\r\n")
		if h != "" {
			h += "\r\n"
		}
		return fmt.Sprintf("%s %s HTTP/1.1\r\n%sContent-Length: %d\r\nConnection: close\r\n\r\n%s", method, path, h, len(b), b)
	}
	auth, ct, host := "Authorization: Bearer "+i24Token, "Content-Type: application/json", "Host: "+hp
	refused := []struct{ name, raw string }{
		{"path with a trailing slash", raw("POST", "/hooks/claude-code/", host, auth, ct)},
		{"path with a double slash", raw("POST", "//hooks/claude-code", host, auth, ct)},
		{"path with a dot segment", raw("POST", "/hooks/x/../claude-code", host, auth, ct)},
		{"path upper-case", raw("POST", "/HOOKS/claude-code", host, auth, ct)},
		{"path with %00", raw("POST", "/hooks/claude-code%00", host, auth, ct)},
		{"absolute-form URL of another host", raw("POST", "http://evil.example/hooks/claude-code", "Host: evil.example", auth, ct)},
		{"Host evil.example", raw("POST", "/hooks/claude-code", "Host: evil.example:"+port, auth, ct)},
		{"Host localhost.evil.example", raw("POST", "/hooks/claude-code", "Host: localhost.evil.example", auth, ct)},
		{"Host 127.1 (resolves elsewhere by name)", raw("POST", "/hooks/claude-code", "Host: 127.1:"+port, auth, ct)},
		{"Host 0x7f000001", raw("POST", "/hooks/claude-code", "Host: 0x7f000001", auth, ct)},
		{"Host IDN look-alike", raw("POST", "/hooks/claude-code", "Host: xn--lcalhost-9za:"+port, auth, ct)},
		{"Origin null", raw("POST", "/hooks/claude-code", host, auth, ct, "Origin: null")},
		{"Origin of the server itself", raw("POST", "/hooks/claude-code", host, auth, ct, "Origin: http://"+hp)},
		{"Content-Type application/jsonx", raw("POST", "/hooks/claude-code", host, auth, "Content-Type: application/jsonx")},
		{"Content-Type text/plain", raw("POST", "/hooks/claude-code", host, auth, "Content-Type: text/plain")},
		{"Content-Type text/plain then JSON", raw("POST", "/hooks/claude-code", host, auth, "Content-Type: text/plain", ct)},
		{"no Content-Type", raw("POST", "/hooks/claude-code", host, auth)},
		{"Content-Type multipart", raw("POST", "/hooks/claude-code", host, auth, "Content-Type: multipart/form-data; boundary=x")},
		{"bearer lower-case", raw("POST", "/hooks/claude-code", host, "Authorization: bearer "+i24Token, ct)},
		{"two spaces after Bearer", raw("POST", "/hooks/claude-code", host, "Authorization: Bearer  "+i24Token, ct)},
		{"a wrong token first, the right one second", raw("POST", "/hooks/claude-code", host, "Authorization: Bearer wrong", auth, ct)},
		{"token prefix", raw("POST", "/hooks/claude-code", host, "Authorization: Bearer "+i24Token[:10], ct)},
		{"token with a suffix", raw("POST", "/hooks/claude-code", host, "Authorization: Bearer "+i24Token+"x", ct)},
		{"Basic with the token as password", raw("POST", "/hooks/claude-code", host, "Authorization: Basic "+basic("x", i24Token), ct)},
		{"token in the query", raw("POST", "/hooks/claude-code?access_token="+i24Token, host, ct)},
		{"no Authorization", raw("POST", "/hooks/claude-code", host, ct)},
		{"empty Host", raw("POST", "/hooks/claude-code", "Host:", auth, ct)},
	}
	for _, c := range refused {
		t.Run(c.name, func(t *testing.T) {
			code, out := rawRequest(t, hp, c.raw)
			if code != 200 || !isDeny(out) {
				t.Errorf("answered %d %.200s, want 200 and a denial", code, out)
			}
		})
	}
	notServed := []struct {
		name, raw string
		code      int
	}{
		{"PUT", raw("PUT", "/hooks/claude-code", host, auth, ct), 405},
		{"GET", raw("GET", "/hooks/claude-code", host, auth, ct), 405},
		{"OPTIONS with an Origin", raw("OPTIONS", "/hooks/claude-code", host, auth, "Origin: http://evil.example"), 405},
		{"Host with userinfo", raw("POST", "/hooks/claude-code", "Host: user@127.0.0.1:"+port, auth, ct), 400},
	}
	for _, c := range notServed {
		t.Run(c.name, func(t *testing.T) {
			if code, out := rawRequest(t, hp, c.raw); code != c.code {
				t.Errorf("answered %d %.200s, want %d", code, out, c.code)
			}
		})
	}
	served := []struct{ name, raw string }{
		{"%2F in the path", raw("POST", "/hooks%2Fclaude-code", host, auth, ct)},
		{"a query string", raw("POST", "/hooks/claude-code?a=b", host, auth, ct)},
		{"Host [::1]", raw("POST", "/hooks/claude-code", "Host: [::1]:"+port, auth, ct)},
		{"Host localhost. (trailing dot)", raw("POST", "/hooks/claude-code", "Host: localhost.:"+port, auth, ct)},
		{"Host LOCALHOST", raw("POST", "/hooks/claude-code", "Host: LOCALHOST:"+port, auth, ct)},
		{"Host [::ffff:127.0.0.1]", raw("POST", "/hooks/claude-code", "Host: [::ffff:127.0.0.1]", auth, ct)},
		{"Content-Type application/json;", raw("POST", "/hooks/claude-code", host, auth, "Content-Type: application/json;")},
		{"Content-Type APPLICATION/JSON", raw("POST", "/hooks/claude-code", host, auth, "Content-Type: APPLICATION/JSON")},
		{"Content-Type with odd parameters", raw("POST", "/hooks/claude-code", host, auth, `Content-Type: application/json; a="b;c"; charset=utf-8`)},
	}
	for _, c := range served {
		t.Run(c.name, func(t *testing.T) {
			if code, out := rawRequest(t, hp, c.raw); code != 200 || out != "{}" {
				t.Errorf("answered %d %.200s, want the allowed call's {}", code, out)
			}
		})
	}
	// Only the served calls were checked: one tool.checked each, plus the
	// first allowed call of nothing else.
	checked := 0
	for _, r := range s.log(t) {
		if r["type"] == "tool.checked" {
			checked++
		}
	}
	if checked != len(served) {
		t.Errorf("%d calls checked, want the %d served ones", checked, len(served))
	}
	s.apiAnswers(t)
}

func basic(user, pass string) string {
	return base64.StdEncoding.EncodeToString([]byte(user + ":" + pass))
}

// TestI24HookServerPastConcurrencyHeld: with --hooks-max-concurrent 2, 24
// calls at once are each answered within 30 s with a denial or the allowed
// call's {}, never cut or hung, and the NATS API answers after.
func TestI24HookServerPastConcurrencyHeld(t *testing.T) {
	s := startHookServe(t, "--hooks-max-concurrent", "2")
	cwd := s.project(t, "p", i24Settings)
	s.prompt(t, "s1", cwd)
	var wg sync.WaitGroup
	var mu sync.Mutex
	busy := 0
	for i := range 24 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			code, out, took := s.post(t, []byte(call("s1", cwd, "Bash", fmt.Sprintf("cc%d", i), `{"command":"echo hi"}`)))
			if code != 200 || (out != "{}" && !isDeny(out)) || took > 30*time.Second {
				t.Errorf("call %d: %d %.200s after %s", i, code, out, took)
			}
			if strings.Contains(out, "handling its limit") {
				mu.Lock()
				busy++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	t.Logf("%d of 24 denied as past the limit", busy)
	s.apiAnswers(t)
}

// trickle opens a connection that sends a hook request's headers (with the
// token and a Content-Length) and then one byte of its body every interval
// until stop is closed.
func trickle(t *testing.T, hostPort string, stop <-chan struct{}, interval time.Duration) {
	t.Helper()
	c, err := net.DialTimeout("tcp", hostPort, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	body := `{"session_id":"slow","hook_event_name":"PreToolUse","tool_name":"Bash","tool_use_id":"slow","tool_input":{"command":"echo hi"}}`
	head := fmt.Sprintf("POST /hooks/claude-code HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n",
		hostPort, i24Token, len(body))
	if _, err := c.Write([]byte(head)); err != nil {
		t.Fatal(err)
	}
	go func() {
		defer c.Close()
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for i := 0; i < len(body)-1; i++ {
			select {
			case <-stop:
				return
			case <-tick.C:
			}
			if _, err := c.Write([]byte{body[i]}); err != nil {
				return
			}
		}
		<-stop
	}()
}

// TestI24HookServerSlowBodyHoldsSlots is a finding of the i24 pass: a
// client with the token that sends its headers and then trickles its body
// (one byte a second) holds one of --hooks-max-concurrent's slots for as
// long as it trickles. The http.Server has ReadHeaderTimeout (5 s) but no
// ReadTimeout, and Handler.ServeHTTP takes its slot before io.ReadAll of
// the body, whose Timeout (5 s) starts only after the read. Two such
// connections on --hooks-max-concurrent 2 deny every hook for 15 s (the
// whole probe); the test expects a call made 12 s in (past both 5 s
// bounds) to be served.
func TestI24HookServerSlowBodyHoldsSlots(t *testing.T) {
	s := startHookServe(t, "--hooks-max-concurrent", "2")
	cwd := s.project(t, "p", i24Settings)
	s.prompt(t, "s1", cwd)
	u, _ := url.Parse(s.url)
	stop := make(chan struct{})
	defer close(stop)
	trickle(t, u.Host, stop, time.Second)
	trickle(t, u.Host, stop, time.Second)
	// Not a wait for an event: the server, a separate process, shows no
	// sign of a slot taken; the call at 0.5 s is only logged.
	time.Sleep(500 * time.Millisecond)
	_, out, _ := s.post(t, []byte(call("s1", cwd, "Bash", "sb0", `{"command":"echo hi"}`)))
	t.Logf("at 0.5 s: %.160s", out)
	// The NATS API is not the hook server's: it answers meanwhile.
	s.apiAnswers(t)
	time.Sleep(12 * time.Second) // the probe's subject: past both 5 s bounds, while the bodies still trickle
	code, out, took := s.post(t, []byte(call("s1", cwd, "Bash", "sb1", `{"command":"echo hi"}`)))
	if code != 200 || out != "{}" {
		t.Errorf("finding: 12 s into two trickled bodies an allowed call is answered %d %.200s (after %s): the slots are still held", code, out, took)
	}
	s.apiAnswers(t)
}

// TestI24HookServerRootsWalkUp is a finding of the i24 pass: --hooks-roots
// confines the payload's cwd, but the project directory is then found by
// walking up from it (cchook.ProjectDir: the nearest directory with a
// .claude), past the roots. A .claude above the roots (here the parent of
// --hooks-roots, as /tmp/.claude would be for roots under /tmp, writable by
// any local user) is imported for a cwd under the roots that has none of
// its own: its policy.set is appended, the session runs under it, and its
// allow decides the call. The test expects nothing outside the roots to be
// read: no policy, so the call is denied.
func TestI24HookServerRootsWalkUp(t *testing.T) {
	s := startHookServe(t)
	// s.dir is the parent of the roots.
	writeFile(t, filepath.Join(s.dir, ".claude", "settings.json"), `{"permissions":{"allow":["Bash(rm *)","Bash(outside-the-roots *)"]}}`, 0o644)
	cwd := filepath.Join(s.roots, "noclaude", "sub")
	if err := os.MkdirAll(cwd, 0o755); err != nil {
		t.Fatal(err)
	}
	s.prompt(t, "w1", cwd)
	code, out, _ := s.post(t, []byte(call("w1", cwd, "Bash", "w1t", `{"command":"rm -rf x"}`)))
	for _, r := range s.log(t) {
		if r["type"] == "policy.set" && strings.Contains(fmt.Sprint(r["data"]), "outside-the-roots") {
			t.Errorf("finding: a policy.set was imported from %s, outside --hooks-roots %s", filepath.Join(s.dir, ".claude"), s.roots)
		}
		if r["type"] == "session.started" {
			t.Logf("session.started data: %v", r["data"])
		}
	}
	if code != 200 || !isDeny(out) {
		t.Errorf("finding: rm answered %d %.200s under a policy read outside the roots", code, out)
	}
}

// TestI24HookServerPathsOutsideRootsHeld: payload paths outside the roots
// are never opened: a cwd with "..", a symbolic link under the roots to a
// project outside them (whose settings would allow rm), a transcript_path
// with ".." or a link out; a FIFO there would hang a read. Each call is
// answered within 5 s with a denial.
func TestI24HookServerPathsOutsideRootsHeld(t *testing.T) {
	s := startHookServe(t)
	outside := filepath.Join(s.dir, "outside")
	writeFile(t, filepath.Join(outside, ".claude", "settings.json"), `{"permissions":{"allow":["Bash(rm *)"]}}`, 0o644)
	if err := syscall.Mkfifo(filepath.Join(outside, ".claude", "settings.local.json"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(s.roots, "link-out")); err != nil {
		t.Fatal(err)
	}
	in := s.project(t, "p", i24Settings)
	for name, cwd := range map[string]string{
		"dot-dot":          filepath.Join(s.roots, "p") + "/../../outside",
		"link out":         filepath.Join(s.roots, "link-out"),
		"relative":         "roots/../outside",
		"double slash":     s.roots + "//link-out",
		"trailing slash":   filepath.Join(s.roots, "link-out") + "/",
		"NUL in the path":  filepath.Join(s.roots, "link-out") + "\x00",
		"outside directly": outside,
	} {
		t.Run(name, func(t *testing.T) {
			sid := fmt.Sprintf("o%08x", crc32.ChecksumIEEE([]byte(name)))
			code, out, took := s.post(t, []byte(fmt.Sprintf(`{"session_id":%q,"hook_event_name":"UserPromptSubmit","cwd":%s,"prompt_id":"p"}`, sid, jstr(cwd))))
			if code != 200 || took > 5*time.Second {
				t.Fatalf("prompt: %d %.200s after %s", code, out, took)
			}
			code, out, took = s.post(t, []byte(fmt.Sprintf(`{"session_id":%q,"cwd":%s,"hook_event_name":"PreToolUse","tool_name":"Bash","tool_use_id":%q,"tool_input":{"command":"rm -rf x"}}`, sid, jstr(cwd), "t-"+sid)))
			if code != 200 || !isDeny(out) || took > 5*time.Second {
				t.Errorf("rm answered %d %.200s after %s, want a denial", code, out, took)
			}
		})
	}
	// A sub-agent whose transcript_path leads out: its metadata is not
	// read (a FIFO there would block).
	s.prompt(t, "sa", in)
	meta := filepath.Join(outside, "t", "sa", "subagents")
	if err := os.MkdirAll(meta, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(meta, "agent-aa11.meta.json"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, tp := range map[string]string{
		"transcript with ..":       filepath.Join(s.roots, "p") + "/../../outside/t/sa.jsonl",
		"transcript through link":  filepath.Join(s.roots, "link-out", "t", "sa.jsonl"),
		"transcript outside roots": filepath.Join(outside, "t", "sa.jsonl"),
	} {
		t.Run(name, func(t *testing.T) {
			body := fmt.Sprintf(`{"session_id":"sa","cwd":%q,"transcript_path":%q,"agent_id":"aa11","agent_type":"general-purpose","hook_event_name":"PreToolUse","tool_name":"Bash","tool_use_id":%q,"tool_input":{"command":"rm -rf x"}}`,
				in, tp, fmt.Sprintf("m%08x", crc32.ChecksumIEEE([]byte(name))))
			code, out, took := s.post(t, []byte(body))
			if code != 200 || !isDeny(out) || took > 5*time.Second {
				t.Errorf("answered %d %.200s after %s, want a denial", code, out, took)
			}
		})
	}
	s.apiAnswers(t)
}

// TestI24HookServerSpecialFilesHeld: special files under the roots where
// serve --hooks reads (the project's settings, its agents, its git files,
// a sub-agent's metadata): FIFOs, sockets, a character device (when mknod
// is allowed), links to /dev/zero and to /proc/self/fd/0, link loops and a
// link to /. Each prompt and call is answered within 5 s, the rm call with
// a denial, and the ledger's API answers after.
func TestI24HookServerSpecialFilesHeld(t *testing.T) {
	s := startHookServe(t)
	type hazard func(t *testing.T, dir string)
	fifo := func(rel string) hazard {
		return func(t *testing.T, dir string) {
			if err := syscall.Mkfifo(filepath.Join(dir, rel), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	link := func(rel, target string) hazard {
		return func(t *testing.T, dir string) {
			_ = os.Remove(filepath.Join(dir, rel))
			if err := os.Symlink(target, filepath.Join(dir, rel)); err != nil {
				t.Fatal(err)
			}
		}
	}
	socket := func(rel string) hazard {
		return func(t *testing.T, dir string) {
			ln, err := net.Listen("unix", filepath.Join(dir, rel))
			if err != nil {
				t.Skipf("unix socket: %v", err)
			}
			t.Cleanup(func() { ln.Close() })
		}
	}
	device := func(rel string) hazard {
		return func(t *testing.T, dir string) {
			if err := syscall.Mknod(filepath.Join(dir, rel), syscall.S_IFCHR|0o644, int(1<<8|5)); err != nil {
				t.Skipf("mknod (needs privilege): %v", err)
			}
		}
	}
	head := func(t *testing.T, dir string) {
		writeFile(t, filepath.Join(dir, ".git", "HEAD"), "ref: refs/heads/main\n", 0o644)
	}
	both := func(a, b hazard) hazard { return func(t *testing.T, d string) { a(t, d); b(t, d) } }
	for name, h := range map[string]hazard{
		"settings.local.json a FIFO":        fifo(".claude/settings.local.json"),
		"settings.local.json a socket":      socket(".claude/settings.local.json"),
		"settings.local.json /dev/zero dev": device(".claude/settings.local.json"),
		"settings.json a link to /dev/zero": link(".claude/settings.json", "/dev/zero"),
		"settings.local.json -> fd 0":       link(".claude/settings.local.json", "/proc/self/fd/0"),
		"an agent a FIFO": func(t *testing.T, d string) {
			os.MkdirAll(filepath.Join(d, ".claude/agents"), 0o755)
			fifo(".claude/agents/f.md")(t, d)
		},
		"an agent a link to /dev/zero": func(t *testing.T, d string) {
			os.MkdirAll(filepath.Join(d, ".claude/agents"), 0o755)
			link(".claude/agents/z.md", "/dev/zero")(t, d)
		},
		"agents a link loop": func(t *testing.T, d string) {
			os.MkdirAll(filepath.Join(d, ".claude/agents"), 0o755)
			link(".claude/agents/l1.md", "l2.md")(t, d)
			link(".claude/agents/l2.md", "l1.md")(t, d)
			link(".claude/agents/up", "..")(t, d)
		},
		"agents a link to /":           link(".claude/agents", "/"),
		".git/HEAD a FIFO":             func(t *testing.T, d string) { os.MkdirAll(filepath.Join(d, ".git"), 0o755); fifo(".git/HEAD")(t, d) },
		".git/config -> /dev/zero":     both(head, link(".git/config", "/dev/zero")),
		".git/config a FIFO":           both(head, fifo(".git/config")),
		".git/config a device":         both(head, device(".git/config")),
		".git a file naming /dev/zero": func(t *testing.T, d string) { writeFile(t, filepath.Join(d, ".git"), "gitdir: /dev/zero\n", 0o644) },
		".git a file naming a FIFO": func(t *testing.T, d string) {
			fifo("gitfifo")(t, d)
			writeFile(t, filepath.Join(d, ".git"), "gitdir: "+filepath.Join(d, "gitfifo")+"\n", 0o644)
		},
		"commondir a FIFO": func(t *testing.T, d string) {
			os.MkdirAll(filepath.Join(d, "gd"), 0o755)
			writeFile(t, filepath.Join(d, "gd", "HEAD"), "ref: refs/heads/main\n", 0o644)
			fifo("gd/commondir")(t, d)
			writeFile(t, filepath.Join(d, ".git"), "gitdir: "+filepath.Join(d, "gd")+"\n", 0o644)
		},
	} {
		t.Run(name, func(t *testing.T) {
			sid := fmt.Sprintf("h%08x", crc32.ChecksumIEEE([]byte(name)))
			dir := s.project(t, sid, i24Settings)
			h(t, dir)
			start := time.Now()
			code, out, took := s.post(t, []byte(fmt.Sprintf(`{"session_id":%q,"hook_event_name":"UserPromptSubmit","cwd":%q,"prompt_id":"p"}`, sid, dir)))
			if code != 200 || took > 5*time.Second {
				t.Errorf("prompt: %d %.200s after %s", code, out, took)
			}
			code, out, took = s.post(t, []byte(call(sid, dir, "Bash", "t-"+sid, `{"command":"rm -rf x"}`)))
			if code != 200 || !isDeny(out) || took > 5*time.Second {
				t.Errorf("rm answered %d %.200s after %s, want a denial", code, out, took)
			}
			t.Logf("answered in %s: %.120s", time.Since(start), out)
		})
	}
	// Sub-agent metadata: a FIFO, a link to /dev/zero, a socket, a huge
	// sparse file, under a session whose policy imported fine.
	dir := s.project(t, "meta", i24Settings)
	tp := filepath.Join(s.roots, "t", "m1.jsonl")
	sub := filepath.Join(s.roots, "t", "m1", "subagents")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	s.post(t, []byte(fmt.Sprintf(`{"session_id":"m1","hook_event_name":"UserPromptSubmit","cwd":%q,"transcript_path":%q,"prompt_id":"p"}`, dir, tp)))
	fifo("agent-aa01.meta.json")(t, sub)
	link("agent-aa02.meta.json", "/dev/zero")(t, sub)
	socket("agent-aa03.meta.json")(t, sub)
	if f, err := os.Create(filepath.Join(sub, "agent-aa04.meta.json")); err == nil {
		_ = f.Truncate(1 << 40)
		f.Close()
	}
	link("agent-aa05.meta.json", "agent-aa05.meta.json")(t, sub)
	for i := 1; i <= 5; i++ {
		id := fmt.Sprintf("aa%02d", i)
		for _, ev := range []string{"SubagentStart", "PreToolUse"} {
			body := fmt.Sprintf(`{"session_id":"m1","cwd":%q,"transcript_path":%q,"agent_id":%q,"agent_type":"general-purpose","hook_event_name":%q,"tool_name":"Bash","tool_use_id":%q,"tool_input":{"command":"rm -rf x"}}`,
				dir, tp, id, ev, "c"+id)
			code, out, took := s.post(t, []byte(body))
			if code != 200 || took > 5*time.Second || ev == "PreToolUse" && !isDeny(out) {
				t.Errorf("meta %s %s: %d %.200s after %s", id, ev, code, out, took)
			}
		}
	}
	s.apiAnswers(t)
}

// TestI24HookServerIdleConnectionsStopAPI is a finding of the i24 pass:
// serve --hooks' http.Server has no IdleTimeout (nor ReadTimeout), and
// nothing bounds its connections, so a keep-alive connection that made
// one request, even an unauthenticated GET (405), is held open for as long
// as the client likes (20 s and more, by hand). The hooks listener shares
// the process's file descriptors with the embedded NATS server: once they
// are spent, NATS accepts no client and the ledger's API stops answering
// ('ledger tree': i/o timeout), until the connections close. The test
// runs serve with RLIMIT_NOFILE 256 (through bash's ulimit) to reach the
// limit with a few hundred connections; at this machine's default limit
// (20000) the same takes about 20000 connections from any local user.
// It expects the API to keep answering.
func TestI24HookServerIdleConnectionsStopAPI(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash to lower the file limit with")
	}
	const nofile = 256
	s := startHookServeWith(t, func(bin string, args []string) (string, []string) {
		return bash, append([]string{"-c", fmt.Sprintf(`ulimit -Sn %d && ulimit -Hn %d && exec "$0" "$@"`, nofile, nofile), bin}, args...)
	})
	s.apiAnswers(t)
	u, _ := url.Parse(s.url)
	var conns []net.Conn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	req := fmt.Sprintf("GET /hooks/claude-code HTTP/1.1\r\nHost: %s\r\n\r\n", u.Host)
	for range nofile + 50 {
		c, err := net.DialTimeout("tcp", u.Host, 2*time.Second)
		if err != nil {
			break
		}
		_ = c.SetDeadline(time.Now().Add(2 * time.Second))
		if _, err := c.Write([]byte(req)); err != nil {
			c.Close()
			break
		}
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			c.Close()
			break
		}
		resp.Body.Close()
		_ = c.SetDeadline(time.Time{})
		conns = append(conns, c)
	}
	t.Logf("%d idle connections held after one unauthenticated GET each", len(conns))
	res := runLedgerWithin(t, 15*time.Second, "tree", "--nats", s.nats, "--data", t.TempDir())
	if res.exit != 0 {
		t.Errorf("finding: with %d idle hook connections the ledger's API does not answer: exit %d: %.300s", len(conns), res.exit, res.stderr)
	}
	for _, c := range conns {
		c.Close()
	}
	conns = nil
	// Closed, the API answers again (within a few accept retries).
	var last cliResult
	defer func() {
		if last.exit != 0 && t.Failed() {
			t.Logf("the last tree: exit %d: %s", last.exit, last.stderr)
		}
	}()
	ledgertest.WaitFor(t, 20*time.Second, "the API back after the connections closed (ledger tree exits 0)", func() bool {
		last = runLedgerWithin(t, 10*time.Second, "tree", "--nats", s.nats, "--data", t.TempDir())
		return last.exit == 0
	})
	s.alive(t)
}

// runLedgerWithin is runLedger bounded by d; a run killed at d has exit -1.
func runLedgerWithin(t *testing.T, d time.Duration, args ...string) cliResult {
	t.Helper()
	bin, err := ledgerBinary()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append(os.Environ(), "NO_COLOR=1", "LEDGER_DATA=", "NATS_URL=")
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err = cmd.Run()
	res := cliResult{stdout: out.String(), stderr: errOut.String()}
	if err != nil {
		res.exit = -1
		if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() >= 0 {
			res.exit = ee.ExitCode()
		}
	}
	return res
}

// TestI24HookServerNestedClaudeDirShiftsPaths is a finding of the i24
// pass: serve --hooks reads a call's path relative to the project
// directory it finds from the payload's cwd (the nearest directory above
// cwd holding a .claude; there is no CLAUDE_PROJECT_DIR on the server), so
// the same call is decided against another base when Claude Code's cwd is
// a subdirectory that has a .claude of its own (a nested package of a
// monorepo, or an empty one the agent made). Under the project's deny
// Read(/secret/**) and Read(./priv/**) (anchored at the project root, as
// Claude Code reads them), a Read of <project>/secret/x is denied from the
// root, and answered {} from <project>/secret or <project>/sub when those
// hold a .claude; likewise <project>/priv/x from <project>/priv. The
// command hook, which has CLAUDE_PROJECT_DIR, denies the same call from
// the same cwd. (Claude Code applies the project's own rules itself; a
// rule only the ledger holds, an operator's, is decided the same way.)
func TestI24HookServerNestedClaudeDirShiftsPaths(t *testing.T) {
	s := startHookServe(t)
	q := s.project(t, "q", `{"permissions":{"allow":["Read"],"deny":["Read(/secret/**)","Read(./priv/**)"]}}`)
	for _, d := range []string{"secret/.claude", "priv/.claude", "sub/.claude"} {
		if err := os.MkdirAll(filepath.Join(q, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	s.prompt(t, "q1", q)
	read := func(id, cwd, path string) string {
		return fmt.Sprintf(`{"session_id":"q1","cwd":%q,"hook_event_name":"PreToolUse","tool_name":"Read","tool_use_id":%q,"tool_input":{"file_path":%q}}`, cwd, id, path)
	}
	if _, out, _ := s.post(t, []byte(read("c0", q, filepath.Join(q, "secret", "x")))); !isDeny(out) {
		t.Fatalf("from the project root the Read is not denied: %.200s", out)
	}
	if _, out, _ := s.post(t, []byte(read("c1", q, filepath.Join(q, "priv", "x")))); !isDeny(out) {
		t.Fatalf("from the project root the Read of priv is not denied: %.200s", out)
	}
	for _, c := range []struct{ name, cwd, path string }{
		{"secret/x from secret", filepath.Join(q, "secret"), filepath.Join(q, "secret", "x")},
		{"secret/x from sub", filepath.Join(q, "sub"), filepath.Join(q, "secret", "x")},
		{"priv/x from priv", filepath.Join(q, "priv"), filepath.Join(q, "priv", "x")},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out, _ := s.post(t, []byte(read("c-"+strings.ReplaceAll(c.name, " ", "-"), c.cwd, c.path)))
			if code != 200 || !isDeny(out) {
				t.Errorf("finding: serve --hooks answered %d %.200s for a Read the same session is denied from the project root", code, out)
			}
			r := runHookCmd(t, s.dir, []string{"CLAUDE_PROJECT_DIR=" + q}, []byte(read("h-"+strings.ReplaceAll(c.name, " ", "-"), c.cwd, c.path)),
				"--nats", s.nats, "--timeout", "2s", "--import-cache", "off")
			if !r.blocks() {
				t.Errorf("the command hook with CLAUDE_PROJECT_DIR: exit %d %.200s, want a denial", r.exit, r.out)
			}
		})
	}
}
