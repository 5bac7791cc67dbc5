package importer

import (
	"fmt"
	"strings"
)

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

// Warning is something the importer left out or changed on the way.
type Warning struct {
	File string `json:"file"`
	Line int    `json:"line,omitempty"`
	Col  int    `json:"column,omitempty"`
	// Path is where the warning applies, as written in the input
	// (agents.entries.coder.model); empty for a whole file.
	Path string `json:"path,omitempty"`
	Msg  string `json:"message"`
}

// String prints the warning as "file:line:col: warning: msg".
func (w Warning) String() string {
	e := Error{File: w.File, Line: w.Line, Col: w.Col, Msg: "warning: " + w.Msg}
	return e.Error()
}
