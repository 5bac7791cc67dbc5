package safefile

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"testing/fstest"
)

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, size int) string {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, bytes.Repeat([]byte("x"), size), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no named pipes here:", err)
	}
	zero := filepath.Join(dir, "zero")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	tests := []struct {
		name    string
		path    string
		limit   int64
		want    int   // bytes read, when no error
		wantErr error // errors.Is
		msg     string
	}{
		{"empty", write("empty", 0), 10, 0, nil, ""},
		{"under the limit", write("under", 9), 10, 9, nil, ""},
		{"at the limit", write("at", 10), 10, 10, nil, ""},
		{"over the limit", write("over", 11), 10, 0, ErrTooLarge, "over: larger than the limit of 10 bytes"},
		{"a named pipe does not block", fifo, 10, 0, ErrNotRegular, "fifo: not a regular file: a named pipe (FIFO)"},
		{"a link to /dev/zero is not read", zero, 1 << 20, 0, ErrNotRegular, "zero: not a regular file: a character device"},
		{"a directory", dir, 10, 0, ErrNotRegular, "not a regular file: a directory"},
		{"missing", filepath.Join(dir, "missing"), 10, 0, fs.ErrNotExist, "no such file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ReadFile(tt.path, tt.limit)
			if tt.wantErr == nil {
				if err != nil || len(got) != tt.want {
					t.Fatalf("got %d bytes, %v; want %d bytes", len(got), err, tt.want)
				}
				return
			}
			if !errors.Is(err, tt.wantErr) || !strings.Contains(err.Error(), tt.msg) || got != nil {
				t.Fatalf("got %d bytes, %v; want %v with %q", len(got), err, tt.wantErr, tt.msg)
			}
		})
	}
}

// TestReadLimitsWhatTheFileClaims: a file whose size stat reports wrong
// (as /proc's do) is still read to the limit and no further.
func TestReadLimitsWhatTheFileClaims(t *testing.T) {
	fsys := fstest.MapFS{"f": &fstest.MapFile{Data: []byte("0123456789")}}
	if got, err := ReadFS(fsys, "f", 10); err != nil || string(got) != "0123456789" {
		t.Fatalf("got %q, %v", got, err)
	}
	if _, err := ReadFS(fsys, "f", 9); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("got %v, want ErrTooLarge", err)
	}
	// /proc/self/status is regular and claims size 0.
	if _, err := os.Stat("/proc/self/status"); err == nil {
		got, err := ReadFile("/proc/self/status", 1<<20)
		if err != nil || len(got) == 0 {
			t.Fatalf("/proc/self/status: %d bytes, %v", len(got), err)
		}
		if _, err := ReadFile("/proc/self/status", 16); !errors.Is(err, ErrTooLarge) {
			t.Fatalf("/proc/self/status with a 16-byte limit: %v, want ErrTooLarge", err)
		}
	}
}

func TestReadFSRefusesSpecialFiles(t *testing.T) {
	fsys := fstest.MapFS{"p": &fstest.MapFile{Mode: fs.ModeNamedPipe}, "d": &fstest.MapFile{Mode: fs.ModeDir}}
	for _, name := range []string{"p", "d"} {
		if _, err := ReadFS(fsys, name, 10); !errors.Is(err, ErrNotRegular) {
			t.Errorf("%s: got %v, want ErrNotRegular", name, err)
		}
	}
}

func TestSize(t *testing.T) {
	for n, want := range map[int64]string{8 << 20: "8 MiB (8388608 bytes)", 1 << 10: "1 KiB (1024 bytes)", 1000: "1000 bytes"} {
		if got := Size(n); got != want {
			t.Errorf("Size(%d) = %q, want %q", n, got, want)
		}
	}
}

func BenchmarkReadFile(b *testing.B) {
	p := filepath.Join(b.TempDir(), "f")
	os.WriteFile(p, bytes.Repeat([]byte("x"), 5<<20), 0o644)
	b.SetBytes(5 << 20)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ReadFile(p, 8<<20); err != nil {
			b.Fatal(err)
		}
	}
}
