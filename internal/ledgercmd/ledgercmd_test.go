package ledgercmd

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestCommand(t *testing.T) {
	abs, err := filepath.Abs("d")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		c    Conn
		args []string
		want string
	}{
		{"nats", Conn{NATS: "nats://127.0.0.1:4222"}, []string{"--call", "c1"}, "ledger why --nats nats://127.0.0.1:4222 --call c1"},
		{"nats url user becomes --user, password dropped", Conn{NATS: "nats://alice:s3cret@h:4222"}, nil, "ledger why --nats nats://h:4222 --user alice"},
		{"nats token dropped", Conn{NATS: "nats://tok@h:4222"}, nil, "ledger why --nats nats://h:4222"},
		{"explicit user wins", Conn{NATS: "nats://alice:pw@h:4222", User: "bob"}, nil, "ledger why --nats nats://h:4222 --user bob"},
		{"creds and stream", Conn{NATS: "nats://h:1", Creds: "/c/a b.creds", Stream: "L2"}, nil, "ledger why --nats nats://h:1 --creds '/c/a b.creds' --stream L2"},
		{"default stream not printed", Conn{NATS: "nats://h:1", Stream: "LEDGER"}, nil, "ledger why --nats nats://h:1"},
		{"data made absolute", Conn{Data: "d"}, []string{"--record", "7"}, "ledger why --data " + abs + " --record 7"},
		{"data ignored beside nats", Conn{NATS: "nats://h:1", Data: "d"}, nil, "ledger why --nats nats://h:1"},
		{"scenario as given", Conn{Scenario: "../s.json", Data: "d"}, nil, "ledger why --scenario ../s.json"},
		{"log as given", Conn{Log: "l.jsonl"}, nil, "ledger why --log l.jsonl"},
		{"hostile words quoted", Conn{NATS: "nats://h:1"}, []string{"--tool", "x$(touch f);id"}, "ledger why --nats nats://h:1 --tool 'x$(touch f);id'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.c.Command("why", tt.args...); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

// TestRedactURL: no user or password of a NATS URL is printed, whether
// the URL names its scheme or not (nats.go reads user:pw@host:4222 as a
// nats:// URL), nor of one that does not parse.
func TestRedactURL(t *testing.T) {
	for in, want := range map[string]string{
		"nats://ledger-svc:PW@host:4222":                  "nats://host:4222",
		"ledger-svc:PW@host:4222":                         "host:4222",
		"tls://tok@h1:4222, ledger:PW@h2:4222":            "tls://h1:4222,h2:4222",
		"nats://127.0.0.1:4222":                           "nats://127.0.0.1:4222",
		"127.0.0.1:4222":                                  "127.0.0.1:4222",
		"nats://u:P%zzW@host:4222":                        "host:4222",
		"u:P W@host:4222":                                 "host:4222",
		"nats://host:4222,nats://u:secret@other:4222/x?y": "nats://host:4222,nats://other:4222/x?y",
	} {
		got := RedactURL(in)
		if got != want || strings.Contains(got, "PW") || strings.Contains(got, "secret") || strings.Contains(got, "tok") {
			t.Errorf("RedactURL(%q) = %q, want %q", in, got, want)
		}
	}
}
