package claudecode

import (
	"strings"
)

// Critical removals read where the call runs (section 9.4, "Critical
// removals"). Claude Code 2.1.328 resolves an rm or rmdir target before it
// judges it (cli.js: the dangerous-removal check B0, which resolves the
// target against the shell's directory with path.resolve, strips trailing
// '/*' segments and asks through isDangerousRemovalPath, Upt): the root, the
// home directory, a top-level directory, and the working directory or any
// of its ancestors (with a trailing glob, the working directories and
// their ancestors too) are critical however they are spelled: rm -rf
// /x/. is rm -rf /x and rm -rf /x/.. is rm -rf /; it asks for them in
// bypassPermissions (TestDifferential/sh5-critical-*). The dialect reads
// the same, lexically, from the call's ledger:paths (the project, home,
// cwd and added directories; section 9.5): it touches no file system.

// criticalAt reports an rm or rmdir of the line (nested ones included, and
// through sudo: the release does not look through sudo, the dialect does,
// a deliberate stricter choice) whose target resolves to a critical path,
// and that target as written. Without ledger:paths an absolute target is
// still resolved, and a relative one that resolves to the working
// directory or an ancestor ('sub/..', '../x/../..') is critical whatever
// the directory.
func (c *call) criticalAt(dirs []inPath) (string, bool) {
	if !c.hasPrimary || !strings.Contains(c.primary, "rm") {
		return "", false
	}
	ctx := c.at() // nil: absolute targets are still resolved
	for _, seg := range nestedSegments(c.primary) {
		w := denyWords(seg, stripCritical)
		if len(w) == 0 {
			continue
		}
		name := shellWord(w[0])
		if i := strings.LastIndexByte(name, '/'); i >= 0 {
			name = name[i+1:]
		}
		if name != "rm" && name != "rmdir" {
			continue
		}
		if arg, ok := ctx.criticalTarget(name, w[1:], dirs); ok {
			return arg, true
		}
	}
	return "", false
}

// criticalTarget is the release's per-target rule (B0) for the arguments
// of one rm or rmdir.
func (ctx *pathCtx) criticalTarget(name string, args []string, dirs []inPath) (string, bool) {
	// The targets: every word from the first operand on, everything after
	// "--" (the release's ky). Options are read up to the first "--".
	var targets []string
	var o removalOpts
	operands, dashes := false, false
	for _, a := range args {
		if !dashes {
			o.read(a)
		}
		switch {
		case operands || dashes:
			targets = append(targets, a)
			if a == "--" {
				dashes = true
			}
		case a == "--":
			dashes = true
		case a == "-" || !strings.HasPrefix(a, "-"):
			targets = append(targets, a)
			operands = true
		}
	}
	for _, t := range targets {
		if criticalOne(ctx, name, t, o, dirs) {
			return t, true
		}
	}
	return "", false
}

// removalOpts are the options of an rm or rmdir the release looks at:
// recursive (--r..., or -...r... / -...R...) and parents (rmdir's --p...,
// -...p...).
type removalOpts struct{ recursive, parents bool }

func (o *removalOpts) read(a string) {
	o.recursive = o.recursive || strings.HasPrefix(a, "--r") || shortOpt(a, 'r', true) || shortOpt(a, 'R', true)
	o.parents = o.parents || strings.HasPrefix(a, "--p") || shortOpt(a, 'p', false)
}

// shortOpt matches -[a-z]*L (-[a-zA-Z]*L with capitals) at the start of a.
func shortOpt(a string, l byte, capitals bool) bool {
	if len(a) < 2 || a[0] != '-' {
		return false
	}
	for i := 1; i < len(a); i++ {
		c := a[i]
		if c == l {
			return true
		}
		if !(c >= 'a' && c <= 'z' || capitals && c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return false
}

// criticalOne judges one target word (quotes already deleted).
func criticalOne(ctx *pathCtx, name, t string, o removalOpts, dirs []inPath) bool {
	if rest, ok := strings.CutPrefix(t, "$HOME"); ok && (rest == "" || rest[0] == '/') {
		t = "~" + rest
	}
	if t == "" || strings.ContainsAny(t, "$`") {
		return false // an expansion: the lexical check reads what it can
	}
	home := t == "~" || strings.HasPrefix(t, "~/")
	abs := home || strings.HasPrefix(t, "/")
	var segs, cwd, homeSegs []string
	switch {
	case ctx != nil && (!home || ctx.hasHome):
		// Resolved as path.resolve resolves it: ~ at home, a relative
		// path under the shell's directory (~user too), '.' and '..'
		// read.
		segs = ctx.resolve(t).segs
		cwd = ctx.project
		if ctx.cwd != nil {
			cwd = ctx.cwd
		}
		homeSegs = ctx.home
	default:
		p := parseInputPath(t)
		if p.kind != pathAbs {
			// Where it runs is unknown: what resolves to the home
			// directory, or to the working directory or an ancestor
			// whatever they are ('.', 'sub/..', '../x/../..'), is
			// critical; the rest cannot be judged here.
			le := stripStars(p.segs)
			return len(le) == 0 || p.kind == pathRel && onlyDotDotSegs(le) ||
				len(le) != len(p.segs) && innerDotDot(t)
		}
		segs = p.segs
	}
	// Trailing segments of stars are stripped (/x/* is /x, /x/*/** too).
	le := stripStars(segs)
	globbed := len(le) != len(segs)
	lastStar := len(segs) > 0 && segs[len(segs)-1] == "*"
	if globbed && (innerDotDot(t) || strings.HasPrefix(t, "~") && !home || strings.HasPrefix(t, "//") ||
		!abs && hasDotDotSeg(t) && lastStar || name == "rmdir" && o.parents && lastStar ||
		!abs && strings.HasSuffix(strings.TrimRight(t, "/"), "*") && strings.HasSuffix(t, "/") && lastStar) {
		// A target the release cannot place before the glob.
		return true
	}
	// je: the part of the stripped target below the shell's directory
	// for a relative target, the whole of it for an absolute one.
	je := le
	if !abs && hasSegPrefix(le, cwd) {
		je = le[len(cwd):]
	}
	if !globbed || !anyGlob(je) {
		switch {
		case len(le) <= 1: // the root, a top-level directory
			return true
		case homeSegs != nil && foldSegsEqual(le, homeSegs):
			return true
		}
		// The working directory or an ancestor; with a glob, any working
		// directory or an ancestor of one.
		var work [][]string
		if cwd != nil {
			work = append(work, cwd)
		}
		if globbed && ctx != nil {
			work = append(work, ctx.project)
			for _, d := range dirs {
				if a, ok := ctx.abs(d); ok {
					work = append(work, a)
				}
			}
			work = append(work, ctx.dirs...)
		}
		for _, w := range work {
			if foldSegPrefix(w, le) {
				return true
			}
		}
		if name == "rm" && (o.recursive || globbed) && mountedDrive(le) {
			return true
		}
	}
	if globbed && lastStar {
		// A glob that traverses more than one level.
		n := len(segs) - len(le)
		for _, s := range je {
			if strings.ContainsAny(s, "*?[") {
				n++
			}
		}
		if n > 1 {
			return true
		}
	}
	return false
}

// stripStars drops trailing segments made only of stars.
func stripStars(segs []string) []string {
	for len(segs) > 0 && strings.Trim(segs[len(segs)-1], "*") == "" {
		segs = segs[:len(segs)-1]
	}
	return segs
}

func onlyDotDotSegs(segs []string) bool {
	for _, s := range segs {
		if s != ".." {
			return false
		}
	}
	return true
}

func hasDotDotSeg(t string) bool {
	for s := range strings.SplitSeq(t, "/") {
		if s == ".." {
			return true
		}
	}
	return false
}

func anyGlob(segs []string) bool {
	for _, s := range segs {
		if strings.ContainsAny(s, "*?[") {
			return true
		}
	}
	return false
}

// foldJS is JavaScript's toLowerCase as the release compares paths (jo):
// dotless i and long s fold to i and s too.
func foldJS(s string) string {
	return strings.NewReplacer("\u0131", "i", "\u017f", "s").Replace(strings.ToLower(s))
}

func foldSegsEqual(a, b []string) bool {
	return len(a) == len(b) && foldSegPrefix(a, b)
}

// foldSegPrefix reports whether prefix is a leading part of segs (or all
// of it), letters compared in either case (the release's Tc).
func foldSegPrefix(segs, prefix []string) bool {
	if len(prefix) > len(segs) {
		return false
	}
	for i, p := range prefix {
		if p != segs[i] && foldJS(p) != foldJS(segs[i]) {
			return false
		}
	}
	return true
}

// mountedDrive is the release's mounted-drive rule for a recursive or
// globbed rm: /Volumes and two levels under it (/System/Volumes too), /mnt/X
// and /mnt/x/X, /media and /run/media and three levels under them.
func mountedDrive(segs []string) bool {
	if len(segs) == 0 {
		return false
	}
	first := foldJS(segs[0])
	rest := segs[1:]
	switch first {
	case "volumes":
		return len(rest) <= 2
	case "system":
		return len(rest) >= 1 && foldJS(rest[0]) == "volumes" && len(rest)-1 <= 2
	case "mnt":
		return len(rest) == 1 || len(rest) == 2 && len(rest[0]) == 1 && foldJS(rest[0])[0] >= 'a' && foldJS(rest[0])[0] <= 'z'
	case "media":
		return len(rest) <= 3
	case "run":
		return len(rest) >= 1 && foldJS(rest[0]) == "media" && len(rest)-1 <= 3
	}
	return false
}

// removesCritical is step 7's question: does the line remove a critical
// path, written (bashLine.critical) or resolved where the call runs
// (criticalAt)? The target as written when it does.
func (c *call) removesCritical(dirs []inPath) (string, bool) {
	l := c.bash()
	if l == nil {
		return "", false
	}
	if l.critical {
		return l.criticalArg, true
	}
	return c.criticalAt(dirs)
}

// unclosedDollar reports a line that leaves a command substitution $(
// ... ), an arithmetic $(( ... )) or a parameter expansion ${ ... } open,
// a comment inside a substitution hiding its ')' too: the release's parser
// reads such a line as an error, and Claude Code 2.1.328 asks for it in
// every mode, bypassPermissions too ("Claude Code can't be sure it read
// this command the way the shell will, so it can't rule out a dangerous
// removal": echo $(ls, echo ${a, echo $((1+2), echo $(ls # c), echo
// "$(ls", and a legacy arithmetic $[ left open, echo $[: row 135,
// TestDifferential/bypasssyntax-bypassPermissions), and runs echo "a, (ls, { ls, echo `ls, echo <(ls and echo
// $(ls # c<newline>) there (TestDifferential/genfound4-open-*,
// TestUnclosedDollar). So does a command inside $( ) whose first word is a
// backquoted one: the release asks there for echo $(`true`), echo
// $(`echo cat` a.txt), x=$(`echo cat` a*.txt) and echo $(ls; `echo cat`
// a*.txt), and runs echo $(cat `echo a.txt`), (`echo cat` a*.txt) and
// `echo rm` f1.txt (row 82; TestDifferential/genevade1-bq-*).
func unclosedDollar(cmd string) bool {
	const (
		fSubst  = iota + 1 // $( or $((
		fParam             // ${
		fParen             // ( <( >(
		fDQ                // "
		fBT                // `
		fLegacy            // $[, legacy arithmetic
	)
	var stack []byte
	top := func() byte {
		if len(stack) == 0 {
			return 0
		}
		return stack[len(stack)-1]
	}
	wordStart := true // a '#' here starts a comment (outside quotes and ${)
	cmdPos := false   // inside $( ), where a command's first word may begin
	for i := 0; i < len(cmd); i++ {
		c := cmd[i]
		t := top()
		ws := wordStart
		wordStart = strings.IndexByte(" \t\n;&|(", c) >= 0
		if t == fSubst && cmdPos && c == '`' {
			return true
		}
		if c != ' ' && c != '\t' {
			cmdPos = t == fSubst && strings.IndexByte("\n;&|", c) >= 0
		}
		switch {
		case c == '\\':
			i++
		case t == fDQ && c == '"':
			stack = stack[:len(stack)-1]
		case c == '$' && i+1 < len(cmd) && cmd[i+1] == '(':
			stack = append(stack, fSubst)
			i++
			wordStart, cmdPos = true, true
		case c == '$' && i+1 < len(cmd) && cmd[i+1] == '{':
			stack = append(stack, fParam)
			i++
		case c == '$' && i+1 < len(cmd) && cmd[i+1] == '[':
			stack = append(stack, fLegacy)
			i++
		case c == '`':
			if t == fBT {
				stack = stack[:len(stack)-1]
			} else {
				stack = append(stack, fBT)
			}
		case t == fDQ:
			// Inside double quotes only $( ${ ` and " are read.
		case c == '\'' && t != fParam:
			j := strings.IndexByte(cmd[i+1:], '\'')
			if j < 0 {
				return false // an open quote: the release runs it in bypassPermissions
			}
			i += j + 1
		case c == '"':
			stack = append(stack, fDQ)
		case c == '#' && ws && t != fParam:
			for i+1 < len(cmd) && cmd[i+1] != '\n' {
				i++
			}
		case c == '(':
			stack = append(stack, fParen)
		case c == ')' && (t == fSubst || t == fParen):
			stack = stack[:len(stack)-1]
		case c == '}' && t == fParam, c == ']' && t == fLegacy:
			stack = stack[:len(stack)-1]
		}
	}
	for _, f := range stack {
		if f == fSubst || f == fParam || f == fLegacy {
			return true
		}
	}
	return false
}
