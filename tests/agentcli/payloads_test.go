package agentcli

import (
	"bytes"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/sessionledger/ledger/internal/agentclitest"
	"github.com/sessionledger/ledger/internal/ledgertest"
)

// recordEnv, set to 1, makes the suites write the payloads they captured to
// testdata/CLI/payloads (stabilized: stable).
const recordEnv = "AGENTCLI_RECORD"

var (
	uuidRe = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	timeRe = regexp.MustCompile(`\d{4}-\d{2}-\d{2}T\d{2}[:-]\d{2}(?:[:-]\d{2}(?:\.\d+)?Z?)?`)
	dateRe = regexp.MustCompile(`/\d{4}/\d{2}/\d{2}/`)
	pgidRe = regexp.MustCompile(`Process Group PGID: \d+`)
	hex8Re = regexp.MustCompile(`-[0-9a-f]{8}\.jsonl`)
)

// stable is a payload with what varies from run to run replaced: the run's
// temp directory by $BASE, every UUID by <id-N> (numbered in order of first
// appearance, so equal ids stay equal), times by <time>.
func stable(base string, payload map[string]any, ids map[string]string) map[string]any {
	b, _ := json.Marshal(payload)
	s := strings.ReplaceAll(string(b), base, "$BASE")
	s = uuidRe.ReplaceAllStringFunc(s, func(id string) string {
		if _, ok := ids[id]; !ok {
			ids[id] = "<id-" + string(rune('0'+len(ids)/10)) + string(rune('0'+len(ids)%10)) + ">"
		}
		return ids[id]
	})
	s = timeRe.ReplaceAllString(s, "<time>")
	s = dateRe.ReplaceAllString(s, "/<date>/")
	s = pgidRe.ReplaceAllString(s, "Process Group PGID: <pgid>")
	s = hex8Re.ReplaceAllString(s, "-<short-id>.jsonl")
	var out map[string]any
	_ = json.Unmarshal([]byte(s), &out)
	return out
}

// checkPayloads writes (under AGENTCLI_RECORD=1) or checks the first
// payload of every kind the run captured: testdata/CLI/payloads/NAME.json,
// NAME from the event, the tool and whether a sub-agent sent it (kind).
// Checking compares the top-level fields only: values vary by run.
func checkPayloads(t *testing.T, cli string, res *agentclitest.Result, kind func(agentclitest.Invocation) string) {
	t.Helper()
	dir := filepath.Join(ledgertest.Root(), "tests", "agentcli", "testdata", cli, "payloads")
	ids := map[string]string{}
	seen := map[string]bool{}
	for _, h := range res.Hooks {
		name := kind(h)
		if name == "" || seen[name] {
			continue
		}
		seen[name] = true
		p := stable(res.Base, h.Payload, ids)
		path := filepath.Join(dir, name+".json")
		if os.Getenv(recordEnv) == "1" {
			var buf bytes.Buffer
			enc := json.NewEncoder(&buf)
			enc.SetIndent("", "  ")
			enc.SetEscapeHTML(false)
			_ = enc.Encode(p)
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Errorf("%s: no recorded payload (run with %s=1 to record): %v", name, recordEnv, err)
			continue
		}
		var want map[string]any
		if err := json.Unmarshal(b, &want); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if got, w := keys(p), keys(want); !slices.Equal(got, w) {
			t.Errorf("%s: the payload's fields are %v, testdata records %v", name, got, w)
		}
	}
}

func keys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// pngFile is a valid 2x2 PNG, for an image-reading tool.
func pngFile(t *testing.T) string {
	img := image.NewRGBA(image.Rect(0, 0, 2, 2))
	img.Set(0, 0, color.RGBA{R: 255, A: 255})
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// str is a payload's string field.
func str(h agentclitest.Invocation, k string) string { s, _ := h.Payload[k].(string); return s }

// input is the payload's tool_input field k as a string.
func input(h agentclitest.Invocation, k string) string {
	m, _ := h.Payload["tool_input"].(map[string]any)
	s, _ := m[k].(string)
	return s
}

// requireFields fails the test for every field the payload lacks.
func requireFields(t *testing.T, h agentclitest.Invocation, fields ...string) {
	t.Helper()
	for _, f := range fields {
		if _, ok := h.Payload[f]; !ok {
			t.Errorf("%s payload has no %q: %v", h.Event(), f, keys(h.Payload))
		}
	}
}

// exists reports whether the file at path exists.
func exists(path string) bool { _, err := os.Stat(path); return err == nil }
