package main

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/sessionledger/ledger/internal/dialects"
	"github.com/sessionledger/ledger/scenario"
)

func runTest(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fl := newFlags("test", "FILE|DIR...", "Runs scenario files (SPEC section 9), each on a fresh log (embedded JetStream and a bbolt\n"+
		"projection in a temp dir), and prints one line per\n"+
		"failed expectation, then 'N passed, N failed'. Directories are searched for *.json.\n"+
		"Exit status: 0 when every expectation holds, 1 when one fails, 2 on a usage error.", stderr)
	asJSON := fl.Bool("json", false, "print the reports as JSON")
	memory := fl.Bool("memory", false, "run on an in-memory log instead of embedded JetStream and bbolt (faster; same decisions)")
	paths, err := parseFlags(fl, args)
	if err != nil {
		return helpOK(err)
	}
	if len(paths) == 0 {
		return usageError("test needs at least one scenario file or directory")
	}
	files, err := expandScenarioPaths(paths)
	if err != nil {
		return err
	}
	var reports []scenario.Report
	passed, failed := 0, 0
	for _, path := range files {
		rep := runScenarioFile(ctx, path, *memory)
		passed += rep.Passed
		failed += rep.Failed
		reports = append(reports, rep)
		if !*asJSON {
			for _, f := range rep.Failures {
				fmt.Fprintf(stdout, "%s: step %d: %s\n", path, f.Step, f.Msg)
			}
		}
	}
	if *asJSON {
		if err := writeJSON(stdout, map[string]any{"reports": reports, "passed": passed, "failed": failed}); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(stdout, "%d passed, %d failed\n", passed, failed)
	}
	if failed > 0 {
		return &exitError{code: 1}
	}
	return nil
}

// runScenarioFile runs one file on a fresh log: by default through the real
// path (embedded JetStream and a bbolt projection in a temp dir).
func runScenarioFile(ctx context.Context, path string, memory bool) scenario.Report {
	failed := func(err error) scenario.Report {
		return scenario.Report{File: path, Failed: 1, Failures: []scenario.Failure{{Step: 0, Msg: err.Error()}}}
	}
	f, err := scenario.Load(path)
	if err != nil {
		return failed(err)
	}
	var r *scenario.Runner
	if memory {
		if r, err = scenario.InMemory(dialects.All()); err != nil {
			return failed(err)
		}
	} else {
		dir, err := os.MkdirTemp("", "ledger-test-")
		if err != nil {
			return failed(err)
		}
		defer os.RemoveAll(dir)
		var closeFn func()
		r, closeFn, err = scenario.Embedded(ctx, dir, dialects.All())
		if err != nil {
			return failed(err)
		}
		defer closeFn()
	}
	rep := r.Run(ctx, f)
	rep.File = path
	return rep
}

// expandScenarioPaths turns directories into the sorted *.json files under
// them; files are kept as given.
func expandScenarioPaths(paths []string) ([]string, error) {
	var out []string
	for _, p := range paths {
		info, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("scenario %s: %w", p, err)
		}
		if !info.IsDir() {
			out = append(out, p)
			continue
		}
		var found []string
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(path, ".json") {
				found = append(found, path)
			}
			return err
		})
		if err != nil {
			return nil, err
		}
		if len(found) == 0 {
			return nil, fmt.Errorf("no *.json scenario files under %s", p)
		}
		sort.Strings(found)
		out = append(out, found...)
	}
	return out, nil
}
