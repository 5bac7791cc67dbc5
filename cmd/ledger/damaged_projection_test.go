package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDamagedProjectionRefusedByEveryCommand: a projection file whose
// bytes changed on disk (the stored policy's "exec" made "Xxec", which
// would read as a policy denying nothing) is refused by every command
// that opens it, as serve refuses it: a check would answer allow for a
// tool the policy denies, and append would record that allow in the log.
func TestDamagedProjectionRefusedByEveryCommand(t *testing.T) {
	data := filepath.Join(t.TempDir(), "l")
	in := strings.Join([]string{
		`{"type":"policy.set","v":1,"actor":"ops","data":{"dialect":"openclaw","document":{"tools":{"deny":["exec"]}},"catalogue":["read","exec"]}}`,
		`{"type":"session.started","session":"agent:main:main","data":{"agent":"main"}}`,
		`{"type":"turn.started","session":"agent:main:main","data":{"turn":1}}`,
	}, "\n") + "\n"
	if _, stderr, err := runCLI(t, in, "append", "--data", data); err != nil {
		t.Fatalf("append: %v\n%s", err, stderr)
	}
	out, _, err := runCLI(t, "", "check", "--data", data, "--session", "agent:main:main", "--tool", "exec")
	if err != nil || !strings.Contains(out, "exec: deny") {
		t.Fatalf("check before the damage: %q, %v", out, err)
	}
	path := filepath.Join(data, "projection.db")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	at := bytes.Index(b, []byte(`"document":{"tools":{"deny":["exec"]`))
	if at < 0 {
		t.Fatal("the stored policy is not in the file")
	}
	b[at+len(`"document":{"tools":{"deny":["`)] = 'X'
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	call := `{"type":"tool.checked","session":"agent:main:main","data":{"turn":1,"tool":"exec","call":"c1"}}` + "\n"
	for _, c := range []struct {
		stdin string
		args  []string
	}{
		{"", []string{"check", "--data", data, "--session", "agent:main:main", "--tool", "exec"}},
		{"", []string{"tools", "--data", data, "--session", "agent:main:main"}},
		{call, []string{"append", "--data", data}},
		{"", []string{"deny", "--data", data, "--rule", "read"}},
	} {
		out, stderr, err := runCLI(t, c.stdin, c.args...)
		if err == nil || !strings.Contains(stderr+err.Error(), "is damaged") || !strings.Contains(stderr+err.Error(), path) {
			t.Errorf("%s on the damaged file: %v, out %q, stderr %q; want a refusal naming the damaged %s", c.args[0], err, out, stderr, path)
		}
	}
}
