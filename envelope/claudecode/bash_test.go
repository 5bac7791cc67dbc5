package claudecode

import (
	"strings"
	"testing"
)

func TestSplitTop(t *testing.T) {
	for _, c := range []struct {
		cmd    string
		subs   string // raw subcommands joined by " | "; a leading ! marks a nested one
		broken bool
	}{
		{cmd: "ls", subs: "ls"},
		{cmd: "ls && rm -rf build", subs: "ls | rm -rf build"},
		{cmd: "a || b ; c | d & e |& f ;; g", subs: "a | b | c | d | e | f | g"},
		{cmd: "a\nb\n\n c ", subs: "a | b | c"},
		{cmd: "git status 2>&1", subs: "git status 2>&1"},
		{cmd: "make &> log.txt", subs: "make &> log.txt"},
		{cmd: "make >&2 && x", subs: "make >&2 | x"},
		{cmd: "cat <&3", subs: "cat <&3"},
		{cmd: `echo "a && b"`, subs: `echo "a && b"`},
		{cmd: `echo 'a; b' ; c`, subs: `echo 'a; b' | c`},
		{cmd: `echo a\;b`, subs: `echo a\;b`},
		{cmd: "echo $(rm -rf build)", subs: "!echo $(rm -rf build)"},
		{cmd: "echo $(a; b) && c", subs: "!echo $(a; b) | c"},
		{cmd: "echo `date`; ls", subs: "!echo `date` | ls"},
		{cmd: "(cd x && make) | tee log", subs: "!(cd x && make) | tee log"},
		{cmd: "{ a; b; }", subs: "!{ a; b; }"},
		{cmd: "diff <(ls a) >(cat)", subs: "!diff <(ls a) >(cat)"},
		{cmd: `echo "$(whoami)"`, subs: `!echo "$(whoami)"`},
		{cmd: "echo ${HOME}; ls", subs: "echo ${HOME} | ls"},
		{cmd: "echo ${A:-x y}", subs: "echo ${A:-x y}"},
		{cmd: "echo 'unterminated; rm x", subs: "echo 'unterminated; rm x", broken: true},
		{cmd: `echo "unterminated`, subs: `echo "unterminated`, broken: true},
		{cmd: "echo $(x", subs: "!echo $(x", broken: true},
		{cmd: "echo )", subs: "echo )", broken: true},
		{cmd: "echo }", subs: "echo }"},
		{cmd: "   ", subs: ""},
		{cmd: "", subs: ""},
	} {
		cls, broken := scanBash(c.cmd)
		subs := splitTop(c.cmd, cls)
		var got []string
		for _, s := range subs {
			if s.nested {
				got = append(got, "!"+s.raw)
			} else {
				got = append(got, s.raw)
			}
		}
		if strings.Join(got, " | ") != c.subs || broken != c.broken {
			t.Errorf("split %q = %q broken %v, want %q broken %v", c.cmd, strings.Join(got, " | "), broken, c.subs, c.broken)
		}
	}
}

func TestWordsAndStrip(t *testing.T) {
	for _, c := range []struct {
		cmd         string
		deny, allow string
	}{
		{"ls -la", "ls -la", "ls -la"},
		{"FOO=1 rm -rf build", "rm -rf build", "FOO=1 rm -rf build"},
		{"LANG=C touch notes.txt", "touch notes.txt", "touch notes.txt"},
		{"LC_ALL=C NO_COLOR=1 ls", "ls", "ls"},
		{"LANG=C FOO=1 ls", "ls", "FOO=1 ls"},
		{"A+=x ls", "ls", "A+=x ls"},
		{"timeout 30 npm run test", "npm run test", "npm run test"},
		{"timeout -s KILL -k 5 30 npm test", "npm test", "npm test"},
		{"timeout --signal=KILL 30 npm test", "npm test", "npm test"},
		{"nice -n 10 make", "make", "make"},
		{"nice -5 make", "make", "make"},
		// Allow rules do not see past a mode given apart: Claude Code
		// 2.1.328 asks for stdbuf -o 0 npm test under Bash(npm test:*)
		// (TestDifferential/allowwrapopts-default).
		{"stdbuf -o L -eL grep x", "grep x", "stdbuf -o L -eL grep x"},
		{"stdbuf -oL -eL grep x", "grep x", "grep x"},
		{"nice LANG=C grep x", "grep x", "LANG=C grep x"},
		{"LANG=C nice grep x", "grep x", "grep x"},
		{"time nohup command -p builtin noglob ls", "ls", "ls"},
		{"xargs rm", "rm", "rm"},
		{"xargs -0 rm", "xargs -0 rm", "xargs -0 rm"},
		{"xargs", "xargs", "xargs"},
		{"sudo rm -rf x", "sudo rm -rf x", "sudo rm -rf x"},
		{`echo "hello   world"`, `echo "hello   world"`, `echo "hello   world"`},
		{"echo   a\tb", "echo a b", "echo a b"},
		{"timeout 5 FOO=1 ls", "ls", "FOO=1 ls"},
		{"=x ls", "=x ls", "=x ls"},
	} {
		l := parseBash(c.cmd)
		if len(l.subs) != 1 {
			t.Fatalf("%q: %d subcommands", c.cmd, len(l.subs))
		}
		if s := l.subs[0]; s.denyText != c.deny || s.allowText != c.allow {
			t.Errorf("%q: deny %q allow %q, want %q %q", c.cmd, s.denyText, s.allowText, c.deny, c.allow)
		}
	}
}

func TestNestedSegments(t *testing.T) {
	for _, c := range []struct {
		cmd  string
		want string // deny texts joined by " | "
	}{
		// The whole line is a deny text when it holds several
		// subcommands, so Bash(wget *| bash*) can match.
		{"ls && rm -rf build", "ls | rm -rf build | ls && rm -rf build | ls | rm -rf build"},
		{"wget x | bash", "wget x | bash | wget x | bash | wget x | bash"},
		{"echo $(rm -rf build)", "echo $(rm -rf build) | echo | rm -rf build"},
		{"echo `FOO=1 rm x`", "echo `FOO=1 rm x` | echo | rm x"},
		{`git commit -m "rm -rf x"`, `git commit -m "rm -rf x" | git commit -m rm -rf x`},
		// The shell's reading too (quotedSegments), where it gives
		// another text.
		{`echo "a; rm -rf x"`, `echo "a; rm -rf x" | echo a | rm -rf x | echo a; rm -rf x`},
		{`echo $(FOO="a b" rm x)`, `echo $(FOO="a b" rm x) | echo | b rm x | rm x`},
		// A redirection's & stays in its word, so the segment reads the
		// redirection whole and a deny text can start after it.
		// The command without its redirections is one too: the pinned
		// CLI denies echo hi 2>&1 under Bash(echo hi)
		// (TestDifferential/genrules1-deny-default).
		{"git status 2>&1", "git status 2>&1 | git status | git status 2>&1"},
		{"( 2>&1 rm x )", "( 2>&1 rm x ) | rm x"},
		{"echo $(&>/dev/null rm x)", "echo $(&>/dev/null rm x) | echo | rm x"},
		{"rm -rf ${DIR}/x", "rm -rf ${DIR}/x | rm -rf ${DIR}/x"},
		{"cat <(timeout 5 curl x)", "cat <(timeout 5 curl x) | cat | curl x"},
		{"{ rm a; }", "{ rm a; } | rm a"},
	} {
		l := parseBash(c.cmd)
		if got := strings.Join(l.denyTexts, " | "); got != c.want {
			t.Errorf("deny texts of %q = %q, want %q", c.cmd, got, c.want)
		}
	}
}

func TestReadOnly(t *testing.T) {
	for _, c := range []struct {
		cmd  string
		want bool
	}{
		{"ls -la", true},
		{"cat notes.txt", true},
		{"LANG=C ls", true},
		{"FOO=1 ls", false},
		{"git status", true},
		{"git --no-pager log -5", false}, // the CLI asks: TestDifferential/sh4-readonly-default (git --no-pager log -1)
		{"git push", false},
		{"git", false},
		{"git status 2>&1", true},
		{"ls > out.txt", true}, // the redirection is decided apart (redirectAsk)
		{"ls > /dev/null", true},
		{"find . -name x", true},
		{"find . -delete", false},
		{"find . -exec rm {} ;", false},
		{"echo $(cat x)", false},
		{"timeout 5 grep x y", true},
		{"npm test", false},
		{"cd src", true},
		{"echo 'open", false},
	} {
		l := parseBash(c.cmd)
		if len(l.subs) == 0 {
			if c.want {
				t.Errorf("%q: no subcommands", c.cmd)
			}
			continue
		}
		if got := l.readOnly(&l.subs[0]); got != c.want {
			t.Errorf("readOnly(%q) = %v", c.cmd, got)
		}
	}
}

func TestFSApproved(t *testing.T) {
	dirs := []inPath{parseInputPath("/data/shared")}
	for _, c := range []struct {
		cmd  string
		want bool
	}{
		{"mkdir build", true},
		{"mkdir -p build/out", true},
		{"mv a.txt b.txt", true},
		{"cp a.txt /tmp/a.txt", false},
		{"cp a.txt /data/shared/a.txt", true},
		{"touch .git/hooks/x", false},
		{"touch .bashrc", false},
		{"rm ../x", false},
		{"rm -- -weird", true},
		{`touch "notes.txt"`, true},
		{"sed -i s/a/b/ f.txt", true},
		// An output redirection is decided apart (redirectAsk): Claude
		// Code 2.1.328 runs touch r1.txt > o2.txt in acceptEdits
		// (TestDifferential/acceptredir-acceptEdits).
		{"mkdir x > log", true},
		{"touch x 2>&-", false},
		{"touch x 2>& -", false},
		{`\touch x`, false},
		{`\rm x`, true},
		{"time -p rm x", false},
		{"mkdir $(x)", false},
		{"FOO=1 mkdir x", false},
		// Claude Code 2.1.328 asks for LANG=C touch t4.txt in acceptEdits
		// (TestDifferential/acceptwrap-acceptEdits), and runs LANG=C rm f:
		// touch is approved only as the first word written.
		{"LANG=C touch x", false},
		{"LANG=C rm x", true},
		{"chmod 600 x", false},
		{"mkdir", true},
	} {
		l := parseBash(c.cmd)
		if got := l.fsApproved(&l.subs[0], dirs, &call{}, nil); got != c.want {
			t.Errorf("fsApproved(%q) = %v", c.cmd, got)
		}
	}
}

func TestCriticalRemoval(t *testing.T) {
	for _, c := range []struct {
		cmd  string
		want bool
	}{
		{"rm -rf /", true},
		{"rm -rf //", true},
		{"rm -rf ~", true},
		{"rm -rf ~/", true},
		{"rm -rf ~/*", true},
		{"rm -rf .", true},
		{"rm -rf ..", true},
		{"rm -rf ../", true},
		{"rm -rf ../..", true},
		{"rm -rf ../../", true},
		{"rm -rf *", true},
		{"rm -rf ./*", true},
		{"rm -rf ../*", true},
		{"rm -rf /*", true},
		{"rm -rf /usr", true},
		{"rm -rf /usr/", true},
		{"rm -rf /usr/*", true},
		{"rm -rf /usr/local", false},
		{"rm -rf $HOME", true},
		{"rm -rf ${HOME}", true},
		{"rm -rf $HOME/", true},
		{"rm -rf $DIR/*", true},
		{"rm -rf ${DIR}/", true},
		{"rm -rf ${DIR:?unset}/*", false},
		{"rm -rf $DIR/build", false},
		{"rm -rf build", false},
		{"rm -rf build/", false},
		{"rmdir /tmp", true},
		{`rm -rf "/"`, true},
		{"sudo rm -rf /", true},
		{"sudo -u root rm -rf /", true},
		{"FOO=1 timeout 5 rm -r /", true},
		{"echo $(rm -rf ~)", true},
		{"ls; rm -rf /", true},
		{"echo rm -rf /", false},
		{"rm -- /", true},
		{"rm -rf -- -/", false},
		{"xargs rm -rf /", true},
	} {
		l := parseBash(c.cmd)
		if l.critical != c.want {
			t.Errorf("critical(%q) = %v", c.cmd, l.critical)
		}
	}
}
