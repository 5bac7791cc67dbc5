package claudecode

import (
	"regexp"
	"slices"
	"strings"
)

// The read-only commands of Claude Code 2.1.328: what it runs without
// approval, its paths (outOfScope) and redirections (redirectAsk) aside.
// Ported per command from the release; where the release runs a callback
// the dialect does not reproduce exactly, the port is stricter (it asks).
// CLI: TestDifferential/i25-readonly-scope, i25-readonly-more.

// simpleReadOnly take any arguments that expand nothing (wordsLiteral):
// the release checks them on their words, and runs cut -d';' -f1 a.txt,
// cat 'x(1).txt' and expr 1 \> 0 (row 114).
var simpleReadOnly = setOf("cal", "uptime", "cat", "head", "tail", "wc", "stat", "strings", "hexdump", "od", "nl", "id",
	"uname", "free", "df", "du", "locale", "groups", "nproc", "basename", "dirname", "realpath", "cut", "paste", "tr",
	"column", "tac", "rev", "fold", "expand", "unexpand", "fmt", "comm", "cmp", "numfmt", "readlink", "diff", "true",
	"false", "sleep", "type", "expr", "seq", "tsort", "pr")

// exactReadOnly are whole commands.
var exactReadOnly = setOf("pwd", "whoami", "alias", "node -v", "node --version", "python --version",
	"python3 --version", "claude -h", "claude --help", "ip addr", "history", "arch", "arch -h", "arch --help", "ifconfig",
	"docker ps", "docker images")

func setOf(l ...string) map[string]bool {
	m := make(map[string]bool, len(l))
	for _, s := range l {
		m[s] = true
	}
	return m
}

// special are the characters a simple read-only command's arguments may
// not hold.
const special = "<>()$`|{}&;\n\r"

// noSpecial reports whether no word holds a special character.
func noSpecial(w []string) bool {
	for _, x := range w {
		if strings.ContainsAny(x, special) {
			return false
		}
	}
	return true
}

// noSpecialHome is noSpecial with $HOME, bare or in double quotes, read
// as the home directory, as the release reads it for find and sed (find
// $HOME and sed -n 1p $HOME/a run where HOME is a working directory:
// TestDifferential/homeargsadded-default); any other '$' is special.
func noSpecialHome(w []string) bool {
	for _, x := range w {
		if strings.IndexByte(x, '$') < 0 {
			continue
		}
		if live, text := dollarWords(x); live || text || strings.ContainsAny(strings.ReplaceAll(x, "$HOME", ""), special) {
			return false
		}
	}
	return noSpecial(slices.DeleteFunc(slices.Clone(w), func(x string) bool { return strings.IndexByte(x, '$') >= 0 }))
}

// onlyAssignments reports a command that is one assignment, NAME=value or
// NAME+=value with a value free of special characters, to a variable that
// does not change how later commands run: it sets a shell variable and
// runs nothing. Claude Code 2.1.328 runs A=x, A+=x, A+=, A="x y" and
// A=x; ls without approval, and asks for A[0]=x, for two assignments
// (A=x B+=y: "Variable assignments in this command can't be checked
// before it runs") and for PATH=/tmp ("PATH assignment alters command
// lookup/execution for subsequent commands"; its list is
// lookupVariables): TestDifferential/assign-prefix-*.
func onlyAssignments(w []string) bool {
	if len(w) != 1 {
		return false
	}
	n := nameLen(w[0])
	if n == 0 || !strings.HasPrefix(w[0][n:], "=") && !strings.HasPrefix(w[0][n:], "+=") {
		return false
	}
	name := strings.ToLower(w[0][:n])
	if lookupVariables[name] || strings.HasPrefix(name, "ld_") || strings.HasPrefix(name, "dyld_") || strings.HasPrefix(name, "bash_func_") {
		return false
	}
	return noSpecial([]string{withoutArith(w[0])})
}

// withoutArith is w with each literal arithmetic expansion (literalArith)
// read as the number it makes: x=$((1+2)) runs without approval as x=3
// does (TestDifferential/builtinforms-default).
func withoutArith(w string) string {
	i := strings.Index(w, "$((")
	if i < 0 {
		return w
	}
	var b strings.Builder
	for i >= 0 {
		n := literalArith(w[i:])
		if n == 0 {
			b.WriteString(w[:i+3])
		} else {
			b.WriteString(w[:i])
			b.WriteByte('0')
		}
		w = w[i+max(n, 3):]
		i = strings.Index(w, "$((")
	}
	b.WriteString(w)
	return b.String()
}

// lookupVariables are the variables (lower-cased) whose assignment Claude
// Code 2.1.328 asks about because it changes how later commands are found
// or run, and IFS, PS4 and PROMPT4, which it also treats apart.
var lookupVariables = setOf("path", "home", "dirstack", "tmpprefix", "bash_env", "env", "cdpath", "globignore", "shell",
	"fpath", "bash_loadables_path", "module_path", "manpath", "mailpath", "readnullcmd", "nullcmd", "histfile", "zdotdir",
	"functions", "commands", "aliases", "galiases", "saliases", "bash_cmds", "bash_aliases", "execignore",
	"bash_source_path", "lang", "language", "lc_all", "lc_ctype", "lc_collate", "lc_messages", "lc_numeric", "lc_time",
	"histchars", "textdomain", "textdomaindir", "ifs", "ps4", "prompt4")

// textPatterns are the read-only commands Claude Code 2.1.328 checks with
// a pattern on the subcommand's text as written, quotes and all (cli.js:
// jq's in its list of read-only patterns, Y4r, which its word check, V4r,
// leaves jq to; hostname's, the one regex of its table of commands and
// options, iOn): jq's options come first, each -LETTERS or --NAME[=VALUE],
// then one word or more, none starting with -, each quoted whole or
// starting with no quote; hostname takes only -LETTER and --NAME. So jq
// -0 . x.json, jq -r. x.json, jq -- . x.json, jq --a_b . x.json, jq
// '.a'x x.json, jq . 'x'.json, hostname -fs, hostname -- and hostname '-f'
// ask, and jq . x'.json' and hostname -f -s run; the name must be written
// plainly and first in the text (readOnlyWrappers): \jq, 'jq', LANG=C jq
// and \hostname ask, command jq and timeout 5 hostname run (row 141,
// TestDifferential/textpatterns-*; TestTextPatterns).
var textPatterns = map[string]*regexp.Regexp{
	"jq":       regexp.MustCompile(`^jq(?:\s+(?:-[a-zA-Z]+|--[a-zA-Z-]+(?:=\S+)?))*(?:\s+'[^'` + "`" + `]*'|\s+"[^"` + "`" + `]*"|\s+[^-\s'"][^\s]*)+\s*$`),
	"hostname": regexp.MustCompile(`^hostname(?:\s+(?:-[a-zA-Z]|--[a-zA-Z-]+))*\s*$`),
}

// readOnlyArgs reports whether a command, its words as written (quotes
// kept) without its redirections, is read-only.
func readOnlyArgs(w []string) bool {
	if len(w) == 0 {
		return false
	}
	u := unquoteAll(w)
	if quotedSpecialParam(w) {
		return false
	}
	if re := textPatterns[u[0]]; re != nil && !re.MatchString(strings.Join(append([]string{u[0]}, w[1:]...), " ")) {
		return false
	}
	if onlyAssignments(w) {
		return true
	}
	if strings.ContainsAny(u[0], " \t") {
		// 'git log' is one word, a command of that name (Claude Code
		// 2.1.328 asks: TestDifferential/sh4-quote-allow-*).
		return false
	}
	if exactReadOnly[strings.Join(u, " ")] {
		return true
	}
	switch u[0] {
	case "echo":
		return true
	case "printf":
		return len(u) >= 2 && (!strings.HasPrefix(u[1], "-") || u[1] == "--") && !strings.ContainsAny(w[1], "$`") &&
			printfOperands(u[1], u[2:], w[2:])
	case "cd":
		// A comment is no directory: Claude Code 2.1.328 runs cd src # c
		// as cd src; cd src '#' c asks (TestDifferential/cdcomment-*;
		// TestCdComment).
		c := beforeComment(w)
		return len(c) <= 2 && wordsLiteral(c[1:])
	case "ls":
		return wordsLiteral(w[1:])
	case "find":
		for _, a := range u[1:] {
			switch a {
			case "-delete", "-rm", "-exec", "-execdir", "-ok", "-okdir", "-fprint", "-fprint0", "-fls", "-fprintf", "-files0-from":
				return false
			}
		}
		return noSpecialHome(w[1:])
	case "uniq":
		return uniqReadOnly(u[1:]) && noSpecial(w[1:])
	case "history":
		return len(u) == 2 && allDigits(u[1])
	case "ifconfig":
		return len(u) == 2 && u[1] != "" && isLetters(u[1][:1]) && wordsLiteral(w[1:])
	case "jq":
		return jqReadOnly(u[1:], w[1:])
	case "sed":
		// The script's semicolons and blanks are its own (sed -n
		// '1p;2p' a.txt runs); the other words are read as any.
		ok, script := sedReadOnly(u[1:])
		return ok && noSpecialHome(slices.Delete(slices.Clone(w[1:]), script, script+1))
	case "git":
		return gitReadOnly(u[1:], w[1:])
	case "test", "[", "[[":
		return testReadOnly(u, w)
	case "docker":
		// docker logs and docker inspect, with their options and no
		// '~' the shell would expand (docker logs -f x runs:
		// TestDifferential/callbacks-default).
		if len(u) < 2 {
			return false
		}
		key := "docker " + u[1]
		t, ok := flagTables[key]
		return ok && noExpansion(w[1:]) && flagsOK(key, u[2:], t) && !slices.ContainsFunc(u[2:], func(x string) bool {
			return dockerTilde.MatchString(x) || strings.Contains(x, "~") && strings.Contains(x, "{")
		})
	case "xargs":
		return xargsReadOnly(u, w)
	case "help":
		// help, -d the one option, no word with a '/', '\' or '~'
		// (TestDifferential/listing-default).
		for _, a := range u[1:] {
			if strings.HasPrefix(a, "-") && a != "-d" || strings.ContainsAny(a, "/\\~") {
				return false
			}
		}
		return noSpecial(w[1:])
	}
	if simpleReadOnly[u[0]] {
		return wordsLiteral(w[1:])
	}
	if _, ok := readOnlyFlags[u[0]]; ok {
		return noExpansion(w[1:]) && flagsOK(u[0], u[1:], flagTables[u[0]]) && extraCheck(u[0], u[1:]) &&
			!(u[0] == "sort" && globValue(w[1:], flagTables["sort"]))
	}
	return false
}

// wordsLiteral reports whether words, as written, stand for themselves:
// no expansion but $HOME (dollarWords: a `$` or backtick in single quotes,
// escaped, or a lone `$` in double quotes is text, and Claude Code 2.1.328
// runs id 'a$b', basename "a\$b", id 'a`b' and id $HOME; cat 'a$b' asks
// for its path, not its word), no newline, none of < > ( ) | & ; outside
// quotes or a backslash (a process substitution, <(rm x), is one word),
// and no brace expansion outside them ({a,b}.txt; nl {} a.txt and
// cat '{a,b}.txt' run). Quoted or escaped, the rest are text the release
// runs the command with: cut -d';' -f1 a.txt, cat 'x(1).txt', expr 1
// \> 0, tr '{}' '()' (rows 114 and 119; TestWordsLiteral,
// TestDifferential/quotedspecials-default, dollarwords-default,
// homeargs-default).
func wordsLiteral(w []string) bool {
	for _, x := range w {
		// An arithmetic expansion of numbers alone is the number it
		// makes (basename $((1+2)) runs: oddwords-default).
		x = withoutArith(x)
		if strings.ContainsAny(x, "\n\r") || unquotedIndex(x, "<>()|&;") >= 0 {
			return false
		}
		if live, _ := dollarWords(x); live {
			return false
		}
		if unquotedIndex(x, "{") >= 0 && (unquotedIndex(x, ",") >= 0 || unquotedDots(x)) {
			return false
		}
	}
	return true
}

// quotedSpecialParam reports a special parameter ($? $$ $# $! $- $0) or a
// positional one ($1) inside double quotes: Claude Code 2.1.328 runs echo
// "ab$?" under Bash(echo:*), where the string reads as text and a value,
// and asks for it with no rule, its read-only check taking none of them
// (echo "ab$RANDOM" and echo "ab$PWD" run there) (row 134,
// TestDifferential/quotedvars-*; TestQuotedSpecialParam).
func quotedSpecialParam(words []string) bool {
	for _, w := range words {
		if strings.IndexByte(w, '$') < 0 || strings.IndexByte(w, '"') < 0 {
			continue
		}
		inDouble := false
		for i := 0; i < len(w); i++ {
			switch c := w[i]; {
			case c == '\\':
				i++
			case c == '\'' && !inDouble:
				if j := strings.IndexByte(w[i+1:], '\''); j >= 0 {
					i += j + 1
				}
			case c == '"':
				inDouble = !inDouble
			case c == '$' && inDouble && i+1 < len(w) && strings.IndexByte("?$#!-0123456789", w[i+1]) >= 0:
				return true
			}
		}
	}
	return false
}

// dollarWords reads the `$` signs and backticks of a word as written. live
// reports one the shell expands, $HOME aside (the release reads it as the
// home directory, bare or in double quotes: id $HOME, id x$HOME and
// git ls-files "$HOME/a" run): a variable, a substitution, a backtick, or a
// `$` outside quotes that starts nothing (which the line's check refuses
// too). text reports one the shell keeps as a character: in single quotes,
// escaped by a backslash, or in double quotes before a character that
// starts no expansion ("a$", "$/x"). TestDollarWords.
func dollarWords(w string) (live, text bool) {
	inSingle, inDouble := false, false
	for i := 0; i < len(w); i++ {
		switch c := w[i]; {
		case inSingle:
			if c == '\'' {
				inSingle = false
			} else if c == '$' || c == '`' {
				text = true
			}
		case c == '\\':
			if i+1 < len(w) && (w[i+1] == '$' || w[i+1] == '`') {
				text = true
			}
			i++
		case c == '\'' && !inDouble:
			inSingle = true
		case c == '"':
			inDouble = !inDouble
		case c == '`':
			live = true
		case c == '$':
			rest := w[i+1:]
			switch {
			case strings.HasPrefix(rest, "HOME") && nameLen(rest) == 4:
				i += 4
			case inDouble && (rest == "" || !expansionStart(rest[0])):
				text = true
			default:
				live = true
			}
		}
	}
	return live, text
}

// expansionStart reports a character that, after a `$` inside double
// quotes, starts an expansion: a name, a digit, a special parameter, a
// brace, a parenthesis, a bracket, one of zsh's flags, or a byte that is
// not ASCII ("$" and "a$" are text).
func expansionStart(c byte) bool {
	return wordStart(c) || c >= '0' && c <= '9' || c >= 0x80 || strings.IndexByte("?$!#-@*{([~+^=", c) >= 0
}

// unquotedDots reports two dots in a row in w outside quotes, unescaped
// (a brace's {1..3}).
func unquotedDots(w string) bool {
	for i := unquotedIndex(w, "."); i >= 0 && i+1 < len(w); {
		if w[i+1] == '.' {
			return true
		}
		j := unquotedIndex(w[i+1:], ".")
		if j < 0 {
			return false
		}
		i += 1 + j
	}
	return false
}

// noExpansion reports whether no word holds a `$` or a backtick, an
// expansion or as text, or a brace expansion ({a,b}, {1..3}), which the
// release refuses in commands whose options it checks (cli.js F4r: git
// log -1 '$x' and grep 'a$' a.txt ask). $HOME, bare or in double quotes,
// is the home directory there too (git ls-files $HOME/a runs:
// dollarWords, TestDifferential/homeargs-default).
func noExpansion(w []string) bool {
	for _, x := range w {
		if live, text := dollarWords(x); live || text {
			return false
		}
		if strings.Contains(x, "{") && (strings.Contains(x, ",") || strings.Contains(x, "..")) {
			return false
		}
	}
	return true
}

// flagTables are readOnlyFlags parsed: option -> 'n' (no value), 's' or
// 'd' (a string or a number value). Built once, when the package is
// initialised; only read after.
var flagTables = func() map[string]map[string]byte {
	out := make(map[string]map[string]byte, len(readOnlyFlags))
	for name, spec := range readOnlyFlags {
		m := map[string]byte{}
		for _, f := range strings.Fields(spec) {
			k, v, _ := strings.Cut(f, "=")
			m[k] = v[0]
		}
		out[name] = m
	}
	return out
}()

// flagsOK checks every option of a, the words after command name's own
// (a key of readOnlyFlags), against its table t, as the release's safe
// flags check does (2.1.328): a known option; its value (after '=', or
// the next word, which must not look like an option) when it takes one, a
// number where the table says so, and a string value never starting with
// '-' (git's --sort=-key aside); several short options without values
// may share one word (-la). An attached value (-k1) is an option the
// table does not know, except a number after a grep, egrep, fgrep or rg
// option (-A5), and git's -5 (git log -5). Words that are not options are
// arguments (their paths are checked apart); "--" ends the options,
// except for the commands that check the words after it too
// (noDoubleDash). TestDifferential/sh5-readonly-flags; TestFlagsOK.
func flagsOK(name string, a []string, t map[string]byte) bool {
	git := strings.HasPrefix(name, "git ")
	grep := name == "grep" || name == "egrep" || name == "fgrep" || name == "rg"
	for i := 0; i < len(a); i++ {
		w := a[i]
		if w == "" {
			continue
		}
		if w == "--" {
			if noDoubleDash[name] {
				continue
			}
			return true
		}
		if w == "-" || !strings.HasPrefix(w, "-") {
			continue // an argument; with the release's gate on, any other '-' word is an option (sort -@ asks)
		}
		key, val, eq := strings.Cut(w, "=")
		k, ok := t[key]
		if !ok {
			switch {
			case git && allDigits(key[1:]):
				continue // git log -5
			case grep && len(key) > 2 && key[1] != '-' && allDigits(key[2:]) && (t[key[:2]] == 's' || t[key[:2]] == 'd'):
				continue // grep -A5
			case len(key) > 2 && key[1] != '-':
				for j := 1; j < len(key); j++ {
					if t["-"+key[j:j+1]] != 'n' {
						return false
					}
				}
				continue
			}
			return false
		}
		if k == 'n' {
			if eq {
				return false
			}
			continue
		}
		if !eq {
			if i+1 >= len(a) || looksLikeOption(a[i+1]) {
				return false
			}
			i++
			val = a[i]
		}
		if k == 's' && strings.HasPrefix(val, "-") && !(git && key == "--sort" && len(val) > 1 && isLetters(val[1:2])) {
			return false
		}

		if k == 'd' && !allDigits(val) {
			return false
		}
	}
	return true
}

// globValue reports an option's value, given as the next word, that the
// shell would expand (raw words, quotes kept): Claude Code 2.1.328 asks for
// sort -k * and sort -t * a.txt with no rule, and runs sort -k '*' and
// grep -e * a.txt, so only sort is held to it (TestDifferential/
// globargs-default).
func globValue(raw []string, t map[string]byte) bool {
	for i := 0; i+1 < len(raw); i++ {
		if k, ok := t[unquote(raw[i])]; ok && k != 'n' && bareGlob(raw[i+1]) {
			return true
		}
	}
	return false
}

// bareGlob reports a word with '*', '?' or '[' outside quotes and not
// escaped.
func bareGlob(w string) bool { return unquotedIndex(w, "*?[") >= 0 }

// textGlob reports a word the release's text scan (cli.js Spt) reads as a
// glob: an unquoted, unescaped * or ?, or such a [ with such a ] after it
// (a[.txt is none).
func textGlob(w string) bool {
	i := unquotedIndex(w, "*?[")
	if i < 0 {
		return false
	}
	if w[i] != '[' {
		return true
	}
	return unquotedIndex(w[i+1:], "*?]") >= 0
}

// looksLikeOption is the release's test of a word after an option that
// takes a value: '-' then a letter, a digit, '_' or '-' (sort -k -r asks).
func looksLikeOption(w string) bool {
	if len(w) < 2 || w[0] != '-' {
		return false
	}
	c := w[1]
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// noDoubleDash are the commands whose options the release checks past a
// "--" too (respectsDoubleDash: false).
var noDoubleDash = map[string]bool{"git blame": true, "git stash list": true, "base64": true, "ps": true, "test": true}

var whichOption = regexp.MustCompile(`^(?:-[A-Za-z]+|--[a-z-]+)$`)

var signatureFormat = regexp.MustCompile(`%[-+ ]?G|%\(\*?signature|signature`)

// extraCheck is what the release checks beyond the options of some
// commands of readOnlyFlags.
func extraCheck(name string, a []string) bool {
	switch name {
	case "date":
		// Any argument but a +FORMAT sets the clock.
		for i := 0; i < len(a); i++ {
			w := a[i]
			switch {
			case strings.HasPrefix(w, "--") && strings.Contains(w, "="):
			case w == "-d" || w == "--date" || w == "-r" || w == "--reference" || w == "--rfc-3339":
				i++
			case strings.HasPrefix(w, "-"):
			case !strings.HasPrefix(w, "+"):
				return false
			}
		}
	case "hostname":
		for _, w := range a {
			if !strings.HasPrefix(w, "-") {
				return false // an argument sets the host name
			}
		}
	case "ps":
		// BSD "e" and -e...: the environment of processes.
		for _, w := range a {
			if !strings.HasPrefix(w, "-") && strings.ContainsAny(w, "eE") || strings.HasPrefix(w, "-") && !strings.HasPrefix(w, "--") && strings.Contains(w, "e") {
				return false
			}
		}
	case "which":
		for _, w := range a {
			if strings.HasPrefix(w, "-") && !whichOption.MatchString(w) {
				return false
			}
		}
	case "tput":
		return tputReadOnly(a)
	case "ss":
		return ssReadOnly(a)
	case "lsof":
		return lsofReadOnly(a)
	case "man":
		return manReadOnly(a)
	}
	return true
}

// dockerTilde is a word the shell would expand a '~' in.
var dockerTilde = regexp.MustCompile(`(?:^|[=:])~`)

// manSection is a section list man takes as it is.
var manSection = regexp.MustCompile(`^[A-Za-z0-9:,]+$`)

// manReadOnly: Claude Code 2.1.328's check of man: a section (-s, -S)
// of letters, digits, ':' and ',' (one of any other form the release
// refuses behind a switch of its own, which the dialect always refuses);
// from the first page named on, every word a page; with -k, -f, --apropos
// or --whatis none of them starting with '-'; without -k, -f, --apropos or
// --whatis as a word of its own, no page with a '/', '\' or '~' (a file
// man would read). man ls and man -k ls run; man -P cat ls and man
// ./x.1 ask (TestDifferential/callbacks-default).
func manReadOnly(a []string) bool {
	for i := 0; i < len(a); i++ {
		w := a[i]
		if w == "--" || w == "-" || !strings.HasPrefix(w, "-") {
			break
		}
		section, given := "", false
		switch {
		case w == "-S" || w == "-s":
			i++
			if i < len(a) {
				section = a[i]
			}
			given = true
		case strings.HasPrefix(w, "-S=") || strings.HasPrefix(w, "-s="):
			section, given = w[2:], true
		}
		if given && !manSection.MatchString(section) {
			return false
		}
	}
	search := false
	for _, w := range a {
		if w == "--" {
			break
		}
		if !strings.HasPrefix(w, "-") || w == "-" {
			continue
		}
		if strings.HasPrefix(w, "--") {
			search = search || w == "--apropos" || w == "--whatis"
		} else if strings.ContainsAny(w[1:], "kf") {
			search = true
		}
	}
	searchWord, pages := false, false
	for i := 0; i < len(a); i++ {
		w := a[i]
		if !pages && w == "--" {
			pages = true
			continue
		}
		if !pages && strings.HasPrefix(w, "-") && w != "-" {
			switch w {
			case "-k", "-f", "--apropos", "--whatis":
				searchWord = true
			case "-S", "-s":
				i++
			}
			continue
		}
		pages = true
		if search && strings.HasPrefix(w, "-") || !searchWord && strings.ContainsAny(w, "/\\~") {
			return false
		}
	}
	return true
}

// tputCapabilities are the capabilities tput would send to the terminal
// that reset, clear or reprogram it, or print to a printer.
var tputCapabilities = setOf("init", "reset", "rs1", "rs2", "rs3", "is1", "is2", "is3", "iprog", "if", "rf", "clear", "flash",
	"mc0", "mc4", "mc5", "mc5i", "mc5p", "pfkey", "pfloc", "pfx", "pfxl", "smcup", "rmcup")

// tputReadOnly: Claude Code 2.1.328's check of tput: no -S (capabilities
// read from the input), alone or among short options, and none of
// tputCapabilities (tput cols and tput setaf 1 run, tput clear and tput
// reset ask: TestDifferential/callbacks-default).
func tputReadOnly(a []string) bool {
	after := false
	for i := 0; i < len(a); i++ {
		w := a[i]
		switch {
		case w == "--":
			after = true
		case !after && strings.HasPrefix(w, "-"):
			if w == "-S" || !strings.HasPrefix(w, "--") && len(w) > 2 && strings.Contains(w, "S") {
				return false
			}
			if w == "-T" {
				i++
			}
		case tputCapabilities[w]:
			return false
		}
	}
	return true
}

var (
	ssKeyword  = regexp.MustCompile(`^(dst|src|dport|sport|and|or|not|eq|ne|ge|le|gt|lt|autobound|state|exclude|dev|fwmark|cgroup)$`)
	ssValued   = regexp.MustCompile(`^(state|exclude|dport|sport|dev|fwmark|cgroup)$`)
	ssOptValue = regexp.MustCompile(`^(-f|--family|-A|--query|--socket)$`)
	ssSplit    = regexp.MustCompile(`[\s()=!<>&|,]+`)
)

// ssReadOnly: Claude Code 2.1.328's check of ss's filter: no word with a
// '~', and every token of the filter a keyword, the value after state,
// exclude, dport, sport, dev, fwmark or cgroup, or an address (digits,
// and hex digits only with ':' and no '.'), never a name to look up (ss
// state listening and ss -tlnp dst 1.2.3.4 run, ss -K asks:
// TestDifferential/callbacks-default).
func ssReadOnly(a []string) bool {
	var filter []string
	after := false
	for i := 0; i < len(a); i++ {
		w := a[i]
		switch {
		case !after && w == "--":
			after = true
		case !after && strings.HasPrefix(w, "-"):
			if ssOptValue.MatchString(w) {
				i++
			}
		default:
			filter = append(filter, w)
		}
	}
	for _, w := range filter {
		if strings.Contains(w, "~") {
			return false
		}
	}
	skip := false
	for _, t := range ssSplit.Split(strings.Join(filter, " "), -1) {
		switch {
		case t == "":
		case skip:
			skip = false
		case ssKeyword.MatchString(t):
			skip = ssValued.MatchString(t)
		case strings.ContainsAny(t, "ghijklmnopqrstuvwxyzGHIJKLMNOPQRSTUVWXYZ"),
			strings.ContainsAny(t, "abcdefABCDEF") && (strings.Contains(t, ".") || !strings.Contains(t, ":")):
			return false
		}
	}
	return true
}

var (
	lsofPlus     = regexp.MustCompile(`^\+(?:[DEMdew]|c\d*|f[cfgGn]*|[Lr]\d*)?$`)
	lsofValued   = regexp.MustCompile(`^[-+][a-zA-Z]*[LSor]$`)
	lsofNumbered = regexp.MustCompile(`^\d+\D`)
	lsofOdd      = regexp.MustCompile(`^-[a-zA-Z]*[^a-zA-Z]`)
	lsofInet     = regexp.MustCompile(`^-[a-zA-Z]*i$`)
	lsofInetAt   = regexp.MustCompile(`^-[a-zA-Z]*i\S*@`)
)

// lsofReadOnly: Claude Code 2.1.328's check of lsof: no +m (a mount
// supplement file written), no -i naming a host by name (a lookup) or
// with a '~', and none of the forms the release refuses behind a switch
// of its own (an option with a character other than a letter, a + option
// it does not know, a number run into letters after an option taking
// one), which the dialect always refuses (lsof -i, lsof -p 1, lsof +D .
// run: TestDifferential/callbacks-default).
func lsofReadOnly(a []string) bool {
	named := func(at string) bool {
		host, _, _ := strings.Cut(at, ":")
		return strings.ContainsAny(host, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
	}
	for i, w := range a {
		if strings.HasPrefix(w, "+m") {
			return false
		}
		if lsofInetAt.MatchString(w) && named(w[strings.IndexByte(w, '@')+1:]) {
			return false
		}
		if lsofInet.MatchString(w) && i+1 < len(a) {
			next := a[i+1]
			if strings.Contains(next, "~") || strings.Contains(next, "@") && named(next[strings.IndexByte(next, '@')+1:]) {
				return false
			}
		}
		prev := ""
		if i > 0 {
			prev = a[i-1]
		}
		if w != "--" && lsofOdd.MatchString(w) || strings.HasPrefix(w, "+") && !lsofPlus.MatchString(w) ||
			lsofNumbered.MatchString(w) && lsofValued.MatchString(prev) {
			return false
		}
	}
	return true
}

// gitReadOnly: git (optionally --no-pager) and a subcommand of the table,
// "git stash list" style two-word ones first, with the release's checks of
// git branch, tag, remote and reflog (listing only) and of --format
// (no signature placeholders).
func gitReadOnly(u, w []string) bool {
	// No global option, --no-pager included: Claude Code 2.1.328 asks for
	// git --no-pager log and git --no-pager status
	// (TestDifferential/sh4-readonly-default).
	if len(u) == 0 || !noExpansion(w) {
		return false
	}
	key, rest := "", []string(nil)
	if len(u) >= 2 {
		if _, ok := readOnlyFlags["git "+u[0]+" "+u[1]]; ok {
			key, rest = "git "+u[0]+" "+u[1], u[2:]
		}
	}
	if key == "" {
		if _, ok := readOnlyFlags["git "+u[0]]; !ok {
			return false
		}
		key, rest = "git "+u[0], u[1:]
	}
	for _, a := range rest {
		if signatureFormat.MatchString(a) {
			return false
		}
	}
	if !flagsOK(key, rest, flagTables[key]) {
		return false
	}
	switch key {
	case "git branch", "git tag":
		if !gitRefListOnly(key, rest) {
			return false
		}
	case "git remote show":
		if !gitRemoteShowOnly(rest) {
			return false
		}
	case "git ls-remote":
		// No remote named: git ls-remote origin asks, git ls-remote
		// --tags runs (TestDifferential/callbacks-default).
		if len(positionals(rest, flagTables[key])) > 0 {
			return false
		}
	case "git remote":
		if len(positionals(rest, flagTables[key])) > 0 {
			return false
		}
	case "git reflog":
		// The release's check (cli.js, its
		// additionalCommandIsDangerousCallback): a first word that is an
		// option, show or list, and no expire, delete, exists, drop or
		// write anywhere. It runs git reflog show HEAD, git reflog -n 1
		// a.txt and git reflog --all -- a.txt, and asks for git reflog
		// HEAD and git reflog show expire (row 117,
		// TestDifferential/gitreflog-default; TestGitReflog).
		if len(rest) > 0 && !strings.HasPrefix(rest[0], "-") && rest[0] != "show" && rest[0] != "list" {
			return false
		}
		for _, a := range rest {
			switch a {
			case "expire", "delete", "exists", "drop", "write":
				return false
			}
		}
	}
	return true
}

// gitRefListOnly is Claude Code 2.1.328's check of git branch's and git
// tag's words (cli.js, their additionalCommandIsDangerousCallback), read
// in order: a name creates a ref unless -l or --list came before it (or,
// for git branch, it is the commit --merged or --no-merged takes). The
// release asks for git tag newt --contains HEAD --list src and runs git
// tag --list newt (row 112, TestDifferential/gitreforder-default;
// TestGitRefListOrder).
func gitRefListOnly(key string, a []string) bool {
	takesValue := func(w string) bool {
		switch w {
		case "--contains", "--no-contains", "--points-at", "--sort":
			return true
		case "--merged", "--no-merged", "--format", "-n":
			return key == "git tag"
		}
		return false
	}
	list, dashes, prev := false, false, ""
	for i := 0; i < len(a); {
		w := a[i]
		switch {
		case w == "":
			i++
		case w == "--" && !dashes:
			dashes, prev = true, ""
			i++
		case !dashes && strings.HasPrefix(w, "-"):
			if w == "--list" || w == "-l" || len(w) > 2 && w[1] != '-' && !strings.Contains(w, "=") && strings.Contains(w[1:], "l") {
				list = true
			}
			switch {
			case strings.Contains(w, "="):
				prev = w[:strings.IndexByte(w, '=')]
				i++
			case takesValue(w):
				prev = w
				i += 2
			default:
				prev = w
				i++
			}
		default:
			if !list && !(key == "git branch" && (prev == "--merged" || prev == "--no-merged")) {
				return false
			}
			i++
		}
	}
	return true
}

// gitRemoteShowOnly is Claude Code 2.1.328's check of git remote show's
// words (cli.js, its additionalCommandIsDangerousCallback): -n, which
// keeps it off the network, and one remote, a plain name. The release
// asks for git remote show a.txt f1.txt and runs git remote show -n
// origin (row 113, TestDifferential/gitremoteshow-default;
// TestGitRemoteShow).
func gitRemoteShowOnly(a []string) bool {
	before, after := a, []string(nil)
	if i := slices.Index(a, "--"); i >= 0 {
		before, after = a[:i], a[i+1:]
	}
	var names []string
	for _, w := range before {
		if w != "-n" {
			names = append(names, w)
		}
	}
	names = append(names, after...)
	return len(names) == 1 && slices.Contains(before, "-n") && remoteName.MatchString(names[0])
}

var remoteName = regexp.MustCompile(`^[a-zA-Z0-9_][a-zA-Z0-9_-]*$`)

// positionals are the words of a that are neither options nor their
// values.
func positionals(a []string, t map[string]byte) []string {
	var out []string
	for i := 0; i < len(a); i++ {
		w := a[i]
		switch {
		case w == "--":
			return append(out, a[i+1:]...)
		case strings.HasPrefix(w, "-") && w != "-":
			if k, ok := t[w]; ok && k != 'n' {
				i++
			}
		default:
			out = append(out, w)
		}
	}
	return out
}

// uniqReadOnly: options only (uniq with a file argument may write its
// output file).
func uniqReadOnly(a []string) bool {
	for i := 0; i < len(a); i++ {
		w := a[i]
		switch {
		case w == "-f" || w == "-s" || w == "-w":
			if i++; i >= len(a) || !allDigits(a[i]) {
				return false
			}
		case strings.HasPrefix(w, "--") && len(w) > 2:
		case strings.HasPrefix(w, "-") && len(w) > 1 && isLetters(w[1:]):
		default:
			return false
		}
	}
	return true
}

var jqDanger = regexp.MustCompile(`^-[a-zA-Z]*[fL]|^--(?:from-file|rawfile|slurpfile|argfile|run-tests|library-path)|\b(?:env|include|import)\b|\bsystem\s*\(|\$(?:\s|#.*\n)*ENV\b`)

// jqReadOnly: options, then a filter and files, none reading a file or the
// environment through jq itself.
func jqReadOnly(u, w []string) bool {
	opts, n := true, 0
	for i, a := range u {
		if jqDanger.MatchString(a) || strings.ContainsAny(w[i], "`") {
			return false
		}
		if opts && strings.HasPrefix(a, "-") {
			continue
		}
		opts = false
		if strings.HasPrefix(a, "-") || strings.ContainsAny(w[i], "$") {
			return false
		}
		n++
	}
	return n > 0
}

// sedPrint is one part of a printing script (between its semicolons,
// blanks trimmed).
var sedPrint = regexp.MustCompile(`^(?:[0-9]+|[0-9]+,[0-9]+)?p$`)

// sedPrintFlags are the options of a printing sed the release runs
// without approval; a word of several short ones (-nE) is read one by
// one.
var sedPrintFlags = setOf("-n", "--quiet", "--silent", "-E", "--regexp-extended", "-r", "-z", "--zero-terminated", "--posix")

// sedReadOnly: sed -n printing lines by number (sed -n 1,2p a.txt, sed -n
// p, sed -n '1p;2p'), as Claude Code 2.1.328's check reads it: every word
// that starts with - (but --), wherever it stands, must be one of
// sedPrintFlags, one of them quiet; the script is the first word that
// does not start with -, each of its parts a print. So sed -u -n 1p,
// sed -n -e 1p, sed -n 1p a.txt - and sed -n 1p -- -x ask, and sed -n 1p
// a.txt -n runs (TestDifferential/genfound10-default). Any other script
// may write. script is the index of the script in a, or -1.
func sedReadOnly(a []string) (ok bool, script int) {
	quiet := false
	script = -1
	for i, w := range a {
		if !strings.HasPrefix(w, "-") {
			if script < 0 {
				script = i
			}
			continue
		}
		if w == "--" {
			continue
		}
		if !strings.HasPrefix(w, "--") && len(w) > 2 {
			for _, c := range w[1:] {
				if !sedPrintFlags["-"+string(c)] {
					return false, script
				}
			}
		} else if !sedPrintFlags[w] {
			return false, script
		}
		if w == "-n" || w == "--quiet" || w == "--silent" || !strings.HasPrefix(w, "--") && strings.Contains(w, "n") {
			quiet = true
		}
	}
	if !quiet || script < 0 {
		return false, script
	}
	for _, part := range strings.Split(a[script], ";") {
		if !sedPrint.MatchString(strings.TrimSpace(part)) {
			return false, script
		}
	}
	return true, script
}

// testReadOnly: test, [ ... ] and [[ ... ]] run without approval, as
// Claude Code 2.1.328's read-only entry for test reads them: every option
// one it knows, each taking the next word (test -f FILE, test 1 -lt 2); no
// -v, -R, -a or -o and no '['; no word with a glob outside quotes (test -f
// a*, [ a = b* ], [[ a == b* ]] and [[ a =~ b* ]] ask, [[ a == 'b*' ]] and
// [[ a == \* ]] run); and none of the forms testUnchecked asks for. Inside
// [[ ]] the conditional's own operators (&&, ||, !, parentheses, < and >)
// are words of the test, which the scan leaves unsplit (scanBashHD):
// [[ -f a.txt && ( -r a.txt || -w a.txt ) ]] runs. The paths they test are
// not checked (test -f /etc/hostname runs): TestDifferential/
// echoforms-default, builtinforms-default, condglobs-default.
func testReadOnly(u, w []string) bool {
	if n := len(beforeComment(w)); n < len(w) && n > 0 && (w[n-1] == "]" || w[n-1] == "]]") {
		// A comment after the closer is no word of the test ([[ a == b ]]
		// # c runs: TestDifferential/misreadedges-acceptEdits).
		u, w = u[:n], w[:n]
	}
	args, raw := u[1:], w[1:]
	if end := map[string]string{"[": "]", "[[": "]]"}[u[0]]; end != "" {
		if len(args) == 0 || args[len(args)-1] != end {
			return false
		}
		args, raw = args[:len(args)-1], raw[:len(raw)-1]
	}
	if u[0] == "[[" {
		// Inside [[ ]] the scan read ( ) | & < > as the conditional's
		// own (scanBashHD), and the shell expands no braces there: only
		// an expansion is special ([[ x == @(a|b) ]] and [[ a == {a,b} ]]
		// run: TestDifferential/condglobs-default).
		args = withoutCondOperators(args)
		for _, x := range raw {
			if strings.ContainsAny(x, "$`;\n\r") {
				return false
			}
		}
	} else if !noSpecial(raw) {
		return false
	}
	for _, x := range raw {
		if bareGlob(x) {
			return false
		}
	}
	for _, a := range args {
		if a == "-v" || a == "-R" || a == "-a" || a == "-o" || strings.Contains(a, "[") {
			return false
		}
	}
	if x, _ := testUnchecked(u[0], u[1:]); x != "" {
		return false
	}
	return flagsOK("test", args, testFlags)
}

// withoutCondOperators is w without the words that are [[ ]]'s own
// operators.
func withoutCondOperators(w []string) []string {
	out := make([]string, 0, len(w))
	for _, x := range w {
		switch x {
		case "&&", "||", "(", ")", "<", ">":
		default:
			out = append(out, x)
		}
	}
	return out
}

// testFlags are the options of test the release knows, each taking a
// value.
var testFlags = func() map[string]byte {
	m := map[string]byte{}
	for _, f := range strings.Fields("-b -c -d -e -f -g -G -h -k -L -N -O -p -r -s -S -t -u -w -x -z -n -eq -ne -lt -le -gt -ge -nt -ot -ef") {
		m[f] = 's'
	}
	return m
}()

// printfOperands reports printf's operands as the release's read-only
// entry takes them: none the shell would expand as a glob (printf '%s\n'
// x* and a[1] ask, 'a[1]' runs), and, after a %d or %i format, none
// holding a '$', which zsh would evaluate (printf '%d\n' '$x' asks,
// printf '%s\n' '$x' runs): TestDifferential/builtinforms-default,
// echoforms-default.
func printfOperands(format string, u, w []string) bool {
	for _, x := range w {
		if bareGlob(x) {
			return false
		}
	}
	if strings.Contains(format, "%d") || strings.Contains(format, "%i") {
		for _, x := range u {
			if strings.ContainsAny(x, "$`") {
				return false
			}
		}
	}
	return true
}

// xargsTargets are the commands the release runs read-only after xargs.
var xargsTargets = setOf("echo", "printf", "wc", "grep", "egrep", "fgrep", "head", "tail")

// xargsReadOnly: xargs with the options the release knows (-0, -t, -r,
// -x; -n, -P, -L, -s and a number; -E and a word; -d and one character;
// -I {}) before one of xargsTargets, whose own words are read-only: ls |
// xargs grep x and ls | xargs -0 grep x run with no rule, ls | xargs cat
// and ls | xargs -I{} grep x {} ask (TestDifferential/wrapawk-default,
// sh4-readonly-default).
func xargsReadOnly(u, w []string) bool {
	i := 1
	for ; i < len(u) && strings.HasPrefix(u[i], "-"); i++ {
		a := u[i]
		if a == "--" {
			i++
			break
		}
		if i+1 >= len(u) && a != "-0" && a != "-t" && a != "-r" && a != "-x" {
			return false
		}
		switch a {
		case "-0", "-t", "-r", "-x":
		case "-n", "-P", "-L", "-s":
			if i++; !allDigits(u[i]) {
				return false
			}
		case "-E":
			i++
		case "-d":
			if i++; len(u[i]) != 1 {
				return false
			}
		case "-I":
			if i++; u[i] != "{}" {
				return false
			}
		default:
			return false
		}
	}
	return i < len(u) && xargsTargets[u[i]] && readOnlyArgs(w[i:])
}
