package main

import (
	"io"
	"slices"
	"testing"
)

// TestParseFlagsDashes: "--" ends the flags for every argument after it,
// not only the next one, and a "--" given as a flag's value is a value.
func TestParseFlagsDashes(t *testing.T) {
	for _, tc := range []struct {
		args     []string
		wantPos  []string
		wantName string
		wantJSON bool
	}{
		{[]string{"a", "--json", "b"}, []string{"a", "b"}, "", true},
		{[]string{"--", "--json", "--name", "x"}, []string{"--json", "--name", "x"}, "", false},
		{[]string{"a", "--", "--json", "b", "--name=y"}, []string{"a", "--json", "b", "--name=y"}, "", false},
		{[]string{"--json", "--", "--name", "x"}, []string{"--name", "x"}, "", true},
		{[]string{"--name", "--", "a", "--json"}, []string{"a"}, "--", true},
		{[]string{"--name=v", "--", "--json"}, []string{"--json"}, "v", false},
		{[]string{"a", "--"}, []string{"a"}, "", false},
	} {
		fs := newFlags("t", "", "", io.Discard)
		asJSON := fs.Bool("json", false, "")
		name := fs.String("name", "", "")
		pos, err := parseFlags(fs, tc.args)
		if err != nil {
			t.Fatalf("%q: %v", tc.args, err)
		}
		if !slices.Equal(pos, tc.wantPos) || *name != tc.wantName || *asJSON != tc.wantJSON {
			t.Errorf("%q: positional %q name %q json %v, want %q %q %v", tc.args, pos, *name, *asJSON, tc.wantPos, tc.wantName, tc.wantJSON)
		}
	}
}
