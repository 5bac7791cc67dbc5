package claudecode

import (
	"encoding/json"
	"strings"
)

// Paths of a Bash command through symbolic links (section 9.5, "Symbolic
// links"; section 0.2 row 41). Claude Code 2.1.328 checks each path a Bash
// command reads or writes (bashpaths.go) on the machine, through links:
// its Bash path check (cli.js CB, then O8o) takes, for a written or
// created path, every spelling of it (Di: the path as given, each link
// its last component leads through, the path with every link resolved)
// and matches Edit deny rules on each, holds the working directories,
// protected names and allow rules to every one; for a read path, the path
// with every link resolved (realpath), and, when the path leads through a
// link and deny or ask rules exist, every spelling of it (bi) for the
// Read deny rules. So under Read(./secret/**) it denies cat ls1.txt with
// ls1.txt -> secret/s.txt, and under Edit(./locked/**) touch lldir/t.txt
// with lldir -> locked (TestDifferential/sh5-symlinks-*). The fold reads
// no file system: the Claude Code hook resolves every path CommandPaths
// names when the call comes and records the spellings it finds under
// PathsKey ("linked"); the checks below read them. They only ever make a
// decision stricter: a spelling can add a deny match, or take a path out
// of the working directories, off the unprotected names or out of an
// allow rule, never the reverse.

// pathKey is how "linked" names a path: absolute, its segments joined.
func pathKey(segs []string) string { return "/" + strings.Join(segs, "/") }

// spellings are the other spellings of a command's path p through
// symbolic links that its call's PathsKey records ("linked"); nil when it
// records none (p is decided as given).
func (p inPath) spellings() []inPath {
	c := p.ctx
	if c == nil || p.kind != pathAbs || len(c.linked) == 0 {
		return nil
	}
	list := c.linked[pathKey(p.segs)]
	out := make([]inPath, len(list))
	for i, segs := range list {
		out[i] = inPath{kind: pathAbs, segs: segs, ctx: c}
	}
	return out
}

// insideAll reports whether a command's path p and each of its spellings
// lie inside the working directories.
func (p inPath) insideAll(dirs []inPath) bool {
	if !p.inside(dirs) {
		return false
	}
	for _, q := range p.spellings() {
		if !q.inside(dirs) {
			return false
		}
	}
	return true
}

// guardedAny reports whether a command's path p or any of its spellings
// is protected or suspicious (writeGuarded).
func (p inPath) guardedAny() bool {
	if p.writeGuarded() {
		return true
	}
	for _, q := range p.spellings() {
		if q.writeGuarded() {
			return true
		}
	}
	return false
}

// pathAllowedAll is pathAllowed of a command's path p and of each of its
// spellings.
func (v *view) pathAllowedAll(p inPath, tool string) bool {
	if !v.pathAllowed(p, tool) {
		return false
	}
	for _, q := range p.spellings() {
		if !v.pathAllowed(q, tool) {
			return false
		}
	}
	return true
}

// fsLinksApproved holds the paths of a filesystem command acceptEdits
// approves (fsApproved, which reads them as written) to their spellings
// through links too: every one inside the working directories and none
// protected (Claude Code 2.1.328 asks for touch lod/t5.txt with lod ->
// ../outside/od and touch lvd/p.json with lvd -> .vscode, and runs touch
// lfd/t4.txt with lfd -> free: TestDifferential/files-symlinks-bash-*).
func fsLinksApproved(c *call, s *bashSub, dirs []inPath, open func(inPath) bool) bool {
	ctx := c.at()
	if ctx == nil || len(ctx.linked) == 0 {
		return true
	}
	for _, w := range fsArgs(s) {
		p, ok := c.wordPath(w)
		if !ok {
			continue // fsApproved refuses it
		}
		for _, q := range p.spellings() {
			if !q.inside(dirs) && (open == nil || !open(q)) || q.writeGuarded() {
				return false
			}
		}
	}
	return true
}

// fsArgs are the arguments of a filesystem command fsApproved reads, the
// words that are not options, unquoted; none for another command.
func fsArgs(s *bashSub) []string {
	if len(s.args) == 0 || !fsCommands[s.args[0]] {
		return nil
	}
	var out []string
	opts := true
	for _, w := range s.args[1:] {
		switch {
		case opts && w == "--":
			opts = false
		case opts && strings.HasPrefix(w, "-") && w != "-":
		default:
			out = append(out, unquote(w))
		}
	}
	return out
}

// fsCommands are the commands fsApproved reads.
var fsCommands = map[string]bool{"mkdir": true, "touch": true, "rm": true, "rmdir": true, "mv": true, "cp": true, "sed": true}

// readOpen reports whether a path a command reads, p, and each of its
// spellings lie inside the working directories or are opened by a Read
// allow rule with a path (not an Edit one: row 95). Claude Code 2.1.328
// holds the path with every link resolved to them (and a written path's
// spellings all inside, or all opened: pathAllowedAll).
func (v *view) readOpen(p inPath) bool {
	open := func(q inPath) bool { return q.inside(v.e.c.dirs) || v.pathAllowed(q, toolRead) }
	if !open(p) {
		return false
	}
	for _, q := range p.spellings() {
		if !open(q) {
			return false
		}
	}
	return true
}

// CommandPaths lists the absolute paths the decision of a Bash or Monitor
// call reads from its command's words, each as "/" and its segments: the
// paths its deny rules see (commandPathDeny, shellScriptDeny: a command's
// paths and redirections, after a cd too, inside a shell -c script) and
// those its scope checks see (outOfScope, redirectAsk, fsApproved), read
// where the input's PathsKey says the call runs. nil for any other call
// and for one that does not say where it runs. The Claude Code hook
// resolves each through symbolic links when the call comes and records
// what it finds under PathsKey ("linked").
//
// The deny checks are run themselves, over no rules, telling every path
// they read; the scope checks stop at a path outside, so their words are
// read here from the same sources they read.
func CommandPaths(tool string, input json.RawMessage) []string {
	t := normalizeTool(tool)
	if t != toolBash && t != toolMonitor {
		return nil
	}
	c := newCall(t, input)
	ctx := c.at()
	if ctx == nil {
		return nil
	}
	l := c.bash()
	if l == nil {
		return nil
	}
	var out []string
	seen := map[string]bool{}
	at := *ctx
	at.collect = func(p inPath) {
		if p.kind != pathAbs {
			return
		}
		if k := pathKey(p.segs); !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	c.ctx = &at
	v := &view{e: &Effective{}, brief: true}
	v.commandPathDeny(c)
	v.shellScriptDeny(c, 0)
	for i := range l.subs {
		s := &l.subs[i]
		words := unquoteAll(s.args)
		_, paths, _ := commandPaths(words)
		for _, w := range paths {
			c.wordPath(w)
		}
		for _, w := range s.ins {
			c.wordPath(w)
		}
		for _, w := range s.outs {
			c.wordPath(w)
		}
		// fsApproved: every argument of a filesystem command acceptEdits
		// approves that is not an option.
		for _, w := range fsArgs(s) {
			c.wordPath(w)
		}
	}
	return out
}
