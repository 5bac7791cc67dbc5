package natslog

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// TestDirectBatchWithoutEnd: a direct read answered by a stream that
// sends part of a batch and then nothing, or a status other than a batch's
// end, or a single message (a server before 2.11), fails at once or within
// batchWait with an error that says what happened, instead of hanging.
// The stream is played by a responder on its direct get subject.
func TestDirectBatchWithoutEnd(t *testing.T) {
	ns, err := StartEmbedded(EmbeddedConfig{Dir: filepath.Join(t.TempDir(), "nats")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ns.Shutdown(); ns.WaitForShutdown() })
	nc, err := ConnectEmbedded(ns, "test", nats.CustomInboxPrefix("_INBOX_reader"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	defer func(w time.Duration) { batchWait = w }(batchWait)
	batchWait = 300 * time.Millisecond

	record := func(reply string, pending string) *nats.Msg {
		m := nats.NewMsg(reply)
		m.Header.Set("Nats-Stream", "FAKE")
		m.Header.Set("Nats-Subject", "ledger.policy")
		m.Header.Set("Nats-Sequence", "1")
		if pending != "" {
			m.Header.Set("Nats-Num-Pending", pending)
		}
		m.Data = []byte(`{}`)
		return m
	}
	status := func(reply, line string) *nats.Msg {
		m := nats.NewMsg(reply)
		code, desc, _ := strings.Cut(line, " ")
		m.Header.Set("Status", code)
		m.Header.Set("Description", desc)
		return m
	}
	l := &Log{nc: nc, cfg: StreamConfig{DirectReads: true}}
	for _, c := range []struct {
		name   string
		answer func(reply string) []*nats.Msg
		want   string
	}{
		{"part of a batch, no end", func(r string) []*nats.Msg { return []*nats.Msg{record(r, "5")} }, "1 messages and no end of batch within 300ms"},
		{"nothing", func(string) []*nats.Msg { return nil }, "0 messages and no end of batch within 300ms (may this user publish to $JS.API.DIRECT.GET.FAKE?)"},
		{"a bad request", func(r string) []*nats.Msg { return []*nats.Msg{status(r, "408 Bad Request")} }, "status 408 Bad Request"},
		{"a single message", func(r string) []*nats.Msg { return []*nats.Msg{record(r, "")} }, "need nats-server 2.11"},
	} {
		t.Run(c.name, func(t *testing.T) {
			replies := make(chan string, 10)
			sub, err := nc.Subscribe("$JS.API.DIRECT.GET.FAKE", func(m *nats.Msg) {
				replies <- m.Reply
				for _, a := range c.answer(m.Reply) {
					_ = nc.PublishMsg(a)
				}
			})
			if err != nil {
				t.Fatal(err)
			}
			defer sub.Unsubscribe()
			src, err := l.openDirect(&segment{name: "FAKE"}, 1, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer src.close()
			ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
			defer cancel()
			start := time.Now()
			_, err = src.next(ctx, 1)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("%v, want an error with %q", err, c.want)
			}
			if took := time.Since(start); took > 2*batchWait {
				t.Fatalf("failed after %s, bound %s", took, batchWait)
			}
			// Replies go to the reader's own inbox prefix.
			if len(replies) != 1 {
				t.Fatalf("%d requests, want 1", len(replies))
			}
			if r := <-replies; !strings.HasPrefix(r, "_INBOX_reader.") {
				t.Fatalf("asked with replies to %q", r)
			}
			t.Log(err)
		})
	}
}

// TestDirectReaderLeavesRollsToWriters: a log whose roll was cut short
// (its live segment sealed, no next segment yet) opens for a reader
// (DirectReads) without the reader creating the next segment, and reads
// to the sealed segment's last record; a writer's Open then finishes the
// roll.
func TestDirectReaderLeavesRollsToWriters(t *testing.T) {
	ns, err := StartEmbedded(EmbeddedConfig{Dir: filepath.Join(t.TempDir(), "nats")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ns.Shutdown(); ns.WaitForShutdown() })
	nc, err := ConnectEmbedded(ns, "test")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	ctx := t.Context()
	writer, err := Open(ctx, nc, StreamConfig{RollSubjects: -1})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		if _, err := writer.Append(ctx, "ledger.policy", fmt.Sprint("id-", i), []byte(`{}`), uint64(i)); err != nil {
			t.Fatal(err)
		}
	}
	// The first three steps of a roll, not the fourth.
	if _, _, err := writer.seal(ctx, writer.live()); err != nil {
		t.Fatal(err)
	}
	reader, err := Open(ctx, nc, StreamConfig{DirectReads: true})
	if err != nil {
		t.Fatalf("a reader's Open of a log whose roll was cut short: %v", err)
	}
	if _, err := writer.js.Stream(ctx, "LEDGER-2"); !errors.Is(err, jetstream.ErrStreamNotFound) {
		t.Fatalf("LEDGER-2 after a reader's Open: %v, want none", err)
	}
	if head, err := reader.Head(ctx); err != nil || head != 5 {
		t.Fatalf("head %d %v, want 5", head, err)
	}
	if recs, err := reader.Read(ctx, 1, 5); err != nil || len(recs) != 5 {
		t.Fatalf("read %d records, %v", len(recs), err)
	}
	if _, err := Open(ctx, nc, StreamConfig{RollSubjects: -1}); err != nil {
		t.Fatal(err)
	}
	if _, err := writer.js.Stream(ctx, "LEDGER-2"); err != nil {
		t.Fatalf("a writer's Open did not finish the roll: %v", err)
	}
}
