package mcpgw

import (
	"context"
	"io"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sessionledger/ledger/internal/api/apitest"
)

// The benchmarks compare a tools/call and a tools/list through the
// gateway (a Go SDK client on a pipe pair, the ledger in process) with
// the same request straight to the test upstream (stdio): what the
// issue's targets in 'ledger bench' will measure. They report, they do
// not judge.

func benchDirect(b *testing.B) *mcp.ClientSession {
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), upstreamEnv+"=1")
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(b.Context(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cs.Close() })
	return cs
}

func benchGateway(b *testing.B) *mcp.ClientSession { return benchGatewayOn(b, apitest.Options{}) }

func benchGatewayOn(b *testing.B, o apitest.Options) *mcp.ClientSession {
	f := startWith(b, o)
	cr, gw := io.Pipe()
	gr, cw := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	b.Cleanup(cancel)
	go f.gw.ServeStdio(ctx, f.key, gr, gw)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(b.Context(), &mcp.IOTransport{Reader: cr, Writer: cw}, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cs.Close() })
	return cs
}

func benchCall(b *testing.B, cs *mcp.ClientSession, name string) {
	args := map[string]any{"text": "x"}
	b.ResetTimer()
	for b.Loop() {
		res, err := cs.CallTool(b.Context(), &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil || res.IsError {
			b.Fatalf("%v %v", res, err)
		}
	}
}

func benchList(b *testing.B, cs *mcp.ClientSession) {
	b.ResetTimer()
	for b.Loop() {
		if _, err := cs.ListTools(b.Context(), nil); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCallDirect(b *testing.B)  { benchCall(b, benchDirect(b), "echo") }
func BenchmarkCallGateway(b *testing.B) { benchCall(b, benchGateway(b), "t__echo") }

// BenchmarkCallGatewaySync is BenchmarkCallGateway on a ledger that
// fsyncs every 10ms instead of on every append ('ledger serve
// --sync-interval'): the two appends of a call (the recorded check and
// the effect) are most of its cost.
func BenchmarkCallGatewaySync(b *testing.B) {
	benchCall(b, benchGatewayOn(b, apitest.Options{SyncInterval: 10 * time.Millisecond}), "t__echo")
}
func BenchmarkListDirect(b *testing.B)  { benchList(b, benchDirect(b)) }
func BenchmarkListGateway(b *testing.B) { benchList(b, benchGateway(b)) }
