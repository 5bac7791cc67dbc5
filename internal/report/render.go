package report

import (
	_ "embed"
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
