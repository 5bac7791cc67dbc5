package claudecode

import "testing"

// TestSedCheck: acceptEdits approves sed -i s/a/b/ FILES only when the
// script and the first file pass Claude Code 2.1.328's sed check: the
// first file is what BSD sed would take for the script (row 106;
// TestDifferential/sedcheck-acceptEdits).
func TestSedCheck(t *testing.T) {
	doc := `{"permissions":{}}`
	runCalls(t, doc, "acceptEdits", append(
		bashCalls(ask, codeDefaultPrompt, "sed -i s/a/b/ 'a b.txt'", "timeout 5 sed -i s/a/b/ 'a b.txt' # c", "sed -i s/a/b/ s.txt",
			"sed -i s/a/b/ 1p.txt", "sed -i s/a/b/ d", "sed -i s/a/b/ r", "sed -i s/a/b/ x..y", "sed -i s/a/b/ ':x'",
			"sed -i s/a/b/ w.txt", "sed -i s/a/b/ y.txt", "sed -i s/a/b/ 'p;x'", "sed -i s/a/b/ '1 p'", "sed -i s/a/b/ e1.txt",
			"sed -i s/a/b/ my_file.txt", "sed -i s/a/b/ key.txt", "sed -i s/a/b/ =x", "sed -i s/a/b/ 'a[1]'", "sed -i s/a/b/ '#x'",
			"sed -i s/a/b/ 2,3p", "sed -i s/a/b/ sub/../a.txt", "sed -i 's/#/x/' a.txt", `sed -i 's/a\/b/c/' a.txt`,
			"sed -i 's/é/e/' a.txt", "sed -i 's/a{2}/b/' a.txt", "sed -i 's/!/x/' a.txt", "sed -i 's/a,-/b/' a.txt",
			`sed -i 's/as\.x/y/' a.txt`, "sed -i 's/a/b e/' a.txt", "sed -i 's/key/val/' a.txt", "sed -i 's/1~2/x/' a.txt",
			`sed -i 's/a\|b/c/' a.txt`, "sed -i 's/a;b/c/' a.txt"),
		bashCalls(allow, codeModeAcceptEdits, "sed -i s/a/b/ a.txt 'a b.txt'", "sed -i s/a/b/ a.txt # c", "sed -i s/a/b/ ab",
			"sed -i s/a/b/ sub/y.txt", "sed -i s/a/b/ test.txt", "sed -i s/a/b/ x=y", "sed -i s/a/b/ 1.txt", "sed -i s/a/b/ r.txt",
			"sed -i s/a/b/ ./e.txt", "sed -i s/a/b/ ./w.txt", "sed -i s/a/b/ 'x!'", "sed -i s/a/b/ yy", "sed -i 's/a/we/' a.txt",
			"sed -i 's/ee/ww/' a.txt", "sed -i 's/a!/b/' a.txt", "sed -i 's/y/z/' a.txt", "sed -i 's/a b/c/' a.txt")...))
}

// TestSedScriptRisky: the release's own examples and edges of its
// back-referencing patterns (cli.js yPn), which Go's regexp cannot write.
func TestSedScriptRisky(t *testing.T) {
	for s, want := range map[string]bool{
		"s/a/b/": false, "s/a/b/w f": true, "s/a/b/e": true, "s/a/we/": false, "s|a|b|w": true, "s|a|b|g": false,
		"sxaxbxw": true, "y/abc/xyz/": false, "y/abc/xwz/": true, "1e": true, "$ e": true, "/x/I e": true, "2,3w f": true,
		"/a/,/b/w f": true, "p": false, "1,5p": false, "": false, "  ": false, "s/a/b/ ": false, "test.txt": false,
		"sweet.txt": false, "s.txt": false, "key.txt": true, "example": true, "s\x00": true,
	} {
		if got := sedScriptRisky(s); got != want {
			t.Errorf("sedScriptRisky(%q) = %v, want %v", s, got, want)
		}
	}
}

// TestSedInPlaceForms: the options, their order and the substitution's
// flags of the sed that acceptEdits approves, as Claude Code 2.1.328's
// sed check reads them with file writes allowed (cli.js gPn, M1r; row
// 114, TestDifferential/sedinplace-acceptEdits).
func TestSedInPlaceForms(t *testing.T) {
	doc := `{"permissions":{}}`
	runCalls(t, doc, "acceptEdits", append(
		bashCalls(ask, codeDefaultPrompt, "sed --in-place=.bak s/a/b/ b.txt", "sed --in-place -e s/a/b/ a.txt", "sed --in-place -n 1p a.txt",
			"sed -i -i s/a/b/ a.txt", "sed -i s/a/b/10 a.txt", "sed -i s/a/b/0 a.txt", "sed -i s/a/b/1g2 a.txt",
			"sed --in-place s/a/b/ ../outside/o.txt", "sed -i.bak s/a/b/ a.txt", "sed -Ein s/a/b/ a.txt", "sed -i s/a/b/",
			"sed -E -i s/a/b/ 'a b.txt'", "sed -i 's/a/b/;p' a.txt", "sed -i ' s/a/b/w x' a.txt"),
		bashCalls(allow, codeModeAcceptEdits, "sed --in-place s/a/b/ a.txt", "sed -E --in-place s/a/b/ a.txt", "sed --in-place s/a/b/ a.txt b.txt",
			"sed -E -i s/a/b/ a.txt", "sed -Ei s/a/b/ a.txt", "sed -iE s/a/b/ b.txt", "sed -i s/a/b/m a.txt", "sed -i s/a/b/2g a.txt",
			"sed -i s/a/b/g2p a.txt", "sed -i ' s/a/b/' a.txt", "sed -r --posix -i s/a/b/ a.txt", "sed --in-place s/a/b/ 'a b.txt'",
			"sed -i -E s/a/b/ 'a b.txt'", "sed -i -- s/a/b/ a.txt", "sed s/a/b/ a.txt", "sed -E s/a/b/ a.txt", "sed -i s/a/b/ a.txt -E",
			"sed --regexp-extended -i s/a/b/ a.txt", "sed -i --in-place s/a/b/ a.txt", "sed -i 's/a/b/ ' a.txt", "sed -rEi s/a/b/ a.txt", "sed -i --posix s/a/b/ 'a b.txt'")...))
}
