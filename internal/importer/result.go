package importer

import (
	"encoding/json"
	"errors"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/jsontree"
)

// The dialect names, as written in policy.set.
const (
	DialectOpenClaw   = "openclaw"
	DialectClaudeCode = "claude-code"
)

// Result is an imported policy document with what was left out on the way.
type Result struct {
	Dialect string
	// Source names the input: the config file, or the .claude directory.
	Source string
	// Document is the policy document as compact JSON.
	Document json.RawMessage
	Warnings []Warning

	// places maps document paths (tools.allow, agents.list[0].id) to where
	// they were written, so that the dialect's complaints can be located.
	places map[string]place
	lens   []int // the lengths of the paths in places, longest first; nil to count again
}

type place struct {
	file string
	pos  jsontree.Pos
}

// Reserve makes room for n more paths to Record.
func (r *Result) Reserve(n int) {
	if r.places == nil {
		r.places = make(map[string]place, n)
	}
}

// Record notes that the document's path (tools.allow, agents.list[0].id)
// was written in file at at, so that Check can place the dialect's
// complaints about it.
func (r *Result) Record(path, file string, at jsontree.Pos) {
	if r.places == nil {
		r.places = map[string]place{}
	}
	r.places[path] = place{file, at}
	r.lens = nil
}

// Files returns the files that Record named, sorted.
func (r *Result) Files() []string {
	seen := map[string]bool{}
	var out []string
	for _, pl := range r.places {
		if !seen[pl.file] {
			seen[pl.file] = true
			out = append(out, pl.file)
		}
	}
	sort.Strings(out)
	return out
}

// Compiler is the part of envelope.Dialect that validates a document.
type Compiler interface {
	Compile(doc json.RawMessage, catalogue []string) (any, error)
}

// Check validates the document with the dialect's own Compile. Each problem
// the dialect reports becomes an *Error placed where the offending path was
// written (or at the source when it cannot be placed); several are joined.
func (r *Result) Check(c Compiler, catalogue []string) error {
	_, err := c.Compile(r.Document, catalogue)
	if err == nil {
		return nil
	}
	msg := err.Error()
	var ee *events.Error
	if errors.As(err, &ee) {
		msg = ee.Msg
	}
	var errs []error
	for _, p := range r.problems(msg) {
		e := &Error{File: r.Source, Msg: "invalid " + r.Dialect + " policy: " + p}
		if pl, _, ok := r.locate(p); ok {
			e.File, e.Line, e.Col = pl.file, pl.pos.Line, pl.pos.Col
		}
		errs = append(errs, e)
	}
	return errors.Join(errs...)
}

// problems splits a dialect message that lists several problems ("a; b")
// into them. A piece that does not start with a known path continues the
// previous problem, since a single problem may contain "; " itself.
func (r *Result) problems(msg string) []string {
	var out []string
	for _, piece := range strings.Split(msg, "; ") {
		if _, at, ok := r.locate(piece); len(out) > 0 && (!ok || at != 0) {
			out[len(out)-1] += "; " + piece
			continue
		}
		out = append(out, piece)
	}
	return out
}

func isPathChar(c byte) bool {
	return c == '_' || c == '-' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// locate finds the known path mentioned earliest in text (the longest one
// at that index) and returns where it was written and its index in text.
//
// It looks the text up in places, rather than each place up in the text:
// a refused document of n rules has n places and a message of n problems,
// and trying every place against every problem was quadratic. A path
// starts where the text does, after a character that cannot be in a path,
// or after "document." (claude-code names paths from the event), and ends
// before a character that cannot end one.
func (r *Result) locate(text string) (place, int, bool) {
	if r.lens == nil {
		seen := map[int]bool{}
		for p := range r.places {
			if !seen[len(p)] {
				seen[len(p)] = true
				r.lens = append(r.lens, len(p))
			}
		}
		sort.Sort(sort.Reverse(sort.IntSlice(r.lens))) // longest first
	}
	const doc = "document."
	best, bestAt := place{}, -1
	for i := 0; i < len(text); i++ {
		// A match reported at i-len(doc) may still be found up to
		// len(doc) characters later.
		if bestAt >= 0 && i > bestAt+len(doc) {
			break
		}
		afterDoc := strings.HasSuffix(text[:i], doc)
		if i > 0 && (isPathChar(text[i-1]) || text[i-1] == '.') && !afterDoc {
			continue
		}
		at := i
		if afterDoc {
			at -= len(doc)
		}
		if bestAt >= 0 && at >= bestAt { // the longest at bestAt was taken
			continue
		}
		for _, n := range r.lens {
			end := i + n
			if end > len(text) || end < len(text) && isPathChar(text[end]) {
				continue
			}
			if pl, ok := r.places[text[i:end]]; ok {
				best, bestAt = pl, at
				break
			}
		}
	}
	return best, bestAt, bestAt >= 0
}

var simpleKey = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// JoinPath extends a path with an object key the way the dialects write paths:
// keys that would not read as a path segment are quoted in brackets.
func JoinPath(path, key string) string {
	if !simpleKey.MatchString(key) {
		return path + "[" + strconv.Quote(key) + "]"
	}
	if path == "" {
		return key
	}
	return path + "." + key
}

// IndexPath extends a path with a list index.
func IndexPath(path string, i int) string { return path + "[" + strconv.Itoa(i) + "]" }
