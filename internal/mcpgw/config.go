package mcpgw

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/sessionledger/ledger/events"
)

// Config is the gateway's configuration file (JSON; docs/mcp-gateway.md):
//
//	{"servers": {"fs": {"command": ["node", "server.js", "/srv"], "env": {"K": "V"}},
//	             "web": {"url": "http://127.0.0.1:8080/mcp"}},
//	 "session": {"from": "header", "header": "Ledger-Session"},
//	 "scope": "mcp:fs"}
type Config struct {
	// Servers are the upstream MCP servers by name; a name is also the
	// server part of every tool name the gateway exposes and asks the
	// ledger about.
	Servers map[string]ServerConfig `json:"servers"`
	// Session says how a downstream MCP session maps to a ledger session.
	Session SessionConfig `json:"session"`
	// Expose is how clients see the tool names: ExposePrefixed (the
	// default, "<server>__<tool>") or ExposeBare (the upstream's own
	// names; one server only), so that a client which prefixes names
	// itself, with its entry named as the server (Claude Code:
	// mcp__<entry>__<tool>), shows the ledger's own claude-code names.
	Expose string `json:"expose,omitempty"`
	// Scope is the ledger scope the sessions the gateway starts are bound
	// to (events.ValidScope); Scope says what wins when it is empty or a
	// flag names another.
	Scope string `json:"scope,omitempty"`
	// Clients, when not empty, are the only HTTP clients the gateway
	// serves, by name: each request must carry one's token ("Authorization:
	// Bearer TOKEN"), and a new MCP session may name only a ledger session
	// that client's Sessions allow. Empty, every client that reaches the
	// gateway is served, which 'ledger mcp --listen' allows on loopback
	// only, unless --insecure (CheckListen). Stdio has one client, the
	// process that started the gateway, and no tokens.
	Clients map[string]ClientConfig `json:"clients,omitempty"`
}

// ClientConfig is one HTTP client of the gateway (Config.Clients).
type ClientConfig struct {
	// Token is the client's secret, at least MinTokenLen characters of
	// [A-Za-z0-9._~+/=-] ('ledger mcp --gen-token' prints a new one).
	Token string `json:"token"`
	// Sessions are the ledger session keys the client may name: a key, a
	// prefix ending in "*" ("team-a-*"), or "*" for any session of the
	// gateway's owner.
	Sessions []string `json:"sessions"`
}

// MinTokenLen is the shortest client token the config takes.
const MinTokenLen = 32

// token is what a client token may hold: a bearer token's characters
// (RFC 6750's b64token).
var token = regexp.MustCompile(`^[A-Za-z0-9._~+/=-]+$`)

// allows reports whether the client may name session key.
func (c ClientConfig) allows(key events.SessionKey) bool {
	for _, p := range c.Sessions {
		if prefix, ok := strings.CutSuffix(p, "*"); ok && strings.HasPrefix(string(key), prefix) || p == string(key) {
			return true
		}
	}
	return false
}

// The ways of exposing tool names (Config.Expose).
const (
	ExposePrefixed = "prefixed"
	ExposeBare     = "bare"
)

// ServerConfig is one upstream: exactly one of Command (a stdio server the
// gateway starts, and restarts when it exits) and URL (a streamable-HTTP
// server).
type ServerConfig struct {
	Command []string          `json:"command,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	// Dir is the stdio server's working directory (default: the
	// gateway's).
	Dir string `json:"dir,omitempty"`
	URL string `json:"url,omitempty"`
}

// How a downstream session maps to a ledger session (SessionConfig.From).
const (
	// FromKey: one ledger session for the whole gateway, given on the
	// command line (--session); what a stdio gateway uses.
	FromKey = "key"
	// FromHeader: the ledger session key is an HTTP header of the
	// downstream client's requests (SessionConfig.Header).
	FromHeader = "header"
	// FromInitialize: the key is the SessionMeta entry of the _meta of
	// the client's initialize request (HTTP only: a stdio gateway takes
	// --session).
	FromInitialize = "initialize"
)

// SessionMeta is the initialize request's _meta entry FromInitialize
// reads the ledger session key from.
const SessionMeta = "sessionledger/session"

// DefaultHeader is the header FromHeader reads when the config names none.
const DefaultHeader = "Ledger-Session"

// SessionConfig maps downstream sessions to ledger sessions.
type SessionConfig struct {
	// From is FromKey, FromHeader or FromInitialize; empty means FromKey
	// for a stdio gateway and FromHeader for an HTTP one.
	From string `json:"from,omitempty"`
	// Header is the header FromHeader reads; default DefaultHeader.
	Header string `json:"header,omitempty"`
}

// serverName is what an upstream may be called: a name that cannot hold
// the "__" that separates server and tool in an exposed name
// (TestConfigRefuses).
var serverName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$`)

// clientName is what a client of Config.Clients may be called.
var clientName = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// ParseConfig decodes and checks a configuration: unknown fields, an
// upstream with neither or both of command and url, a server name that
// could not be told apart from its tools' names, two server names equal
// but for case (caseTwins), an unknown session
// mapping. Every problem is reported, sorted, in one error.
func ParseConfig(data []byte) (*Config, error) {
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	var c Config
	if err := dec.Decode(&c); err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	var probs []string
	if len(c.Servers) == 0 {
		probs = append(probs, "no servers")
	}
	for name, s := range c.Servers {
		probs = append(probs, checkServer(name, s)...)
	}
	probs = append(probs, caseTwins(c.Servers)...)
	tokens := map[string]string{} // token -> the client holding it
	for name, cl := range c.Clients {
		probs = append(probs, checkClient(name, cl, tokens)...)
	}
	probs = append(probs, checkSessionFrom(c.Session.From)...)
	if c.Expose == "" {
		c.Expose = ExposePrefixed
	}
	probs = append(probs, checkExpose(c.Expose, len(c.Servers))...)
	if c.Scope != "" && !events.ValidScope(c.Scope) {
		probs = append(probs, fmt.Sprintf("scope %q: a scope is 1 to 128 of [A-Za-z0-9_:-] (like \"mcp:fs\")", c.Scope))
	}
	if c.Session.Header == "" {
		c.Session.Header = DefaultHeader
	}
	if len(probs) > 0 {
		sort.Strings(probs)
		return nil, errors.New("config: " + strings.Join(probs, "; "))
	}
	return &c, nil
}

// checkServer reports the problems of upstream server name: its name, and
// having exactly one of command and url.
func checkServer(name string, s ServerConfig) []string {
	var probs []string
	if !serverName.MatchString(name) || strings.Contains(name, "__") || strings.HasSuffix(name, "_") {
		probs = append(probs, fmt.Sprintf("server %q: a name is 1 to 32 of [A-Za-z0-9_-], starting with a letter or digit, with no \"__\" and not ending in \"_\"", name))
	}
	switch {
	case len(s.Command) == 0 && s.URL == "":
		probs = append(probs, fmt.Sprintf("server %q: needs a command or a url", name))
	case len(s.Command) > 0 && s.URL != "":
		probs = append(probs, fmt.Sprintf("server %q: has both a command and a url", name))
	case s.URL != "":
		probs = append(probs, checkURLServer(name, s)...)
	case s.Command[0] == "":
		probs = append(probs, fmt.Sprintf("server %q: empty command", name))
	}
	return probs
}

// checkURLServer reports the problems of a streamable-HTTP server: a URL
// that is not http(s), and the command servers' env and dir.
func checkURLServer(name string, s ServerConfig) []string {
	var probs []string
	u, err := url.Parse(s.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		probs = append(probs, fmt.Sprintf("server %q: url %q is not an http(s) URL", name, s.URL))
	}
	if len(s.Env) > 0 || s.Dir != "" {
		probs = append(probs, fmt.Sprintf("server %q: env and dir are for command servers", name))
	}
	return probs
}

// checkClient reports the problems of client name: its name, its token
// (which no other client may share: tokens maps the tokens seen so far to
// their clients, and gains cl's), and its session patterns.
func checkClient(name string, cl ClientConfig, tokens map[string]string) []string {
	var probs []string
	if !clientName.MatchString(name) {
		probs = append(probs, fmt.Sprintf("client %q: a name is 1 to 64 of [A-Za-z0-9_-]", name))
	}
	switch {
	case len(cl.Token) < MinTokenLen || !token.MatchString(cl.Token):
		probs = append(probs, fmt.Sprintf("client %q: a token is at least %d of [A-Za-z0-9._~+/=-] (make one with ledger mcp --gen-token)", name, MinTokenLen))
	case tokens[cl.Token] != "":
		probs = append(probs, fmt.Sprintf("clients %q and %q have the same token", min(name, tokens[cl.Token]), max(name, tokens[cl.Token])))
	default:
		tokens[cl.Token] = name
	}
	if len(cl.Sessions) == 0 {
		probs = append(probs, fmt.Sprintf("client %q: no sessions (name the keys it may use, prefixes ending in \"*\", or \"*\")", name))
	}
	for _, p := range cl.Sessions {
		if k := strings.TrimSuffix(p, "*"); p != "*" && !validKey(events.SessionKey(k)) {
			probs = append(probs, fmt.Sprintf("client %q: session %q is not a key or a prefix ending in \"*\"", name, p))
		}
	}
	return probs
}

// checkSessionFrom reports a session.from that is none of the mappings.
func checkSessionFrom(from string) []string {
	switch from {
	case "", FromKey, FromHeader, FromInitialize:
		return nil
	}
	return []string{fmt.Sprintf("session.from %q: use %q, %q or %q", from, FromHeader, FromInitialize, FromKey)}
}

// checkExpose reports an unknown expose, and a bare one over more or
// fewer than one server (bare names could not tell servers apart).
func checkExpose(expose string, servers int) []string {
	switch expose {
	case ExposePrefixed:
		return nil
	case ExposeBare:
		if servers != 1 {
			return []string{fmt.Sprintf("expose %q: needs exactly one server (it has %d)", ExposeBare, servers)}
		}
		return nil
	}
	return []string{fmt.Sprintf("expose %q: use %q or %q", expose, ExposePrefixed, ExposeBare)}
}

// caseTwins reports the server names that differ only in case: an openclaw
// policy lower-cases tool names (LedgerName), so "EV__ok" and "ev__ok"
// would be one ledger tool, checked and recorded as one whichever server
// ran it (TestConfigRefuses).
func caseTwins(servers map[string]ServerConfig) []string {
	byLower := map[string][]string{}
	for name := range servers {
		l := strings.ToLower(name)
		byLower[l] = append(byLower[l], name)
	}
	var probs []string
	for _, names := range byLower {
		if len(names) < 2 {
			continue
		}
		sort.Strings(names)
		quoted := make([]string, len(names))
		for i, n := range names {
			quoted[i] = fmt.Sprintf("%q", n)
		}
		list := strings.Join(quoted[:len(quoted)-1], ", ") + " and " + quoted[len(quoted)-1]
		probs = append(probs, fmt.Sprintf("servers %s differ only in case: under an openclaw policy (which lower-cases tool names) their tools would be one; rename all but one", list))
	}
	return probs
}

// LoadConfig reads and checks a configuration file.
func LoadConfig(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	c, err := ParseConfig(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// DefaultScope is the scope of a gateway whose flags and config name
// none: "mcp:" and the config file's base name without its extension,
// every character outside [A-Za-z0-9_-] made "-" and leading dots
// dropped, cut to fit 128 characters; "mcp:gateway" when nothing is left
// (TestScope). So /etc/ledger/fs.json gives "mcp:fs", and two gateways
// run from one config file share a scope.
func DefaultScope(configPath string) string {
	base := ""
	if configPath != "" {
		base = filepath.Base(configPath)
		base = strings.TrimSuffix(base, filepath.Ext(base))
	}
	base = strings.TrimLeft(base, ".")
	base = strings.Map(func(r rune) rune {
		if 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '_' || r == '-' {
			return r
		}
		return '-'
	}, base)
	if len(base) > 128-len("mcp:") {
		base = base[:128-len("mcp:")]
	}
	if strings.Trim(base, "-") == "" {
		base = "gateway"
	}
	return "mcp:" + base
}

// ScopeOf is the scope of a gateway run with config c, read from
// configPath, and the --scope flag: the flag when given (one config file
// can serve gateways of different scopes), else the config's "scope",
// else DefaultScope(configPath). A flag that is not a scope name is an
// error.
func ScopeOf(flag string, c *Config, configPath string) (string, error) {
	switch {
	case flag != "":
		if !events.ValidScope(flag) {
			return "", fmt.Errorf("scope %q: a scope is 1 to 128 of [A-Za-z0-9_:-] (like \"mcp:fs\")", flag)
		}
		return flag, nil
	case c != nil && c.Scope != "":
		return c.Scope, nil
	}
	return DefaultScope(configPath), nil
}

// names returns the server names in order.
func (c *Config) names() []string { return sortedKeys(c.Servers) }

// sortedKeys returns the keys of m in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
