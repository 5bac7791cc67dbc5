package claudecode

import (
	"regexp"
	"strings"
)

// This file is Claude Code 2.1.328's check of the sed -i it approves in
// acceptEdits, as far as the one form the dialect approves needs it
// (sedInPlace: -i, a substitution, the files). The release asks ("sed
// command requires approval (contains potentially dangerous
// operations)") when the script, or the first file, looks like a sed
// command that writes, executes or reads further. The first file counts
// because BSD sed takes the word after -i as a backup suffix and the next
// as the script: sed -i s/a/b/ 'a b.txt' would append to every line
// there. So sed -i s/a/b/ 'a b.txt', ... s.txt, ... w.txt, ... example.txt
// and sed -i 's/#/x/' a.txt ask (row 106; TestSedCheck,
// TestDifferential/sedcheck-acceptEdits).

// sedBlank is JavaScript's \s over ASCII (a non-ASCII byte makes
// sedScriptRisky true first).
const sedBlank = `[\t\n\v\f\r ]`

// sedRisky are the release's patterns (cli.js yPn) that mark a script
// risky wherever they match, in its order; the ones with back-references
// are sedRiskyFlags and sedYCommand.
var sedRisky = compileAll(
	`^!`, `[/\d$]!`,
	`\d`+sedBlank+`*~`+sedBlank+`*\d|,`+sedBlank+`*~`+sedBlank+`*\d|\$`+sedBlank+`*~`+sedBlank+`*\d`,
	`^,`, `,`+sedBlank+`*[+-]`,
	`s\\`, `\\[|#%@]`,
	`\\/.*[wW]`, `/[^/]*`+sedBlank+`+[wWeE]`,
)

// sedWrites and sedExecutes are the release's w and e commands, at the
// start of a script, after an address or a range.
var (
	sedWrites = compileAll(`^[wW]`+sedBlank+`*\S+`, `^\d+`+sedBlank+`*[wW]`+sedBlank+`*\S+`, `^\$`+sedBlank+`*[wW]`+sedBlank+`*\S+`,
		`^/[^/]*/[IMim]*`+sedBlank+`*[wW]`+sedBlank+`*\S+`, `^\d+,\d+`+sedBlank+`*[wW]`+sedBlank+`*\S+`,
		`^\d+,\$`+sedBlank+`*[wW]`+sedBlank+`*\S+`, `^/[^/]*/[IMim]*,/[^/]*/[IMim]*`+sedBlank+`*[wW]`+sedBlank+`*\S+`)
	sedExecutes = compileAll(`^e`, `^\d+`+sedBlank+`*e`, `^\$`+sedBlank+`*e`, `^/[^/]*/[IMim]*`+sedBlank+`*e`,
		`^\d+,\d+`+sedBlank+`*e`, `^\d+,\$`+sedBlank+`*e`, `^/[^/]*/[IMim]*,/[^/]*/[IMim]*`+sedBlank+`*e`)
	sedSlashSubst = regexp.MustCompile(`^s/[^/]*/[^/]*/[^/]*$`)
)

// sedScriptLike are the release's patterns (cli.js H0) that mark the word
// BSD sed would take for the script, after trimming its leading blanks.
var sedScriptLike = compileAll(
	`^[sy][^a-zA-Z0-9]`, `^[$:={]`,
	`^\d+[ \t]*[,!~=aAcCdDegGhHiIlnNpPqQrRsStTwWxyz]`,
	`^[aAcCdDgGhHiIlnNpPqQtTwWxz=](`+sedBlank+`|\\|;|$)`,
	`^[rR](`+sedBlank+`|[\\;/]|\.{1,2}/|$)`,
	`^/(?:[^/\\]|\\.)*/[IMim]*[ \t]*([aAcCdDgGhHiIlnNpPqQtTwWxz=](`+sedBlank+`|[\\;]|$)|[rR](`+sedBlank+`|[\\;/]|\.{1,2}/|$)|[sy][^a-zA-Z0-9]|[,!~])`,
)

var sedDotSlashes = regexp.MustCompile(`^(\.{1,2}/)+`)

func compileAll(exprs ...string) []*regexp.Regexp {
	out := make([]*regexp.Regexp, len(exprs))
	for i, e := range exprs {
		out[i] = regexp.MustCompile(e)
	}
	return out
}

func matchesAny(res []*regexp.Regexp, s string) bool {
	for _, re := range res {
		if re.MatchString(s) {
			return true
		}
	}
	return false
}

// sedScriptRisky is the release's test of a sed script, or of a word it
// reads as one (cli.js yPn): true when it may write, execute, read a file
// or hide an address the test cannot follow.
func sedScriptRisky(e string) bool {
	o := strings.Trim(e, "\t\n\v\f\r ")
	if o == "" {
		return false
	}
	for i := 0; i < len(o); i++ {
		if o[i] == 0 || o[i] >= 0x80 {
			return true
		}
	}
	if strings.ContainsAny(o, "{}\n\r") {
		return true
	}
	if r := strings.IndexByte(o, '#'); r >= 0 && !(r > 0 && o[r-1] == 's') {
		return true
	}
	if matchesAny(sedRisky, o) {
		return true
	}
	if strings.HasPrefix(o, "s/") && !sedSlashSubst.MatchString(o) {
		return true
	}
	if len(o) >= 2 && o[0] == 's' && strings.ContainsAny(o[len(o)-1:], "wWeE") && !sedEndsWithPlainFlags(o) {
		return true
	}
	if matchesAny(sedWrites, o) || matchesAny(sedExecutes, o) {
		return true
	}
	if flags, ok := sedRiskyFlags(o); ok && strings.ContainsAny(flags, "wWeE") {
		return true
	}
	return sedYCommand(o) && strings.ContainsAny(o, "wWeE")
}

// sedDelimiter reports whether c may delimit the release's s and y
// patterns ([^\\\n]).
func sedDelimiter(c byte) bool { return c != '\\' && c != '\n' }

// sedEndsWithPlainFlags is the release's /^s([^\\\n]).*?\1.*?\1[^wWeE]*$/
// on a script that starts with s: two more delimiters, and after the last
// of them no w, W, e or E (the last is the best choice: any other leaves
// more after it).
func sedEndsWithPlainFlags(o string) bool {
	c := o[1]
	if !sedDelimiter(c) {
		return false
	}
	last := strings.LastIndexByte(o[2:], c)
	if last < 0 || strings.IndexByte(o[2:2+last], c) < 0 {
		return false
	}
	return !strings.ContainsAny(o[2+last+1:], "wWeE")
}

// sedRiskyFlags is the release's o.match(/s([^\\\n]).*?\1.*?\1(.*?)$/):
// from the first s followed by a delimiter that occurs twice after it,
// what follows the second of those occurrences.
func sedRiskyFlags(o string) (string, bool) {
	for i := 0; i+1 < len(o); i++ {
		if o[i] != 's' || !sedDelimiter(o[i+1]) {
			continue
		}
		c, rest := o[i+1], o[i+2:]
		p1 := strings.IndexByte(rest, c)
		if p1 < 0 {
			continue
		}
		p2 := strings.IndexByte(rest[p1+1:], c)
		if p2 < 0 {
			continue
		}
		return rest[p1+1+p2+1:], true
	}
	return "", false
}

// sedYCommand is the release's o.match(/y([^\\\n])/).
func sedYCommand(o string) bool {
	for i := 0; i+1 < len(o); i++ {
		if o[i] == 'y' && sedDelimiter(o[i+1]) {
			return true
		}
	}
	return false
}

// sedLikeScript reports whether w, the first file of sed -i SCRIPT FILES,
// is a word BSD sed would run as a script the release does not trust
// (cli.js H0 on the word M1r returns).
func sedLikeScript(w string) bool {
	if sedScriptRisky(w) {
		return true
	}
	h := strings.TrimLeft(w, "\t\n\v\f\r ")
	if matchesAny(sedScriptLike, h) {
		return true
	}
	return strings.ContainsAny(h, ";[\\") || strings.Contains(sedDotSlashes.ReplaceAllString(h, ""), "..")
}
