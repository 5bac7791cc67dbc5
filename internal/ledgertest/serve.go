package ledgertest

import (
	"context"
	"net"
	"net/http"
	"testing"
	"time"
)

// ServeHTTP serves h on 127.0.0.1 until the test ends, when the server is
// shut down (requests under way get up to 5 s) and its goroutine waited
// for; it returns the address it listens on.
func ServeHTTP(t testing.TB, h http.Handler) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen on loopback: %v", err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = srv.Serve(ln)
	}()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
		<-done
	})
	return ln.Addr().String()
}
