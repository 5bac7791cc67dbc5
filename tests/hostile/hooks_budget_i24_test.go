package hostile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/sessionledger/ledger/internal/cchook"
	"github.com/sessionledger/ledger/internal/importer"
	ccimport "github.com/sessionledger/ledger/internal/importer/claudecode"
)

// bigSettings is a settings file of n allow rules plus the rm deny: about
// 23 bytes a rule, so 360,000 rules are just under the importer's 8 MiB a
// file.
func bigSettings(n int, tag string) string {
	var b strings.Builder
	b.WriteString(`{"permissions":{"deny":["Bash(rm *)"],"allow":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"Bash(%s%06d *)"`, tag, i)
	}
	b.WriteString("]}}")
	return b.String()
}

// bigProject makes a project whose .claude holds two settings files just
// under 8 MiB each (about 440,000 rules each) (16 MiB of the import's 32 MiB): within every limit.
func bigProject(t *testing.T, dir, tag string) {
	t.Helper()
	for i, name := range []string{"settings.json", "settings.local.json"} {
		tg := fmt.Sprintf("%s%d", tag, i)
		n := (importer.DefaultMaxFileSize - 64) / len(fmt.Sprintf(`"Bash(%s%06d *)",`, tg, 0))
		s := bigSettings(n, tg)
		if len(s) > importer.DefaultMaxFileSize {
			t.Fatalf("%s is %d bytes, over the limit", name, len(s))
		}
		writeFile(t, filepath.Join(dir, ".claude", name), s, 0o644)
	}
}

// TestI24HookServerSlowImportPastTimeout is a finding of the i24 pass:
// serve --hooks bounds a payload with Handler.Timeout (5 s), but the
// project's import takes no context and Handler.ServeHTTP calls Hook.Handle
// directly (the command hook wraps it in handleWithin), so a prompt or the
// first call of a new session in a project whose settings are large but
// within every limit (two files just under 8 MiB) is answered only when
// the import ends. On the shared 2-core machine this test saw 21.7 s and
// 24.6 s for two such projects at once (by hand, three POSTs into one
// 14 MB project: 10.3 to 10.6 s each, the imports not shared, peak RSS
// 684 MB). Claude Code's HTTP hook timeout, as 'hook install'
// writes it, is 10 s. The test expects the answer before that timeout
// (the handler's 5 s, and up to 4 s for a loaded machine to deliver it),
// while the import itself takes over 10 s.
func TestI24HookServerSlowImportPastTimeout(t *testing.T) {
	s := startHookServe(t)
	var wg sync.WaitGroup
	for i := range 2 {
		dir := filepath.Join(s.roots, fmt.Sprintf("big%d", i))
		bigProject(t, dir, fmt.Sprintf("p%d", i))
		wg.Add(1)
		go func() {
			defer wg.Done()
			code, out, took := s.post(t, []byte(call(fmt.Sprintf("big%d", i), dir, "Bash", "bt", `{"command":"rm -rf x"}`)))
			t.Logf("project %d: answered %d in %s: %.160s", i, code, took, out)
			if code != 200 || !isDeny(out) {
				t.Errorf("project %d: %d %.200s, want a denial", i, code, out)
			}
			if took > 9*time.Second {
				t.Errorf("finding: project %d: the call was answered after %s, past serve --hooks' 5 s bound on a payload and near Claude Code's 10 s hook timeout", i, took)
			}
		}()
	}
	wg.Wait()
	s.apiAnswers(t)
}

// TestI24CommandHookBudgetHeld: the command hook answers within --timeout
// plus 1 s (and 3 s for starting the process on a loaded machine, where
// 0.5 s was once too little: the slow import itself takes over 10 s, so
// the bound still tells a held budget from a waited-out one), denying
// the call, when the project's import is slow (large settings within the
// limits) and when a file it reads is a FIFO (settings, an agent, the git
// HEAD, a sub-agent's metadata). The import cache never gets the slow
// project's document (the import does not finish within the budget), so
// every run of a new session is denied: logged, not a fail-open.
func TestI24CommandHookBudgetHeld(t *testing.T) {
	s := startHookServe(t)
	const timeout = time.Second
	budget := timeout + time.Second + 3*time.Second
	cache := filepath.Join(s.dir, "import-cache")
	run := func(t *testing.T, project string, payload string) hookCmd {
		t.Helper()
		r := runHookCmd(t, s.dir, []string{"CLAUDE_PROJECT_DIR=" + project}, []byte(payload),
			"--nats", s.nats, "--timeout", timeout.String(), "--catalogue", filepath.Join(s.dir, "tools.json"), "--import-cache", cache)
		t.Logf("answered in %s (exit %d): %.160s", r.took, r.exit, r.out)
		if r.took > budget {
			t.Errorf("answered in %s, past --timeout %s plus 1 s (and 3 s slack)", r.took, timeout)
		}
		return r
	}
	t.Run("large settings", func(t *testing.T) {
		dir := filepath.Join(s.roots, "big")
		bigProject(t, dir, "c")
		for i := range 2 {
			r := run(t, dir, call(fmt.Sprintf("cbig%d", i), dir, "Bash", "t", `{"command":"rm -rf x"}`))
			if !r.blocks() {
				t.Errorf("run %d: not a denial", i)
			}
		}
		entries, _ := os.ReadDir(cache)
		t.Logf("import cache entries after two runs: %d", len(entries))
	})
	for name, hazard := range map[string]func(t *testing.T, dir string){
		"settings.local.json a FIFO": func(t *testing.T, d string) { mkfifo(t, filepath.Join(d, ".claude", "settings.local.json")) },
		"an agent a FIFO": func(t *testing.T, d string) {
			os.MkdirAll(filepath.Join(d, ".claude", "agents"), 0o755)
			mkfifo(t, filepath.Join(d, ".claude", "agents", "f.md"))
		},
		".git/HEAD a FIFO": func(t *testing.T, d string) {
			os.MkdirAll(filepath.Join(d, ".git"), 0o755)
			mkfifo(t, filepath.Join(d, ".git", "HEAD"))
		},
		".git/config -> /dev/zero": func(t *testing.T, d string) {
			writeFile(t, filepath.Join(d, ".git", "HEAD"), "ref: refs/heads/main\n", 0o644)
			if err := os.Symlink("/dev/zero", filepath.Join(d, ".git", "config")); err != nil {
				t.Fatal(err)
			}
		},
	} {
		t.Run(name, func(t *testing.T) {
			dir := s.project(t, "c"+strings.NewReplacer(" ", "", "/", "", ".", "", ">", "").Replace(name), i24Settings)
			hazard(t, dir)
			sid := "c" + fmt.Sprint(len(name)) + "x" + fmt.Sprint(int(name[0]))
			start := fmt.Sprintf(`{"session_id":%q,"hook_event_name":"SessionStart","source":"startup","cwd":%q}`, sid, dir)
			run(t, dir, start)
			r := run(t, dir, call(sid, dir, "Bash", "t", `{"command":"rm -rf x"}`))
			if !r.blocks() {
				t.Errorf("rm not denied")
			}
		})
	}
	t.Run("sub-agent metadata a FIFO and /dev/zero", func(t *testing.T) {
		dir := s.project(t, "cmeta", i24Settings)
		tp := filepath.Join(s.roots, "t", "cm.jsonl")
		sub := filepath.Join(s.roots, "t", "cm", "subagents")
		if err := os.MkdirAll(sub, 0o755); err != nil {
			t.Fatal(err)
		}
		mkfifo(t, filepath.Join(sub, "agent-ab01.meta.json"))
		if err := os.Symlink("/dev/zero", filepath.Join(sub, "agent-ab02.meta.json")); err != nil {
			t.Fatal(err)
		}
		run(t, dir, fmt.Sprintf(`{"session_id":"cm","hook_event_name":"SessionStart","source":"startup","cwd":%q,"transcript_path":%q}`, dir, tp))
		for _, id := range []string{"ab01", "ab02"} {
			for _, ev := range []string{"SubagentStart", "PreToolUse"} {
				r := run(t, dir, fmt.Sprintf(`{"session_id":"cm","cwd":%q,"transcript_path":%q,"agent_id":%q,"agent_type":"general-purpose","hook_event_name":%q,"tool_name":"Bash","tool_use_id":%q,"tool_input":{"command":"rm -rf x"}}`,
					dir, tp, id, ev, "t"+id))
				if ev == "PreToolUse" && !r.blocks() {
					t.Errorf("%s: rm not denied", id)
				}
			}
		}
	})
	s.apiAnswers(t)
}

func mkfifo(t *testing.T, path string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Fatal(err)
	}
}

// importFresh imports dir without a cache.
func importFresh(t *testing.T, dir string) string {
	t.Helper()
	doc, err := cchook.ImportProject(dir, "", ccimport.ClaudeCodeOptions{}, nil)(dir)
	if err != nil {
		t.Fatal(err)
	}
	return string(doc)
}

// importCached imports dir through a new ImportCache on cacheDir (as a new
// hook process would).
func importCached(t *testing.T, dir, cacheDir string) string {
	t.Helper()
	doc, err := cchook.ImportProject(dir, "", ccimport.ClaudeCodeOptions{}, &cchook.ImportCache{Dir: cacheDir})(dir)
	if err != nil {
		t.Fatal(err)
	}
	return string(doc)
}

// TestI24ImportCacheSwapsHeld: the import cache (a new process's, reading
// the cache directory) never serves the document of files that changed
// between runs: a settings file rewritten with the same size and mtime, a
// symbolic link retargeted to a file of the same size and mtime, two agent
// files whose contents were swapped (same names, sizes, mtimes), an agent
// file replaced by a link to another one, and a settings file moved in
// from settings.local.json.
func TestI24ImportCacheSwapsHeld(t *testing.T) {
	cacheDir := t.TempDir()
	mtime := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	set := func(t *testing.T, path, content string) {
		t.Helper()
		writeFile(t, path, content, 0o644)
		if err := os.Chtimes(path, mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	check := func(t *testing.T, dir, what string) {
		t.Helper()
		got, want := importCached(t, dir, cacheDir), importFresh(t, dir)
		if got != want {
			t.Errorf("%s: the cache served %s, a fresh import makes %s", what, got, want)
		}
	}
	t.Run("same size, same mtime", func(t *testing.T) {
		dir := t.TempDir()
		p := filepath.Join(dir, ".claude", "settings.json")
		set(t, p, `{"permissions":{"deny":["Bash(rm *)"]}}`)
		check(t, dir, "first")
		set(t, p, `{"permissions":{"deny":["Bash(rx *)"]}}`)
		check(t, dir, "rewritten")
	})
	t.Run("link retargeted", func(t *testing.T) {
		dir := t.TempDir()
		a, b := filepath.Join(dir, ".claude", "a.json"), filepath.Join(dir, ".claude", "b.json")
		set(t, a, `{"permissions":{"deny":["Bash(rm *)"]}}`)
		set(t, b, `{"permissions":{"allow":["Bash(rm)"]}}`)
		link := filepath.Join(dir, ".claude", "settings.json")
		if err := os.Symlink("a.json", link); err != nil {
			t.Fatal(err)
		}
		check(t, dir, "to a")
		os.Remove(link)
		if err := os.Symlink("b.json", link); err != nil {
			t.Fatal(err)
		}
		check(t, dir, "to b")
	})
	t.Run("agent contents swapped", func(t *testing.T) {
		dir := t.TempDir()
		a, b := filepath.Join(dir, ".claude", "agents", "a.md"), filepath.Join(dir, ".claude", "agents", "b.md")
		ra := "---\nname: ra\ndescription: d\ntools: Read\n---\nA\n"
		rb := "---\nname: rb\ndescription: d\ntools: Bash\n---\nB\n"
		set(t, a, ra)
		set(t, b, rb)
		set(t, filepath.Join(dir, ".claude", "settings.json"), `{}`)
		check(t, dir, "first")
		set(t, a, strings.Replace(ra, "Read", "Bash", 1))
		set(t, b, strings.Replace(rb, "Bash", "Read", 1))
		check(t, dir, "swapped")
	})
	t.Run("agent replaced by a link", func(t *testing.T) {
		dir := t.TempDir()
		a, b := filepath.Join(dir, ".claude", "agents", "a.md"), filepath.Join(dir, ".claude", "agents", "b.md")
		set(t, a, "---\nname: ra\ndescription: d\ntools: Read\n---\nA\n")
		set(t, b, "---\nname: rb\ndescription: d\ntools: Bash\n---\nB\n")
		check(t, dir, "first")
		os.Remove(b)
		if err := os.Symlink("a.md", b); err != nil {
			t.Fatal(err)
		}
		check(t, dir, "linked")
	})
	t.Run("local moved to shared", func(t *testing.T) {
		dir := t.TempDir()
		shared, local := filepath.Join(dir, ".claude", "settings.json"), filepath.Join(dir, ".claude", "settings.local.json")
		set(t, local, `{"permissions":{"deny":["Bash(rm *)"],"defaultMode":"plan"}}`)
		set(t, shared, `{"permissions":{"allow":["Bash"],"defaultMode":"acceptEdits"}}`)
		check(t, dir, "first")
		set(t, shared, `{"permissions":{"deny":["Bash(rm *)"],"defaultMode":"plan"}}`)
		set(t, local, `{"permissions":{"allow":["Bash"],"defaultMode":"acceptEdits"}}`)
		check(t, dir, "swapped between the files")
	})
}

// isTmpfs reports whether dir is on tmpfs, whose readdir order is the
// reverse of creation order.
func isTmpfs(dir string) bool {
	var st syscall.Statfs_t
	return syscall.Statfs(dir, &st) == nil && st.Type == 0x01021994
}

// TestI24ImportCacheDirectoryOrder is a finding of the i24 pass: the
// import's document depends on the order the directory lists agents/ in
// (importer: "the last of two agents with one name wins", read in readdir
// order, as Claude Code does), but ClaudeCodeFingerprint hashes the files
// in sorted name order, so two directories with the same names and bytes
// listed in different orders have one fingerprint and two documents. On
// tmpfs (readdir lists the newest entry first) removing a.md and writing it
// back byte for byte flips which of two agents named "dup" wins: a fresh
// import gives it Bash, the cache (the hook's --import-cache, serve's
// in-memory cache) keeps serving Read (or the other way round). The
// fingerprint's own promise: "Two imports with the same fingerprint make
// the same document". Skipped where no tmpfs directory is at hand.
func TestI24ImportCacheDirectoryOrder(t *testing.T) {
	base := ""
	for _, d := range []string{os.TempDir(), "/dev/shm"} {
		if isTmpfs(d) {
			base = d
			break
		}
	}
	if base == "" {
		t.Skip("no tmpfs directory (TMPDIR or /dev/shm) to make readdir order differ")
	}
	dir, err := os.MkdirTemp(base, "i24-order-")
	if err != nil {
		t.Skip(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	cacheDir := t.TempDir()
	agents := filepath.Join(dir, ".claude", "agents")
	a := "---\nname: dup\ndescription: d\ntools: Read\n---\nA\n"
	b := "---\nname: dup\ndescription: d\ntools: Bash\n---\nB\n"
	writeFile(t, filepath.Join(agents, "a.md"), a, 0o644)
	writeFile(t, filepath.Join(agents, "b.md"), b, 0o644)
	first := importCached(t, dir, cacheDir)
	if first != importFresh(t, dir) {
		t.Fatalf("the first import differs from a fresh one")
	}
	os.Remove(filepath.Join(agents, "a.md"))
	writeFile(t, filepath.Join(agents, "a.md"), a, 0o644)
	fresh, cached := importFresh(t, dir), importCached(t, dir, cacheDir)
	if fresh == first {
		t.Skip("the directory lists the same order after the rewrite: no difference to show")
	}
	var fa, ca struct {
		Agents map[string]json.RawMessage `json:"agents"`
	}
	_ = json.Unmarshal([]byte(fresh), &fa)
	_ = json.Unmarshal([]byte(cached), &ca)
	if cached != fresh {
		t.Errorf("finding: same names and bytes, another readdir order: the cache serves agent dup %s, a fresh import makes %s",
			bytes.TrimSpace(ca.Agents["dup"]), bytes.TrimSpace(fa.Agents["dup"]))
	}
}

// TestI24CommandHookBlackholeLedgerHeld: a NATS address that accepts the
// connection and then says nothing (or sends a NATS INFO and then nothing)
// holds the command hook no longer than --timeout plus 1 s (and 0.5 s for
// the process): the call is denied, a prompt goes on.
func TestI24CommandHookBlackholeLedgerHeld(t *testing.T) {
	dir := t.TempDir()
	for name, greet := range map[string]string{
		"silent":      "",
		"INFO only":   "INFO {\"server_id\":\"x\",\"version\":\"2.10.0\",\"proto\":1,\"max_payload\":1048576,\"headers\":true}\r\n",
		"INFO + PONG": "INFO {\"server_id\":\"x\",\"version\":\"2.10.0\",\"proto\":1,\"max_payload\":1048576,\"headers\":true}\r\nPONG\r\n",
	} {
		t.Run(name, func(t *testing.T) {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			defer ln.Close()
			go func() {
				for {
					c, err := ln.Accept()
					if err != nil {
						return
					}
					if greet != "" {
						_, _ = c.Write([]byte(greet))
					}
					go func() { _, _ = io.Copy(io.Discard, c); c.Close() }()
				}
			}()
			url := "nats://" + ln.Addr().String()
			for _, payload := range []string{
				call("bh", dir, "Bash", "t1", `{"command":"echo hi"}`),
				`{"session_id":"bh","hook_event_name":"UserPromptSubmit","cwd":` + jstr(dir) + `,"prompt_id":"p"}`,
			} {
				r := runHookCmd(t, dir, nil, []byte(payload), "--nats", url, "--timeout", "1s", "--import-cache", "off")
				t.Logf("answered in %s (exit %d): %.120s", r.took, r.exit, r.out)
				if r.took > 2500*time.Millisecond {
					t.Errorf("answered in %s, past --timeout 1s plus 1 s (and 0.5 s)", r.took)
				}
				if strings.Contains(payload, "PreToolUse") && !r.blocks() {
					t.Errorf("the call was not denied: %s", r.out)
				}
				if strings.Contains(payload, "UserPromptSubmit") && (r.exit != 0 || isDeny(r.out)) {
					t.Errorf("the prompt was blocked: exit %d %s", r.exit, r.out)
				}
			}
		})
	}
}

// TestI24CommandHookStdinHeldOpen is a finding of the i24 pass (low: Claude
// Code closes the hook's standard input after the payload): the hook reads
// standard input to its end before its --timeout starts, so a complete
// payload whose writer keeps the pipe open holds the hook until the pipe
// closes, past "--timeout plus at most 1s whatever happens" (the flag's
// help). Here the pipe stays open 6 s after one complete PreToolUse, with
// --timeout 1s; the test expects the denial within 2.5 s.
func TestI24CommandHookStdinHeldOpen(t *testing.T) {
	bin, err := ledgerBinary()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cmd := exec.Command(bin, "hook", "claude-code", "--nats", "nats://127.0.0.1:1", "--timeout", "1s", "--import-cache", "off")
	cmd.Env = i24Env(dir)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if _, err := in.Write([]byte(call("so", dir, "Bash", "t", `{"command":"echo hi"}`) + "\n")); err != nil {
		t.Fatal(err)
	}
	answered := make(chan time.Duration, 1)
	var answer []byte
	go func() {
		answer, _ = io.ReadAll(out)
		answered <- time.Since(start)
	}()
	var took time.Duration
	select {
	case took = <-answered:
	case <-time.After(6 * time.Second):
		in.Close()
		took = <-answered
	}
	in.Close()
	_ = cmd.Wait()
	t.Logf("answered after %s: %.120s", took, answer)
	if took > 2500*time.Millisecond {
		t.Errorf("finding: the hook answered after %s (when its standard input closed), past --timeout 1s plus 1 s", took)
	}
	if !isDeny(strings.TrimSpace(string(answer))) {
		t.Errorf("not a denial: %s", answer)
	}
}
