package ledgerpolicy

import (
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Deny and ask patterns see through what runs another command: a simple
// command is also matched without its leading assignments, by the base
// name of a command named by path, and as the command each wrapper below
// runs (its options and their values skipped); the script of a shell's -c
// and of eval is read as a line of its own. So `FOO=1 git push`, `env git
// push`, `timeout 5 git push`, `/usr/bin/git push` and `bash -c 'git push'`
// all match `Bash(git push *)` (TestDenySeesThroughWrappers). These are
// extra texts only: an allow pattern still matches the call as written.

// maxNested bounds how deep shell -c and eval scripts are read.
const maxNested = 4

// wrapper says how a wrapper command's own words end: the options that
// take a value as the next word, whether words NAME=value are its own
// (env, sudo), and how many operands come before the command (timeout's
// duration).
type wrapper struct {
	valued   string // one-letter options taking a value: "u" for -u NAME
	long     []string
	assigns  bool
	operands int
	split    bool // env's -S STRING: the string is the command's words
}

var wrappers = map[string]wrapper{
	"env":     {valued: "uC", long: []string{"--unset", "--chdir"}, assigns: true, split: true},
	"command": {},
	"builtin": {},
	"exec":    {valued: "a"},
	"nice":    {valued: "n", long: []string{"--adjustment"}},
	"nohup":   {},
	"time":    {},
	"timeout": {valued: "sk", long: []string{"--signal", "--kill-after"}, operands: 1},
	"stdbuf":  {valued: "ioe", long: []string{"--input", "--output", "--error"}},
	"ionice":  {valued: "cnp", long: []string{"--class", "--classdata", "--pid"}},
	"setsid":  {},
	"sudo":    {valued: "ughpCDrtUT", long: []string{"--user", "--group", "--host", "--prompt", "--close-from", "--chdir", "--role", "--type", "--other-user", "--command-timeout"}, assigns: true},
	"doas":    {valued: "uC"},
	"xargs":   {valued: "ILnPsdEa", long: []string{"--replace", "--max-lines", "--max-args", "--max-procs", "--max-chars", "--delimiter", "--eof", "--arg-file"}},
	"busybox": {},
}

// shells are the programs whose -c option takes a script.
var shells = map[string]bool{"sh": true, "bash": true, "dash": true, "zsh": true, "ksh": true, "mksh": true, "ash": true}

// seeThrough adds to c.extra the commands a simple command runs through
// assignments, paths, wrappers, shell -c and eval. depth counts the
// scripts read so far.
func (c *call) seeThrough(ce *syntax.CallExpr, depth int) {
	words := make([]string, 0, len(ce.Args))
	for _, w := range ce.Args {
		words = append(words, loose(w))
	}
	if len(ce.Assigns) > 0 && len(words) > 0 {
		c.extra = append(c.extra, strings.Join(words, " "))
	}
	for guard := 0; len(words) > 0 && guard < 16; guard++ {
		name := words[0]
		if strings.Contains(name, "/") {
			name = path.Base(name)
			words = append([]string{name}, words[1:]...)
			c.extra = append(c.extra, strings.Join(words, " "))
		}
		if shells[name] || name == "eval" {
			if script, ok := scriptOf(name, words[1:]); ok && depth < maxNested {
				c.readNested(script, depth+1)
			}
			return
		}
		w, ok := wrappers[name]
		if !ok {
			return
		}
		words = w.skip(words[1:])
		if len(words) > 0 {
			c.extra = append(c.extra, strings.Join(words, " "))
		}
	}
}

// skip returns the words after a wrapper's own: its options (and their
// values), its NAME=value words, "--" and its operands.
func (w wrapper) skip(words []string) []string {
	i := 0
	for i < len(words) {
		a := words[i]
		switch {
		case a == "--":
			i++
			return w.operandsFrom(words, i)
		case w.split && (a == "-S" || a == "--split-string") && i+1 < len(words):
			// env -S STRING: the string is split into the words that follow.
			return append(strings.Fields(words[i+1]), words[i+2:]...)
		case w.split && strings.HasPrefix(a, "-S"):
			return append(strings.Fields(a[2:]), words[i+1:]...)
		case w.split && strings.HasPrefix(a, "--split-string="):
			return append(strings.Fields(strings.TrimPrefix(a, "--split-string=")), words[i+1:]...)
		case strings.HasPrefix(a, "--"):
			i++
			for _, l := range w.long {
				if a == l { // --opt value
					i++
					break
				}
			}
		case len(a) > 1 && a[0] == '-':
			i++
			// -abc: a valued letter takes the rest of the word, or the
			// next word when it ends the cluster (-u root, -uroot).
			for j := 1; j < len(a); j++ {
				if strings.IndexByte(w.valued, a[j]) >= 0 {
					if j == len(a)-1 {
						i++
					}
					break
				}
			}
		case w.assigns && isAssign(a):
			i++
		default:
			return w.operandsFrom(words, i)
		}
	}
	return nil
}

func (w wrapper) operandsFrom(words []string, i int) []string {
	i += w.operands
	if i >= len(words) {
		return nil
	}
	return words[i:]
}

// isAssign reports whether a word is NAME=value.
func isAssign(s string) bool {
	name, _, ok := strings.Cut(s, "=")
	if !ok || name == "" {
		return false
	}
	for i, r := range name {
		if r != '_' && !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || i > 0 && '0' <= r && r <= '9') {
			return false
		}
	}
	return true
}

// scriptOf returns the script a shell runs with -c (the word after the
// option cluster holding c: -c, -lc, -ec) or eval runs (its words joined).
func scriptOf(name string, args []string) (string, bool) {
	if name == "eval" {
		return strings.Join(args, " "), len(args) > 0
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-o" || a == "+o" || a == "-O" || a == "+O":
			i++ // a shell option's name
		case strings.HasPrefix(a, "--"):
			if a == "--" {
				return "", false
			}
		case strings.HasPrefix(a, "-") || strings.HasPrefix(a, "+"):
			if strings.ContainsRune(a[1:], 'c') && i+1 < len(args) {
				return args[i+1], true
			}
		default:
			return "", false
		}
	}
	return "", false
}

// readNested reads a script for deny and ask patterns only: its text,
// and every simple command in it as printed, as its words read, and
// through its wrappers. A script that does not parse gives its pieces
// between operator characters, as a line does.
func (c *call) readNested(script string, depth int) {
	c.extra = append(c.extra, collapse(script))
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(script), "")
	if err != nil {
		for _, piece := range strings.FieldsFunc(script, func(r rune) bool { return strings.ContainsRune(";&|\n()`${}<>", r) }) {
			if t := collapse(piece); t != "" {
				c.extra = append(c.extra, t)
			}
		}
		return
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		if ce, ok := n.(*syntax.CallExpr); ok {
			c.extra = append(c.extra, printed(ce), (&splitter{}).callUnit(ce))
			c.seeThrough(ce, depth)
		}
		return true
	})
}

// loose reads a word for deny and ask patterns: quotes removed and
// backslashes applied as the shell does, and what it would expand kept
// as printed ("git push $REMOTE" reads git push $REMOTE), so that a
// script in double quotes with an expansion is still read as a script.
func loose(w *syntax.Word) string {
	var b strings.Builder
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			b.WriteString(unescape(p.Value, false))
		case *syntax.SglQuoted:
			if p.Dollar {
				b.WriteString(printed(p))
				continue
			}
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				if l, ok := q.(*syntax.Lit); ok {
					b.WriteString(unescape(l.Value, true))
				} else {
					b.WriteString(printed(q))
				}
			}
		default:
			b.WriteString(printed(p))
		}
	}
	return b.String()
}
