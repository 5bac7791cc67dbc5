package console

import (
	"html/template"
)

// pageTemplate renders the page and the pieces the stream sends: a
// group of trees, a tree, a denial. Nothing on it loads from anywhere but
// the page's own origin: the style and the script are inline.
var pageTemplate = template.Must(template.New("console").Funcs(template.FuncMap{
	"prev":       func(n uint64) uint64 { return max(n, 1) - 1 },
	"dash":       dash,
	"maxDenials": func() int { return MaxDenials },
}).Parse(pageHTML))

// dash is s, or a dash for nothing.
func dash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

const pageHTML = `
{{- define "page" -}}
<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>ledger console</title>
<style>
body { font: 14px/1.45 system-ui, sans-serif; margin: 0 1.5em 2em; color: #1d2329; }
h1 { font-size: 1.4em; margin: .8em 0 .2em; } h2 { font-size: 1.15em; margin: 1.4em 0 .4em; border-bottom: 1px solid #d5dbe1; }
code { font: 12.5px ui-monospace, monospace; } form input { width: 9em; }
#status { color: #56606a; } html[data-live=open] #status { color: #1a7f37; } html[data-live=failed] #status { color: #b42318; }
.group { margin: .6em 0; padding: .3em .8em; border-left: 3px solid #8aa4c8; background: #f6f8fa; }
.group h3 { font-size: 1em; margin: .2em 0; font-weight: 600; } .group h3 span { font-weight: normal; color: #56606a; }
.tree ul, .roots > .tree > ul { margin: .1em 0; padding-left: 1.3em; } .state { color: #56606a; }
.denial { border-top: 1px solid #e4e8ec; padding: .25em 0; } .denial summary { cursor: pointer; }
.deny .dec { color: #b42318; font-weight: 600; } .ask .dec { color: #b54708; font-weight: 600; }
.why { margin: .3em 0 .6em 1.4em; } .why table { border-collapse: collapse; } .why td, .why th { border: 1px solid #d5dbe1; padding: .1em .5em; text-align: left; }
.cause .actor { color: #1d4ed8; } .err { color: #b42318; }
</style>
</head>
<body data-events="{{.Events}}">
<header>
<h1>ledger console</h1>
<p id="who">viewing as <b>{{.Viewer.Name}}</b>: {{if .Viewer.Every}}every tenant's sessions{{else}}orchestrator <b>{{.Viewer.Owner}}</b>'s sessions{{end}}{{if .Report}} · <a href="report">audit report</a>{{end}}</p>
<p id="status" role="status">records up to sequence {{prev .Next}}; without JavaScript, reload for news</p>
<form method="get" action="./">
<label>scope <input name="scope" value="{{.Filter.Scope}}"></label>
<label>user <input name="user" value="{{.Filter.User}}"></label>
<label>project <input name="project" value="{{.Filter.Project}}"></label>
<label>runtime <input name="runtime" value="{{.Filter.Runtime}}"></label>
<button type="submit">show</button>
</form>
</header>
<main>
<section>
<h2>Sessions by scope and identity</h2>
{{if .Hidden}}<p>{{.Hidden}} earlier spawn trees are not shown: narrow the view by scope or identity.</p>{{end}}
<div id="groups">{{range .Groups}}{{template "group" .}}{{end}}</div>
</section>
<section>
<h2>Denials</h2>
<p>Denied and asked calls from sequence {{.From}} on, newest first, at most {{maxDenials}} (<a href="{{.Start}}">from the start</a>). Open one for its why trace.</p>
{{if not .Denials}}<p id="none-denied">None yet.</p>{{end}}
<div id="denials">{{range .Denials}}{{template "denial" .}}{{end}}</div>
</section>
</main>
<script nonce="{{.Nonce}}">
(function () {
  "use strict";
  var doc = document, html = doc.documentElement, status = doc.getElementById("status");
  html.className = "js";
  function say(text, state) { status.textContent = text; html.setAttribute("data-live", state); }
  if (!window.EventSource) { say("this browser cannot stream: reload for news", "none"); return; }
  var es = new EventSource(doc.body.getAttribute("data-events"));
  es.onopen = function () { say("live: records appear as they land", "open"); };
  es.onerror = function () { if (html.getAttribute("data-live") !== "failed") say("disconnected: reconnecting", "closed"); };
  es.addEventListener("failure", function (e) {
    var f = JSON.parse(e.data);
    say("the ledger's " + f.feed + " failed: " + f.error + "; reconnecting", "failed");
  });
  es.addEventListener("denial", function (e) {
    var d = JSON.parse(e.data), list = doc.getElementById("denials"), none = doc.getElementById("none-denied");
    if (doc.getElementById("d-" + d.seq)) return;
    if (none) none.parentNode.removeChild(none);
    list.insertAdjacentHTML("afterbegin", d.html);
    while (list.children.length > {{maxDenials}}) list.removeChild(list.lastElementChild);
  });
  es.addEventListener("tree", function (e) {
    var t = JSON.parse(e.data), old = doc.getElementById("t-" + t.root), g;
    if (old) { old.outerHTML = t.html; return; }
    g = doc.getElementById(t.group);
    if (!g) { doc.getElementById("groups").insertAdjacentHTML("beforeend", t.group_html); g = doc.getElementById(t.group); }
    g.querySelector(".roots").insertAdjacentHTML("beforeend", t.html);
  });
})();
</script>
</body>
</html>
{{end}}

{{- define "group" -}}
<div class="group" id="{{.ID}}">
<h3>scope {{.Scope}} <span>· runtime {{dash .Identity.Runtime}} · user {{dash .Identity.User}} · host {{dash .Identity.Host}} · project {{dash .Identity.Project}}</span></h3>
<div class="roots">{{range .Roots}}{{template "tree" .}}{{end}}</div>
</div>
{{- end}}

{{- define "tree" -}}
<div class="tree" id="t-{{.Key}}" data-started="{{.Started}}"><ul>{{template "node" .}}</ul></div>
{{- end}}

{{- define "node" -}}
<li><code>{{.Key}}</code> {{.Agent}} <span class="state">{{.State}}, {{.Turns}} turn(s){{with .Source}}, policy {{.}}{{end}}</span>
{{- if .Children}}<ul>{{range .Children}}{{template "node" .}}{{end}}</ul>{{end}}</li>
{{- end}}

{{- define "denial" -}}
<details class="denial {{.Decision}}" id="d-{{.Seq}}">
<summary><code>#{{.Seq}}</code> <time>{{.Time}}</time> <code>{{.Session}}</code> <b class="tool">{{.Tool}}</b> <span class="dec">{{.Decision}}</span> <code class="code">{{.Reason.Code}}</code> scope {{.Scope}}
{{- with .Identity}} · {{dash .User}}@{{dash .Host}} · {{dash .Project}} · {{dash .Runtime}}{{end}}{{with .Call}} · call <code>{{.}}</code>{{end}}</summary>
<div class="why">
{{- if .WhyErr}}
<p class="err">The why trace could not be read: {{.WhyErr}}</p>
{{- else}}
<p>Decided at sequence {{.Why.Seq}} under scope {{.Why.Scope}}: <b>{{.Why.Verdict.Decision}}</b> <code>{{.Why.Verdict.Reason.Code}}</code>
{{- with .Why.Verdict.Reason.Rule}} by the rule <code class="rule">{{.}}</code>{{end}}
{{- with .Why.Verdict.Reason.Record}}, introduced by {{.Type}} at sequence {{.Seq}}{{end}}.</p>
<table class="layers"><tr><th>layer</th><th>outcome</th><th>what it held</th><th>reason</th></tr>
{{- range .Why.Verdict.Trace}}
<tr><td>{{.Layer}}</td><td>{{.Outcome}}</td><td>{{.Detail}}</td><td>{{with .Reason}}<code>{{.Code}}</code> {{.Rule}}{{end}}</td></tr>
{{- end}}
</table>
{{- with .Cause}}
<p class="cause">Cause: {{.Type}} at sequence {{.Seq}} by <b class="actor">{{.Actor}}</b> at <time>{{.Time}}</time>: {{.Text}} ({{with .Before}}{{.}} before, {{end}}{{.After}} after).</p>
{{- else}}
<p class="cause">Cause: no record before the call changed the decision.</p>
{{- end}}
{{- end}}
<p>In a terminal: <code>{{.Command}}</code></p>
</div>
</details>
{{- end}}
`
