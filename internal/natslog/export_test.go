package natslog

import "context"

// RollNow rolls the log's live segment, due or not: for tests of writers
// racing to roll.
func (l *Log) RollNow(ctx context.Context) error { return l.roll(ctx, l.live()) }
