// Package safefile reads files that someone else wrote, such as a cloned
// project's configuration, without letting them block or exhaust the
// reader.
//
// Invariants:
//
//   - Only regular files are read. A named pipe, a device or a socket (or a
//     symbolic link to one, such as /dev/zero) is refused with ErrNotRegular,
//     checked with stat before the file is opened (opening some devices has
//     effects of its own) and with fstat on the open file (the name may
//     have been replaced in between).
//   - The open cannot block: on Unix the file is opened with O_NONBLOCK, so
//     a named pipe put there after the first check opens at once and is
//     then refused.
//   - At most limit+1 bytes are read, whatever the file claims its size is
//     (files in /proc say 0): a larger file is refused with a *LimitError,
//     never returned in part.
//
// Caveats: a regular file on a network or FUSE file system can still make
// a read wait on its server; no context could cancel that read (a read of
// a regular file is not interruptible in Go), so the functions take none.
package safefile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// ErrNotRegular is the error (wrapped in an *fs.PathError) for a name that
// is not a regular file.
var ErrNotRegular = errors.New("not a regular file")

// ErrTooLarge matches every *LimitError (errors.Is).
var ErrTooLarge = errors.New("file too large")

// LimitError is the refusal of a file over the size limit.
type LimitError struct {
	Path  string
	Limit int64 // bytes
}

func (e *LimitError) Error() string {
	return fmt.Sprintf("%s: larger than the limit of %s", e.Path, Size(e.Limit))
}

func (e *LimitError) Is(target error) bool { return target == ErrTooLarge }

// Size prints a byte count for a message: "8 MiB (8388608 bytes)", or
// "512 bytes".
func Size(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB (%d bytes)", n>>20, n)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB (%d bytes)", n>>10, n)
	}
	return fmt.Sprintf("%d bytes", n)
}

// ReadFile reads the regular file at path (following symbolic links), at
// most limit bytes; see the package invariants.
func ReadFile(path string, limit int64) ([]byte, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if err := check(path, fi, limit); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_RDONLY|openFlags, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return read(path, f, limit)
}

// ReadFS is ReadFile for a file of fsys. An fs.FS opens without
// O_NONBLOCK: a named pipe is refused by the stat before the open, and a
// pipe swapped in after it could still block an os.DirFS open. Use
// ReadFile for names on disk.
func ReadFS(fsys fs.FS, name string, limit int64) ([]byte, error) {
	fi, err := fs.Stat(fsys, name)
	if err != nil {
		return nil, err
	}
	if err := check(name, fi, limit); err != nil {
		return nil, err
	}
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return read(name, f, limit)
}

// check refuses what stat says cannot be read.
func check(path string, fi fs.FileInfo, limit int64) error {
	if !fi.Mode().IsRegular() {
		return &fs.PathError{Op: "open", Path: path, Err: fmt.Errorf("%w: %s", ErrNotRegular, kind(fi.Mode()))}
	}
	if fi.Size() > limit {
		return &LimitError{Path: path, Limit: limit}
	}
	return nil
}

// read checks the open file again and reads at most limit bytes of it.
func read(path string, f fs.File, limit int64) ([]byte, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if err := check(path, fi, limit); err != nil {
		return nil, err
	}
	// Size the buffer from fstat (one allocation for an ordinary file) but
	// never past the limit: the size may be wrong, the limit holds.
	buf := make([]byte, 0, min(fi.Size(), limit)+1)
	for {
		n, err := f.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if int64(len(buf)) > limit {
			return nil, &LimitError{Path: path, Limit: limit}
		}
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, &fs.PathError{Op: "read", Path: path, Err: unwrap(err)}
		}
		if len(buf) == cap(buf) { // the size was wrong: grow, never past limit+1
			grown := make([]byte, len(buf), min(2*int64(cap(buf)), limit+1))
			copy(grown, buf)
			buf = grown
		}
	}
}

func unwrap(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// kind names what a non-regular file is.
func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	}
	return "mode " + m.String()
}
