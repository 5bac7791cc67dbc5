package openclawdiff

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sessionledger/ledger/envelope/openclaw"
)

var (
	flagSeed = flag.Uint64("openclaw.seed", 20260924, "seed of the generated differential cases")
	flagN    = flag.Int("openclaw.n", 3000, "generated lineages")
	flagPer  = flag.Int("openclaw.per-policy", 8, "lineages drawn over each conformance policy")
	flagAll  = flag.Bool("openclaw.all", false, "list every disagreement, explained ones included")
	flagDump = flag.String("openclaw.dump", "", "print the case with this id, and both answers")
	// flagLedgerRelease decides the ledger's side under another release
	// (legacy: the dialect before the release tables, to measure how far
	// it was from the package).
	flagLedgerRelease = flag.String("openclaw.ledger-release", "", "release the ledger decides the cases with (default: the one the document names, the newest)")
	flagConv          = flag.Int("openclaw.n-conv", 1500, "generated lineages of the conversation family (issue 25)")
	flagPlug          = flag.Int("openclaw.n-plugins", 1000, "generated lineages of the plugin-tools family (issue 25)")
	flagEdges         = flag.Int("openclaw.n-edges", 1500, "generated lineages of the edges family (spellings of group and sender keys, channels, tool entries)")
	// flagBefore25 feeds the ledger's side what the plugin sent before
	// issue 25 (Mapping.Before25), to measure where it stood.
	flagBefore25 = flag.Bool("openclaw.before-25", false, "feed the ledger what the plugin sent before issue 25 (one group cut at ':', no conversation)")
)

// require starts the oracle, or skips (fails under CI=true) when Node 24
// or the package is not installed.
func require(t *testing.T) *Oracle {
	t.Helper()
	// Not t.Context(): it is cancelled before the cleanups run, which would
	// kill the oracle instead of letting it finish.
	o, err := Start(context.Background())
	if errors.Is(err, ErrMissing) {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%v (CI=true: the differential suite must run)", err)
		}
		t.Skip("openclaw differential: Node 24 or the openclaw package is missing; run bash tools/npm/install")
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := o.Close(); err != nil {
			t.Error(err)
		}
	})
	return o
}

// TestDifferential compares the dialect with the pinned OpenClaw release
// on the conformance policies and on generated configs: validation, spawn
// admission, sandboxing and every session's full tool list. A
// disagreement fails unless a choice listed in testdata/deliberate.json
// explains it. With -v it prints the agreement table.
func TestDifferential(t *testing.T) {
	o := require(t)
	pinned, err := PinnedVersion()
	if err != nil {
		t.Fatal(err)
	}
	if pinned != openclaw.NewestRelease() {
		t.Fatalf("tools/npm/pins.json pins openclaw %s, the dialect's newest release is %s: run go generate ./envelope/openclaw", pinned, openclaw.NewestRelease())
	}
	deliberate, err := LoadDeliberate(filepath.Join("testdata", "deliberate.json"))
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, d := range deliberate {
		if explainers[d.ID] == nil {
			t.Errorf("deliberate.json lists %q, which no explainer checks", d.ID)
		}
		if d.Reason == "" || d.Docs == "" {
			t.Errorf("deliberate.json: %q needs a reason and the docs section that records it", d.ID)
		}
		listed[d.ID] = true
	}
	for id := range explainers {
		if !listed[id] {
			t.Logf("explainer %q is not listed in deliberate.json: it explains nothing", id)
		}
	}

	lineages, err := ConformanceLineages(*flagSeed, *flagPer, pinned)
	if err != nil {
		t.Fatal(err)
	}
	lineages = append(lineages, Generate(*flagSeed, *flagN, pinned)...)
	lineages = append(lineages, GenerateConversations(*flagSeed, *flagConv, pinned)...)
	lineages = append(lineages, GeneratePluginTools(*flagSeed, *flagPlug, pinned)...)
	lineages = append(lineages, GenerateEdges(*flagSeed, *flagEdges, pinned)...)
	hand, err := HandWritten(filepath.Join("testdata", "cases"), pinned)
	if err != nil {
		t.Fatal(err)
	}
	if len(hand) == 0 {
		t.Fatal("no hand-written cases in testdata/cases")
	}
	lineages = append(lineages, hand...)
	cases := make([]Case, len(lineages))
	for i, l := range lineages {
		if cases[i], err = OracleCase(l); err != nil {
			t.Fatal(err)
		}
	}
	// The oracle answers while the ledger's side is computed.
	var answers []Answer
	asked := make(chan error, 1)
	go func() {
		var err error
		answers, err = o.Ask(cases)
		asked <- err
	}()
	ledgerAnswers := make([]*LedgerAnswer, len(lineages))
	for i, l := range lineages {
		if *flagLedgerRelease != "" {
			l = withRelease(l, *flagLedgerRelease)
		}
		if ledgerAnswers[i], err = LedgerWith(l, Mapping{Before25: *flagBefore25}); err != nil {
			t.Fatalf("%s: %v", l.ID, err)
		}
	}
	if err := <-asked; err != nil {
		t.Fatal(err)
	}
	byTag := map[string]*Tally{}
	all := &Tally{}
	var unexplained, explained []Diff
	sessions := 0
	for i, l := range lineages {
		if answers[i].Version != pinned {
			t.Fatalf("the oracle runs openclaw %s, pins.json pins %s", answers[i].Version, pinned)
		}
		la := ledgerAnswers[i]
		if l.ID == *flagDump {
			c, _ := json.Marshal(cases[i])
			a, _ := json.Marshal(answers[i])
			b, _ := json.Marshal(la)
			t.Logf("case %s\n%s\nopenclaw %s\nledger %s", l.ID, c, a, b)
		}
		if *flagLedgerRelease == "" && la.Invalid == "" && la.Release != pinned {
			t.Fatalf("%s: the ledger decided with release %s, want %s", l.ID, la.Release, pinned)
		}
		tally, diffs := Compare(l, la, &answers[i], listed)
		sessions += len(l.Sessions)
		all.add(tally)
		for _, tag := range append([]string{}, l.Tags...) {
			if byTag[tag] == nil {
				byTag[tag] = &Tally{}
			}
			byTag[tag].add(tally)
		}
		for _, d := range diffs {
			if d.Explained == "" {
				unexplained = append(unexplained, d)
			} else {
				explained = append(explained, d)
			}
		}
	}
	if len(lineages) < 3000 {
		t.Errorf("only %d lineages; the suite compares at least 3000", len(lineages))
	}
	if testing.Verbose() {
		var b strings.Builder
		Table(&b, byTag, all)
		t.Logf("openclaw %s, %d lineages, %d sessions (seed %d)\n%s", pinned, len(lineages), sessions, *flagSeed, b.String())
		counts := map[string]int{}
		for _, d := range explained {
			counts[d.Explained]++
		}
		for _, id := range sortedIDs(listed) {
			t.Logf("explained by %s: %d", id, counts[id])
		}
	}
	if *flagAll {
		for _, d := range explained {
			t.Logf("explained (%s): %s", d.Explained, d)
		}
	}
	for i, d := range unexplained {
		if i == 40 {
			t.Errorf("... and %d more", len(unexplained)-40)
			break
		}
		t.Errorf("%s", d)
	}
}

// withRelease is the lineage with its document naming release.
func withRelease(l *Lineage, release string) *Lineage {
	var m map[string]any
	if json.Unmarshal(l.Doc, &m) != nil || m == nil {
		return l
	}
	m["release"] = release
	b, _ := json.Marshal(m)
	c := *l
	c.Doc = b
	return &c
}
