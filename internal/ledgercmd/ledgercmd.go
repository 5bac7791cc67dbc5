// Package ledgercmd renders the ledger commands the ledger prints for a
// person to run (the `ledger why` of a denial, a report's trace, a CLI
// hint) with the flags that reach the ledger that printed them, so that a
// command pasted as printed answers from that same ledger, never from the
// default ./ledger-data (which a read command refuses as holding no
// ledger) nor from an empty one.
//
// Every word is quoted with internal/shellquote. No secret is printed: a
// NATS URL's user info is dropped (its user name becomes --user) and a
// password never appears; a command that needs one takes it from
// NATS_PASSWORD, as every ledger command does.
package ledgercmd

import (
	"net/url"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/sessionledger/ledger/internal/shellquote"
)

// DefaultStream is the stream a command reads when it names none.
const DefaultStream = "LEDGER"

// Conn is where a ledger is: the flags a printed command needs to reach it.
// The zero value is the default place (./ledger-data), which no printer
// should claim unless it read from there.
type Conn struct {
	// NATS is the server URL (a comma-separated list): --nats.
	NATS string
	// Creds is a NATS credentials file: --creds.
	Creds string
	// User is the NATS user: --user. A URL's user is used when it is "".
	User string
	// Stream is the stream name: --stream, printed when it is not LEDGER.
	Stream string
	// Data is the data directory of an embedded ledger: --data, printed
	// (made absolute) only without NATS: against a server a read command
	// folds the log itself, and a served replica's projection file is
	// held by that replica.
	Data string
	// Scenario and Log are what a command read instead of a ledger: a
	// scenario file (--scenario) or a log file (--log), printed as given
	// (so that a command printed from a scenario in a test reads the
	// same on every machine) and before anything else.
	Scenario, Log string
}

// Flags are the connection flags of c, in a fixed order.
func (c Conn) Flags() []string {
	var out []string
	switch {
	case c.Scenario != "":
		return []string{"--scenario", c.Scenario}
	case c.Log != "":
		return []string{"--log", c.Log}
	}
	user := c.User
	if c.NATS != "" {
		out = append(out, "--nats", RedactURL(c.NATS))
		if user == "" {
			user = urlUser(c.NATS)
		}
	} else if c.Data != "" {
		d := c.Data
		if abs, err := filepath.Abs(d); err == nil {
			d = abs
		}
		out = append(out, "--data", d)
	}
	if c.Creds != "" {
		out = append(out, "--creds", c.Creds)
	}
	if user != "" {
		out = append(out, "--user", user)
	}
	if c.Stream != "" && c.Stream != DefaultStream {
		out = append(out, "--stream", c.Stream)
	}
	return out
}

// Command is `ledger SUB` with c's flags and then args, as one shell
// command line.
// WhyArgs are the arguments of the `ledger why` that explains one
// recorded call: its record's sequence, which names that very record
// (--call alone names the call's last record: a retried call's later
// allow), with the call's id beside it when it has one, which why checks
// (cmd/ledger TestPrintedWhySelectsTheRecord).
func WhyArgs(call string, seq uint64) []string {
	rec := strconv.FormatUint(seq, 10)
	if call != "" {
		return []string{"--call", call, "--record", rec}
	}
	return []string{"--record", rec}
}

func (c Conn) Command(sub string, args ...string) string {
	return shellquote.Join(c.Words(sub, args...)...)
}

// Words are Command's words, unquoted.
func (c Conn) Words(sub string, args ...string) []string {
	words := append([]string{"ledger"}, strings.Fields(sub)...)
	words = append(words, c.Flags()...)
	return append(words, args...)
}

// RedactURL drops the user and password from NATS URLs (a comma-separated
// list), which the ledger prints where others read them: a URL with no
// scheme too (user:pw@host:4222, which nats.go reads as nats://), and a
// part that does not parse is cut after its last '@'
// (TestRedactURL).
func RedactURL(s string) string {
	parts := strings.Split(s, ",")
	for i, p := range parts {
		p = strings.TrimSpace(p)
		bare := !strings.Contains(p, "://")
		in := p
		if bare {
			in = "nats://" + p
		}
		u, err := url.Parse(in)
		switch {
		case err == nil && u.User != nil:
			u.User = nil
			out := u.String()
			if bare {
				out = strings.TrimPrefix(out, "nats://")
			}
			parts[i] = out
		case err != nil && strings.Contains(p, "@"):
			parts[i] = p[strings.LastIndexByte(p, '@')+1:]
		}
	}
	return strings.Join(parts, ",")
}

// urlUser is the user name the first URL of s that names one gives (a
// token alone, with no password, is a secret: "").
func urlUser(s string) string {
	for _, p := range strings.Split(s, ",") {
		u, err := url.Parse(strings.TrimSpace(p))
		if err != nil || u.User == nil {
			continue
		}
		if _, hasPass := u.User.Password(); hasPass {
			return u.User.Username()
		}
		return ""
	}
	return ""
}
