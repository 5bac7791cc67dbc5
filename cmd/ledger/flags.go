package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// newFlags makes a flag set whose usage names the command and describes its
// arguments. The flag set itself prints nothing: parseFlags turns --help
// into a helpRequest (printed on stdout by run) and a bad flag into a
// one-line usage error.
func newFlags(name, args, about string, _ io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: ledger %s [flags] %s\n\n%s\n\nFlags:\n", name, args, about)
		fs.PrintDefaults()
	}
	return fs
}

// helpRequest is what parseFlags returns for --help: the command's usage,
// which run prints on stdout before exiting 0.
type helpRequest struct{ usage string }

func (h *helpRequest) Error() string { return "help requested" }

// parseFlags parses flags anywhere among the arguments and returns the
// positional ones. --help returns a *helpRequest; a flag that does not
// parse is a usage error of one line, naming the flag it probably meant.
func parseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				var b bytes.Buffer
				fs.SetOutput(&b)
				fs.Usage()
				fs.SetOutput(io.Discard)
				return nil, &helpRequest{usage: b.String()}
			}
			return nil, flagError(fs, err)
		}
		rest := fs.Args()
		if endedAtDashes(fs, args, len(args)-len(rest)) {
			return append(pos, rest...), nil
		}
		if len(rest) == 0 {
			return pos, nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// endedAtDashes reports whether the parse of args stopped at a "--" (the
// flag package consumes it and stops), after which every argument is
// positional, even one that looks like a flag. A "--" given as the value of
// the flag before it (--name --) does not end the flags. Guarded by
// TestParseFlagsDashes.
func endedAtDashes(fs *flag.FlagSet, args []string, consumed int) bool {
	if consumed == 0 || args[consumed-1] != "--" {
		return false
	}
	if consumed < 2 {
		return true
	}
	prev := args[consumed-2]
	if !strings.HasPrefix(prev, "-") || strings.Contains(prev, "=") {
		return true
	}
	f := fs.Lookup(strings.TrimLeft(prev, "-"))
	if f == nil {
		return true
	}
	if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
		return true
	}
	return false // "--" was prev's value
}

// flagError is the one-line usage error for a flag that did not parse.
func flagError(fs *flag.FlagSet, err error) error {
	msg := err.Error()
	const undefined = "flag provided but not defined: -"
	if name, ok := strings.CutPrefix(msg, undefined); ok {
		if s := suggestFlag(fs, name); s != "" {
			return usageError("%s (did you mean --%s?)", msg, s)
		}
	}
	return usageError("%s (run 'ledger %s --help' for the flags)", msg, fs.Name())
}

// suggestFlag returns the defined flag closest to name (at most two edits
// away, or name a prefix of it), or "".
func suggestFlag(fs *flag.FlagSet, name string) string {
	name = strings.TrimLeft(name, "-")
	if i := strings.IndexByte(name, '='); i >= 0 {
		name = name[:i]
	}
	best, bestDist := "", 3
	fs.VisitAll(func(f *flag.Flag) {
		d := editDistance(name, f.Name)
		if strings.HasPrefix(f.Name, name) && len(name) >= 3 {
			d = min(d, 1)
		}
		if d < bestDist || d == bestDist && f.Name < best {
			best, bestDist = f.Name, d
		}
	})
	return best
}

// editDistance is the Levenshtein distance of a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// helpOK passes a help request up to run, which prints it; kept so that
// every command ends its flag parsing the same way.
func helpOK(err error) error { return err }

// wantsJSON reports whether a command line asks for JSON output (--json
// before any "--"), so that its error is printed as JSON too.
func wantsJSON(args []string) bool {
	for _, a := range args {
		switch a {
		case "--":
			return false
		case "-json", "--json", "-json=true", "--json=true", "-json=1", "--json=1":
			return true
		}
	}
	return false
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
