// Package arch keeps the import picture of STYLE.md true: imports point
// inward, events <- envelope <- projection/replay <- adapters <- cmd/ledger,
// and nothing under events or envelope knows NATS or bbolt exists; the
// Claude Code hook (internal/cchook, cmd/ledger-hook) imports neither the
// NATS client (cmd/ledger-hook, the thin hook: whole graph checked), nor the
// embedded NATS server, bbolt, the report, the openclaw dialect nor the
// OpenClaw importer (internal/importer/openclaw; whole graph checked), and
// the importers' shared part (internal/importer) imports no importer; the
// positioned JSON tree (internal/jsontree) imports nothing of the module; the
// wire contract (wire) imports events and envelope only, so the client and
// any outside program can take it without the service's dependencies; the
// public packages' examples import no internal package, and
// client/clienttest, the one public test-support package, links no other.
package arch

import (
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/sessionledger/ledger"

// forbidden maps a package prefix (relative to the module) to the imports
// it must not have, as prefixes.
var forbidden = map[string][]string{
	"events":     {module + "/", "github.com/nats-io/", "go.etcd.io/bbolt"},
	"envelope":   {module + "/projection", module + "/replay", module + "/internal", module + "/scenario", module + "/cmd", "github.com/nats-io/", "go.etcd.io/bbolt"},
	"projection": {module + "/replay", module + "/internal", module + "/scenario", module + "/cmd", "github.com/nats-io/"},
	"replay":     {module + "/internal", module + "/scenario", module + "/cmd", "github.com/nats-io/"},
	// The wire contract the client and the service share: no I/O, no
	// service internals.
	"wire": {module + "/projection", module + "/replay", module + "/internal", module + "/scenario", module + "/cmd", module + "/client", "github.com/nats-io/", "go.etcd.io/bbolt"},
	// The hook runs as a process per Claude Code event: its start-up is its
	// cost (cmd/ledger-hook's test checks the whole graph).
	"internal/cchook": hookHeavy,
	"cmd/ledger-hook": append([]string{"github.com/nats-io/"}, hookHeavy...),
	// The positioned JSON tree is a leaf: both importers and the hook's
	// settings editor read with it.
	"internal/jsontree": {module + "/"},
}

// hookHeavy are the packages the hook process must not initialise.
var hookHeavy = []string{"github.com/nats-io/nats-server/", "go.etcd.io/bbolt", module + "/internal/report", module + "/envelope/openclaw", module + "/internal/importer/openclaw"}

// TestSlimHookLinksNoOpenClaw: the slim hook imports Claude Code projects
// only, so its whole graph (not only its direct imports) holds neither the
// OpenClaw importer (its config validator and embedded release schema) nor
// the openclaw dialect. The importer is split by dialect for this; a
// shared package that imported the OpenClaw half would bring it back.
func TestSlimHookLinksNoOpenClaw(t *testing.T) {
	for _, pkg := range goList(t, "-deps", module+"/cmd/ledger-hook") {
		for _, bad := range []string{module + "/internal/importer/openclaw", module + "/envelope/openclaw"} {
			if pkg == bad || strings.HasPrefix(pkg, bad+"/") {
				t.Errorf("cmd/ledger-hook links %s: the slim hook must not link the OpenClaw importer or dialect", pkg)
			}
		}
	}
}

// TestThinHookLinksNoNATS: the thin command hook (cmd/ledger-hook, and the
// internal/cchook/thinhook and hookwire packages it runs) hands payloads to
// serve --hooks, so its whole graph holds no nats.go (nor nats-server,
// nkeys, ...): linking nats.go alone takes a process's start from about
// 2 ms to about 4 ms, paid at every tool call (issue 28, point 2). Of the
// module it links those packages only (cmd/ledger-hook's TestDeps too).
func TestThinHookLinksNoNATS(t *testing.T) {
	for _, root := range []string{"cmd/ledger-hook", "internal/cchook/thinhook", "internal/cchook/hookwire"} {
		for _, pkg := range goList(t, "-deps", module+"/"+root) {
			if strings.HasPrefix(pkg, "github.com/nats-io/") {
				t.Errorf("%s links %s: the thin hook must not link NATS", root, pkg)
			}
			if strings.HasPrefix(pkg, module+"/") && pkg != module+"/cmd/ledger-hook" && pkg != module+"/internal/cchook/thinhook" && pkg != module+"/internal/cchook/hookwire" {
				t.Errorf("%s links %s: the thin hook links only thinhook and hookwire of the module", root, pkg)
			}
		}
	}
}

// TestImporterSharedPartImportsNoDialect: internal/importer holds only what
// the importers share (Result, Warning, Error, Check); each dialect's
// importer is its own package (internal/importer/claudecode, which the slim
// hook links, and internal/importer/openclaw, which it must not). The
// shared package imports neither of them nor a dialect, so that linking it
// brings in no dialect.
func TestImporterSharedPartImportsNoDialect(t *testing.T) {
	p, err := build.Import(module+"/internal/importer", ".", 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, imp := range p.Imports {
		if strings.HasPrefix(imp, module+"/internal/importer/") || strings.HasPrefix(imp, module+"/envelope/") {
			t.Errorf("internal/importer imports %s: the shared part of the importers may not import an importer or a dialect", imp)
		}
	}
}

func TestImportDirection(t *testing.T) {
	out, err := exec.Command("go", "list", module+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, pkg := range strings.Fields(string(out)) {
		rel := strings.TrimPrefix(strings.TrimPrefix(pkg, module), "/")
		for prefix, bad := range forbidden {
			if rel != prefix && !strings.HasPrefix(rel, prefix+"/") {
				continue
			}
			p, err := build.Import(pkg, ".", 0)
			if err != nil {
				t.Fatalf("%s: %v", pkg, err)
			}
			for _, imp := range p.Imports {
				for _, b := range bad {
					if strings.HasPrefix(imp, b) && !(prefix == "envelope" && strings.HasPrefix(imp, module+"/envelope")) &&
						!(prefix == "envelope" && imp == module+"/events") {
						t.Errorf("%s imports %s: %s may not import %s", rel, imp, prefix, b)
					}
				}
			}
		}
	}
}

// goList runs go list with args and returns its output's fields.
func goList(t *testing.T, args ...string) []string {
	t.Helper()
	out, err := exec.Command("go", append([]string{"list"}, args...)...).Output()
	if err != nil {
		t.Fatalf("go list %s: %v", strings.Join(args, " "), err)
	}
	return strings.Fields(string(out))
}

// TestNatslogDeps: the JetStream adapter's whole dependency graph holds
// events and NATS, nothing of the ledger above events (the projection, the
// replay, the envelope) and no bbolt, so that it links no store of its own.
func TestNatslogDeps(t *testing.T) {
	for _, dep := range goList(t, "-deps", module+"/internal/natslog") {
		switch {
		case strings.HasPrefix(dep, "go.etcd.io/bbolt"):
			t.Errorf("internal/natslog reaches %s", dep)
		case strings.HasPrefix(dep, module+"/") && dep != module+"/events" && dep != module+"/internal/natslog":
			t.Errorf("internal/natslog reaches %s: it may depend on events only of the ledger's packages", strings.TrimPrefix(dep, module+"/"))
		}
	}
}

// publicPackages are the module's packages outside internal/ and cmd/,
// which other modules may import.
func publicPackages(t *testing.T) []string {
	var out []string
	for _, pkg := range goList(t, module+"/...") {
		rel := strings.TrimPrefix(strings.TrimPrefix(pkg, module), "/")
		if rel == "internal" || strings.HasPrefix(rel, "internal/") || strings.Contains(rel, "/internal/") ||
			strings.HasSuffix(rel, "/internal") || strings.HasPrefix(rel, "cmd/") || strings.HasPrefix(rel, "tools/") {
			continue
		}
		out = append(out, pkg)
	}
	return out
}

// TestPublicAPIHidesInternal: no exported declaration of a public package
// (scenario and client among them) names a type or value of an internal
// package, which other modules could not spell. The check is on the
// syntax: an exported function's signature, an exported type's definition
// (its exported fields and methods' signatures), an exported variable's or
// constant's type and value, and the methods of exported types. And the
// client, which other programs link, reaches no internal package at all.
func TestPublicAPIHidesInternal(t *testing.T) {
	for _, dep := range goList(t, "-deps", module+"/client") {
		if strings.Contains(dep, "/internal/") && strings.HasPrefix(dep, module+"/") {
			t.Errorf("client reaches %s", strings.TrimPrefix(dep, module+"/"))
		}
	}
	checked := map[string]bool{}
	for _, pkg := range publicPackages(t) {
		p, err := build.Import(pkg, ".", 0)
		if err != nil {
			t.Fatalf("%s: %v", pkg, err)
		}
		rel := strings.TrimPrefix(strings.TrimPrefix(pkg, module), "/")
		checked[rel] = true
		for _, name := range p.GoFiles {
			checkExported(t, rel, filepath.Join(p.Dir, name))
		}
	}
	for _, must := range []string{"client", "client/clienttest", "scenario"} {
		if !checked[must] {
			t.Errorf("%s was not checked", must)
		}
	}
}

// TestExamplesUseThePublicAPI: the examples of a public package (its test
// files' Example functions, which godoc shows and readers copy into their
// own modules) import no internal package, which another module could not
// import: client's Example runs its ledger with client/clienttest, and
// replay's reads that ledger's stream with nats.go.
func TestExamplesUseThePublicAPI(t *testing.T) {
	checked := map[string]bool{}
	for _, pkg := range publicPackages(t) {
		p, err := build.Import(pkg, ".", 0)
		if err != nil {
			t.Fatalf("%s: %v", pkg, err)
		}
		rel := strings.TrimPrefix(strings.TrimPrefix(pkg, module), "/")
		for _, name := range append(append([]string(nil), p.TestGoFiles...), p.XTestGoFiles...) {
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			example := false
			for _, d := range f.Decls {
				if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && strings.HasPrefix(fd.Name.Name, "Example") {
					example = true
				}
			}
			if !example {
				continue
			}
			checked[rel] = true
			for _, imp := range f.Imports {
				ip, _ := strconv.Unquote(imp.Path.Value)
				if strings.Contains(ip, "/internal/") || strings.HasSuffix(ip, "/internal") {
					t.Errorf("%s/%s has examples and imports %s, which another module cannot", rel, name, ip)
				}
			}
		}
	}
	for _, must := range []string{"client", "replay", "scenario"} {
		if !checked[must] {
			t.Errorf("the examples of %s were not checked", must)
		}
	}
}

// TestClientTestIsSelfContained: client/clienttest, the public in-process
// ledger for the tests of programs that use the client, is test support
// (TestTestSupportStaysOut keeps it out of every binary, client's among
// them) whose graph holds no other test-support package of the ledger's
// (no suite, no internal/api/apitest): another module's test that
// imports it links the ledger, not the ledger's tests.
func TestClientTestIsSelfContained(t *testing.T) {
	const pkg = module + "/client/clienttest"
	for _, dep := range goList(t, "-deps", pkg) {
		if dep != pkg && strings.HasPrefix(dep, module+"/") && strings.HasSuffix(dep, "test") {
			t.Errorf("client/clienttest reaches the test-support package %s", strings.TrimPrefix(dep, module+"/"))
		}
	}
}

// checkExported reports each mention of an internal package in the
// exported declarations of a file.
func checkExported(t *testing.T, pkg, path string) {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	internal := map[string]string{} // the file's name for an internal import -> its path
	for _, imp := range f.Imports {
		ip, _ := strconv.Unquote(imp.Path.Value)
		if !strings.Contains(ip, "/internal/") && !strings.HasSuffix(ip, "/internal") {
			continue
		}
		name := ip[strings.LastIndex(ip, "/")+1:]
		if imp.Name != nil {
			name = imp.Name.Name
		}
		internal[name] = ip
	}
	if len(internal) == 0 {
		return
	}
	mentions := func(what string, n ast.Node) {
		ast.Inspect(n, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok {
				if id, ok := sel.X.(*ast.Ident); ok && internal[id.Name] != "" {
					t.Errorf("%s: %s (%s) mentions %s.%s of %s", pkg, what, fset.Position(sel.Pos()), id.Name, sel.Sel.Name, internal[id.Name])
				}
			}
			return true
		})
	}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if !d.Name.IsExported() || (d.Recv != nil && !exportedRecv(d.Recv)) {
				continue
			}
			if d.Recv != nil {
				mentions(d.Name.Name, d.Recv)
			}
			mentions(d.Name.Name, d.Type)
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					if s.Name.IsExported() {
						mentions(s.Name.Name, exportedPart(s.Type))
						if s.TypeParams != nil {
							mentions(s.Name.Name, s.TypeParams)
						}
					}
				case *ast.ValueSpec:
					for _, n := range s.Names {
						if n.IsExported() {
							if s.Type != nil {
								mentions(n.Name, s.Type)
							}
							for _, v := range s.Values {
								mentions(n.Name, v)
							}
						}
					}
				}
			}
		}
	}
}

// exportedRecv reports whether a method's receiver is an exported type.
func exportedRecv(recv *ast.FieldList) bool {
	if len(recv.List) == 0 {
		return false
	}
	x := recv.List[0].Type
	for {
		switch y := x.(type) {
		case *ast.StarExpr:
			x = y.X
		case *ast.IndexExpr:
			x = y.X
		case *ast.IndexListExpr:
			x = y.X
		case *ast.Ident:
			return y.IsExported()
		default:
			return false
		}
	}
}

// exportedPart is a type without its struct's unexported fields (an
// embedded field counts: its methods are promoted).
func exportedPart(x ast.Expr) ast.Node {
	st, ok := x.(*ast.StructType)
	if !ok {
		return x
	}
	var keep []*ast.Field
	for _, fld := range st.Fields.List {
		if len(fld.Names) == 0 {
			keep = append(keep, fld)
			continue
		}
		for _, n := range fld.Names {
			if n.IsExported() {
				keep = append(keep, fld)
				break
			}
		}
	}
	return &ast.FieldList{List: keep}
}

// TestBenchHasNoInit: internal/bench declares no init, and no package of
// the ledger's in the production ledger binary reads the environment at
// init (in an init function or a package variable's initializer): a
// binary is what its main says it is, whatever the environment
// ('ledger bench --serve-nats' is the bench's server process).
func TestBenchHasNoInit(t *testing.T) {
	p, err := build.Import(module+"/internal/bench", ".", 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range p.GoFiles {
		f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(p.Dir, name), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && fd.Name.Name == "init" {
				t.Errorf("internal/bench/%s declares init", name)
			}
		}
	}
	for _, pkg := range goList(t, "-deps", module+"/cmd/ledger") {
		if !strings.HasPrefix(pkg, module+"/") && pkg != module {
			continue
		}
		p, err := build.Import(pkg, ".", 0)
		if err != nil {
			t.Fatalf("%s: %v", pkg, err)
		}
		for _, name := range p.GoFiles {
			checkInitEnv(t, strings.TrimPrefix(pkg, module+"/"), filepath.Join(p.Dir, name))
		}
	}
}

// checkInitEnv reports a read of the environment in what a file runs at
// init.
func checkInitEnv(t *testing.T, pkg, path string) {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	osName := ""
	for _, imp := range f.Imports {
		if imp.Path.Value == `"os"` {
			osName = "os"
			if imp.Name != nil {
				osName = imp.Name.Name
			}
		}
	}
	if osName == "" {
		return
	}
	reads := func(what string, n ast.Node) {
		ast.Inspect(n, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok {
				if id, ok := sel.X.(*ast.Ident); ok && id.Name == osName {
					switch sel.Sel.Name {
					case "Getenv", "LookupEnv", "Environ", "ExpandEnv":
						t.Errorf("%s: %s (%s) reads the environment at init (os.%s)", pkg, what, fset.Position(sel.Pos()), sel.Sel.Name)
					}
				}
			}
			return true
		})
	}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil && d.Name.Name == "init" {
				reads("init", d.Body)
			}
		case *ast.GenDecl:
			if d.Tok != token.VAR {
				continue
			}
			for _, s := range d.Specs {
				for _, v := range s.(*ast.ValueSpec).Values {
					if _, isFunc := v.(*ast.FuncLit); !isFunc {
						reads("a package variable", v)
					}
				}
			}
		}
	}
}

// TestTestSupportStaysOut: a test-support package (internal/natslogtest,
// internal/api/apitest, ...: a path ending in "test") is imported only by
// tests and by other test-support packages, never by a package a binary
// links.
func TestTestSupportStaysOut(t *testing.T) {
	// Test support: an importable helper (a name ending in "test") or a
	// suite under tests/.
	support := func(pkg string) bool {
		return strings.HasPrefix(pkg, module+"/") && strings.HasSuffix(pkg, "test") || strings.HasPrefix(pkg, module+"/tests/")
	}
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}}`, module+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || support(f[0]) {
			continue
		}
		for _, imp := range f[1:] {
			if support(imp) {
				t.Errorf("%s imports the test-support package %s", strings.TrimPrefix(f[0], module+"/"), strings.TrimPrefix(imp, module+"/"))
			}
		}
	}
}

// TestLedgerLinksNoTesting: the shipped binaries do not link package
// testing (the bench the ledger binary runs measures with its own loop,
// internal/bench's perOp), nor any of the module's test-support packages.
func TestLedgerLinksNoTesting(t *testing.T) {
	for _, cmd := range []string{"cmd/ledger", "cmd/ledger-hook"} {
		out, err := exec.Command("go", "list", "-deps", module+"/"+cmd).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", cmd, err)
		}
		for _, pkg := range strings.Fields(string(out)) {
			if pkg == "testing" || strings.HasPrefix(pkg, "testing/") || strings.HasPrefix(pkg, module+"/") && strings.HasSuffix(pkg, "test") || strings.HasPrefix(pkg, module+"/tests/") {
				t.Errorf("%s links %s", cmd, pkg)
			}
		}
	}
}

// TestTestNames: a package whose name ends in "test" is an importable
// helper (another package's tests import it), and a suite, which nothing
// imports, lives under tests/ (docs/architecture.md, "Layout").
func TestTestNames(t *testing.T) {
	out, err := exec.Command("go", "list", "-test", "-f", `{{.ImportPath}} {{join .Imports " "}} {{join .TestImports " "}} {{join .XTestImports " "}}`, module+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	imported := map[string]bool{}
	var pkgs []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || strings.ContainsAny(f[0], " [") || strings.HasSuffix(f[0], ".test") || strings.HasSuffix(f[0], "_test") {
			continue
		}
		pkgs = append(pkgs, f[0])
		for _, imp := range f[1:] {
			if imp != f[0] {
				imported[imp] = true
			}
		}
	}
	for _, p := range pkgs {
		rel := strings.TrimPrefix(p, module+"/")
		switch {
		case strings.HasSuffix(p, "test") && !imported[p]:
			t.Errorf("%s ends in \"test\" but nothing imports it: a suite goes under tests/ with a name of what it tests", rel)
		case strings.HasPrefix(rel, "tests/") && imported[p]:
			t.Errorf("%s is a suite under tests/ but is imported: an importable helper is named ...test, outside tests/", rel)
		}
	}
}
