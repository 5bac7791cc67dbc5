package natslog_test

import (
	"fmt"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/nats-io/nats.go"

	"github.com/sessionledger/ledger/internal/natslog"
)

// BenchmarkRemoteAppend times one append of another process's log (over
// TCP) on an embedded server that fsyncs every write, and on one under
// group sync, where the append asks the ledger that runs the server for
// its sync (GroupSyncSubject) before it is answered.
//
//	go test ./internal/natslog -run XXX -bench RemoteAppend
func BenchmarkRemoteAppend(b *testing.B) {
	for _, mode := range []string{"server fsync", "group sync"} {
		b.Run(mode, func(b *testing.B) {
			dir := filepath.Join(b.TempDir(), "nats")
			group := mode == "group sync"
			if group && runtime.GOOS != "linux" {
				b.Skip("group sync needs syncfs(2), Linux's")
			}
			ns, err := natslog.StartEmbedded(natslog.EmbeddedConfig{Dir: dir, GroupSync: group, Listen: "127.0.0.1:-1"})
			if err != nil {
				b.Fatal(err)
			}
			defer func() { ns.Shutdown(); ns.WaitForShutdown() }()
			nc, err := natslog.ConnectEmbedded(ns, "ledger")
			if err != nil {
				b.Fatal(err)
			}
			defer nc.Close()
			cfg := natslog.StreamConfig{}
			if group {
				g, err := natslog.OpenGroupSync(dir)
				if err != nil {
					b.Fatal(err)
				}
				defer g.Close()
				cfg.Sync = g
			}
			if _, err := natslog.Open(b.Context(), nc, cfg); err != nil {
				b.Fatal(err)
			}
			rnc, err := nats.Connect(ns.ClientURL())
			if err != nil {
				b.Fatal(err)
			}
			defer rnc.Close()
			remote, err := natslog.Open(b.Context(), rnc, natslog.StreamConfig{})
			if err != nil {
				b.Fatal(err)
			}
			data := []byte(`{"type":"tool.checked","session":"s","tool":"read","allowed":true}`)
			head := uint64(0)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if head, err = remote.Append(b.Context(), "ledger.session.s", fmt.Sprintf("id-%d", i), data, head); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
