package service

import (
	"context"
	"path/filepath"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/sessionledger/ledger/internal/dialects"
	"github.com/sessionledger/ledger/internal/workload"
	"github.com/sessionledger/ledger/projection"
)

// followedLog is a MemLog that delivers records as they land (a
// Follower), waking its followers on a channel, so that Run and its
// commit ticker run in a synctest bubble.
type followedLog struct {
	*MemLog
	mu     sync.Mutex
	landed chan struct{} // closed and replaced at every append
}

func newFollowedLog() *followedLog {
	return &followedLog{MemLog: &MemLog{}, landed: make(chan struct{})}
}

func (l *followedLog) AppendHashed(ctx context.Context, subject, id string, rec []byte, _ string, expected uint64) (uint64, error) {
	seq, err := l.MemLog.Append(ctx, subject, id, rec, expected)
	l.mu.Lock()
	close(l.landed)
	l.landed = make(chan struct{})
	l.mu.Unlock()
	return seq, err
}

func (l *followedLog) Follow(ctx context.Context, from uint64, fn func(seq uint64, data []byte, pending uint64) error, until uint64) error {
	for {
		l.mu.Lock()
		landed := l.landed
		l.mu.Unlock()
		head, err := l.Head(ctx)
		if err != nil {
			return err
		}
		if from <= head {
			recs, err := l.Read(ctx, from, head)
			if err != nil {
				return err
			}
			for i, b := range recs {
				if err := fn(from, b, uint64(len(recs)-1-i)); err != nil {
					return err
				}
				from++
			}
			continue
		}
		select {
		case <-landed:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// TestCommitPolicy walks the rows of commitPolicy's table that a healthy
// file takes (TestFullDiskDoesNotFailAppends takes the foreground ones),
// on the bubble's clock: a fold commits in the background only when the
// last commit is CommitInterval old, a round may overlap others only
// while no commit is due, Flush commits at once, and Run's ticker commits
// what folds within the interval left, every CommitInterval and when Run
// ends. What the file holds is read with nothing being written
// (synctest.Wait).
func TestCommitPolicy(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const interval = 100 * time.Millisecond
		store, err := projection.OpenStore(filepath.Join(t.TempDir(), "projection.db"), projection.StoreOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer store.Close()
		svc, err := Open(t.Context(), Config{Log: newFollowedLog(), Dialects: dialects.All(), Store: store, CommitInterval: interval})
		if err != nil {
			t.Fatal(err)
		}
		evs := append([][]byte{workload.Policy()}, workload.Session(1)...)
		appendNext := func() {
			t.Helper()
			if _, err := svc.Append(t.Context(), evs[0]); err != nil {
				t.Fatal(err)
			}
			evs = evs[1:]
		}
		var stopRun context.CancelFunc
		runDone := make(chan error, 1)
		for _, step := range []struct {
			name string
			do   func()
			// state and overlap are the policy's state and mayOverlap
			// after the step; file is the file's checkpoint, head the
			// head's position.
			state      commitState
			overlap    bool
			file, head uint64
		}{
			{"opened: nothing committed yet, a commit is due", func() {}, commitBackground, false, 0, 0},
			{"a due fold commits in the background", appendNext, commitBackground, true, 1, 1},
			{"a fold within the interval does not commit", appendNext, commitBackground, true, 1, 2},
			// The bubble's clock passes the interval: the subject, not a wait.
			{"a due commit holds rounds back", func() { time.Sleep(interval) }, commitBackground, false, 1, 2},
			{"flush commits at once", func() {
				if err := svc.Flush(t.Context()); err != nil {
					t.Fatal(err)
				}
			}, commitBackground, true, 2, 2},
			{"Run's ticker commits what a fold within the interval left", func() {
				ctx, cancel := context.WithCancel(t.Context())
				stopRun = cancel
				go func() { runDone <- svc.Run(ctx) }()
				synctest.Wait() // Run follows, its ticker started now
				appendNext()
				synctest.Wait()
				if got, _ := store.Checkpoint(); got != 2 {
					t.Fatalf("before the tick the file is at %d, want 2", got)
				}
				time.Sleep(interval) // the bubble's clock reaches the tick: the subject, not a wait
			}, commitBackground, true, 3, 3},
			{"Run's end commits", func() {
				appendNext()
				stopRun()
				if err := <-runDone; err != nil {
					t.Fatal(err)
				}
			}, commitBackground, true, 4, 4},
		} {
			step.do()
			synctest.Wait() // no background write in flight
			svc.mu.Lock()
			state, overlap, head := svc.commits.state, svc.commits.mayOverlap(), svc.head.Position()
			svc.mu.Unlock()
			file, err := store.Checkpoint()
			if err != nil {
				t.Fatal(err)
			}
			if state != step.state || overlap != step.overlap || file != step.file || head != step.head {
				t.Errorf("%s: state %s, overlap %v, file at %d, head at %d; want %s, %v, %d, %d",
					step.name, state, overlap, file, head, step.state, step.overlap, step.file, step.head)
			}
		}
	})
}

// TestCommitPolicyOff: without a store every event is nothing, and rounds
// always may overlap.
func TestCommitPolicyOff(t *testing.T) {
	svc, err := Open(t.Context(), Config{Log: &MemLog{}, Dialects: dialects.All()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Append(t.Context(), workload.Policy()); err != nil {
		t.Fatal(err)
	}
	if err := svc.Flush(t.Context()); err != nil {
		t.Fatal(err)
	}
	if svc.commits.state != commitOff || !svc.commits.mayOverlap() {
		t.Fatalf("without a store the policy is %s (overlap %v), want off (overlap true)", svc.commits.state, svc.commits.mayOverlap())
	}
}
