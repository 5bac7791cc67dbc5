package events

import (
	"regexp"
	"strings"
	"testing"
)

// oracleValidKey is the session-key check as it was written first: the
// SPEC's pattern as a regexp (whose $ would match before a trailing
// newline, hence the second test).
func oracleValidKey(k SessionKey) bool {
	return keyPattern.MatchString(string(k)) && !strings.ContainsAny(string(k), "\n")
}

var keyPattern = regexp.MustCompile(`^[A-Za-z0-9_:-]{1,200}$`)

func TestValidKeyDiff(t *testing.T) {
	keys := []string{"", "a", "agent:main:main", "agent:main:subagent:x-1_2", "agent main", "agent:main\n",
		"\nagent", "é", "agent:main:é", strings.Repeat("a", 200), strings.Repeat("a", 201), "a/b", "a.b", "a\x00b"}
	for c := range 256 {
		keys = append(keys, string([]byte{byte(c)}), "k"+string([]byte{byte(c)}))
	}
	for _, k := range keys {
		if got, want := ValidKey(SessionKey(k)), oracleValidKey(SessionKey(k)); got != want {
			t.Errorf("ValidKey(%q) = %v, the pattern says %v", k, got, want)
		}
	}
}

func FuzzValidKeyDiff(f *testing.F) {
	for _, k := range []string{"agent:main:main", "a b", "", strings.Repeat("z", 200)} {
		f.Add(k)
	}
	f.Fuzz(func(t *testing.T, k string) {
		if got, want := ValidKey(SessionKey(k)), oracleValidKey(SessionKey(k)); got != want {
			t.Errorf("ValidKey(%q) = %v, the pattern says %v", k, got, want)
		}
	})
}
