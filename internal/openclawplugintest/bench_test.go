package openclawplugintest

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sessionledger/ledger/internal/natslog"
)

// TestBenchScript runs the plugin's bench (integrations/openclaw-plugin/
// bench.mjs) for a few calls against a served ledger: it must run to its
// end, measure each of its four kinds (the plugin, a raw request, the
// plugin's requests by hand, a raw durable JetStream publish of a record
// the size of a call's tool.checked) and compose the floor it compares the
// plugin with (raw request + raw durable publish). No timing is asserted.
func TestBenchScript(t *testing.T) {
	Require(t)
	_, url, nc := servedLedger(t)
	oc := New(t)
	out, logs := oc.Script(t, nil, filepath.Join(PluginDir(), "bench.mjs"), "--nats", url, "--n", "20", "--warmup", "2", "--json", "--natsModule", NATSModule())
	var r struct {
		Plugin, Raw, Requests, Publish, Floor struct{ P50, P99 float64 }
		RecordBytes                           int     `json:"record_bytes"`
		Ratio                                 float64 `json:"ratio_plugin_floor_p50"`
		Target                                string
		PublishDurable                        *bool `json:"publish_durable"`
	}
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("bench.mjs --json printed %q: %v\n%s", out, err, logs)
	}
	for name, p := range map[string]float64{"plugin": r.Plugin.P50, "raw": r.Raw.P50, "requests": r.Requests.P50, "publish": r.Publish.P50} {
		if !(p > 0) {
			t.Errorf("%s p50 %v: not measured\n%s", name, p, out)
		}
	}
	if r.Floor.P50 != r.Raw.P50+r.Publish.P50 || !(r.Ratio > 0) || r.Target == "" {
		t.Errorf("floor %v, ratio %v, target %q: the floor is raw + publish and the ratio the plugin's over it\n%s", r.Floor.P50, r.Ratio, r.Target, out)
	}
	// The script tells whether its raw publish was durable: not on a server
	// started for group sync, which fsyncs no write itself.
	groupSync := strings.HasSuffix(nc.ConnectedServerName(), natslog.GroupSyncNameSuffix)
	switch {
	case r.PublishDurable == nil:
		t.Errorf("no publish_durable in the script's JSON\n%s", out)
	case *r.PublishDurable == groupSync:
		t.Errorf("publish_durable %v on a server named %q: want %v\n%s", *r.PublishDurable, nc.ConnectedServerName(), !groupSync, out)
	}
	// A tool.checked as the ledger stores it is a few hundred bytes.
	if r.RecordBytes < 200 || r.RecordBytes > 2000 {
		t.Errorf("the raw publish's record is %d bytes; want a call record's size\n%s", r.RecordBytes, out)
	}
}
