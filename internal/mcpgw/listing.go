package mcpgw

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"time"
)

// ListingPath ends the URL of the gateway's listing: a GET of the MCP
// endpoint's URL followed by it (http://127.0.0.1:8931/mcp/catalogue)
// answers Listing. Claude Code's hook reads it to know the tools its
// project's ledger gateway can show, whatever a session's policy allows
// (docs/claude-code-hooks.md, MCP tools).
const ListingPath = "/catalogue"

// ListingFormat names the listing's JSON form; a change to it is a new
// format, so that a hook never reads one it does not know.
const ListingFormat = "ledger-mcp-catalogue/1"

// Listing is every upstream tool the gateway can forward, before any
// policy: what a catalogue needs, not what a session may use (tools/list
// answers that).
type Listing struct {
	Format string `json:"format"`
	// Expose is the config's expose mode (ExposePrefixed or ExposeBare).
	Expose string `json:"expose"`
	// Tools are in server then tool order.
	Tools []ListedTool `json:"tools"`
	// Unlisted are the servers that could not be listed, in config order:
	// their tools are unknown, so the listing is not complete.
	Unlisted []UnlistedServer `json:"unlisted,omitempty"`
}

// ListedTool is one upstream tool: its server, its own name, and the name
// the gateway's clients see (Exposed, or the tool itself with "bare").
type ListedTool struct {
	Server  string `json:"server"`
	Tool    string `json:"tool"`
	Exposed string `json:"exposed"`
}

// UnlistedServer is a server the gateway could not list, and why.
type UnlistedServer struct {
	Server string `json:"server"`
	Error  string `json:"error"`
}

// listingTimeout bounds listing the upstreams for one listing request.
const listingTimeout = 10 * time.Second

// Listing lists every upstream (the last list kept for one that is down).
func (g *Gateway) Listing(ctx context.Context) Listing {
	out := Listing{Format: ListingFormat, Expose: g.cfg.Expose, Tools: []ListedTool{}}
	for _, name := range g.order {
		tools, err := g.ups[name].listTools(ctx)
		if err != nil {
			out.Unlisted = append(out.Unlisted, UnlistedServer{Server: name, Error: err.Error()})
			continue
		}
		for _, t := range tools {
			out.Tools = append(out.Tools, ListedTool{Server: name, Tool: t.Name, Exposed: g.exposed(name, t.Name)})
		}
	}
	return out
}

// isListing reports whether r asks for the listing.
func isListing(r *http.Request) bool {
	return r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, ListingPath)
}

// serveListing answers the listing to a client the config allows (any,
// without clients). It names no session, so it needs none.
func (g *Gateway) serveListing(w http.ResponseWriter, r *http.Request) {
	if _, ok := g.authorize(w, r, ""); !ok {
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), listingTimeout)
	defer cancel()
	b, err := json.Marshal(g.Listing(ctx))
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write(append(b, '\n'))
}
