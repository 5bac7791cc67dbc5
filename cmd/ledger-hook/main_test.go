package main

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/sessionledger/ledger"

// heavy are the packages the thin hook process must not initialise
// (prefixes of import paths): nats.go and everything of NATS (a binary
// that only imports nats.go starts in 3.9 ms against 2.0 ms for one that
// imports nothing), the embedded NATS server, bbolt, the HTML report, the
// dialects, and the mapping itself (internal/cchook, which talks to the
// ledger over NATS): the thin hook hands the payload to serve --hooks.
// Of the module it may link only internal/cchook/hookwire and thinhook;
// nor net/http's client (crypto/tls, x509, HTTP/2 at every start): the
// thin hook speaks HTTP/1.0 to the local server itself.
var heavy = []string{"net/http", "crypto/tls", "crypto/x509", "github.com/nats-io/", "go.etcd.io/bbolt", module + "/internal/report", module + "/envelope", module + "/client", module + "/internal/cchook/hookcmd", module + "/internal/importer"}

// allowed are the module's packages the thin hook may link.
var allowed = []string{module + "/cmd/ledger-hook", module + "/internal/cchook/hookwire", module + "/internal/cchook/thinhook"}

// tolerated are heavy packages the graph may reach through one importer
// only, and that importer; none today. internal/importer brought
// envelope/openclaw (about 0.4 ms of init) into every hook process until
// the OpenClaw importer moved to internal/importer/openclaw (issue 27,
// point 8). An entry goes when its importer no longer imports it, and the
// test says so.
var tolerated = map[string]string{}

// TestDeps: `go list -deps` of this command holds none of the heavy
// packages and no package of the module but the thin hook's (and reaches a tolerated one only through its one importer).
func TestDeps(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}{{range .Imports}} {{.}}{{end}}", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	importers := map[string][]string{} // package -> the graph's packages importing it
	var pkgs []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		pkgs = append(pkgs, f[0])
		for _, imp := range f[1:] {
			importers[imp] = append(importers[imp], f[0])
		}
	}
	for _, pkg := range pkgs {
		if !slices.ContainsFunc(heavy, func(h string) bool { return pkg == strings.TrimSuffix(h, "/") || strings.HasPrefix(pkg, h) }) {
			continue
		}
		if via, ok := tolerated[pkg]; ok && slices.Equal(importers[pkg], []string{via}) {
			t.Logf("%s is reached through %s only (tolerated, see tolerated)", pkg, via)
			continue
		}
		t.Errorf("ledger-hook depends on %s (imported by %s): keep the hook's graph free of %q", pkg, strings.Join(importers[pkg], ", "), heavy)
	}
	for _, pkg := range pkgs {
		if strings.HasPrefix(pkg, module+"/") && !slices.Contains(allowed, pkg) {
			t.Errorf("ledger-hook links %s (imported by %s): the thin hook links only %q of the module", pkg, strings.Join(importers[pkg], ", "), allowed)
		}
	}
	for pkg := range tolerated {
		if !slices.Contains(pkgs, pkg) {
			t.Errorf("ledger-hook no longer depends on %s: remove it from tolerated", pkg)
		}
	}
}
