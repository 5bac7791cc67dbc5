package cchook

import (
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"sync"

	ccimport "github.com/sessionledger/ledger/internal/importer/claudecode"
	"github.com/sessionledger/ledger/internal/safefile"
)

// ImportCache keeps imported policy documents under the fingerprint of the
// files they were imported from (ccimport.ClaudeCodeFingerprint), so that a
// project is parsed once for the same bytes: a hook is a process per event,
// and every SessionStart and prompt imports. It keeps the documents in
// memory (for a long-lived `serve --hooks`) and, when Dir is set, one file
// per fingerprint there (for the command hook's processes).
//
// Invariants (TestImportCache): a document is served only under the
// fingerprint of the bytes it was made from, and only if it is one JSON
// value; an entry that does not read is an import to make again, never an
// error. A cache file is the user's, as the project's settings are: the
// agent can write both, and docs/claude-code-hooks.md says so.
type ImportCache struct {
	// Dir holds one file per fingerprint; "" keeps documents in memory
	// only.
	Dir string

	mu      sync.Mutex
	mem     map[[32]byte]json.RawMessage
	flights map[[32]byte]*flight
}

// The bounds of the cache: a document is about as large as the settings it
// came from (at most the import's 32 MiB); memory keeps the last
// maxMemEntries, a directory its newest maxDirEntries.
const (
	maxCachedDoc  = 64 << 20
	maxMemEntries = 64
	maxDirEntries = 256
)

func (c *ImportCache) file(key [32]byte) string {
	return filepath.Join(c.Dir, hex.EncodeToString(key[:])+".json")
}

// Get returns the document cached under key.
func (c *ImportCache) Get(key [32]byte) (json.RawMessage, bool) {
	c.mu.Lock()
	doc, ok := c.mem[key]
	c.mu.Unlock()
	if ok || c.Dir == "" {
		return doc, ok
	}
	b, err := safefile.ReadFile(c.file(key), maxCachedDoc)
	if err != nil || !json.Valid(b) {
		return nil, false
	}
	c.remember(key, b)
	return b, true
}

// Put caches doc under key. A file that cannot be written is left out:
// the next hook imports again.
func (c *ImportCache) Put(key [32]byte, doc json.RawMessage) {
	c.remember(key, doc)
	if c.Dir == "" {
		return
	}
	if err := os.MkdirAll(c.Dir, 0o700); err != nil {
		return
	}
	f, err := os.CreateTemp(c.Dir, ".import-*")
	if err != nil {
		return
	}
	_, werr := f.Write(doc)
	if cerr := f.Close(); werr != nil || cerr != nil || os.Rename(f.Name(), c.file(key)) != nil {
		_ = os.Remove(f.Name())
		return
	}
	c.prune()
}

func (c *ImportCache) remember(key [32]byte, doc json.RawMessage) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.mem == nil {
		c.mem = map[[32]byte]json.RawMessage{}
	}
	if len(c.mem) >= maxMemEntries {
		clear(c.mem) // a cache, not a record: starting over is correct
	}
	c.mem[key] = doc
}

// prune keeps the newest maxDirEntries files of Dir.
func (c *ImportCache) prune() {
	entries, err := os.ReadDir(c.Dir)
	if err != nil || len(entries) <= maxDirEntries {
		return
	}
	type aged struct {
		name string
		mod  int64
	}
	var all []aged
	for _, e := range entries {
		if info, err := e.Info(); err == nil && info.Mode().IsRegular() {
			all = append(all, aged{e.Name(), info.ModTime().UnixNano()})
		}
	}
	sort.Slice(all, func(i, j int) bool {
		return all[i].mod > all[j].mod || all[i].mod == all[j].mod && all[i].name < all[j].name
	})
	for _, a := range all[min(len(all), maxDirEntries):] {
		_ = os.Remove(filepath.Join(c.Dir, a.name))
	}
}

// DefaultImportCacheDir is where the command hook keeps its cache: the
// user's cache directory's ledger/claude-code-import; "" when there is
// none.
func DefaultImportCacheDir() string {
	d, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(d, "ledger", "claude-code-import")
}

// maxImports bounds the imports running at once in one process: a parsed
// settings file takes up to some 20 times its size (serve --hooks once held
// 684 MB for three requests into one project).
const maxImports = 2

var importSlots = make(chan struct{}, maxImports)

// flight is one import in progress, which imports of the same fingerprint
// wait for instead of parsing the files again.
type flight struct {
	done chan struct{}
	doc  json.RawMessage
	err  error
}

// importDir imports the project at dir through the cache (c may be nil: no
// cache). Imports of one fingerprint at once share the first's parse, and at
// most maxImports parse at once (TestI24HookServerSlowImportPastTimeout).
func (c *ImportCache) importDir(dir string, opt ccimport.ClaudeCodeOptions) (json.RawMessage, error) {
	if c == nil {
		return parseProject(dir, opt)
	}
	key, err := ccimport.ClaudeCodeFingerprint(dir, opt)
	if err != nil {
		// Unusual files: the import says what is wrong.
		return parseProject(dir, opt)
	}
	if doc, ok := c.Get(key); ok {
		return doc, nil
	}
	c.mu.Lock()
	if f, ok := c.flights[key]; ok {
		c.mu.Unlock()
		<-f.done
		return f.doc, f.err
	}
	if c.flights == nil {
		c.flights = map[[32]byte]*flight{}
	}
	f := &flight{done: make(chan struct{})}
	c.flights[key] = f
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.flights, key)
		c.mu.Unlock()
		close(f.done)
	}()
	f.doc, f.err = parseProject(dir, opt)
	// Cached only when the files did not change while they were
	// imported: the document must be the one of those bytes.
	if again, err := ccimport.ClaudeCodeFingerprint(dir, opt); f.err == nil && err == nil && again == key {
		c.Put(key, f.doc)
	}
	return f.doc, f.err
}

// parseProject runs the importer on dir, in one of the import slots.
func parseProject(dir string, opt ccimport.ClaudeCodeOptions) (json.RawMessage, error) {
	importSlots <- struct{}{}
	defer func() { <-importSlots }()
	res, err := ccimport.ClaudeCode(dir, opt)
	if err != nil {
		return nil, err
	}
	return res.Document, nil
}
