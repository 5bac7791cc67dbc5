package claudecode

import (
	"slices"
	"strings"
)

// Path operations of a Bash command, as Claude Code 2.1.328 classifies the
// commands whose paths it checks against Read and Edit rules.
const (
	opRead   = "read"
	opWrite  = "write"
	opCreate = "create"
)

// pathCommands maps each command Claude Code 2.1.328 extracts paths from to
// its operation and its argument reader. A command not listed here has no
// paths: Read and Edit rules never see it (its deny and ask rules are the
// Bash rules). Guarded by TestCommandPaths and the recorded CLI runs in
// testdata/claude-code-cli.
var pathCommands = map[string]struct {
	op   string
	args func([]string) []string
}{
	"cd": {opRead, cdArgs}, "ls": {opRead, lsArgs}, "find": {opRead, findArgs},
	"mkdir": {opCreate, positional}, "touch": {opCreate, positional},
	"rm": {opWrite, positional}, "rmdir": {opWrite, positional}, "mv": {opWrite, positional},
	"cp": {opWrite, positional}, "cat": {opRead, positional}, "head": {opRead, positional},
	"tail": {opRead, positional}, "sort": {opRead, positional}, "uniq": {opRead, positional},
	"wc": {opRead, positional}, "file": {opRead, positional}, "stat": {opRead, positional},
	"diff": {opRead, positional}, "strings": {opRead, positional}, "hexdump": {opRead, positional},
	"od": {opRead, positional}, "base64": {opRead, positional}, "nl": {opRead, positional},
	"sha256sum": {opRead, positional}, "sha1sum": {opRead, positional}, "md5sum": {opRead, positional},
	"rev": {opRead, positional}, "tsort": {opRead, positional},
	"tee": {opWrite, teeArgs}, "tr": {opRead, trArgs},
	"awk": {opRead, awkArgs}, "gawk": {opRead, awkArgs}, "mawk": {opRead, awkArgs}, "nawk": {opRead, awkArgs},
	"grep": {opRead, grepArgs}, "egrep": {opRead, grepArgs}, "fgrep": {opRead, grepArgs},
	"rg": {opRead, rgArgs}, "sed": {opWrite, sedArgs}, "jq": {opRead, jqArgs}, "git": {opRead, gitArgs},
	"man": {opRead, manArgs},
	"cut": {opRead, flagged("nswz", "", "bcdf", []string{"--complement", "--only-delimited", "--zero-terminated"},
		nil, []string{"--bytes", "--characters", "--delimiter", "--fields", "--output-delimiter"})},
	"paste": {opRead, flagged("sz", "", "d", []string{"--serial", "--zero-terminated"}, nil, []string{"--delimiters"})},
	"column": {opRead, flagged("txdemLJhV", "", "cosNOClEHRTWrip",
		[]string{"--table", "--fillrows", "--table-noheadings", "--table-header-repeat", "--table-maxout", "--keep-empty-lines", "--json"},
		nil, []string{"--separator", "--output-separator", "--output-width", "--table-name", "--table-order", "--table-column",
			"--table-columns", "--table-columns-limit", "--table-noextreme", "--table-hide", "--table-right", "--table-truncate",
			"--table-wrap", "--tree", "--tree-id", "--tree-parent"})},
	"tac":      {opRead, flagged("br", "", "s", []string{"--before", "--regex"}, nil, []string{"--separator"})},
	"fold":     {opRead, flagged("bs", "", "w", []string{"--bytes", "--spaces"}, nil, []string{"--width"})},
	"expand":   {opRead, flagged("i", "", "t", []string{"--initial"}, nil, []string{"--tabs"})},
	"unexpand": {opRead, flagged("af", "", "t", []string{"--all", "--first-only"}, nil, []string{"--tabs"})},
	"fmt": {opRead, flagged("csumn", "", "wgdl", []string{"--crown-margin", "--split-only", "--tagged-paragraph", "--uniform-spacing"},
		nil, []string{"--width", "--goal", "--prefix"})},
	"comm": {opRead, flagged("123iz", "", "", []string{"--check-order", "--nocheck-order", "--total", "--zero-terminated"},
		nil, []string{"--output-delimiter"})},
	"cmp": {opRead, flagged("blsvxzh", "", "", []string{"--print-bytes", "--verbose", "--quiet", "--silent"},
		nil, []string{"--ignore-initial", "--bytes"})},
	"pr": {opRead, flagged("acdFfJmprtTv", "einsS", "hlwWoND",
		[]string{"--across", "--show-control-chars", "--double-space", "--form-feed", "--join-lines", "--merge",
			"--no-file-warnings", "--omit-header", "--omit-pagination", "--show-nonprinting"},
		[]string{"--expand-tabs", "--output-tabs", "--number-lines", "--separator", "--sep-string"},
		[]string{"--header", "--length", "--width", "--page-width", "--indent", "--first-line-number", "--date-format", "--columns"})},
	"numfmt": {opRead, flagged("z", "", "d", []string{"--grouping", "--zero-terminated", "--debug"}, []string{"--header"},
		[]string{"--from", "--to", "--from-unit", "--to-unit", "--format", "--padding", "--delimiter", "--field", "--round",
			"--suffix", "--invalid"})},
}

// commandPaths returns the operation and the paths of one command (its
// words after the deny strip), and false for a command whose paths are not
// checked.
func commandPaths(words []string) (op string, paths []string, ok bool) {
	if len(words) == 0 {
		return "", nil, false
	}
	pc, ok := pathCommands[words[0]]
	if !ok {
		return "", nil, false
	}
	return pc.op, pc.args(words[1:]), true
}

// positional: every argument from the first that is not an option on
// (options after it count as paths too), and everything after "--".
func positional(a []string) []string {
	var out []string
	seen, dashes := false, false
	for _, w := range a {
		switch {
		case seen || dashes:
			out = append(out, w)
		case w == "--":
			dashes = true
		case w == "-" || !strings.HasPrefix(w, "-"):
			out, seen = append(out, w), true
		}
	}
	return out
}

// cdArgs: cd's directory. cd alone (or with options only) goes home, and
// Claude Code 2.1.328 checks the home directory as its path: it asks for
// cd, cd -- and command cd where home is outside the working directories,
// under Bash(cd:*) too (cli.js: the user's home when no operand is left;
// TestDifferential/genfound8-*).
func cdArgs(a []string) []string {
	if p := positional(a); len(p) > 0 {
		return p[:1]
	}
	return []string{"~"}
}

func lsArgs(a []string) []string {
	if p := positional(a); len(p) > 0 {
		return p
	}
	return []string{"."}
}

var findValued = map[string]bool{"-newer": true, "-anewer": true, "-cnewer": true, "-mnewer": true, "-samefile": true,
	"-path": true, "-wholename": true, "-ilname": true, "-lname": true, "-ipath": true, "-iwholename": true}

// findArgs: the starting points before the first expression word, and the
// operands of the path-valued tests.
func findArgs(a []string) []string {
	var out []string
	expr, dashes := false, false
	for i := 0; i < len(a); i++ {
		w := a[i]
		switch {
		case w == "":
		case dashes:
			out = append(out, w)
		case w == "--":
			dashes = true
		case strings.HasPrefix(w, "-"):
			if w == "-H" || w == "-L" || w == "-P" {
				continue
			}
			expr = true
			if findValued[w] || len(w) == 8 && strings.HasPrefix(w, "-newer") && strings.ContainsRune("acmBt", rune(w[6])) && strings.ContainsRune("acmtB", rune(w[7])) {
				if i+1 < len(a) && a[i+1] != "" {
					out = append(out, a[i+1])
					i++
				}
			}
		case !expr:
			out = append(out, w)
		}
	}
	if len(out) == 0 {
		return []string{"."}
	}
	return out
}

func teeArgs(a []string) []string {
	var out []string
	for _, p := range positional(a) {
		switch p {
		case "/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty":
		default:
			out = append(out, p)
		}
	}
	return out
}

// trArgs: tr reads no file; its sets are not paths. Past the sets (one
// with -d, two otherwise) any word is checked as a path.
func trArgs(a []string) []string {
	del := false
	for _, w := range a {
		if w == "-d" || w == "--delete" || strings.HasPrefix(w, "-") && strings.Contains(w, "d") {
			del = true
		}
	}
	p := positional(a)
	n := 2
	if del {
		n = 1
	}
	if len(p) <= n {
		return nil
	}
	return p[n:]
}

// flagged reads commands whose options are known: boolean short letters,
// short letters whose value is attached, short letters taking a value, and
// the long forms of each. An unknown option stops option parsing (what
// follows is read as positional).
func flagged(boolShort, attachedShort, valuedShort string, boolLong, attachedLong, valuedLong []string) func([]string) []string {
	set := func(l []string) map[string]bool {
		m := make(map[string]bool, len(l))
		for _, s := range l {
			m[s] = true
		}
		return m
	}
	bl, al, vl := set(boolLong), set(attachedLong), set(valuedLong)
	kind := func(w string) string {
		if strings.HasPrefix(w, "--") {
			switch {
			case strings.Contains(w, "="):
				return "attached"
			case bl[w]:
				return "boolean"
			case al[w]:
				return "attached"
			case vl[w]:
				return "valued"
			}
			return "unknown"
		}
		if len(w) > 1 && allDigits(w[1:]) {
			return "attached"
		}
		for i := 1; i < len(w); i++ {
			c := w[i : i+1]
			switch {
			case strings.Contains(boolShort, c):
				continue
			case attachedShort != "" && strings.Contains(attachedShort, c):
				return "attached"
			case !strings.Contains(valuedShort, c):
				return "unknown"
			case i == len(w)-1:
				return "valued"
			default:
				return "attached"
			}
		}
		return "boolean"
	}
	return func(a []string) []string {
		var out []string
		dashes, seen, opts := false, false, true
		for i := 0; i < len(a); i++ {
			w := a[i]
			switch {
			case dashes || seen:
				out = append(out, w)
			case w == "--":
				dashes = true
			case w != "-" && strings.HasPrefix(w, "-"):
				if !opts {
					continue
				}
				switch kind(w) {
				case "valued":
					i++
				case "unknown":
					opts = false
				}
			default:
				out, seen = append(out, w), true
			}
		}
		return out
	}
}

// optFile returns the value of an attached -f/--file style option
// (-fFILE, --file=FILE).
func optFile(w string, names ...string) (string, bool) {
	if !strings.HasPrefix(w, "-") {
		return "", false
	}
	if i := strings.IndexByte(w, '='); i >= 0 {
		for _, n := range names {
			if w[:i] == n {
				return w[i+1:], true
			}
		}
		return "", false
	}
	for _, n := range names {
		if len(n) == 2 && len(w) > 2 && strings.HasPrefix(w, n) && !strings.HasPrefix(w, "--") {
			return w[2:], true
		}
	}
	return "", false
}

// searchArgs reads grep-like commands: the first positional is the pattern
// unless -e/-f gave one; pattern files and include/exclude files are paths.
func searchArgs(a []string, valued map[string]bool, dflt []string) []string {
	var out []string
	havePattern, dashes, seen := false, false, false
	for i := 0; i < len(a); i++ {
		w := a[i]
		if !dashes && !seen && w == "--" {
			dashes = true
			continue
		}
		if !dashes && !seen && w != "-" && strings.HasPrefix(w, "-") {
			key, hasEq := w, false
			if j := strings.IndexByte(w, '='); j >= 0 {
				key, hasEq = w[:j], true
			}
			switch key {
			case "-e", "--regexp", "-f", "--file":
				havePattern = true
				if key == "-f" || key == "--file" {
					if v, _, _ := optArg(a, i); v != "" {
						out = append(out, v) // the word after is skipped as a valued option's
					}
				}
			}
			if !hasEq && key != "-f" && len(key) > 2 && key[0] == '-' && key[1] != '-' && strings.HasSuffix(key, "f") && isLetters(key[1:]) && i+1 < len(a) {
				havePattern = true
				out = append(out, a[i+1])
				i++
				continue
			}
			switch key {
			case "--exclude-from", "--include-from", "--ignore-file":
				var v string
				if v, i, _ = optArg(a, i); v != "" {
					out = append(out, v)
				}
				continue
			}
			if !hasEq {
				if v, ok := optFile(w, "-f", "--file"); ok {
					havePattern = true
					out = append(out, v)
					continue
				}
				if len(w) > 2 && strings.HasPrefix(w, "-e") {
					havePattern = true
					continue
				}
			}
			if valued[key] && !hasEq {
				i++
			}
			continue
		}
		if seen && !dashes {
			if v, ok := optFile(w, "-f", "--file"); ok {
				out = append(out, v)
			}
		}
		seen = true
		if !havePattern {
			havePattern = true
			continue
		}
		out = append(out, w)
	}
	if len(out) == 0 {
		return dflt
	}
	return out
}

// optArg returns the value of the option word a[i], written as --opt=V
// or as the next word, the index of the last word it took, and false when
// there is none (no '=' and no next word).
func optArg(a []string, i int) (v string, last int, ok bool) {
	if eq := strings.IndexByte(a[i], '='); eq >= 0 {
		return a[i][eq+1:], i, true
	}
	if i+1 < len(a) {
		return a[i+1], i + 1, true
	}
	return "", i, false
}

func isLetters(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return s != ""
}

var grepValued = map[string]bool{"-e": true, "--regexp": true, "-f": true, "--file": true, "--exclude": true, "--include": true,
	"--exclude-dir": true, "--include-dir": true, "-m": true, "--max-count": true, "-A": true, "--after-context": true,
	"-B": true, "--before-context": true, "-C": true, "--context": true}

func grepArgs(a []string) []string {
	out := searchArgs(a, grepValued, nil)
	if len(out) == 0 {
		for _, w := range a {
			if w == "-r" || w == "-R" || w == "--recursive" {
				return []string{"."}
			}
		}
	}
	return out
}

var rgValued = map[string]bool{"-e": true, "--regexp": true, "-f": true, "--file": true, "-t": true, "--type": true,
	"-T": true, "--type-not": true, "-g": true, "--glob": true, "-m": true, "--max-count": true, "--max-depth": true,
	"-r": true, "--replace": true, "-A": true, "--after-context": true, "-B": true, "--before-context": true,
	"-C": true, "--context": true}

func rgArgs(a []string) []string { return searchArgs(a, rgValued, []string{"."}) }

var gitGrepValued = map[string]bool{"-e": true, "--regexp": true, "-f": true, "--file": true, "-A": true,
	"--after-context": true, "-B": true, "--before-context": true, "-C": true, "--context": true, "-m": true,
	"--max-count": true, "--max-depth": true, "--threads": true}

// awkArgs: the program text (unless -f/-E gave one) is not a path; program
// files and input files are.
func awkArgs(a []string) []string {
	valued := map[string]bool{"-F": true, "--field-separator": true, "-v": true, "--assign": true, "-e": true, "--source": true}
	files := map[string]bool{"-f": true, "--file": true, "-E": true, "--exec": true}
	var out []string
	dashes, haveProgram, seen := false, false, false
	for i := 0; i < len(a); i++ {
		w := a[i]
		if !dashes && !seen && w == "--" {
			dashes = true
			continue
		}
		if !dashes && !seen && w != "-" && strings.HasPrefix(w, "-") {
			key, eq := w, strings.IndexByte(w, '=')
			if eq >= 0 {
				key = w[:eq]
			}
			if valued[key] {
				if key == "-e" || key == "--source" {
					haveProgram = true
				}
				if eq < 0 {
					i++
				}
				continue
			}
			if files[key] {
				haveProgram = true
				if v, last, ok := optArg(a, i); ok {
					out, i = append(out, v), last
				}
			}
			continue
		}
		if seen && !dashes {
			if v, ok := optFile(w, "-f", "--file", "-E", "--exec"); ok {
				out = append(out, v)
			}
		}
		seen = true
		if !haveProgram {
			haveProgram = true
			continue
		}
		out = append(out, w)
	}
	return out
}

// sedArgs: the script (unless -e/-f gave one) is not a path.
func sedArgs(a []string) []string {
	var out []string
	skip, haveScript, dashes, seen := false, false, false, false
	for i := 0; i < len(a); i++ {
		if skip {
			skip = false
			continue
		}
		w := a[i]
		if w == "" {
			continue
		}
		if !dashes && !seen && w == "--" {
			dashes = true
			continue
		}
		if !dashes && !seen && w != "-" && strings.HasPrefix(w, "-") {
			switch {
			case w == "-f" || w == "--file":
				if i+1 < len(a) && a[i+1] != "" {
					out = append(out, a[i+1])
					skip = true
				}
				haveScript = true
			case w == "-e" || w == "--expression":
				skip, haveScript = true, true
			case strings.Contains(w, "e") || strings.Contains(w, "f"):
				haveScript = true
			}
			continue
		}
		seen = true
		if !haveScript {
			haveScript = true
			continue
		}
		out = append(out, w)
	}
	return out
}

// jqArgs: the filter (unless -e or -f gave one) is not a path.
func jqArgs(a []string) []string {
	valued := map[string]bool{"-e": true, "--expression": true, "--arg": true, "--argjson": true, "--args": true,
		"--jsonargs": true, "-L": true, "--library-path": true, "--indent": true, "--tab": true}
	var out []string
	haveFilter, dashes := false, false
	for i := 0; i < len(a); i++ {
		w := a[i]
		if !dashes && w == "--" {
			dashes = true
			continue
		}
		if !dashes && strings.HasPrefix(w, "-") {
			key, eq := w, strings.IndexByte(w, '=')
			if eq >= 0 {
				key = w[:eq]
			}
			if key == "-e" || key == "--expression" {
				haveFilter = true
			}
			if key == "-f" || key == "--from-file" {
				haveFilter = true
				if v, last, ok := optArg(a, i); ok {
					out, i = append(out, v), last
				}
				continue
			}
			if key == "--slurpfile" || key == "--rawfile" {
				if i+2 < len(a) {
					out = append(out, a[i+2])
				}
				i += 2
				continue
			}
			if valued[key] && eq < 0 {
				i++
			}
			continue
		}
		if !haveFilter {
			haveFilter = true
			continue
		}
		out = append(out, w)
	}
	return out
}

var gitGlobalValued = map[string]bool{"-C": true, "-c": true, "--git-dir": true, "--work-tree": true, "--namespace": true,
	"--super-prefix": true, "--config-env": true, "--attr-source": true, "--shallow-file": true}

// gitArgs: only git grep and git diff read paths the rules can name; -C
// and --work-tree move where relative paths resolve.
func gitArgs(a []string) []string {
	base := ""
	rebase := func(p string) {
		if strings.HasPrefix(p, "/") || strings.HasPrefix(p, "~") || base == "" {
			base = p
			return
		}
		base = strings.TrimRight(base, "/") + "/" + p
	}
	i := 0
	for ; i < len(a); i++ {
		w := a[i]
		if !strings.HasPrefix(w, "-") {
			break
		}
		if v, ok := strings.CutPrefix(w, "--work-tree="); ok {
			rebase(v)
			continue
		}
		if gitGlobalValued[w] && i+1 < len(a) {
			if w == "-C" || w == "--work-tree" {
				rebase(a[i+1])
			}
			i++
		}
	}
	if i >= len(a) {
		return nil
	}
	join := func(p string) string {
		if base == "" || strings.HasPrefix(p, "/") || strings.HasPrefix(p, "~") {
			return p
		}
		return strings.TrimRight(base, "/") + "/" + p
	}
	sub, rest := a[i], a[i+1:]
	var out []string
	switch sub {
	case "grep":
		for _, p := range searchArgs(rest, gitGrepValued, nil) {
			out = append(out, join(p))
		}
		if len(out) == 0 {
			if base == "" {
				return []string{"."}
			}
			return []string{base}
		}
	case "diff":
		dashes := false
		for _, w := range rest {
			switch {
			case !dashes && w == "--":
				dashes = true
			case dashes || w == "-" || !strings.HasPrefix(w, "-"):
				if p := join(w); p != "/dev/null" && p != "/dev/stdin" {
					out = append(out, p)
				}
			}
		}
	}
	return out
}

// manArgs: man reads files only when a word looks like a path (or with
// -l/--local-file, every word).
func manArgs(a []string) []string {
	local := false
	for _, w := range a {
		if w == "--local-file" || len(w) > 1 && w[0] == '-' && w[1] != '-' && strings.Contains(w, "l") {
			local = true
		}
	}
	var out []string
	for i, w := range a {
		if i > 0 && (a[i-1] == "-C" || a[i-1] == "--config-file") {
			out = append(out, w)
			continue
		}
		var cands []string
		if !strings.HasPrefix(w, "-") {
			cands = []string{w}
		} else {
			if j := strings.IndexByte(w, '='); j >= 0 {
				cands = append(cands, w[j+1:])
			}
			if len(w) > 2 && !strings.HasPrefix(w, "--") {
				cands = append(cands, w[2:])
			}
			if j := strings.IndexAny(w, `\/~`); j > 0 {
				cands = append(cands, w[j:])
			}
		}
		for _, c := range cands {
			if c != "" && (local || strings.ContainsAny(c, `\/`) || strings.HasPrefix(c, "~") || strings.HasPrefix(c, ".")) {
				out = append(out, c)
			}
		}
	}
	return out
}

// cdDir follows where a line's cd (and pushd) commands move it, so that a
// path after one is also read from there: Claude Code 2.1.328 denies cd
// locked && rm c1.txt and cd sub && rm ../plock/c4.txt under
// Edit(./locked/**) and Edit(/plock/**) ("rm to '.../project/locked/c1.txt'
// was blocked by a deny rule": TestDifferential/shell-c-cd-*). dir is the
// directory as a path word relative to where the call runs ("" before any
// cd, "~" after cd alone); lost is set once a cd goes where the line does
// not say (cd -, cd $DIR, popd, cd with two arguments): dir then stays the
// last one known, as the CLI reads it (it denies cd locked && cd - && rm
// keep.txt), and a relative cd after it no longer moves it. A path is
// still read from where the call runs too, so following a cd never lets
// less be denied (a cd inside a ( ... ) group does not move what follows
// it).
//
// A word starting with # among cd's directories begins a comment unless
// it was quoted, which the words step reads no longer say: the line is
// then read both ways, the comment's reading as d's own (Claude Code
// 2.1.328 denies cd locked # c, then rm e1.txt on the next line, under
// Edit(./locked/**): TestDifferential/cdcomment-*) and the one with the
// '#' quoted (cd with two directories) among alts, whose paths are read
// too (TestCdComment). Readings that agree are kept once, so that a line
// of many such cds holds about one reading a cd, not two to the power of
// their number; past maxCdReadings the line is overflown: the readings
// kept are followed still, and every relative path is taken to be read
// from a directory none of them is (commandPathDeny, shellScriptDeny:
// any path deny rule of its tool denies it; TestCdCommentsManyLines).
type cdDir struct {
	cdAt
	alts     []cdAt // the other readings, none of them d's own, no two alike
	overflow bool   // more readings than maxCdReadings came
}

// maxCdReadings is the most readings of a line's directory cdDir follows.
const maxCdReadings = 32

// cdAt is where one reading of a line has moved to (cdDir's dir and lost).
type cdAt struct {
	dir  string
	lost bool
}

// step reads one segment's words (quotes removed, stripped): a cd or
// pushd moves the directory of every reading.
func (d *cdDir) step(words []string) {
	if len(words) == 0 {
		return
	}
	switch words[0] {
	case "cd", "pushd":
	case "popd":
		d.lost = true
		for i := range d.alts {
			d.alts[i].lost = true
		}
		d.keep(d.alts)
		return
	default:
		return
	}
	args, _, _ := splitRedirs(words[1:])
	var p []string
	dashes := false
	for _, w := range args {
		switch {
		case dashes || w == "-" || !strings.HasPrefix(w, "-"):
			p = append(p, w)
		case w == "--":
			dashes = true
		}
	}
	comment := p // the directories before a comment
	i := slices.IndexFunc(p, func(w string) bool { return strings.HasPrefix(w, "#") })
	if i >= 0 {
		comment = p[:i]
	}
	var alts []cdAt
	for k := 0; k <= len(d.alts); k++ {
		r := d.at(k) // d.cdAt moves at k 0, d.alts only in keep
		if i >= 0 {
			q := r
			q.move(p) // the '#' quoted
			alts = append(alts, q)
		}
		r.move(comment)
		if k == 0 {
			d.cdAt = r
		} else {
			alts = append(alts, r)
		}
	}
	d.keep(alts)
}

// keep makes alts, without d's own reading and without repeats, in order,
// d's other readings: at most maxCdReadings-1 of them, the line overflown
// past that.
func (d *cdDir) keep(alts []cdAt) {
	out := alts[:0]
	for _, a := range alts {
		if a != d.cdAt && !slices.Contains(out, a) {
			out = append(out, a)
		}
	}
	if len(out) >= maxCdReadings {
		out, d.overflow = out[:maxCdReadings-1], true
	}
	d.alts = out
}

// move takes d to where cd with directories p goes.
func (d *cdAt) move(p []string) {
	target := "~"
	switch {
	case len(p) == 1:
		target = p[0]
	case len(p) > 1:
		d.lost = true
		return
	}
	if rest, ok := strings.CutPrefix(target, "$HOME"); ok && (rest == "" || rest[0] == '/') {
		target = "~" + rest
	}
	if target == "-" || strings.ContainsAny(target, "$`") {
		d.lost = true
		return
	}
	switch {
	case absoluteWord(target):
		d.dir, d.lost = target, false
	case d.lost:
	case d.dir == "":
		d.dir = target
	default:
		d.dir += "/" + target
	}
}

// path is path word w read from the directory the line moved to; false
// before any cd, and for a word that does not depend on the directory
// (absolute, ~, $HOME).
func (d cdAt) path(w string) (string, bool) {
	if d.dir == "" || absoluteWord(w) {
		return "", false
	}
	return d.dir + "/" + w, true
}

// paths is path word w read from each directory the line may have moved
// to: d's and its other readings' (none before any cd).
func (d *cdDir) paths(w string) []string {
	var out []string
	for k := 0; k <= len(d.alts); k++ {
		if p, ok := d.at(k).path(w); ok && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

// dirs are the directories the line may have moved to ("" for where the
// call runs): d's and its other readings'.
func (d *cdDir) dirs() []string {
	var out []string
	for k := 0; k <= len(d.alts); k++ {
		if r := d.at(k); !slices.Contains(out, r.dir) {
			out = append(out, r.dir)
		}
	}
	return out
}

// at is reading k of the line: d's own at 0, then the others, in order.
func (d *cdDir) at(k int) cdAt {
	if k == 0 {
		return d.cdAt
	}
	return d.alts[k-1]
}

// absoluteWord reports a path word that names the same file wherever the
// line runs.
func absoluteWord(w string) bool {
	return strings.HasPrefix(w, "/") || w == "~" || strings.HasPrefix(w, "~/") || strings.HasPrefix(w, "$")
}

// globOperands returns the arguments of a reading command (args, the
// words after its name, as written) that hold an unquoted glob and are
// not among its paths: Claude Code 2.1.328 checks them as paths it reads
// too, since the shell expands them into the names the command is given
// (cli.js: every argument with '*', '?' or a closed '[' that the argv
// marks unquoted, for a command whose operation is "read"). So it denies
// find . -maxdepth 0 -exec cat secret/* \; under Read(./secret/**), in
// bypassPermissions too, and runs find . -maxdepth 0 -exec cat
// secret/s.txt \; there (row 81; TestDifferential/genevade1-*). git is
// held to it only for grep and diff, as the release does.
func globOperands(cmd string, args, paths []string) []string {
	if cmd == "git" {
		sub := ""
		for _, w := range args {
			if !strings.HasPrefix(w, "-") {
				sub = shellWord(w)
				break
			}
		}
		if sub != "grep" && sub != "diff" {
			return nil
		}
	}
	var out []string
	for _, w := range args {
		if bareGlob(w) && cliGlobIndex(shellWord(w)) >= 0 && !slices.Contains(paths, w) && !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return out
}

// cliGlobIndex is the index of a word's first glob character as the
// release finds it: '*', '?', or a '[' that a ']' follows; -1 for none.
func cliGlobIndex(w string) int {
	for i := 0; i < len(w); i++ {
		switch w[i] {
		case '*', '?':
			return i
		case '[':
			if strings.IndexByte(w[i+1:], ']') >= 0 {
				return i
			}
		}
	}
	return -1
}

// unquotedGlobIn reports whether w stands in line with a glob character
// outside quotes and not escaped: the segments the deny rules read lose
// their quotes, and Claude Code 2.1.328 takes a quoted glob as a name (it
// runs find . -maxdepth 0 -exec cat 'secret/*' \; under Read(./secret/**)
// in bypassPermissions: TestDifferential/genevade1-*). A line with no
// quote or backslash holds every glob unquoted.
func unquotedGlobIn(line, w string) bool {
	if !strings.ContainsAny(line, `'"\`) {
		return true
	}
	var quoted []bool // quoted[i]: line[i] is inside quotes or escaped
	k := strings.Index(line, w)
	for k >= 0 {
		if quoted == nil {
			quoted = quoteMask(line)
		}
		for i := 0; i < len(w); i++ {
			if strings.IndexByte("*?[", w[i]) >= 0 && !quoted[k+i] {
				return true
			}
		}
		n := strings.Index(line[k+1:], w)
		if n < 0 {
			break
		}
		k += n + 1
	}
	return false
}

// quoteMask marks the bytes of line inside single or double quotes, and
// those a backslash escapes.
func quoteMask(line string) []bool {
	m := make([]bool, len(line))
	var q byte
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case q == '\'':
			m[i] = c != '\''
			if c == '\'' {
				q = 0
			}
		case c == '\\' && i+1 < len(line):
			m[i+1] = true
			i++
		case q == '"':
			m[i] = c != '"'
			if c == '"' {
				q = 0
			}
		case c == '\'' || c == '"':
			q = c
		}
	}
	return m
}
