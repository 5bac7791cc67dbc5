package projection_test

import (
	"os"
	"testing"
	"time"
)

// BenchmarkStoreCheck is Store.Check (bbolt's check of the pages and the
// content sum) of a store of 100,000 ledger sessions (33,333 workload
// sessions of three), with its pages in the page cache but not mapped, as
// at a start after the last stop. It reports the file's size and, once,
// how long folding and committing it took.
//
//	go test ./projection/ -run '^$' -bench BenchmarkStoreCheck -benchtime 3x
func BenchmarkStoreCheck(b *testing.B) {
	start := time.Now()
	st, _ := scaleStore(b, 33333)
	b.Logf("built in %s", time.Since(start).Round(time.Millisecond))
	fi, err := os.Stat(st.Path())
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if err := st.Check(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(fi.Size())/1e6, "file-MB")
}
