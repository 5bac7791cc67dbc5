package natslog_test

import (
	"fmt"
	"path/filepath"
	"testing"

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
			ns := embeddedFor(b, natslog.EmbeddedConfig{Dir: dir, GroupSync: group, Listen: "127.0.0.1:-1"})
			cfg := natslog.StreamConfig{}
			if group {
				cfg.Sync = realGroupSync(b, dir)
			}
			if _, err := natslog.Open(b.Context(), connectFor(b, ns), cfg); err != nil {
				b.Fatal(err)
			}
			rnc := dialFor(b, ns)
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
