package claudecode

import (
	"path"
	"regexp"
	"strings"
)

// Commands whose arguments Claude Code 2.1.328 refuses to check before
// they run: it asks for them whatever approved the command (an allow rule
// with a specifier, the read-only list), runs them under a bare Bash allow
// rule and in bypassPermissions, as it does the checks of uncheckable
// (TestDifferential/builtins-*, expansions-*, builtinforms-*; section 0.2,
// row 49). The sets and expressions are the release's, read from its
// command checker.

// evalBuiltins "evaluate arguments as shell code": eval, source, exec,
// trap, alias, let, ... (fc only with -e or -s, compgen only with -C, -F
// or -W).
var evalBuiltins = setOf("eval", "source", ".", "exec", "nocorrect", "fc", "coproc", "trap", "enable", "mapfile", "readarray",
	"hash", "bind", "complete", "compgen", "alias", "let")

// zshBuiltins "can bypass security checks" (the release's list, without
// the ones it names only when the shell is zsh).
var zshBuiltins = setOf("zmodload", "emulate", "sysopen", "sysread", "syswrite", "sysseek", "zpty", "ztcp", "zsocket", "zf_rm",
	"zf_mv", "zf_ln", "zf_chmod", "zf_chown", "zf_mkdir", "zf_rmdir", "zf_chgrp", "repeat", "foreach", "zcompile", "setopt",
	"unsetopt", "disable", "shopt", "autoload", "functions")

// starters start a command the release cannot check, when given one.
var starters = setOf("watch", "ionice", "chrt", "setsid", "taskset", "strace", "ltrace", "script", "flock", "unshare", "nsenter",
	"sandbox-exec")

// setLetters are the single-letter options of set the release lets
// through; setOptions the names of set -o.
var (
	setLetters = "euxfCvmbETnhP"
	setOptions = setOf("pipefail", "errexit", "nounset", "xtrace", "noglob", "noclobber", "verbose", "monitor", "notify", "vi",
		"emacs", "errtrace", "functrace", "hashall", "physical", "ignoreeof")
)

var (
	printPrompt  = regexp.MustCompile(`^[+-][-+\w:]*P`)
	jqFileOption = regexp.MustCompile(`^(?:-[A-Za-z]*[fL]|--(?:from-file|rawfile|slurpfile|library-path)(?:$|=))`)
	jqSystem     = regexp.MustCompile(`\bsystem\s*\(`)
	jqModules    = regexp.MustCompile(`\b(?:include|import)\b`)
)

// builtinUnchecked returns the word of a subcommand that makes Claude Code
// 2.1.328 ask whatever approved it, and why, or "" when there is none.
// words are its words unquoted, raw as written.
func builtinUnchecked(words, raw []string) (word, why string) {
	if len(words) == 0 {
		return "", ""
	}
	name, args := path.Base(words[0]), words[1:]
	switch {
	case evalBuiltins[name]:
		if name == "fc" && !anyMatch(args, func(a string) bool { return optionHas(a, "es") }) ||
			name == "compgen" && !anyMatch(args, func(a string) bool { return optionHas(a, "CFW") }) {
			return "", ""
		}
		return words[0], "evaluates its arguments as shell code:"
	case zshBuiltins[name]:
		return words[0], "is a zsh builtin that can change how later commands run:"
	case starters[name] && len(args) > 0:
		return words[0], "starts a command the release cannot check before it runs:"
	}
	if w, why := patternOperand(name, args, raw[1:]); why != "" {
		return w, why
	}
	switch name {
	case "jobs":
		for _, a := range args {
			if optionHas(a, "x") {
				return a, "runs a command through jobs -x:"
			}
		}
	case "print":
		for _, a := range args {
			if printPrompt.MatchString(a) {
				return a, "expands prompt sequences with print -P:"
			}
		}
	case "set":
		return setUnchecked(args)
	case "declare", "typeset", "local", "export", "readonly", "float", "integer", "private":
		return declarationUnchecked(name, args)
	case "printf":
		if w, why := shellVariableWrites(name, args); why != "" {
			return w, why
		}
		if w, why := subscriptOperands(name, args); why != "" {
			return w, why
		}
		for _, a := range args {
			if strings.Contains(a, "[") && strings.ContainsAny(a, "$`") {
				return a, "gives printf an operand with a subscript and an expansion, which zsh evaluates:"
			}
		}
	case "jq":
		for _, a := range args {
			switch {
			case jqSystem.MatchString(a):
				return a, "gives jq a program that calls system():"
			case jqModules.MatchString(a):
				return a, "gives jq a program that loads modules:"
			case jqFileOption.MatchString(a):
				return a, "gives jq an option that reads code or files:"
			}
		}
	case "find":
		return findUnchecked(args, raw[1:])
	case "test", "[", "[[":
		return testUnchecked(name, args)
	case "awk", "gawk", "mawk", "nawk":
		return awkProgram(raw[1:])
	case "env":
		return envOptions(args)
	case "read", "unset", "wait":
		if w, why := shellVariableWrites(name, args); why != "" {
			return w, why
		}
		if name == "unset" {
			if w, why := unsetOperands(args, raw[1:]); why != "" {
				return w, why
			}
		}
		return subscriptOperands(name, args)
	case "getopts":
		return shellVariableWrites(name, args)
	}
	return "", ""
}

// keywords are the shell's reserved words (uncheckable asks for one
// written quoted or escaped as a command name).
var keywords = setOf("if", "then", "elif", "else", "fi", "while", "until", "for", "in", "do", "done", "case", "esac", "function",
	"select")

// awkProgram: awk given a program that runs a command or loads code
// (system(), a pipe to or from a command, getline from one, @load,
// @include, an @indirect call, extension(), a /inet/ socket), an option
// that reads or loads code (the release's pattern: -f, -e, -i, -l, -E,
// -D, -W, --file, --exec, --include, --load, --source, --debug, ...), or
// a glob outside quotes (TestDifferential/wrapawk-allowed-default,
// uncheckable-allowed-default). raw are its words as written.
func awkProgram(raw []string) (string, string) {
	for _, w := range raw {
		if bareGlob(w) {
			return w, "gives awk a glob the shell would expand:"
		}
	}
	for _, w := range raw {
		a := shellWord(w) // a program's quotes are its own
		switch {
		case awkOption.MatchString(a):
			return a, "gives awk an option that loads code:"
		case awkSystem.MatchString(a), awkPipe.MatchString(a), awkGetline.MatchString(a), awkLoad.MatchString(a),
			awkExtension.MatchString(a), strings.Contains(a, `"/inet/`), strings.Contains(a, `"/inet4/`), strings.Contains(a, `"/inet6/`):
			return a, "gives awk a program that runs commands or loads code:"
		}
	}
	return "", ""
}

var (
	awkOption    = regexp.MustCompile(`^(?:-[bcCghIkMnNOPrsStV]*[fEileDW]|--(?:fil|e|i|lo|s|de))`)
	awkSystem    = regexp.MustCompile(`(?:^|[^A-Za-z_])system[\s\\]*\(`)
	awkPipe      = regexp.MustCompile(`(?:^|[^|])\|&?[^/|%";#{}]*"`)
	awkGetline   = regexp.MustCompile(`(?:^|[^|])\|&?[\s\\]*getline\b`)
	awkLoad      = regexp.MustCompile(`@[\s\\]*(?:load|include)\b|@[\s\\]*\w+(?:::\w+)?(?:\[[^\]]*\])*[\s\\]*\(`)
	awkExtension = regexp.MustCompile(`(?:^|[^A-Za-z_])extension[\s\\]*\(`)
)

// envOptions: env given an option but -i, -0, -v and -u NAME before its
// command (env -S 'ls -l': "'env -S' can't be checked before it runs");
// -C is envChdir's.
func envOptions(args []string) (string, string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-i" || a == "-0" || a == "-v":
		case a == "-u" && i+1 < len(args):
			i++
		case strings.Contains(a, "=") && !strings.HasPrefix(a, "-"):
		case strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "-C") && !strings.HasPrefix(a, "--chdir"):
			return a, "gives env an option the release cannot check:"
		default:
			return "", ""
		}
	}
	return "", ""
}

// subscriptOperands: read -a, unset -v, wait -p and printf -v given a
// name with a subscript (read -a 'arr[1]', printf -v 'a[1]' x), read and
// unset given one as a positional name (unset 'a[1]'), read -t, -n or -N
// given a word that is not a number, and read -p a subscripted name: the
// shell evaluates what a subscript holds (TestDifferential/
// wrapawk-allowed-default).
func subscriptOperands(name string, args []string) (string, string) {
	flag := map[string]string{"read": "-a", "unset": "-v", "wait": "-p", "printf": "-v"}[name]
	for i := 0; i < len(args); i++ {
		a, next := args[i], ""
		if i+1 < len(args) {
			next = args[i+1]
		}
		switch {
		case a == flag && strings.Contains(next, "["):
			return next, "gives " + name + " " + flag + " a subscript, which the shell evaluates:"
		case name == "read" && (a == "-t" || a == "-n" || a == "-N") && next != "" && !readNumber.MatchString(next):
			return next, "gives read " + a + " a word zsh evaluates as arithmetic:"
		case name == "read" && a == "-p" && subscripted.MatchString(next):
			return next, "gives read -p a subscripted name:"
		case name == "read" && readValueOptions[a]:
			i++
		case (name == "read" || name == "unset") && !strings.HasPrefix(a, "-") && strings.Contains(a, "["):
			return a, "gives " + name + " a subscripted name, which the shell evaluates:"
		}
	}
	return "", ""
}

// readValueOptions are read's options that take the next word.
var readValueOptions = setOf("-t", "-n", "-N", "-p", "-a", "-d", "-u", "-i")

var (
	readNumber  = regexp.MustCompile(`^(?:[0-9]+(?:\.[0-9]+)?|\.[0-9]+)$`)
	subscripted = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*\[`)
)

// testUnchecked: test, [ and [[ with an operand the release cannot read
// ahead of the shell: -v, -R or -t given a subscript, -t or a numeric
// comparison (-eq, -lt, ...) given a word that is not a number, which zsh
// evaluates as arithmetic (test -t x, test a -lt 2); and the forms its
// parser misreads: test with a lone '=' (test a = b: "Parse error"), [
// with -a or -o, or without its closing ] (TestDifferential/
// echoforms-allowed-default, builtinforms-allowed-default).
func testUnchecked(name string, args []string) (string, string) {
	for i, a := range args {
		next := ""
		if i+1 < len(args) {
			next = args[i+1]
		}
		switch {
		case (a == "-v" || a == "-R" || a == "-t") && strings.Contains(next, "["):
			return next, "gives " + name + " a subscript, which the shell evaluates:"
		case a == "-t" && next != "" && !testNumber.MatchString(next):
			return next, "gives " + name + " -t a word zsh evaluates as arithmetic:"
		case testCompare[a]:
			for _, o := range []string{next, prevWord(args, i)} {
				if o != "" && !testNumber.MatchString(o) {
					return o, "compares a word zsh evaluates as arithmetic with " + name + ":"
				}
			}
		case name == "test" && a == "=":
			return a, "is a test the release's parser misreads:"
		case name == "[" && (a == "-a" || a == "-o"):
			return a, "is a test the release's parser misreads:"
		}
	}
	if name == "[" && (len(args) == 0 || args[len(args)-1] != "]") {
		return name, "is a test without its closing ], which the release's parser misreads:"
	}
	return "", ""
}

func prevWord(a []string, i int) string {
	if i == 0 {
		return ""
	}
	return a[i-1]
}

var (
	testNumber  = regexp.MustCompile(`^-?(0[xX][0-9a-fA-F]+|[0-9]+#[0-9a-zA-Z]+|[0-9]+)$`)
	testCompare = setOf("-eq", "-ne", "-lt", "-le", "-gt", "-ge")
)

// optionHas reports an option word (a '-' or '+' first) holding one of
// the letters: the release's /^[+-].*[letters]/.
func optionHas(w, letters string) bool {
	return len(w) > 1 && (w[0] == '-' || w[0] == '+') && strings.ContainsAny(w[1:], letters)
}

func anyMatch(l []string, f func(string) bool) bool {
	for _, x := range l {
		if f(x) {
			return true
		}
	}
	return false
}

// setUnchecked: set given a letter outside setLetters (set -a, set -k)
// or -o/+o with a name outside setOptions (set +o history), the name
// compared in lower case without '_' and '-'. Words after "--" and
// words that are not options are the positional parameters.
func setUnchecked(args []string) (string, string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		if len(a) < 2 || a[0] != '-' && a[0] != '+' {
			continue
		}
	letters:
		for j := 1; j < len(a); j++ {
			switch c := a[j]; {
			case c == 'o':
				opt := a[j+1:]
				if opt == "" && i+1 < len(args) {
					opt = args[i+1]
					i++
				}
				if norm := strings.NewReplacer("_", "", "-", "").Replace(strings.ToLower(opt)); opt != "" && !setOptions[norm] {
					return a, "changes a shell option the release cannot follow with set:"
				}
				break letters
			case c == 'A':
				break letters
			case strings.IndexByte(setLetters, c) < 0:
				return a, "changes a shell option the release cannot follow with set:"
			}
		}
	}
	return "", ""
}

// declarationUnchecked: a declaration's options as declarationOptions
// reads them; declare, typeset and local with a flag that changes how the
// value is read (-n, -i, -a, -l, -u, -A, -E, -F, -L, -R, -Z: declare -i
// x=1+2, declare -a arr, typeset -u x=a) or with -g and an assignment
// (declare -g x=1); any declaration with -m; export and readonly with such
// a flag and an assignment (export -a x runs); an operand of declare,
// typeset or local that is not a plain NAME or NAME=value (declare
// 'a[$(echo 1)]=x'; declare x=a[1] and declare "x=1" run); and an operand
// of export or readonly with a subscript, a backslash or a substitution
// (export A=$((1+2)); export X=$HOME runs).
func declarationUnchecked(name string, args []string) (string, string) {
	local := name == "declare" || name == "typeset" || name == "local"
	exported := name == "export" || name == "readonly"
	if w, why := declarationOptions(name, args); why != "" {
		return w, why
	}
	assigns := anyMatch(args, func(w string) bool { _, ok := isAssignment(w); return ok })
	fun, upper := false, false
	for _, a := range args {
		if len(a) > 1 && (a[0] == '-' || a[0] == '+') {
			if a == "--" {
				continue
			}
			switch {
			case local && optionHas(a, "nialuAEFLRZ"):
				return a, "gives " + name + " a flag that changes how its values are read:"
			case optionHas(a, "m"):
				return a, "gives " + name + " -m, which assigns every matching variable:"
			case exported && assigns && optionHas(a, "aAiluEFLRZ"):
				return a, "gives " + name + " a flag that makes an operand a compound assignment:"
			case local && optionHas(a, "g") && assigns:
				return a, "gives " + name + " -g with an assignment, which not every shell makes:"
			}
			fun = fun || optionHas(a, "f")
			upper = upper || optionHas(a, "uU")
			if fun && upper && (local || name == "readonly") {
				return a, "marks a function for autoload with " + name + ":"
			}
			continue
		}
		switch {
		case local && !plainOperand(a):
			return a, "gives " + name + " an operand that is not a plain NAME or NAME=value:"
		case exported && (strings.ContainsAny(a, "[\\`") || strings.Contains(a, "$(")):
			return a, "gives " + name + " an operand with a subscript, an escape or an expansion:"
		case exported && !plainName(a, fun):
			if _, ok := isAssignment(a); !ok {
				return a, "gives " + name + " an operand that is not a plain variable name, which the shell expands or matches:"
			}
		}
	}
	return "", ""
}

// patternBuiltins are the builtins that read their words as names,
// options or numbers (cli.js w3r: the declarations, set, shift, read,
// wait, jobs, exit, return, break, ...), where a glob or a ~ word may
// become one.
var patternBuiltins = setOf("declare", "typeset", "local", "export", "readonly", "print", "getopts", "set", "zparseopts", "zformat",
	"zstyle", "strftime", "pcre_match", "zstat", "zselect", "zgetattr", "zlistattr", "ztie", "zuntie", "syserror", "zsystem", "zftp",
	"zcurses", "autoload", "shift", "exit", "return", "break", "continue", "bye", "logout", "vared", "private", "getln", "zregexparse",
	"float", "integer", "printf", "read", "wait", "jobs", "compgen", "fc")

// patternOperand: a builtin of patternBuiltins given a glob outside quotes
// or a word starting with ~ and no / (~x, ~+) asks whatever approved it
// ("A pattern or ~ word here may become an option, a variable name or a
// number": set *, shift *, read a* < f, wait *, jobs *, getopts ab a*,
// break *, export ~x); set -- takes any words, and printf only its format
// (printf %s * runs, printf %s ~ too). raw are the words as written (row
// 122, TestDifferential/patternbuiltins-*); raw and args of different
// lengths ask.
func patternOperand(name string, args, raw []string) (string, string) {
	if !patternBuiltins[name] {
		return "", ""
	}
	if len(args) != len(raw) {
		// Unquoting keeps the count of words; should it not, no word
		// can be read as written, and the call asks rather than run
		// unread (TestPatternOperandMismatchAsks).
		return strings.Join(raw, " "), "gives " + name + " words that could not be read as written:"
	}
	tilde := func(a string) bool { return len(a) > 1 && a[0] == '~' && a[1] != '/' }
	hit := -1
	for i := range args {
		if _, ok := isAssignment(raw[i]); ok {
			continue // no pattern is expanded in a value (declare x=a[1] runs)
		}
		if bareGlob(raw[i]) || tilde(args[i]) {
			hit = i
			break
		}
	}
	switch {
	case hit < 0, name == "set" && len(args) > 0 && args[0] == "--":
		return "", ""
	case name == "printf":
		f := 0
		if len(args) > 1 && args[0] == "--" {
			f = 1
		}
		if f >= len(args) || !bareGlob(raw[f]) && !tilde(args[f]) {
			return "", ""
		}
		hit = f
	}
	return args[hit], "gives " + name + " a pattern or ~ word that may become an option, a name or a number:"
}

// plainName reports a variable's name (with fun, a function's: letters,
// digits, _ . : -), as export, readonly and unset take it (cli.js St;
// export A+ asks: TestDifferential/patternbuiltinsallowed-default).
func plainName(a string, fun bool) bool {
	n := nameLen(a)
	if n == len(a) && n > 0 {
		return true
	}
	if !fun || n == 0 {
		return false
	}
	return strings.Trim(a[n:], "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.:-") == ""
}

// unsetOperands: an operand of unset that is not a plain name (unset a*,
// unset ~) or carries an escape past its first character (unset a\*):
// Claude Code 2.1.328 asks whatever approved it (row 122,
// TestDifferential/patternbuiltinsallowed-default).
func unsetOperands(args, raw []string) (string, string) {
	fun := false
	for i, a := range args {
		switch {
		case a == "--":
		case len(a) > 1 && a[0] == '-':
			fun = fun || optionHas(a, "f")
		case i < len(raw) && strings.Contains(raw[i][1:], "\\"), !plainName(a, fun):
			return a, "gives unset an operand that is not a plain variable name, which the shell expands or matches:"
		}
	}
	return "", ""
}

// plainOperand reports an operand of declare that reads, its quotes
// removed, as NAME or NAME=value, the value without a command
// substitution, an arithmetic expansion, a backtick or a backslash
// (declare "x=1" and
// local "x"=1 run; a variable in it makes the line one the release does
// not read at all: variableShapes).
func plainOperand(w string) bool {
	n := nameLen(w)
	if n == 0 {
		return false
	}
	rest := w[n:]
	return rest == "" || rest[0] == '=' && !strings.ContainsAny(rest, "`\\") && !strings.Contains(rest, "$(")
}

// findUnchecked: find with an action that runs a command or writes
// (-exec, -execdir, -ok, -okdir, -delete, -fprint, ...: "find with '-exec'
// executes commands or modifies files — cannot be auto-allowed by a
// Bash(find:*) prefix rule": TestDifferential/redirshapes-allowed-default),
// with a glob character outside quotes anywhere
// ("find contains unquoted glob characters": find . -name *.txt), a
// glob in a word that is no option's value (find '*.txt'), or an option
// versions of find read differently (-df, -xf).
func findUnchecked(args, raw []string) (string, string) {
	for _, a := range args {
		if findActions[a] {
			return a, "gives find an action that runs a command or writes, which no rule naming find approves:"
		}
	}
	for _, w := range raw {
		if bareGlob(w) {
			return w, "gives find a glob the shell would expand:"
		}
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case findVersionOption.MatchString(a):
			return a, "gives find an option versions of find read differently:"
		case findDebug.MatchString(a):
			// -D and the like: the release reads the next word as an
			// operand, globs and all.
		case findValues[a] || findNewerXY.MatchString(a):
			i++
		case strings.ContainsAny(a, "[]*?"):
			return a, "gives find a glob where it expects a path or an action:"
		}
	}
	return "", ""
}

var (
	findVersionOption = regexp.MustCompile(`^-[dsx]+f$`)
	findNewerXY       = regexp.MustCompile(`^-newer[aBcm][aBcmt]$`)
	findDebug         = regexp.MustCompile(`^-(?:[EHLPXdsx]*D|f|[dsx]*[EHLPX][EHLPXdsx]*f)$`)
	findValues        = setOf("-name", "-iname", "-path", "-ipath", "-lname", "-ilname", "-regex", "-iregex", "-wholename",
		"-iwholename", "-samefile", "-newer", "-anewer", "-cnewer", "-mnewer", "-perm", "-user", "-group", "-uid", "-gid", "-size",
		"-type", "-xtype", "-fstype", "-inum", "-links", "-used", "-context", "-amin", "-cmin", "-mmin", "-atime", "-ctime", "-mtime",
		"-mindepth", "-maxdepth", "-printf", "-regextype", "-D", "-f", "-flags", "-Bnewer", "-Btime", "-Bmin", "-files0-from",
		"-xattrname")
)

// wrapperUnchecked returns the first word of the wrappers the allow strip
// took off a subcommand (prefix, as written) that Claude Code 2.1.328
// will not see through, and why, or "" (TestDifferential/wrapawk-*): time
// or nohup before a word that is no plain command name (time -p ls: "Command
// appears to be an incomplete fragment"), timeout given an option it does
// not know or a duration that is not N[smhd] (timeout 5x ls), nice given
// an expansion, an option but -n N and -N or more than one, stdbuf given
// no mode or an option but -iMODE, -oMODE, -eMODE (MODE of L, N and
// digits), time before time, command given an option but -p, -v, -V
// (command -x ls), and command or builtin before noglob ("'command noglob' runs the wrapped
// command on zsh ... but not bash": TestDifferential/precommands-*).
func wrapperUnchecked(prefix []string) (word, why string) {
	u := shellWords(prefix)
	for i, w := range prefix {
		// A quoted or escaped option, value or duration: the release asks
		// for timeout -s 'KILL' 5 npm test under Bash(npm test:*)
		// (TestDifferential/timeoutforms-default).
		if !pathWrapper[u[i]] && strings.ContainsAny(w, `'"\`) {
			return w, "quotes a word of a wrapper's options, which the release does not read:"
		}
	}
	for i := 0; i < len(u); i++ {
		next := ""
		if i+1 < len(u) {
			next = u[i+1]
		}
		switch u[i] {
		case "time", "nohup":
			if u[i] == "time" && next == "time" {
				// The keyword timed: the release asks for time time npm
				// test under Bash(npm test:*) ("A shell keyword ... can't
				// be checked before it runs"), and runs nice time npm test
				// and nohup time npm test (TestDifferential/
				// stripforms-default).
				return next, "times the time keyword, which the release cannot check:"
			}
			if next != "" && (strings.HasPrefix(next, "-") || !plainCommandName.MatchString(next)) {
				return next, "follows " + u[i] + " with a word the release does not read as a command:"
			}
		case "timeout":
			j := i + 1
			for j < len(u) && strings.HasPrefix(u[j], "-") {
				o := u[j]
				switch {
				case o == "--foreground", o == "--preserve-status", o == "--verbose", o == "-v":
					j++
				case timeoutLongValue.MatchString(o), timeoutShortValue.MatchString(o):
					j++
				case o == "--kill-after" || o == "--signal" || o == "-k" || o == "-s":
					if j+1 >= len(u) || !timeoutValue.MatchString(u[j+1]) {
						return o, "gives timeout an option the release cannot check:"
					}
					j += 2
				default:
					return o, "gives timeout an option the release cannot check:"
				}
			}
			if j < len(u) && !timeoutDuration.MatchString(u[j]) {
				return u[j], "gives timeout a duration the release cannot check:"
			}
			i = j
		case "nice":
			// One option at most, and no --: the release asks for nice -n
			// 5 -n 6 npm test, nice -5 -5 npm test and nice -n 5 -- npm
			// test (stripforms-default).
			switch {
			case next == "-n" && i+2 < len(u) && niceNumber.MatchString(u[i+2]):
				i += 2
			case len(next) > 1 && next[0] == '-' && niceNumber.MatchString(next):
				i++
			case strings.HasPrefix(next, "-"), strings.ContainsAny(next, "$(`"):
				return next, "gives nice an option the release cannot check:"
			}
			if i+1 < len(u) && strings.HasPrefix(u[i+1], "-") {
				return u[i+1], "gives nice an option the release cannot check:"
			}
		case "stdbuf":
			// At least one mode, each written into its option as the
			// release's pattern reads it (-oL, -o0, -eN): it asks for
			// stdbuf npm test, stdbuf -oK npm test, stdbuf -o1M npm test
			// and stdbuf -oL -- npm test (stripforms-default).
			if !strings.HasPrefix(next, "-") {
				return u[i], "gives stdbuf no mode, which the release does not read past:"
			}
			for j := i + 1; j < len(u) && strings.HasPrefix(u[j], "-"); j++ {
				if !stdbufOption.MatchString(u[j]) {
					return u[j], "gives stdbuf an option the release cannot check:"
				}
				i = j
			}
		case "command", "builtin":
			if next == "noglob" {
				return next, "follows " + u[i] + " with noglob, which zsh runs and bash does not:"
			}
			if u[i] == "builtin" {
				continue
			}
			for j := i + 1; j < len(u) && strings.HasPrefix(u[j], "-") && u[j] != "--"; j++ {
				if !commandOption.MatchString(u[j]) {
					return u[j], "gives command an option the release cannot check:"
				}
				i = j
			}
		}
	}
	return "", ""
}

var (
	plainCommandName  = regexp.MustCompile(`^[\w./~+-]+$`)
	timeoutLongValue  = regexp.MustCompile(`^--(?:kill-after|signal)=[A-Za-z0-9_.+-]+$`)
	timeoutShortValue = regexp.MustCompile(`^-[ks][A-Za-z0-9_.+-]+$`)
	timeoutValue      = regexp.MustCompile(`^[A-Za-z0-9_.+-]+$`)
	timeoutDuration   = regexp.MustCompile(`^\d+(?:\.\d+)?[smhd]?$`)
	niceNumber        = regexp.MustCompile(`^-?\d+$`)
	stdbufOption      = regexp.MustCompile(`^-[ioe][LN0-9]+$`)
	commandOption     = regexp.MustCompile(`^-[pvV]+$`)
)

// declarationOptions reads a declaration's words as the release does
// before it runs one: each option one bash and zsh both take (declare
// -x, -r, -t and the listing -p, -f, -g, ...; export -p, -n, -f, -a;
// readonly -p, -x, -a, -f), none after the first name, no assignment
// after a listing option (declare -g x=1, export -n X=1), and no name
// readonly sets twice (TestDifferential/builtinforms-allowed-default).
func declarationOptions(name string, args []string) (string, string) {
	assigning, listing := declOptions[name][0], declOptions[name][1]
	if listing == nil {
		return "", ""
	}
	readonly := name == "readonly"
	listed, operands := "", false
	seen := map[string]bool{}
	for _, a := range args {
		if !strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "+") {
			if listed != "" && strings.Contains(a, "=") {
				return a, "assigns after " + name + " " + listed + ", which not every shell does:"
			}
			n, _, _ := strings.Cut(a, "=")
			n = strings.TrimSuffix(n, "+")
			if readonly && strings.Contains(a, "=") && seen[n] {
				return a, "makes " + name + " set a name twice:"
			}
			seen[n], operands = true, true
			continue
		}
		switch {
		case operands:
			return a, "gives " + name + " an option after its names:"
		case a == "--":
			operands = true
		case assigning != nil && assigning.MatchString(a):
			readonly = readonly || strings.Contains(a, "r")
		case listing.MatchString(a):
			if listed == "" {
				listed = a
			}
		default:
			return a, "gives " + name + " an option not every shell takes:"
		}
	}
	return "", ""
}

// declOptions are, per declaration, the options that set attributes on
// what it assigns and the ones that list or change how it reads names
// (the release's tables).
var declOptions = func() map[string][2]*regexp.Regexp {
	assigning := regexp.MustCompile(`^[-+][rtx]+$`)
	listing := regexp.MustCompile(`^(?:-[fgprtxU]+|\+[grtx]+)$`)
	return map[string][2]*regexp.Regexp{
		"declare":  {assigning, listing},
		"typeset":  {assigning, listing},
		"local":    {assigning, regexp.MustCompile(`^-[fprtx]+$`)},
		"export":   {nil, regexp.MustCompile(`^-[aAfnp]+$`)},
		"readonly": {nil, regexp.MustCompile(`^-[aAfpx]+$`)},
	}
}()

// findActions are find's actions that run a command or write a file.
var findActions = setOf("-exec", "-execdir", "-ok", "-okdir", "-delete", "-rm", "-fprint", "-fprint0", "-fprintf", "-fls",
	"-files0-from")

// shellVariableWrites: unset, read, printf -v and getopts given a
// variable that changes how later commands run or that the shell keeps as
// an integer (PATH, IFS, LD_*, RANDOM, ...: "'unset' targets shell
// variable PATH (exec-influencing / integer-attr / IFS / PS4)", "'read'
// writes shell variable PATH"), and unset with an option but -f and -v
// (unset -n X) (TestDifferential/redirshapes-allowed-default).
func shellVariableWrites(name string, args []string) (string, string) {
	var names []string
	switch name {
	case "unset":
		for _, a := range args {
			if strings.HasPrefix(a, "-") {
				if a != "-f" && a != "-v" && a != "--" {
					return a, "gives unset an option the release cannot check:"
				}
				continue
			}
			names = append(names, a)
		}
	case "read":
		for i := 0; i < len(args); i++ {
			a := args[i]
			switch {
			case readValueOptions[a]:
				if a == "-a" && i+1 < len(args) {
					names = append(names, args[i+1])
				}
				i++
			case !strings.HasPrefix(a, "-"):
				names = append(names, a)
			}
		}
	case "printf":
		for i := 0; i+1 < len(args) && strings.HasPrefix(args[i], "-") && args[i] != "--"; i++ {
			if args[i] == "-v" {
				names = append(names, args[i+1])
				i++
			}
		}
	case "getopts":
		if len(args) >= 2 {
			names = append(names, args[1])
		}
	}
	for _, n := range names {
		if runVariable(n) {
			return n, "makes " + name + " write a variable that changes how commands run:"
		}
	}
	return "", ""
}

// runVariable reports a variable whose value changes how later commands
// are found or run (lookupVariables, LD_*, DYLD_*, BASH_FUNC_*, IFS, PS4,
// PROMPT4) or that the shell keeps as an integer (integerVariables).
func runVariable(n string) bool {
	l := strings.ToLower(n)
	return lookupVariables[l] || strings.HasPrefix(l, "ld_") || strings.HasPrefix(l, "dyld_") || strings.HasPrefix(l, "bash_func_") ||
		n == "PS4" || n == "PROMPT4" || integerVariables[n]
}

// integerVariables are the shell's integer variables the release names.
var integerVariables = setOf("RANDOM", "SECONDS", "LINENO", "OPTIND", "MAILCHECK", "HISTCMD", "SRANDOM", "EPOCHSECONDS",
	"EPOCHREALTIME", "BASHPID", "BASH_MONOSECONDS", "BASH_TRAPSIG", "COLUMNS", "LINES", "SHLVL", "ERRNO", "TMOUT", "HISTSIZE",
	"SAVEHIST", "TRY_BLOCK_ERROR", "TRY_BLOCK_INTERRUPT", "KEYTIMEOUT", "LISTMAX", "LOGCHECK", "PERIOD", "FUNCNEST", "UID", "EUID",
	"GID", "EGID", "REPORTTIME", "REPORTMEMORY", "DIRSTACKSIZE", "BAUD", "ZLE_RPROMPT_INDENT", "MBEGIN", "MEND", "PPID", "ARGC",
	"ZSH_SUBSHELL", "TTYIDLE", "status")
