package agentclitest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/sessionledger/ledger/internal/ledgertest"
)

// GeminiAPI is a scripted Gemini API (v1beta) on loopback, as gemini-cli
// 0.61.0 speaks it: POST /v1beta/models/MODEL:streamGenerateContent?alt=sse
// (answered with one SSE chunk holding the turn's parts: text and
// functionCall) and :generateContent (the same turn as one JSON body: the
// CLI's own side requests, such as the model router's classifier, which
// name no script and get "done"); :countTokens is answered with a count.
// Everything else is a 404 recorded as unexpected.
type GeminiAPI struct {
	recorder
	scripts Scripts
	addr    string
	// Before, when set, is called with every request before it is answered.
	Before func(Request)
}

// NewGeminiAPI serves scripts on 127.0.0.1:0 until the test ends.
func NewGeminiAPI(t testing.TB, scripts Scripts) *GeminiAPI {
	t.Helper()
	s := &GeminiAPI{scripts: scripts}
	s.addr = ledgertest.ServeHTTP(t, s)
	return s
}

// BaseURL is the value for GOOGLE_GEMINI_BASE_URL.
func (s *GeminiAPI) BaseURL() string { return "http://" + s.addr }

type gemPart struct {
	Text         string `json:"text"`
	FunctionCall *struct {
		ID   string         `json:"id"`
		Name string         `json:"name"`
		Args map[string]any `json:"args"`
	} `json:"functionCall"`
	FunctionResponse *struct {
		ID       string          `json:"id"`
		Name     string          `json:"name"`
		Response json.RawMessage `json:"response"`
	} `json:"functionResponse"`
}

func (s *GeminiAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.wait()
	_, method, _ := strings.Cut(r.URL.Path, ":")
	if r.Method != http.MethodPost || !strings.HasPrefix(r.URL.Path, "/v1beta/models/") ||
		(method != "streamGenerateContent" && method != "generateContent" && method != "countTokens") {
		s.unexpect(r.Method + " " + r.URL.String())
		http.NotFound(w, r)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if method == "countTokens" {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"totalTokens":%d}`, len(body)/4+1)
		return
	}
	var in struct {
		Contents []struct {
			Role  string    `json:"role"`
			Parts []gemPart `json:"parts"`
		} `json:"contents"`
		SystemInstruction *struct {
			Parts []gemPart `json:"parts"`
		} `json:"systemInstruction"`
		Tools []struct {
			FunctionDeclarations []struct {
				Name string `json:"name"`
			} `json:"functionDeclarations"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(body, &in); err != nil {
		s.unexpect("undecodable request: " + err.Error())
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	model := strings.TrimPrefix(strings.SplitN(r.URL.Path, ":", 2)[0], "/v1beta/models/")
	req := Request{Path: r.URL.String(), Model: model, Header: r.Header.Clone(), Raw: body}
	for _, tl := range in.Tools {
		for _, f := range tl.FunctionDeclarations {
			req.Tools = append(req.Tools, f.Name)
		}
	}
	if in.SystemInstruction != nil {
		for _, p := range in.SystemInstruction.Parts {
			if p.Text != "" {
				req.Texts = append(req.Texts, p.Text)
			}
		}
	}
	// Only a streamed request follows a script: the CLI's side requests
	// (generateContent) repeat the conversation and must not take its turns.
	named, turns := false, 0
	for _, c := range in.Contents {
		for _, p := range c.Parts {
			if c.Role == "user" && p.Text != "" {
				req.Texts = append(req.Texts, p.Text)
				if !named && method == "streamGenerateContent" {
					if sc := scriptIn([]string{p.Text}, s.scripts); sc != "" {
						named, req.Script = true, sc
					}
				}
			}
			if fr := p.FunctionResponse; fr != nil {
				id := fr.ID
				if id == "" {
					id = fr.Name
				}
				req.Outputs = append(req.Outputs, ToolOutput{ID: id, Name: fr.Name, Output: string(fr.Response)})
			}
		}
		if c.Role == "model" && named {
			turns++
		}
	}
	req.Turn = turns
	if s.Before != nil {
		s.Before(req)
	}
	turn := Turn{Say("done")}
	if req.Script != "" {
		turn = s.scripts.turnOf(req.Script, req.Turn)
	}
	turn, _ = s.issue(req, turn)
	var parts []any
	for _, st := range turn {
		if st.Tool != "" {
			args := st.Args
			if args == nil {
				args = map[string]any{}
			}
			parts = append(parts, map[string]any{"functionCall": map[string]any{"id": st.ID, "name": st.Tool, "args": args}})
		} else {
			parts = append(parts, map[string]any{"text": st.Text})
		}
	}
	resp := map[string]any{
		"candidates": []any{map[string]any{"content": map[string]any{"role": "model", "parts": parts},
			"finishReason": "STOP", "index": 0}},
		"usageMetadata": map[string]any{"promptTokenCount": 10, "candidatesTokenCount": 1, "totalTokenCount": 11},
		"modelVersion":  model,
	}
	b, _ := json.Marshal(resp)
	if method == "generateContent" {
		w.Header().Set("Content-Type", "application/json")
		w.Write(b)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	fmt.Fprintf(w, "data: %s\r\n\r\n", b)
	if fl, ok := w.(http.Flusher); ok {
		fl.Flush()
	}
}
