// Package jsontree is the one positioned JSON tree of the ledger: a Value
// remembers the line and column it was written at (for every warning and
// refusal an importer prints) and the byte span it occupies (for editors
// that must leave every other byte of a file alone). Object members keep
// the order they were written in.
//
// Two readers build it: ParseJSON5 for JSON5 (the OpenClaw config) and
// ParseStrict for strict JSON (Claude Code's settings files). Both are
// hand-written; each says why in its doc comment.
//
// Invariants: errors are *Error with a file and, for syntax, a line and a
// column; a tree is never shared between calls, so callers may change it;
// ParseJSON5 refuses nesting deeper than maxDepth levels.
//
// Caveats: ParseStrict does not bound its nesting (as parseStrictJSON, which
// it replaces, did not): a file nested millions of levels deep overflows the
// goroutine stack, a fatal error. Callers that bound the file's size (the
// importer's 8 MiB) bound the depth only to that. Refusing past 10000 levels,
// as json.Valid does, is the likely fix; whether Claude Code's JSON.parse
// reads such a file (and so whether the importer may ignore it) is not yet
// checked.
package jsontree

import (
	"fmt"
	"strings"
)

// Kind is the type of a JSON value.
type Kind uint8

// The kinds of value.
const (
	Null Kind = iota
	Bool
	Number
	String
	Array
	Object
)

func (k Kind) String() string {
	switch k {
	case Null:
		return "null"
	case Bool:
		return "boolean"
	case Number:
		return "number"
	case String:
		return "string"
	case Array:
		return "list"
	case Object:
		return "object"
	}
	return "unknown"
}

// Pos is a place in a source file. Line and Col are 1-based; Col counts
// characters, not bytes. A zero Col means the column is unknown.
type Pos struct {
	Line, Col int
}

// Value is one JSON value, where it starts, and the bytes it occupies.
type Value struct {
	Kind Kind
	Pos  Pos
	// Start and End are the byte offsets of the value in the source:
	// src[Start:End] is its text, brackets or quotes included. Both are 0
	// in a Value built by hand.
	Start, End int
	Bool       bool
	// Num is a Number as JSON text ("16" for 0x10, "0.5" for .5). It is
	// empty for Infinity, -Infinity and NaN, which NonFinite names instead.
	Num       string
	NonFinite string
	Str       string
	Elems     []*Value
	Members   []Member
}

// Member is one key of an object, in the order written.
type Member struct {
	Key    string
	KeyPos Pos
	// KeyStart is the byte offset of the key (its opening quote, when
	// quoted) in the source.
	KeyStart int
	Value    *Value
}

// Get returns the first member named key, or nil.
func (v *Value) Get(key string) *Member {
	for i := range v.Members {
		if v.Members[i].Key == key {
			return &v.Members[i]
		}
	}
	return nil
}

// Error is a refusal of the input, located in a file. It prints as
// "file:line:col: msg", dropping the column (or line) when it is unknown.
type Error struct {
	File      string
	Line, Col int
	Msg       string

	dup bool // a repeated object key: valid JSON that is still refused
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
		if e.Col > 0 {
			fmt.Fprintf(&b, ":%d", e.Col)
		}
	}
	if b.Len() > 0 {
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}
