// Package archtest keeps the import picture of STYLE.md true: imports point
// inward, events <- envelope <- projection/replay <- adapters <- cmd/ledger,
// and nothing under events or envelope knows NATS or bbolt exists; the
// Claude Code hook (internal/cchook, cmd/ledger-hook) imports neither the
// embedded NATS server, bbolt, the report nor the openclaw dialect; the
// wire contract (wire) imports events and envelope only, so the client and
// any outside program can take it without the service's dependencies.
package archtest

import (
	"go/build"
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/sessionledger/ledger"

// forbidden maps a package prefix (relative to the module) to the imports
// it must not have, as prefixes.
var forbidden = map[string][]string{
	"events":     {module + "/", "github.com/nats-io/", "go.etcd.io/bbolt"},
	"envelope":   {module + "/projection", module + "/replay", module + "/internal", module + "/scenario", module + "/cmd", "github.com/nats-io/", "go.etcd.io/bbolt"},
	"projection": {module + "/replay", module + "/internal", module + "/scenario", module + "/cmd", "github.com/nats-io/"},
	"replay":     {module + "/internal", module + "/scenario", module + "/cmd", "github.com/nats-io/"},
	// The wire contract the client and the service share: no I/O, no
	// service internals.
	"wire": {module + "/projection", module + "/replay", module + "/internal", module + "/scenario", module + "/cmd", module + "/client", "github.com/nats-io/", "go.etcd.io/bbolt"},
	// The hook runs as a process per Claude Code event: its start-up is its
	// cost (cmd/ledger-hook's test checks the whole graph).
	"internal/cchook": hookHeavy,
	"cmd/ledger-hook": hookHeavy,
}

// hookHeavy are the packages the hook process must not initialise.
var hookHeavy = []string{"github.com/nats-io/nats-server/", "go.etcd.io/bbolt", module + "/internal/report", module + "/envelope/openclaw"}

func TestImportDirection(t *testing.T) {
	out, err := exec.Command("go", "list", module+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, pkg := range strings.Fields(string(out)) {
		rel := strings.TrimPrefix(strings.TrimPrefix(pkg, module), "/")
		for prefix, bad := range forbidden {
			if rel != prefix && !strings.HasPrefix(rel, prefix+"/") {
				continue
			}
			p, err := build.Import(pkg, ".", 0)
			if err != nil {
				t.Fatalf("%s: %v", pkg, err)
			}
			for _, imp := range p.Imports {
				for _, b := range bad {
					if strings.HasPrefix(imp, b) && !(prefix == "envelope" && strings.HasPrefix(imp, module+"/envelope")) &&
						!(prefix == "envelope" && imp == module+"/events") {
						t.Errorf("%s imports %s: %s may not import %s", rel, imp, prefix, b)
					}
				}
			}
		}
	}
}
