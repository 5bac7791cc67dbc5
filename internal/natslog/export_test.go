package natslog

import "context"

// RollNow rolls the log's live segment, due or not: for tests of writers
// racing to roll.
func (l *Log) RollNow(ctx context.Context) error { return l.roll(ctx, l.live()) }

// LiveDiffers reports whether the live segment's settings are not those
// the log was opened with (then Open would update it).
func (l *Log) LiveDiffers(ctx context.Context) (bool, error) {
	seg := l.live()
	info, err := seg.stream.Info(ctx)
	if err != nil {
		return false, err
	}
	return differs(info.Config, l.streamConfig(seg.n, seg.base)), nil
}

// IsGroupSyncServer is isGroupSyncServer, for TestGroupSyncServerNames.
var IsGroupSyncServer = isGroupSyncServer

// SetMaxSyncRequests sets maxSyncRequests for a test and returns a func
// that puts it back.
func SetMaxSyncRequests(n int) func() {
	old := maxSyncRequests
	maxSyncRequests = n
	return func() { maxSyncRequests = old }
}

// AsksForSync is asksForSync, for TestGroupSyncWhenDisconnected.
func (l *Log) AsksForSync() bool { return l.asksForSync() }
