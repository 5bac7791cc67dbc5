package natslog

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// OpenGroupSync is the GroupSync of a standalone server whose store is in
// dir (EmbeddedConfig.Dir). A sync of a stream writes back its last message
// block (fdatasync, what the server's own fsync of every write syncs) and,
// when the server began new blocks since the last sync, the blocks before
// them and the directory that names them. The first sync of a stream, and
// a sync of the whole store (stream ""), is one syncfs(2) of dir's file
// system, which covers what else the server wrote (the stream's directory
// and metadata).
func OpenGroupSync(dir string) (*GroupSync, error) {
	s, err := openStoreSync(dir)
	if err != nil {
		return nil, err
	}
	return NewGroupSync(s.sync, s.close), nil
}

func openStoreSync(dir string) (*storeSync, error) {
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("natslog: opening the store %s to sync it: %w", dir, err)
	}
	return &storeSync{fd: fd, streams: filepath.Join(dir, "jetstream", "$G", "streams"), open: map[string]*lastBlock{}}, nil
}

// storeSync is what OpenGroupSync's syncs hold: GroupSync runs one at a
// time, so it needs no lock.
type storeSync struct {
	fd      int    // the store's directory, for syncfs
	streams string // the streams' directories
	open    map[string]*lastBlock
}

// lastBlock is a stream's last message block, as the last sync saw it.
type lastBlock struct {
	dir   string // the stream's msgs directory
	index uint64 // of N.blk
	f     *os.File
	next  string // the path of the block after it, index+1
}

func (s *storeSync) sync(streams []string) error {
	whole := false
	for _, name := range streams {
		if name == "" || s.open[name] == nil {
			whole = true
		}
	}
	if whole {
		if err := unix.Syncfs(s.fd); err != nil {
			return err
		}
	}
	for _, name := range streams {
		if name == "" {
			continue
		}
		b := s.open[name]
		if b == nil {
			// Synced whole above; from now on its blocks.
			// A layout not seen here leaves the stream to be synced whole
			// again next time.
			if b, err := openLastBlock(filepath.Join(s.streams, name, "msgs")); err == nil {
				s.open[name] = b
			}
			continue
		}
		if whole {
			continue
		}
		if err := b.sync(); err != nil {
			return err
		}
	}
	return nil
}

// sync writes back b's block, moving on to the blocks the server began
// since, each written back before the next is opened, then the directory.
func (b *lastBlock) sync() error {
	moved := false
	for {
		// Asked without opening: on the path of every sync, the answer is
		// nearly always that there is none.
		if err := unix.Access(b.next, unix.F_OK); err == unix.ENOENT {
			break
		}
		next, err := os.Open(b.next)
		if err != nil {
			return err
		}
		if err := unix.Fdatasync(int(b.f.Fd())); err != nil {
			next.Close()
			return err
		}
		b.f.Close()
		b.f, b.index, moved = next, b.index+1, true
		b.next = filepath.Join(b.dir, blockName(b.index+1))
	}
	if err := unix.Fdatasync(int(b.f.Fd())); err != nil {
		return err
	}
	if moved {
		d, err := os.Open(b.dir)
		if err != nil {
			return err
		}
		defer d.Close()
		return d.Sync()
	}
	return nil
}

// openLastBlock opens the block with the highest index in dir.
func openLastBlock(dir string) (*lastBlock, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("natslog: reading the stream's blocks to sync them: %w", err)
	}
	var last uint64
	for _, e := range ents {
		if n, ok := strings.CutSuffix(e.Name(), ".blk"); ok {
			if i, err := strconv.ParseUint(n, 10, 64); err == nil && i > last {
				last = i
			}
		}
	}
	if last == 0 {
		return nil, fmt.Errorf("natslog: the stream's directory %s holds no message block to sync", dir)
	}
	f, err := os.Open(filepath.Join(dir, blockName(last)))
	if err != nil {
		return nil, err
	}
	return &lastBlock{dir: dir, index: last, f: f, next: filepath.Join(dir, blockName(last+1))}, nil
}

func blockName(i uint64) string { return strconv.FormatUint(i, 10) + ".blk" }

func (s *storeSync) close() error {
	for _, b := range s.open {
		b.f.Close()
	}
	return unix.Close(s.fd)
}
