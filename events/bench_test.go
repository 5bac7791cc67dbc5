package events

import (
	"encoding/json"
	"testing"
)

// The benchmarks run on the two events the append path sees most: a
// tool.checked with an input object and a turn.started, each as a caller
// sends it and as the record the ledger stores (taken from the replay
// golden records, with decided as projection encodes it: struct order).

var benchEvents = []struct {
	name  string
	event string // as a caller sends it
	rec   Record // as the ledger makes it
}{
	{
		name:  "tool.checked",
		event: `{"type":"tool.checked","v":1,"actor":"orchestrator","session":"agent:coder:subagent:w17-c","data":{"turn":3,"tool":"exec","call":"call_7f3a9c2e","input":{"command":"go test ./... -run TestAppend -count 1","cwd":"/work/main","timeout":120,"env":{"GOFLAGS":"-mod=mod"}}}}`,
		rec: Record{
			ID: "01KDVDNA05T7MHW00PF4WWPSMM", Type: ToolChecked, V: 1, Time: "2026-01-01T00:00:00.005Z",
			Session: "agent:coder:subagent:w17-c", Actor: "orchestrator",
			Data:    json.RawMessage(`{"turn":3,"tool":"exec","call":"call_7f3a9c2e","input":{"command":"go test ./... -run TestAppend -count 1","cwd":"/work/main","timeout":120,"env":{"GOFLAGS":"-mod=mod"}}}`),
			Decided: json.RawMessage(`{"decision":"allow","reason":{"code":"permission:allow","record":{"id":"01KDVDNA04RS4R31ATV1M1T3C6","seq":4,"type":"grant.added"},"rule":"permissions.allow: \"Bash(make)\""},"revision":1,"envelope_hash":"sha256:5679526c74da24b7acf56cbe8564baf2f9aa54fdaa0a1cb3632d81e6f66cf094","seq":5,"prev":"sha256:0005093487d54c492d71a4e37e2dd7b2e4ab386200aec276a225ffcc9340f816"}`),
		},
	},
	{
		name:  "turn.started",
		event: `{"type":"turn.started","v":1,"actor":"orchestrator","session":"agent:main:w17","data":{"turn":2,"sender":"telegram:alice"}}`,
		rec: Record{
			ID: "01KDVDNA03RS4R31ATV1M1T3C6", Type: TurnStarted, V: 1, Time: "2026-01-01T00:00:00.003Z",
			Session: "agent:main:w17", Actor: "orchestrator",
			Data:    json.RawMessage(`{"turn":2,"sender":"telegram:alice"}`),
			Decided: json.RawMessage(`{"policy_source":"current_request","tool_set_hash":"sha256:d05d314c7f6db74506f69a62ed50a21377d9f1e03e485e04a8a197069f097531","seq":4,"prev":"sha256:0005093487d54c492d71a4e37e2dd7b2e4ab386200aec276a225ffcc9340f816"}`),
		},
	},
}

func BenchmarkParse(b *testing.B) {
	for _, be := range benchEvents {
		raw := []byte(be.event)
		b.Run(be.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(raw)))
			for b.Loop() {
				if _, err := Parse(raw); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkCheckJSON(b *testing.B) {
	for _, be := range benchEvents {
		raw := []byte(be.event)
		b.Run(be.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(raw)))
			for b.Loop() {
				if err := CheckJSON(raw); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkCanonicalJSON canonicalizes a record as json.Marshal writes it
// (fields in struct order, so every object needs sorting).
func BenchmarkCanonicalJSON(b *testing.B) {
	for _, be := range benchEvents {
		raw, err := json.Marshal(&be.rec)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(be.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(raw)))
			for b.Loop() {
				if _, err := CanonicalJSON(raw); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkRecordEncode(b *testing.B) {
	for _, be := range benchEvents {
		rec := be.rec
		b.Run(be.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := rec.Encode(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkDecodeRecord decodes stored (canonical) records, the first step
// of every record a projection rebuild folds.
func BenchmarkDecodeRecord(b *testing.B) {
	for _, be := range benchEvents {
		raw, err := be.rec.Encode()
		if err != nil {
			b.Fatal(err)
		}
		b.Run(be.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(raw)))
			for b.Loop() {
				if _, err := DecodeRecord(raw); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkPayload decodes the data of the events the projection prepares
// and folds most, as Payload is called twice for each.
func BenchmarkPayload(b *testing.B) {
	for _, ev := range []Event{
		{Type: TurnStarted, Data: benchEvents[1].rec.Data},
		{Type: ToolChecked, Data: benchEvents[0].rec.Data},
		{Type: SessionSpawned, Data: json.RawMessage(`{"parent":"agent:main:w17","agent":"coder","label":"w17-c","sandboxed":true,"tools":["read","exec","write"]}`)},
	} {
		b.Run(string(ev.Type), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(ev.Data)))
			for b.Loop() {
				if _, err := ev.Payload(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
