package bench

import (
	"os"
	"testing"
	"time"
)

// TestPidCPUReadsThisProcess: pidCPU of this process agrees with
// getrusage's figure to within a tick or two, and grows with work.
func TestPidCPUReadsThisProcess(t *testing.T) {
	before, ok := pidCPU(os.Getpid())
	if !ok {
		t.Fatal("no CPU time read from /proc for this process")
	}
	// Spin until getrusage says this process used 200 ms more (on a
	// loaded machine that takes longer than 200 ms of wall time).
	r0, _ := processCPU()
	for start := time.Now(); time.Since(start) < 20*time.Second; {
		if r, _ := processCPU(); r-r0 >= 200*time.Millisecond {
			break
		}
	}
	after, ok := pidCPU(os.Getpid())
	self, ok2 := processCPU()
	if !ok || !ok2 {
		t.Fatal("no CPU time read")
	}
	if after-before < 100*time.Millisecond {
		t.Errorf("pidCPU grew by %v over 200 ms of CPU spent spinning", after-before)
	}
	if d := self - after; d < -50*time.Millisecond || d > 50*time.Millisecond {
		t.Errorf("pidCPU %v, getrusage %v", after, self)
	}
	if _, ok := pidCPU(1 << 30); ok {
		t.Error("pidCPU read a process that cannot exist")
	}
}
