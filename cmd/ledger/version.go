package main

import (
	"context"
	"fmt"
	"io"
	"runtime/debug"
	"strings"

	"github.com/sessionledger/ledger/envelope/claudecode"
	"github.com/sessionledger/ledger/envelope/openclaw"
)

// buildVersion is what this binary says of itself: its module version and
// VCS revision (from the build info the go command stamps), the Go
// version, the versions of the components it embeds, and the runtime
// releases whose decisions its dialects reproduce.
type buildVersion struct {
	Module    string            `json:"module"`
	Version   string            `json:"version"`
	Revision  string            `json:"revision,omitempty"`
	Time      string            `json:"time,omitempty"`
	Modified  bool              `json:"modified,omitempty"`
	Go        string            `json:"go"`
	Deps      map[string]string `json:"components"`
	Dialects  map[string]string `json:"dialects"`
	OpenClaws []string          `json:"openclaw_releases"`
}

// releaseVersion is the version a release build stamps
// (tools/release/release.sh: -ldflags -X main.releaseVersion=V); "" in any
// other build, which reports the module version of its build info.
var releaseVersion string

// embedded are the modules whose versions a report of this binary names.
var embedded = map[string]string{
	"github.com/nats-io/nats-server/v2":      "nats-server",
	"github.com/nats-io/nats.go":             "nats.go",
	"go.etcd.io/bbolt":                       "bbolt",
	"github.com/modelcontextprotocol/go-sdk": "mcp-go-sdk",
	"github.com/prometheus/client_golang":    "prometheus",
}

func readVersion() buildVersion {
	v := buildVersion{Module: "github.com/sessionledger/ledger", Version: "(unknown)", Deps: map[string]string{},
		Dialects:  map[string]string{"claude-code": claudecode.LatestRelease, "openclaw": openclaw.NewestRelease()},
		OpenClaws: openclaw.Releases()}
	if releaseVersion != "" {
		v.Version = releaseVersion
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return v
	}
	v.Go = bi.GoVersion
	if bi.Main.Path != "" {
		v.Module = bi.Main.Path
	}
	if bi.Main.Version != "" {
		v.Version = bi.Main.Version
	}
	if releaseVersion != "" {
		v.Version = releaseVersion
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			v.Revision = s.Value
		case "vcs.time":
			v.Time = s.Value
		case "vcs.modified":
			v.Modified = s.Value == "true"
		}
	}
	for _, d := range bi.Deps {
		if name, ok := embedded[d.Path]; ok {
			if d.Replace != nil {
				d = d.Replace
			}
			v.Deps[name] = d.Version
		}
	}
	return v
}

func runVersion(_ context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := newFlags("version", "", "Prints this binary's module version and VCS revision, its Go version, the versions of the\n"+
		"components it embeds (nats-server, bbolt, ...) and the runtime releases its dialects reproduce\n"+
		"(Claude Code, OpenClaw). 'ledger --version' prints the same.", stderr)
	asJSON := fs.Bool("json", false, "print it as one JSON object")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return helpOK(err)
	}
	if len(pos) > 0 {
		return usageError("version takes no arguments, got %q", pos)
	}
	v := readVersion()
	if *asJSON {
		return writeJSON(stdout, v)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "ledger %s (%s)\n", v.Version, v.Module)
	if v.Revision != "" {
		mod := ""
		if v.Modified {
			mod = ", modified"
		}
		fmt.Fprintf(&b, "revision %s (%s%s)\n", v.Revision, v.Time, mod)
	} else {
		b.WriteString("revision unknown (built without VCS stamping: go build -buildvcs=true, or tools/release/release.sh)\n")
	}
	fmt.Fprintf(&b, "%s\n", v.Go)
	for _, name := range []string{"nats-server", "nats.go", "bbolt", "mcp-go-sdk", "prometheus"} {
		if ver, ok := v.Deps[name]; ok {
			fmt.Fprintf(&b, "%-12s %s\n", name, ver)
		}
	}
	fmt.Fprintf(&b, "dialects: claude-code %s, openclaw %s (releases: %s)\n", v.Dialects["claude-code"], v.Dialects["openclaw"], strings.Join(v.OpenClaws, ", "))
	_, err = io.WriteString(stdout, b.String())
	return err
}
