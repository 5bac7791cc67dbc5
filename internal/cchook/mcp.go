package cchook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/sessionledger/ledger/internal/safefile"
)

// The MCP tools of a project, for the hook's catalogue (issue 26, point 5).
//
// Claude Code names a tool of the MCP server its config calls S "mcp__S__T"
// (S and T with every character outside [A-Za-z0-9_-] made "_"). The
// catalogue of a policy the hook installs holds Claude Code's built-in
// tools and, for every MCP server Claude Code loads for the project
// (ReadMCPServers: .mcp.json, and the user's and local servers of
// ~/.claude.json) that is a 'ledger mcp' gateway reached over HTTP, the tools the gateway's listing
// (mcpgw.Listing, a GET of its URL followed by "/catalogue") names: the
// name Claude Code gives each one, and the gateway's own claude-code name
// for it ("mcp__<upstream>__<tool>", the name its tools/list and its
// checks use). The listing is read when the hook imports the project's
// policy (a session's start, a prompt), never at a call, and the result is
// recorded in the policy.set's catalogue: the fold reads only that record.
// Any other server (stdio, or an HTTP one that is not a gateway, or a
// gateway that cannot be reached) adds nothing and is named in a warning:
// its tools stay unknown to the ledger (catalogue:unknown, denied), which
// the denial says how to fix.

// mcpJSON is the project's MCP configuration file, in its directory.
const mcpJSON = ".mcp.json"

// maxMCPJSON bounds .mcp.json; maxListing bounds one gateway's listing.
const (
	maxMCPJSON = 1 << 20
	maxListing = 8 << 20
)

// listingFormat is mcpgw.ListingFormat (the hook does not import the
// gateway: its binary stays slim; TestListingFormatAgrees keeps the two
// equal).
const listingFormat = "ledger-mcp-catalogue/1"

// listingTimeout bounds one gateway's listing.
const listingTimeout = 2 * time.Second

// MCPServer is one server of a project's .mcp.json, as far as the hook
// reads it.
type MCPServer struct {
	Name    string            `json:"-"`
	Type    string            `json:"type"`
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers"`
	Command string            `json:"command"`
}

// maxClaudeJSON bounds the user's .claude.json, which also keeps Claude
// Code's per-project state.
const maxClaudeJSON = 32 << 20

// ClaudeJSON is where Claude Code keeps the user's and the local MCP
// servers: $CLAUDE_CONFIG_DIR/.claude.json, else ~/.claude.json ("" when
// there is no home).
func ClaudeJSON(home string) string {
	if d := os.Getenv("CLAUDE_CONFIG_DIR"); d != "" {
		return filepath.Join(d, ".claude.json")
	}
	if home == "" {
		return ""
	}
	return filepath.Join(home, ".claude.json")
}

// ReadMCPServers reads the MCP servers Claude Code loads for the project
// at dir, sorted by name: the user's (claudeJSON's "mcpServers"), the
// project's (dir/.mcp.json) and the local ones (claudeJSON's
// "projects"[dir]."mcpServers"), a server of a later scope replacing one
// of the same name (CLI 2.1.328 loads all three in -p mode). A missing
// file holds none; claudeJSON "" is not read.
func ReadMCPServers(dir, claudeJSON string) ([]MCPServer, error) {
	read := func(name string, limit int64, v any) error {
		b, err := safefile.ReadFile(name, limit)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if err := json.Unmarshal(b, v); err != nil {
			return fmt.Errorf("%s is not an MCP configuration: %v", name, err)
		}
		return nil
	}
	var user struct {
		Servers  map[string]MCPServer `json:"mcpServers"`
		Projects map[string]struct {
			Servers map[string]MCPServer `json:"mcpServers"`
		} `json:"projects"`
	}
	if claudeJSON != "" {
		if err := read(claudeJSON, maxClaudeJSON, &user); err != nil {
			return nil, err
		}
	}
	var project struct {
		Servers map[string]MCPServer `json:"mcpServers"`
	}
	if err := read(filepath.Join(dir, mcpJSON), maxMCPJSON, &project); err != nil {
		return nil, err
	}
	all := map[string]MCPServer{}
	for _, scope := range []map[string]MCPServer{user.Servers, project.Servers, user.Projects[dir].Servers} {
		for n, s := range scope {
			s.Name = n
			all[n] = s
		}
	}
	out := make([]MCPServer, 0, len(all))
	for _, s := range all {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// mcpNamePart is what Claude Code keeps of a server or tool name in
// "mcp__S__T": A-Z a-z 0-9 _ -, every other character (each rune) made
// "_". (No regular expression: the hook's packages compile nothing at
// start-up, docs/claude-code-hooks.md.)
func mcpNamePart(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' || r == '-' {
			return r
		}
		return '_'
	}, s)
}

// ClaudeMCPName is the name Claude Code gives tool of the server its
// configuration names server.
func ClaudeMCPName(server, tool string) string {
	return "mcp__" + mcpNamePart(server) + "__" + mcpNamePart(tool)
}

// envRef is a ${VAR} or ${VAR:-default} in an MCP configuration, compiled
// at its first use.
var envRef = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}`)
})

// expandEnv expands s as Claude Code expands a URL or header of
// .mcp.json: ${VAR} from the environment (hooks inherit Claude Code's),
// ${VAR:-default}; an unset ${VAR} is kept as written (CLI 2.1.328).
func expandEnv(s string, env func(string) (string, bool)) string {
	re := envRef()
	return re.ReplaceAllStringFunc(s, func(m string) string {
		sub := re.FindStringSubmatch(m)
		if v, ok := env(sub[1]); ok {
			return v
		}
		if strings.Contains(m, ":-") {
			return sub[2]
		}
		return m
	})
}

// MCPTools returns the catalogue names of the tools of the MCP servers
// Claude Code loads for the project at dir (ReadMCPServers, with the
// user's claudeJSON; sorted, each once) and a warning for every server
// whose tools it could not learn. get performs one HTTP request (nil: a
// client of its own, with no proxy); env reads the environment (nil: os).
func MCPTools(ctx context.Context, dir, claudeJSON string, get func(*http.Request) (*http.Response, error), env func(string) (string, bool)) ([]string, []string) {
	servers, err := ReadMCPServers(dir, claudeJSON)
	if err != nil {
		return nil, []string{fmt.Sprintf("the project's MCP servers were not read, so their tools are unknown to the ledger (denied catalogue:unknown): %v", err)}
	}
	if get == nil {
		get = (&http.Client{Transport: &http.Transport{Proxy: nil}, CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		}}).Do
	}
	if env == nil {
		env = os.LookupEnv
	}
	var names, warns []string
	for _, s := range servers {
		got, err := listServer(ctx, s, get, env)
		if err != nil {
			what := "the tools"
			if len(got) > 0 {
				what = "some tools"
			}
			warns = append(warns, fmt.Sprintf("%s of MCP server %q are unknown to the ledger, so their calls are denied (catalogue:unknown): %v", what, s.Name, err))
		}
		names = append(names, got...)
	}
	sort.Strings(names)
	return slices.Compact(names), warns
}

// listServer is the catalogue names of one server's tools: those of a
// ledger gateway's listing, under Claude Code's name and the gateway's.
// With an error it may return the tools it did learn (a gateway that
// listed some of its upstreams).
func listServer(ctx context.Context, s MCPServer, get func(*http.Request) (*http.Response, error), env func(string) (string, bool)) ([]string, error) {
	if s.Type != "http" || s.URL == "" {
		what := "a stdio server"
		if s.Type != "" && s.Type != "stdio" {
			what = "a server of type " + s.Type
		}
		return nil, fmt.Errorf("it is %s: the hook lists only 'ledger mcp' gateways reached over HTTP (\"type\": \"http\"); put the server behind one, or give the hook --catalogue FILE naming its tools as mcp__%s__TOOL with Claude Code's built-in ones", what, s.Name)
	}
	raw := expandEnv(s.URL, env)
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("its url %q is not an http(s) URL", raw)
	}
	u.Path = strings.TrimSuffix(u.Path, "/") + "/catalogue"
	ctx, cancel := context.WithTimeout(ctx, listingTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	for k, v := range s.Headers {
		req.Header.Set(k, expandEnv(v, env))
	}
	res, err := get(req)
	if err != nil {
		return nil, fmt.Errorf("its listing could not be read (is the gateway running?): %v", err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(io.LimitReader(res.Body, maxListing+1))
	switch {
	case err != nil:
		return nil, fmt.Errorf("its listing could not be read: %v", err)
	case len(b) > maxListing:
		return nil, fmt.Errorf("its listing at %s is over %d bytes", u, maxListing)
	case res.StatusCode != http.StatusOK:
		return nil, fmt.Errorf("GET %s answered %s: it is not a 'ledger mcp' gateway (or refused the hook's headers); put the server behind one, or give the hook --catalogue FILE naming its tools as mcp__%s__TOOL with Claude Code's built-in ones", u, res.Status, s.Name)
	}
	var l struct {
		Format string `json:"format"`
		Tools  []struct {
			Server, Tool, Exposed string
		} `json:"tools"`
		Unlisted []struct {
			Server, Error string
		} `json:"unlisted"`
	}
	if err := json.Unmarshal(b, &l); err != nil || l.Format != listingFormat {
		return nil, fmt.Errorf("GET %s answered no listing of format %s: it is not a 'ledger mcp' gateway of this release", u, listingFormat)
	}
	var out []string
	for _, x := range l.Tools {
		if x.Server == "" || x.Tool == "" || x.Exposed == "" {
			return nil, fmt.Errorf("GET %s answered a tool with no server, name or exposed name", u)
		}
		out = append(out, ClaudeMCPName(s.Name, x.Exposed), "mcp__"+x.Server+"__"+x.Tool)
	}
	if len(l.Unlisted) > 0 {
		var down []string
		for _, x := range l.Unlisted {
			down = append(down, fmt.Sprintf("%s (%s)", x.Server, x.Error))
		}
		return out, fmt.Errorf("the gateway could not list its upstream %s: the tools of those are unknown to the ledger until a prompt after they are back", strings.Join(down, ", "))
	}
	return out, nil
}
