package openclawplugintest

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

// Call is one tool call a scripted model turn makes.
type Call struct {
	Tool string
	Args map[string]any
}

// Turn is one scripted assistant message: its tool calls, or, when it has
// none, the final text "done".
type Turn []Call

// Scripts maps a script name to its turns. A conversation follows the
// script its first user message names as "script:NAME".
type Scripts map[string][]Turn

// ToolResult is one tool message OpenClaw sent back to the model.
type ToolResult struct {
	CallID  string
	Content string
}

// Request is what the model recorded of one chat completion request.
type Request struct {
	// Script is the script the conversation follows ("" when none).
	Script string
	// Turn is which turn of the script the request asks for: the number of
	// assistant messages in the conversation.
	Turn int
	// Tools are the names of the request's tools.
	Tools []string
	// Results are the conversation's tool messages so far.
	Results []ToolResult
}

// Result returns the tool message answering callID, if any.
func (r Request) Result(callID string) (ToolResult, bool) {
	for _, res := range r.Results {
		if res.CallID == callID {
			return res, true
		}
	}
	return ToolResult{}, false
}

// Model is a scripted OpenAI-compatible chat completions server on
// loopback (POST /v1/chat/completions, streamed). Invariants: every other
// path is a 404 it records as unexpected; it never blocks one request on
// another; call ids are "call<script>t<turn>c<i>", unique per turn of a
// script and made only of letters and digits, which OpenClaw keeps as they
// are (it strips other characters from a provider's call ids).
type Model struct {
	scripts Scripts
	// before, when set, is called with every request before it is
	// answered.
	before func(Request)
	addr   string // where it listens

	mu         sync.Mutex
	requests   []Request
	unexpected []string
}

// StartModel listens on 127.0.0.1:0 and serves until the test ends.
func StartModel(t testing.TB, scripts Scripts, before func(Request)) *Model {
	t.Helper()
	m := &Model{scripts: scripts, before: before}
	m.addr = ledgertest.ServeHTTP(t, m)
	return m
}

// BaseURL is the OpenAI-style base URL (…/v1) for models.providers.
func (m *Model) BaseURL() string { return "http://" + m.addr + "/v1" }

// CallID is the id the model gives the i-th call of a script's turn.
func CallID(script string, turn, i int) string { return fmt.Sprintf("call%st%dc%d", script, turn, i) }

var scriptName = regexp.MustCompile(`script:([a-z0-9_]+)`)

// message is one chat message as OpenClaw sends it; content is a string or
// a list of parts.
type message struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	ToolCallID string          `json:"tool_call_id"`
}

func text(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	_ = json.Unmarshal(raw, &parts)
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String()
}

func (m *Model) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
		m.mu.Lock()
		m.unexpected = append(m.unexpected, r.Method+" "+r.URL.String())
		m.mu.Unlock()
		http.NotFound(w, r)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var in struct {
		Model    string    `json:"model"`
		Messages []message `json:"messages"`
		Tools    []struct {
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(body, &in); err != nil {
		m.mu.Lock()
		m.unexpected = append(m.unexpected, "undecodable request: "+err.Error())
		m.mu.Unlock()
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var req Request
	first := true
	for _, msg := range in.Messages {
		switch msg.Role {
		case "user":
			if first {
				if s := scriptName.FindStringSubmatch(text(msg.Content)); s != nil {
					req.Script = s[1]
				}
				first = false
			}
		case "assistant":
			req.Turn++
		case "tool":
			req.Results = append(req.Results, ToolResult{CallID: msg.ToolCallID, Content: text(msg.Content)})
		}
	}
	for _, tl := range in.Tools {
		req.Tools = append(req.Tools, tl.Function.Name)
	}
	if m.before != nil {
		m.before(req)
	}
	var turn Turn
	if s, ok := m.scripts[req.Script]; ok && req.Turn < len(s) {
		turn = s[req.Turn]
	}
	m.mu.Lock()
	m.requests = append(m.requests, req)
	n := len(m.requests)
	m.mu.Unlock()
	writeStream(w, fmt.Sprintf("chatcmpl-scripted-%04d", n), in.Model, req, turn)
}

// writeStream answers in the chat completions streaming format: the
// assistant message in one chunk, its finish reason, the usage, [DONE].
func writeStream(w http.ResponseWriter, id, model string, req Request, turn Turn) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	send := func(v any) {
		b, _ := json.Marshal(v)
		fmt.Fprintf(w, "data: %s\n\n", b)
	}
	chunk := func(delta map[string]any, finish any) map[string]any {
		return map[string]any{"id": id, "object": "chat.completion.chunk", "created": 1, "model": model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}}
	}
	if len(turn) == 0 {
		send(chunk(map[string]any{"role": "assistant", "content": "done"}, nil))
		send(chunk(map[string]any{}, "stop"))
	} else {
		var calls []any
		for i, c := range turn {
			args, _ := json.Marshal(c.Args)
			calls = append(calls, map[string]any{"index": i, "id": CallID(req.Script, req.Turn, i), "type": "function",
				"function": map[string]any{"name": c.Tool, "arguments": string(args)}})
		}
		send(chunk(map[string]any{"role": "assistant", "tool_calls": calls}, nil))
		send(chunk(map[string]any{}, "tool_calls"))
	}
	send(map[string]any{"id": id, "object": "chat.completion.chunk", "created": 1, "model": model, "choices": []any{},
		"usage": map[string]any{"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}})
	fmt.Fprint(w, "data: [DONE]\n\n")
}

// Requests returns every request so far, in arrival order.
func (m *Model) Requests() []Request {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.requests)
}

// Unexpected lists requests the model did not serve.
func (m *Model) Unexpected() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.unexpected)
}

// Find returns the last request of a script's turn.
func (m *Model) Find(script string, turn int) (Request, bool) {
	reqs := m.Requests()
	for i := len(reqs) - 1; i >= 0; i-- {
		if reqs[i].Script == script && reqs[i].Turn == turn {
			return reqs[i], true
		}
	}
	return Request{}, false
}
