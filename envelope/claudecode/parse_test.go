package claudecode

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// parseBashJoined is parseBash making every text with strings.Join and
// splitting every word list's redirections word by word.
func parseBashJoined(cmd string) *bashLine {
	cmd = catHeredocs(cmd)
	cls, broken, hd := scanBashHD(cmd)
	subs, bad := splitTopOps(cmd, cls)
	subs = compound(subs)
	l := &bashLine{line: cmd, broken: broken || bad || tooComplex(cmd) || hd.broken() || expansionShapes(cmd, hd, subs) || malformedCond(subs) ||
		trailingBackslash(cmd), subs: subs}
	for i := 0; i < len(subs) && !l.broken; i++ {
		l.broken = subRefused(subs[i].words)
	}
	if !l.broken {
		l.subs = assignedSubstitutions(l.subs)
		for i := 0; i < len(l.subs) && !l.broken; i++ {
			l.broken = wordAfterRedirect(l.subs[i].words)
		}
	}
	l.openDollar = unclosedDollar(cmd)
	for i := range l.subs {
		s := &l.subs[i]
		dw := denyWords(s.words, stripDeny)
		s.denyText = strings.Join(dw, " ")
		l.dirChange(dw)
		orig := s.words
		s.words = stripWords(s.words, stripAllow)
		s.notRO, s.xargs = readOnlyWrappers(orig[:len(orig)-len(s.words)], s.words)
		s.wrapWord, s.wrapWhy = wrapperUnchecked(orig[:len(orig)-len(s.words)])
		s.args, s.outs, s.ins = condSplit(s.words, splitRedirsScan)
		s.args = unquoteCommandWord(s.args)
		s.allowText = strings.Join(s.args, " ")
		if s.denyText != "" {
			l.denyTexts = append(l.denyTexts, s.denyText)
		}
		l.denyTexts = appendUnredirected(l.denyTexts, orig, s.denyText)
	}
	if whole := l.wholeText(); len(l.subs) > 1 && !containsString(l.denyTexts, whole) {
		l.denyTexts = append(l.denyTexts, whole)
	}
	if strings.Contains(cmd, "\\ ") || strings.Contains(cmd, "\\\t") {
		for i := range l.subs {
			if t := strings.NewReplacer("\\ ", " ", "\\\t", "\t").Replace(l.subs[i].denyText); t != l.subs[i].denyText && !containsString(l.denyTexts, t) {
				l.denyTexts = append(l.denyTexts, t)
			}
		}
	}
	segs := nestedSegments(hd.plain(cmd))
	_, shell := bothSegments(hd.plain(cmd))
	l.keywordAfterPrefix = slices.ContainsFunc(shell, keywordAfterPrefix)
	subTexts := len(l.denyTexts)
	for _, seg := range segs {
		stripped := stripWords(seg, stripPaths)
		if t := strings.Join(denyWords(stripped, stripDeny), " "); t != "" {
			if !containsString(l.denyTexts[subTexts:], t) {
				l.denyTexts = append(l.denyTexts, t)
			}
			l.markPathSeg(stripped, len(stripped) == len(seg))
			if deep := strings.Join(stripDeep(seg), " "); deep != t && deep != "" && !containsString(l.denyTexts, deep) {
				l.denyTexts = append(l.denyTexts, deep)
			}
		}
		if !l.critical {
			if arg, ok := criticalRemoval(denyWords(seg, stripCritical)); ok {
				l.critical, l.criticalArg = true, arg
			}
		}
	}
	if strings.IndexByte(cmd, '$') >= 0 {
		l.addVariableCommands(segs)
	}
	l.continued(cmd)
	return l
}

// dumpLine prints everything a decision reads of a parsed line (an empty
// list and no list print alike: nothing tells them apart).
func dumpLine(l *bashLine) string {
	var b strings.Builder
	fmt.Fprintf(&b, "broken %v critical %v %q open $ %v keyword %v\ndeny %q\npaths %q %b\ncds %d moves %d git %v\n", l.broken, l.critical, l.criticalArg, l.openDollar, l.keywordAfterPrefix, l.denyTexts, l.pathSegs, l.pathPlain, l.cds, l.moves, l.git)
	for _, s := range l.subs {
		fmt.Fprintf(&b, "%q %q %v %q %q %q %q %q %q %v ro %v %v\n", s.raw, s.op, s.nested, s.words, s.args, s.outs, s.ins,
			s.allowText, s.denyText, s.timeAfterPrefix, s.notRO, s.xargs)
	}
	return b.String()
}

// randomCommand builds a Bash line from words, redirections, wrappers
// and operators.
func randomCommand(r *rand.Rand) string {
	words := []string{"ls", "-la", "a", "b.go", "x=1", "LANG=C", "NO_COLOR=1", `"a b"`, `'c;d'`, `\;`, "$(b c)", "$(rm -rf x)",
		"`d`", "${X:-y}", "<(e)", `"$(g; h)"`, "$x", "~/", "$HOME/.ssh", "*.go", "{ a; }", "(b; c)", `"`, "'", "\\", "--",
		"rm", "\\rm", "/bin/rm", "sudo", "-u", "env", "timeout", "30", "nice", "xargs", "echo", "cat", ".env", "../x", "/",
		"git", "push", "npm", "test", "bash", "-c", `"rm x"`, "'cat .env'", "cd", "sed", "-i", "mkdir", "q\"uo\"te", "a'b'",
		"command", `\command`, "grep", "TZ=UTC", "noglob"}
	redirs := []string{">x", "> x", "2>&1", ">/dev/null", "&>f", ">>f", "<f", "< .env", "<<<w", ">&2", "<>f", `> "a b"`, ">.env"}
	ops := []string{" && ", " || ", " | ", " ; ", " & ", "\n", ";", "|"}
	spaces := []string{" ", " ", " ", "  ", "\t"}
	var b strings.Builder
	for k := range 1 + r.IntN(3) {
		if k > 0 {
			b.WriteString(pick(r, ops))
		}
		for w := range 1 + r.IntN(5) {
			if w > 0 {
				b.WriteString(pick(r, spaces))
			}
			if r.IntN(5) == 0 {
				b.WriteString(pick(r, redirs))
			} else {
				b.WriteString(pick(r, words))
			}
		}
	}
	return b.String()
}

// TestParseBashIsJoined: parseBash, which reuses a text where one already
// reads the same and keeps a word list with no redirection as it is,
// parses every line as parseBashJoined does; unquoteAll is unquote of
// every word.
func TestParseBashIsJoined(t *testing.T) {
	r := rand.New(rand.NewPCG(28, 3))
	cmds := append([]string{"", " ", "echo hi", "echo hi  >  out", "a  b", "x=1 y", "sudo rm -rf /"}, benchCommands...)
	for _, tc := range shCases {
		cmds = append(cmds, tc.cmd)
	}
	for range 30000 {
		cmds = append(cmds, randomCommand(r))
	}
	for _, cmd := range cmds {
		if got, want := dumpLine(parseBash(cmd)), dumpLine(parseBashJoined(cmd)); got != want {
			t.Fatalf("%q:\n%s\nparsed with Join:\n%s", cmd, got, want)
		}
		for _, ws := range [][]string{strings.Fields(cmd), strings.Split(cmd, " ")} {
			u := unquoteAll(ws)
			if len(u) != len(ws) {
				t.Fatalf("unquoteAll(%q) = %q", ws, u)
			}
			for i := range ws {
				if u[i] != unquote(ws[i]) {
					t.Fatalf("unquoteAll(%q) = %q", ws, u)
				}
			}
		}
	}
}

// FuzzParseBashJoined is TestParseBashIsJoined over fuzzed lines.
func FuzzParseBashJoined(f *testing.F) {
	for _, cmd := range benchCommands {
		f.Add(cmd)
	}
	for _, tc := range shCases {
		f.Add(tc.cmd)
	}
	f.Fuzz(func(t *testing.T, cmd string) {
		if got, want := dumpLine(parseBash(cmd)), dumpLine(parseBashJoined(cmd)); got != want {
			t.Fatalf("%q:\n%s\nparsed with Join:\n%s", cmd, got, want)
		}
	})
}
