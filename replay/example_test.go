package replay_test

import (
	"context"
	"fmt"

	"github.com/sessionledger/ledger/internal/dialects"
	"github.com/sessionledger/ledger/internal/service"
	"github.com/sessionledger/ledger/internal/workload"
	"github.com/sessionledger/ledger/replay"
)

// Verify replays a log, decides every recorded event again and reports any
// decision that newer code would make differently.
func ExampleVerify() {
	ctx := context.Background()
	log := &service.MemLog{}
	svc, _ := service.Open(ctx, service.Config{Log: log, Dialects: dialects.All()})
	for _, ev := range workload.Sessions(3) {
		if _, err := svc.Append(ctx, ev); err != nil {
			fmt.Println(err)
		}
	}
	_, rep, err := replay.Verify(ctx, log, dialects.All(), nil)
	fmt.Println(rep.Records, rep.DriftCount, err)
	// Output:
	// 40 0 <nil>
}
