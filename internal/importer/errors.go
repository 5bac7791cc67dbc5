package importer

import "github.com/sessionledger/ledger/internal/jsontree"

// Error is a refusal of the input, located in a file. It prints as
// "file:line:col: msg", dropping the column (or line) when it is unknown.
// It is the tree's error, so that a syntax error of the tree's readers and
// a refusal of the importer are one type.
type Error = jsontree.Error

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
