package ccimport

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/sessionledger/ledger/envelope/claudecode"
	"github.com/sessionledger/ledger/internal/importer"
	"github.com/sessionledger/ledger/internal/safefile"
)

// fingerprintVersion changes whenever what the import makes of the same
// bytes may change (the importer's code, the document's shape), so that a
// cache keyed on Fingerprint never serves a document an older importer
// made. claudecode.LatestRelease is hashed too.
const fingerprintVersion = "claude-code-import/3"

// maxFingerprintFiles bounds the files and folders one fingerprint visits.
const maxFingerprintFiles = 4096

// ClaudeCodeFingerprint is a hash of everything ClaudeCode(dir, opt) reads
// and of the options that shape its document: the bytes of the settings
// files and of every .md file under agents/ (in the project's .claude and
// in opt.UserDir), each with its scope, its name and the real path it
// resolves to (so a link swapped in changes it), and the options. Two
// imports with the same fingerprint make the same document: a caller may
// cache the document under it (cchook does). The set it hashes is a
// superset of what the import reads (it hashes .md files the import may
// skip), which can only make two equal imports look different.
//
// It reads with the import's limits (safefile, importer.DefaultMaxTotalSize in
// all) and fails on anything unusual (a special file, a limit, a cycle, an
// unreadable folder): the caller then imports without the cache, and the
// import says what is wrong. TestFingerprint guards the invariant.
func ClaudeCodeFingerprint(dir string, opt ClaudeCodeOptions) ([32]byte, error) {
	fp := fingerprinter{h: sha256.New(), max: opt.MaxTotalSize}
	if fp.max <= 0 {
		fp.max = importer.DefaultMaxTotalSize
	}
	maxFile := opt.MaxFileSize
	if maxFile <= 0 {
		maxFile = importer.DefaultMaxFileSize
	}
	fp.str(fingerprintVersion)
	fp.str(claudecode.LatestRelease)
	fp.str(opt.BuiltInAgents)
	fp.str(strconv.Itoa(opt.MaxSubagentDepth))
	fp.str(strconv.FormatBool(opt.FollowSymlinks))
	fp.str(strconv.FormatInt(opt.MaxFileSize, 10) + "/" + strconv.FormatInt(opt.MaxTotalSize, 10))
	claude := filepath.Join(dir, ".claude")
	if st, err := os.Stat(claude); err != nil || !st.IsDir() {
		claude = dir
	}
	fp.str(claude)
	scopes := []struct{ name, dir string }{{"project", claude}}
	if opt.UserDir != "" {
		fp.str(opt.UserDir)
		if st, err := os.Stat(opt.UserDir); err == nil && st.IsDir() {
			scopes = append([]struct{ name, dir string }{{"user", opt.UserDir}}, scopes...)
		}
	}
	for _, s := range scopes {
		fp.str("scope:" + s.name)
		for _, rel := range []string{"settings.json", "settings.local.json"} {
			if err := fp.file(s.dir, rel, maxFile); err != nil {
				return [32]byte{}, err
			}
		}
		if err := fp.walk(s.dir, "agents", 0); err != nil {
			return [32]byte{}, err
		}
	}
	var sum [32]byte
	copy(sum[:], fp.h.Sum(nil))
	return sum, nil
}

type fingerprinter struct {
	h interface {
		Write([]byte) (int, error)
		Sum([]byte) []byte
	}
	read, max int64
	visits    int
}

// str hashes s with its length, so that no two sequences of strings hash
// alike.
func (f *fingerprinter) str(s string) {
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], uint64(len(s)))
	f.h.Write(n[:])
	f.h.Write([]byte(s))
}

func (f *fingerprinter) visit(name string) error {
	if f.visits++; f.visits > maxFingerprintFiles {
		return fmt.Errorf("%s: more than %d files and folders to fingerprint", name, maxFingerprintFiles)
	}
	return nil
}

// file hashes one file: "missing" when it is not there, else its real path
// and bytes.
func (f *fingerprinter) file(dir, rel string, limit int64) error {
	name := filepath.Join(dir, filepath.FromSlash(rel))
	if err := f.visit(name); err != nil {
		return err
	}
	f.str("file:" + rel)
	real, err := filepath.EvalSymlinks(name)
	if errors.Is(err, fs.ErrNotExist) {
		if _, lerr := os.Lstat(name); errors.Is(lerr, fs.ErrNotExist) {
			f.str("missing")
			return nil
		}
	}
	if err != nil {
		return err
	}
	b, err := safefile.ReadFile(name, limit)
	if err != nil {
		return err
	}
	if f.read += int64(len(b)); f.read > f.max {
		return fmt.Errorf("%s: more than %d bytes in all to fingerprint", name, f.max)
	}
	f.str(real)
	f.str(string(b))
	return nil
}

// walk hashes the .md files under dir/rel in the directory's order,
// following links as the import does, to a bounded depth.
func (f *fingerprinter) walk(dir, rel string, depth int) error {
	name := filepath.Join(dir, filepath.FromSlash(rel))
	if depth > 32 {
		return fmt.Errorf("%s: folders nested more than 32 deep", name)
	}
	if err := f.visit(name); err != nil {
		return err
	}
	st, err := os.Stat(name)
	if errors.Is(err, fs.ErrNotExist) && depth == 0 {
		f.str("no agents")
		return nil
	}
	if err != nil {
		return err
	}
	if !st.IsDir() {
		f.str("not a folder:" + rel)
		return nil
	}
	real, err := filepath.EvalSymlinks(name)
	if err != nil {
		return err
	}
	f.str("dir:" + rel + ":" + real)
	// In the order the import reads them, the directory's own: of two
	// agents with one name the last read wins, so the order is an input
	// (TestI24ImportCacheDirectoryOrder).
	entries, err := readDirUnsorted(os.DirFS(name), ".")
	if err != nil {
		return err
	}
	for _, e := range entries {
		sub := rel + "/" + e.Name()
		st, err := os.Stat(filepath.Join(name, e.Name()))
		if err != nil {
			f.str("unreadable:" + sub)
			continue
		}
		switch {
		case st.IsDir():
			if err := f.walk(dir, sub, depth+1); err != nil {
				return err
			}
		case strings.HasSuffix(e.Name(), ".md") && st.Mode().IsRegular() && st.Size() <= agentFileLimit:
			if err := f.file(dir, sub, agentFileLimit); err != nil {
				return err
			}
		default:
			f.str("skipped:" + sub + ":" + st.Mode().String() + ":" + strconv.FormatInt(st.Size(), 10))
		}
	}
	return nil
}
