package claudecodetest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/sessionledger/ledger/internal/ledgertest"
)

// Block is one content block a scripted model turn returns: text, or a
// tool_use when Tool is set.
type Block struct {
	Text  string
	Tool  string
	Input map[string]any
	// ID is the tool_use id; the server makes one when it is empty. Ids
	// must be unique within a run (the CLI keys results by them).
	ID string
}

// Turn is one scripted model response: its blocks, in order. A turn with a
// tool_use block stops with stop_reason "tool_use", any other with
// "end_turn".
type Turn []Block

// Scripts maps a script name to its turns. The main thread follows the
// script "main"; a sub-agent follows the script its first user message
// names as "script:NAME". A conversation past its script's last turn, or
// one that names no known script, gets a final text turn ("done").
type Scripts map[string][]Turn

// ToolResult is one tool_result block the CLI sent back to the model.
type ToolResult struct {
	ToolUseID string `json:"tool_use_id"`
	Content   string `json:"content"`
	IsError   bool   `json:"is_error"`
}

// Issued is one tool_use block the server sent, with the script and turn
// it belongs to.
type Issued struct {
	Script string
	Turn   int
	Block
}

// Request is what the server recorded of one Messages API request.
type Request struct {
	// Script is the script the request followed ("" when none matched).
	Script string
	// Turn is which turn of its script the request asks for: the number
	// of assistant messages since the script was named.
	Turn int
	// Tools are the names in the request's tools, in the order sent.
	Tools []string
	// Deferred are the tool names the system text lists as deferred
	// (available through ToolSearch).
	Deferred []string
	// AgentTypes are the agent types the request's text lists for the
	// Agent tool.
	AgentTypes []string
	// Results are the tool_result blocks of the request's messages (the
	// whole conversation so far).
	Results []ToolResult
	// Model is the request's model.
	Model string
	// Raw is the request body.
	Raw json.RawMessage
}

// server is a scripted Messages API on loopback. Invariants: it answers only
// POST /v1/messages (streaming SSE); every other path is a 404 it records
// as an unexpected request; it never blocks a request on another.
type server struct {
	scripts Scripts
	// before, when set, is called with every request before it is
	// answered (see Case.BeforeAnswer).
	before func(Request)
	addr   string // where it listens

	mu         sync.Mutex
	requests   []Request
	issued     []Issued
	unexpected []string
	nextID     int
}

// startServer listens on 127.0.0.1:0 and serves until the test ends,
// calling before (when not nil) with every request before answering it.
func startServer(t testing.TB, scripts Scripts, before func(Request)) *server {
	t.Helper()
	s := &server{scripts: scripts, before: before}
	s.addr = ledgertest.ServeHTTP(t, s)
	return s
}

// URL is the server's base URL, for ANTHROPIC_BASE_URL.
func (s *server) URL() string { return "http://" + s.addr }

func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/messages" {
		s.mu.Lock()
		s.unexpected = append(s.unexpected, r.Method+" "+r.URL.String())
		s.mu.Unlock()
		http.NotFound(w, r)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	req, msgs, err := parseRequest(body)
	if err != nil {
		s.mu.Lock()
		s.unexpected = append(s.unexpected, "undecodable request: "+err.Error())
		s.mu.Unlock()
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	req.Script, req.Turn = scriptOf(msgs, s.scripts)
	if s.before != nil {
		s.before(req)
	}
	var turn Turn
	if script, ok := s.scripts[req.Script]; ok && req.Turn < len(script) {
		turn = script[req.Turn]
	}
	if len(turn) == 0 {
		turn = Turn{{Text: "done"}}
	}
	s.mu.Lock()
	// Ids are unique per request so that a script replayed by two
	// conversations never repeats one.
	blocks := make([]Block, len(turn))
	for i, b := range turn {
		if b.Tool != "" && b.ID == "" {
			s.nextID++
			b.ID = fmt.Sprintf("toolu_%s_%02d_%02d_%03d", sanitize(req.Script), req.Turn, i, s.nextID)
		}
		blocks[i] = b
		if b.Tool != "" {
			s.issued = append(s.issued, Issued{Script: req.Script, Turn: req.Turn, Block: b})
		}
	}
	s.requests = append(s.requests, req)
	// A message id per response: the CLI merges consecutive assistant
	// messages that share one.
	msgID := fmt.Sprintf("msg_scripted_%04d", len(s.requests))
	s.mu.Unlock()
	writeSSE(w, msgID, req.Model, blocks)
}

var unsafeID = regexp.MustCompile(`[^A-Za-z0-9]`)

func sanitize(s string) string {
	if s == "" {
		return "none"
	}
	return unsafeID.ReplaceAllString(s, "")
}

// Requests returns every request recorded so far, in arrival order.
func (s *server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.requests)
}

// Issued returns every tool_use block sent so far, in order.
func (s *server) Issued() []Issued {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.issued)
}

func (s *server) Unexpected() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.unexpected)
}

// message is one entry of a request's messages.
type message struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

type contentBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
}

func blocksOf(raw json.RawMessage) []contentBlock {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []contentBlock{{Type: "text", Text: s}}
	}
	var bs []contentBlock
	_ = json.Unmarshal(raw, &bs)
	return bs
}

// textOf flattens a tool_result's content (a string or a list of blocks).
func textOf(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var parts []string
	for _, b := range blocksOf(raw) {
		if b.Type == "text" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}

var (
	deferredRe  = regexp.MustCompile(`(?s)The following deferred tools are now available via ToolSearch[^\n]*\n(.*?)(?:</|\n\n|$)`)
	agentTypeRe = regexp.MustCompile(`(?m)^- ([A-Za-z0-9_:.-]+): `)
	scriptRe    = regexp.MustCompile(`script:([A-Za-z0-9_-]+)`)
	toolNameRe  = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_-]*$`)
)

func parseRequest(body []byte) (Request, []message, error) {
	var in struct {
		Model    string            `json:"model"`
		System   json.RawMessage   `json:"system"`
		Messages []message         `json:"messages"`
		Tools    []json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal(body, &in); err != nil {
		return Request{}, nil, err
	}
	req := Request{Model: in.Model, Raw: body}
	var toolText strings.Builder
	for _, raw := range in.Tools {
		var tl struct {
			Name        string `json:"name"`
			Description string `json:"description"`
		}
		_ = json.Unmarshal(raw, &tl)
		req.Tools = append(req.Tools, tl.Name)
		if tl.Name == "Agent" {
			toolText.WriteString(tl.Description)
		}
	}
	var all strings.Builder
	for _, b := range blocksOf(in.System) {
		all.WriteString(b.Text + "\n")
	}
	for _, m := range in.Messages {
		for _, b := range blocksOf(m.Content) {
			if b.Type == "text" {
				all.WriteString(b.Text + "\n")
			}
		}
	}
	text := all.String()
	if ms := deferredRe.FindAllStringSubmatch(text, -1); ms != nil {
		// The last announcement is the current one.
		for _, line := range strings.Split(ms[len(ms)-1][1], "\n") {
			if name := strings.TrimSpace(line); toolNameRe.MatchString(name) {
				req.Deferred = append(req.Deferred, name)
			}
		}
	}
	req.AgentTypes = agentTypes(toolText.String() + "\n" + text)
	for _, m := range in.Messages {
		if m.Role != "user" {
			continue
		}
		for _, b := range blocksOf(m.Content) {
			if b.Type == "tool_result" {
				req.Results = append(req.Results, ToolResult{ToolUseID: b.ToolUseID, Content: textOf(b.Content), IsError: b.IsError})
			}
		}
	}
	return req, in.Messages, nil
}

// agentTypes reads the list after "Available agent types for the Agent
// tool:" ("- NAME: description" lines).
func agentTypes(text string) []string {
	const marker = "Available agent types for the Agent tool:"
	i := strings.LastIndex(text, marker)
	if i < 0 {
		return nil
	}
	rest := text[i+len(marker):]
	var out []string
	for _, line := range strings.Split(rest, "\n")[1:] {
		if strings.TrimSpace(line) == "" {
			if len(out) > 0 {
				break
			}
			continue
		}
		m := agentTypeRe.FindStringSubmatch(line)
		if m == nil {
			break
		}
		out = append(out, m[1])
	}
	return out
}

// scriptOf names the script a conversation follows and the turn it asks
// for: the last user text naming another known script than the one before
// as "script:NAME" starts it, and every assistant message after that text
// is one turn done. (A fork's conversation repeats its parent's and then
// names its own script; the CLI may repeat a conversation's prompt later
// in it, which does not restart its script.)
func scriptOf(msgs []message, scripts Scripts) (string, int) {
	name, turn := "", 0
	for _, m := range msgs {
		if m.Role == "assistant" {
			turn++
			continue
		}
		for _, b := range blocksOf(m.Content) {
			if b.Type != "text" {
				continue
			}
			for _, sm := range scriptRe.FindAllStringSubmatch(b.Text, -1) {
				if _, ok := scripts[sm[1]]; ok && sm[1] != name {
					name, turn = sm[1], 0
				}
			}
		}
	}
	return name, turn
}

// writeSSE streams one assistant message made of blocks.
func writeSSE(w http.ResponseWriter, msgID, model string, blocks []Block) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	fl, _ := w.(http.Flusher)
	send := func(event string, data any) {
		b, _ := json.Marshal(data)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", event, b)
	}
	if model == "" {
		model = "claude-scripted"
	}
	send("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": msgID, "type": "message", "role": "assistant", "model": model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": 10, "output_tokens": 1, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0},
	}})
	stop := "end_turn"
	for i, b := range blocks {
		if b.Tool != "" {
			stop = "tool_use"
			send("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "tool_use", "id": b.ID, "name": b.Tool, "input": map[string]any{}}})
			in := b.Input
			if in == nil {
				in = map[string]any{}
			}
			js, _ := json.Marshal(in)
			// Two deltas, so the CLI's accumulation of partial JSON is used.
			half := len(js) / 2
			for _, part := range []string{string(js[:half]), string(js[half:])} {
				send("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
					"delta": map[string]any{"type": "input_json_delta", "partial_json": part}})
			}
		} else {
			send("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "text", "text": ""}})
			send("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
				"delta": map[string]any{"type": "text_delta", "text": b.Text}})
		}
		send("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	send("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 5}})
	send("message_stop", map[string]any{"type": "message_stop"})
	if fl != nil {
		fl.Flush()
	}
}
