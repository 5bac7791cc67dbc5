package openclaw

import (
	"encoding/json"
	"slices"
	"testing"
)

func TestReleases(t *testing.T) {
	if got := Releases(); got[0] != LegacyRelease || !slices.Contains(got, "2026.9.6") {
		t.Errorf("Releases() = %v", got)
	}
	if NewestRelease() == LegacyRelease {
		t.Error("the newest release is a packaged one")
	}
	for _, tt := range []struct {
		a, b string
		want int
	}{{"2026.9.6", "2026.10.1", -1}, {"2026.10.1", "2026.9.6", 1}, {"2026.9.6", "2026.9.6", 0}, {"2026.9", "2026.9.1", -1}} {
		if got := compareVersions(tt.a, tt.b); (got < 0) != (tt.want < 0) || (got > 0) != (tt.want > 0) {
			t.Errorf("compareVersions(%s, %s) = %d, want the sign of %d", tt.a, tt.b, got, tt.want)
		}
	}
}

// TestPackagedTablesHangTogether: every name a packaged release's tables
// use is a core tool of its catalogue (or bundle-mcp, or a channel id for
// the sandbox's default deny), and groups hold no repeats.
func TestPackagedTablesHangTogether(t *testing.T) {
	for _, name := range Releases()[1:] {
		r, _ := LookupRelease(name)
		core := map[string]bool{"bundle-mcp": true, "*": true}
		for _, c := range r.Catalogue {
			core[c] = true
		}
		check := func(what string, list []string) {
			for _, n := range list {
				if !core[n] {
					t.Errorf("%s: %s names %q, which is not a core tool", name, what, n)
				}
			}
		}
		for g, m := range r.Groups {
			check(g, m)
			if len(slices.Compact(slices.Sorted(slices.Values(m)))) != len(m) {
				t.Errorf("%s: %s repeats a member", name, g)
			}
		}
		for p, l := range r.Profiles {
			check("profile "+p, l)
		}
		check("the hard deny", r.HardDeny)
		check("the depth cap", r.DepthCapDeny)
		check("the sandbox default allow", r.SandboxAllow)
		if !slices.Contains(r.SandboxDeny, "slack") || !slices.Contains(r.HardDeny, "openclaw") {
			t.Errorf("%s: the tables lost a known entry", name)
		}
	}
}

// TestDocumentRoundTripKeepsTheRelease: a document that names its release
// re-encodes with it.
func TestDocumentRoundTripKeepsTheRelease(t *testing.T) {
	d, err := ParseDocument(json.RawMessage(`{"release":"legacy","tools":{"deny":["exec"]}}`))
	if err != nil {
		t.Fatal(err)
	}
	if d.Release != LegacyRelease || d.Rel().Name != LegacyRelease {
		t.Fatalf("release %q / %q", d.Release, d.Rel().Name)
	}
	b, _ := json.Marshal(d)
	if string(b) != `{"release":"legacy","tools":{"deny":["exec"]}}` {
		t.Errorf("re-encoded %s", b)
	}
	d, _ = ParseDocument(json.RawMessage(`{}`))
	if d.Release != "" || d.Rel().Name != NewestRelease() {
		t.Errorf("a document naming no release: %q / %q", d.Release, d.Rel().Name)
	}
}

// TestNormalizeIn: a name is normalized as the named release normalizes
// it; "" is the legacy release (a policy.set that recorded none); a
// release this build does not know normalizes nothing.
func TestNormalizeIn(t *testing.T) {
	for _, c := range []struct{ release, in, want string }{
		{NewestRelease(), " V\u0130EW ", "vi\u0307ew"},
		{LegacyRelease, " V\u0130EW ", "view"},
		{"", "\x1cExec\x1c", "exec"},
		{NewestRelease(), "\x1cExec", "\x1cexec"},
		{NewestRelease(), "Bash", "exec"},
	} {
		if got, ok := NormalizeIn(c.release, c.in); !ok || got != c.want {
			t.Errorf("NormalizeIn(%q, %q) = %q %v, want %q", c.release, c.in, got, ok, c.want)
		}
	}
	if got, ok := NormalizeIn("2099.1.1", "exec"); ok || got != "" {
		t.Errorf("an unknown release: %q %v", got, ok)
	}
}
