package hostile

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/wire"
)

// TestBatchAppendHostile sends the API batch appends (JSON arrays) of
// hostile events: each element is refused in its place with a code and a
// message, nothing is written, and arrays that are not a batch are
// refused whole.
func TestBatchAppendHostile(t *testing.T) {
	t.Parallel()
	l := startAPI(t)
	loadFixture(t, l, fixture(openclaw))
	const subject = "ledger.v1.append.acme"
	elements := []string{
		`{"type":"turn.started"}`,
		`[{"type":"turn.started","v":1,"session":"agent:main:main","data":{"turn":2}}]`,
		`"turn.started"`, `42`, `null`, `true`, `{}`, "\"\xff\"",
		"{\"type\":\"turn.started\",\"v\":1,\"session\":\"agent:main:\xff\",\"data\":{\"turn\":2}}",
		`{"type":"policy.set","v":1,"data":{}}`,
		`{"type":"turn.started","v":1,"session":"agent:main:main","actor":"globex","data":{"turn":2}}`,
		`{"type":"turn.started","v":1,"session":"agent:main:main","data":{"turn":2},"extra":1}`,
		`{"type":"turn.started","v":1,"session":"agent main","data":{"turn":2}}`,
		`{"type":"turn.started","v":1,"session":"agent:main:main","data":{"turn":"2"}}`,
	}
	before := l.head(t)
	r := l.request(t, subject, []byte("["+strings.Join(elements, ",")+"]"))
	if r.code != "" {
		t.Fatalf("the batch was refused whole: %s %s", r.code, r.message)
	}
	var outs []wire.AppendOutcome
	if err := json.Unmarshal(r.body, &outs); err != nil || len(outs) != len(elements) {
		t.Fatalf("%d outcomes for %d elements (%v): %s", len(outs), len(elements), err, r.body)
	}
	for i, o := range outs {
		if o.Error == nil || o.Error.Code == "" || o.Error.Message == "" || o.Seq != 0 {
			t.Errorf("element %d (%s): %+v, want a refusal with a code and a message", i, elements[i], o)
		}
	}
	if after := l.head(t); after != before {
		t.Errorf("the head moved from %d to %d", before, after)
	}

	// Not a batch: refused whole, with invalid_event.
	for _, body := range []string{`[]`, `[`, `[{"type":"turn.started"},]`, `[1] [2]`,
		"[" + strings.Repeat(`1,`, wire.MaxBatchEvents) + "1]"} {
		r := l.request(t, subject, []byte(body))
		if r.code != events.CodeInvalidEvent || r.message == "" {
			t.Errorf("%.30q: %q %q, want invalid_event with a message", body, r.code, r.message)
		}
	}
	if after := l.head(t); after != before {
		t.Errorf("the head moved from %d to %d", before, after)
	}
}
