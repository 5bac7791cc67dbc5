package main

import (
	"flag"
	"io"
	"os"

	"github.com/sessionledger/ledger/envelope"
)

// The colour modes of --color.
const (
	colorAuto   = "auto"
	colorAlways = "always"
	colorNever  = "never"
)

// registerColor adds --color to a command that prints for people.
func registerColor(fs *flag.FlagSet) *string {
	return fs.String("color", colorAuto, "colour the output: auto (when stdout is a terminal and NO_COLOR is not set), always or never")
}

// paletteFor decides whether output to w is coloured. auto colours only a
// terminal, and only when NO_COLOR is unset or empty (no-color.org); an
// explicit --color=always overrides NO_COLOR, as that convention asks of
// command-line flags.
func paletteFor(mode string, w io.Writer) (palette, error) {
	switch mode {
	case colorAlways:
		return palette{on: true}, nil
	case colorNever:
		return palette{}, nil
	case colorAuto, "":
		return palette{on: os.Getenv("NO_COLOR") == "" && isTerminal(w)}, nil
	}
	return palette{}, usageError("--color %q: use auto, always or never", mode)
}

// isTerminal reports whether w is a character device (a terminal, not a
// pipe or a file).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}

// SGR codes. Every start code is exactly five bytes ("\x1b[NNm") and the
// reset four, so a tabwriter column whose cells are all wrapped once stays
// aligned: each cell grows by the same nine bytes, and the padding tabwriter
// adds is the same as for the plain text.
const (
	sgrBold    = "01"
	sgrRed     = "31"
	sgrGreen   = "32"
	sgrYellow  = "33"
	sgrBlue    = "34"
	sgrMagenta = "35"
	sgrCyan    = "36"
	sgrDefault = "39"
	sgrGray    = "90"
	sgrReset   = "\x1b[0m"
)

// palette colours text when on and returns it unchanged otherwise, so the
// plain output stays byte-for-byte what it was before colour existed.
type palette struct{ on bool }

// paint wraps s in the colour code when the palette is on.
func (p palette) paint(code, s string) string {
	if !p.on || s == "" {
		return s
	}
	return "\x1b[" + code + "m" + s + sgrReset
}

// cell paints a tab-terminated tabwriter cell. Unlike paint it wraps empty
// and uncoloured cells too (in the default colour), keeping every cell of a
// column the same number of bytes longer than its text.
func (p palette) cell(code, s string) string {
	if !p.on {
		return s
	}
	if code == "" {
		code = sgrDefault
	}
	return "\x1b[" + code + "m" + s + sgrReset
}

// decision colours a decision: allow green, ask yellow, deny red.
func (p palette) decision(d envelope.Decision, s string) string {
	switch d {
	case envelope.Allow:
		return p.paint(sgrGreen, s)
	case envelope.Ask:
		return p.paint(sgrYellow, s)
	}
	return p.paint(sgrRed, s)
}

// outcomeColor is the colour of a trace step's outcome: what removed or
// decided the tool stands out, layers that did not apply fade.
func outcomeColor(o envelope.Outcome) string {
	switch o {
	case envelope.Removed:
		return sgrRed
	case envelope.Decided:
		return sgrYellow
	case envelope.Kept:
		return sgrGreen
	}
	return sgrGray
}

// stateColor is the colour of a session's lifecycle state.
func stateColor(s envelope.State) string {
	switch s {
	case envelope.Active:
		return sgrGreen
	case envelope.Yielded:
		return sgrYellow
	}
	return sgrGray
}
