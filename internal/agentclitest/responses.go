package agentclitest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/sessionledger/ledger/internal/ledgertest"
)

// ToolOutput is one tool result a CLI sent back to the model: a Responses
// function_call_output / custom_tool_call_output, or a Gemini
// functionResponse (ID is then the call's id when the CLI echoes one, else
// the function's name).
type ToolOutput struct {
	ID     string
	Name   string // Gemini: the function's name
	Output string // the output as text (JSON when the CLI sent an object)
}

// Request is what a scripted server recorded of one model request.
type Request struct {
	// Path is the request's path (and query).
	Path string
	// Script and Turn: the script the conversation follows ("" when none)
	// and which of its turns the request asks for.
	Script string
	Turn   int
	// Tools are the names of the tools the request offered, in order; a
	// Responses namespace's tools as NAMESPACE.NAME, a built-in tool
	// (web_search, tool_search) by its type.
	Tools []string
	// Texts are the conversation's user, developer and system texts.
	Texts []string
	// Outputs are the tool results the conversation holds so far.
	Outputs []ToolOutput
	// Model is the request's model.
	Model string
	// Header holds the request's headers.
	Header http.Header
	// Raw is the request body.
	Raw json.RawMessage
}

// Output is the output for the call id in the request, and whether there
// is one.
func (r Request) Output(id string) (string, bool) {
	for _, o := range r.Outputs {
		if o.ID == id {
			return o.Output, true
		}
	}
	return "", false
}

// recorder keeps what a scripted server saw.
type recorder struct {
	mu         sync.Mutex
	requests   []Request
	issued     []Issued
	unexpected []string
	next       int
	// set is true once the run's Setup has returned (Set): what Setup
	// wrote (a test's variables the callbacks read) happens before every
	// request the server answers, which takes mu first (wait).
	set bool
}

// Set marks the end of the run's Setup.
func (r *recorder) Set() {
	r.mu.Lock()
	r.set = true
	r.mu.Unlock()
}

// wait orders a request after Set: the CLI, started after Setup returned,
// sends nothing before, but the race detector knows no process order.
func (r *recorder) wait() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.set
}

// Issued is one call a scripted server sent, with its script and turn.
type Issued struct {
	Script string
	Turn   int
	Step
}

// Requests returns every model request recorded so far, in arrival order.
func (r *recorder) Requests() []Request {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.requests)
}

// Issued returns every call the server sent, in order.
func (r *recorder) Issued() []Issued {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.issued)
}

// Unexpected returns the requests the server does not serve.
func (r *recorder) Unexpected() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.unexpected)
}

func (r *recorder) unexpect(s string) {
	r.mu.Lock()
	r.unexpected = append(r.unexpected, s)
	r.mu.Unlock()
}

// issue records req and gives every call of turn an id; it returns the
// turn with its ids and the request's ordinal (1-based).
func (r *recorder) issue(req Request, turn Turn) (Turn, int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make(Turn, len(turn))
	for i, s := range turn {
		if s.ArgsFrom != nil {
			s.Args, s.ArgsFrom = s.ArgsFrom(req), nil
		}
		if s.Tool != "" {
			if s.ID == "" {
				r.next++
				s.ID = fmt.Sprintf("call_%s_%02d_%02d_%03d", sanitize(req.Script), req.Turn, i, r.next)
			}
			r.issued = append(r.issued, Issued{Script: req.Script, Turn: req.Turn, Step: s})
		}
		out[i] = s
	}
	r.requests = append(r.requests, req)
	return out, len(r.requests)
}

// Responses is a scripted OpenAI Responses API on loopback, as codex 0.169.0
// speaks it: POST {base}/responses with "stream": true, answered with the
// SSE events response.created, response.output_item.added and .done (a
// message with output_text, a function_call, or a custom_tool_call) and
// response.completed. Every other request is a 404 recorded as unexpected.
// The conversation is stateless ("store": false): each request carries the
// whole input, from which the script and turn are read.
type Responses struct {
	recorder
	scripts Scripts
	addr    string
	// Before, when set, is called with every request before it is answered
	// (on the server's goroutine: report with t.Error, never t.Fatal).
	Before func(Request)
}

// NewResponses serves scripts on 127.0.0.1:0 until the test ends.
func NewResponses(t testing.TB, scripts Scripts) *Responses {
	t.Helper()
	s := &Responses{scripts: scripts}
	s.addr = ledgertest.ServeHTTP(t, s)
	return s
}

// BaseURL is the provider base_url for codex's config ({base}/responses is
// what it posts to).
func (s *Responses) BaseURL() string { return "http://" + s.addr + "/v1" }

type respItem struct {
	Type      string          `json:"type"`
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"`
	Name      string          `json:"name"`
	Namespace string          `json:"namespace"`
	CallID    string          `json:"call_id"`
	Output    json.RawMessage `json:"output"`
}

func (s *Responses) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.wait()
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/responses") {
		s.unexpect(r.Method + " " + r.URL.String())
		http.NotFound(w, r)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var in struct {
		Model string            `json:"model"`
		Input []respItem        `json:"input"`
		Tools []json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal(body, &in); err != nil {
		s.unexpect("undecodable request: " + err.Error())
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	req := Request{Path: r.URL.String(), Model: in.Model, Header: r.Header.Clone(), Raw: body}
	for _, raw := range in.Tools {
		var tl struct {
			Type, Name string
			Tools      []struct{ Name string }
		}
		_ = json.Unmarshal(raw, &tl)
		switch {
		case tl.Type == "namespace":
			for _, x := range tl.Tools {
				req.Tools = append(req.Tools, tl.Name+"."+x.Name)
			}
		case tl.Name != "":
			req.Tools = append(req.Tools, tl.Name)
		default:
			req.Tools = append(req.Tools, tl.Type)
		}
	}
	// The script is the first one a user text names; its turn is the number
	// of model responses since that text (a response is a run of model
	// items: messages of the assistant, calls, reasoning).
	named, turns, prevModel := -1, 0, false
	for i, it := range in.Input {
		model := it.Type == "function_call" || it.Type == "custom_tool_call" || it.Type == "reasoning" ||
			it.Type == "local_shell_call" || it.Type == "web_search_call" || it.Type == "tool_search_call" ||
			(it.Type == "message" && it.Role == "assistant")
		switch {
		case it.Type == "message" && it.Role != "assistant":
			for _, tx := range contentTexts(it.Content) {
				req.Texts = append(req.Texts, tx)
				if named < 0 && scriptIn([]string{tx}, s.scripts) != "" {
					named, req.Script = i, scriptIn([]string{tx}, s.scripts)
				}
			}
		case it.Type == "function_call_output" || it.Type == "custom_tool_call_output":
			req.Outputs = append(req.Outputs, ToolOutput{ID: it.CallID, Output: outputText(it.Output)})
		}
		if model && !prevModel && named >= 0 {
			turns++
		}
		prevModel = model
	}
	req.Turn = turns
	if s.Before != nil {
		s.Before(req)
	}
	turn, n := s.issue(req, s.scripts.turnOf(req.Script, req.Turn))
	writeResponses(w, fmt.Sprintf("resp_scripted_%04d", n), in.Model, turn)
}

// contentTexts are the texts of a message's content (a string, or parts
// with a text).
func contentTexts(raw json.RawMessage) []string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []string{s}
	}
	var parts []struct{ Text string }
	_ = json.Unmarshal(raw, &parts)
	var out []string
	for _, p := range parts {
		if p.Text != "" {
			out = append(out, p.Text)
		}
	}
	return out
}

// outputText is a tool output as text: a string as it is, content parts
// joined, anything else as its JSON.
func outputText(raw json.RawMessage) string {
	if t := contentTexts(raw); len(t) > 0 {
		return strings.Join(t, "\n")
	}
	return string(raw)
}

func writeResponses(w http.ResponseWriter, id, model string, turn Turn) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	fl, _ := w.(http.Flusher)
	seq := 0
	send := func(event string, data map[string]any) {
		data["type"] = event
		data["sequence_number"] = seq
		seq++
		b, _ := json.Marshal(data)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", event, b)
		if fl != nil {
			fl.Flush()
		}
	}
	resp := map[string]any{"id": id, "object": "response", "status": "in_progress", "model": model, "output": []any{}}
	send("response.created", map[string]any{"response": resp})
	var output []any
	for i, st := range turn {
		var item map[string]any
		switch {
		case st.Tool != "" && st.Custom:
			item = map[string]any{"type": "custom_tool_call", "id": fmt.Sprintf("ctc_%s_%d", id, i), "call_id": st.ID,
				"name": st.Tool, "input": st.Input, "status": "completed"}
		case st.Tool != "":
			args := st.Args
			if args == nil {
				args = map[string]any{}
			}
			js, _ := json.Marshal(args)
			item = map[string]any{"type": "function_call", "id": fmt.Sprintf("fc_%s_%d", id, i), "call_id": st.ID,
				"name": st.Tool, "arguments": string(js), "status": "completed"}
			if st.Namespace != "" {
				item["namespace"] = st.Namespace
			}
		default:
			msgID := fmt.Sprintf("msg_%s_%d", id, i)
			send("response.output_item.added", map[string]any{"output_index": i, "item": map[string]any{
				"type": "message", "id": msgID, "role": "assistant", "status": "in_progress", "content": []any{}}})
			send("response.output_text.delta", map[string]any{"output_index": i, "item_id": msgID, "content_index": 0, "delta": st.Text})
			item = map[string]any{"type": "message", "id": msgID, "role": "assistant", "status": "completed",
				"content": []any{map[string]any{"type": "output_text", "text": st.Text, "annotations": []any{}}}}
			send("response.output_item.done", map[string]any{"output_index": i, "item": item})
			output = append(output, item)
			continue
		}
		send("response.output_item.added", map[string]any{"output_index": i, "item": item})
		send("response.output_item.done", map[string]any{"output_index": i, "item": item})
		output = append(output, item)
	}
	resp["status"] = "completed"
	resp["output"] = output
	resp["usage"] = map[string]any{"input_tokens": 10, "output_tokens": 1, "total_tokens": 11,
		"input_tokens_details": map[string]any{"cached_tokens": 0}, "output_tokens_details": map[string]any{"reasoning_tokens": 0}}
	send("response.completed", map[string]any{"response": resp})
}
