package report

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"html/template"
	"io"
)

// page is the report's template: one self-contained HTML file with its CSS
// and script inline and no external asset, so it can be mailed, archived
// with an incident or opened offline. Everything essential is HTML: the
// why traces are <details> elements and the time axis is an SVG whose
// marks are links, so the page reads fully without JavaScript; the small
// script only opens and highlights what a link or the address names.
//
//go:embed page.html
var page string

var tmpl = template.Must(template.New("page").Parse(page))

// Render writes the report as an HTML page.
func Render(w io.Writer, r *Report) error {
	return tmpl.Execute(w, r)
}

// ContentSecurityPolicy is the policy a served report carries (serve
// --http's /report), for page as Render wrote it: its one inline script by
// its hash (html/template drops the script's comments, so the hash is the
// rendered text's), its inline styles, nothing fetched or framed. A report
// written to a file carries none (TestContentSecurityPolicy).
func ContentSecurityPolicy(page []byte) string {
	_, rest, _ := bytes.Cut(page, []byte("<script>"))
	script, _, _ := bytes.Cut(rest, []byte("</script>"))
	sum := sha256.Sum256(script)
	return "default-src 'none'; script-src 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
}
