package claudecodetest

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"strings"
)

// MCPEnv is the environment variable that turns a test binary into a stdio
// MCP server (see ServeMCP): its value is the comma-separated tool names
// to serve. A package using Case.MCP calls ServeMCPIfAsked first thing in
// its TestMain.
const MCPEnv = "CLAUDECODETEST_MCP_TOOLS"

// ServeMCPIfAsked serves MCP on stdin and stdout and exits when MCPEnv is
// set, and returns otherwise.
func ServeMCPIfAsked() {
	tools, ok := os.LookupEnv(MCPEnv)
	if !ok {
		return
	}
	_ = ServeMCP(os.Stdin, os.Stdout, strings.Split(tools, ","))
	os.Exit(0)
}

// ServeMCP is a minimal MCP server over newline-delimited JSON-RPC: it
// answers initialize, ping, tools/list (each tool takes an optional "text"
// string; a tool named ro_* is annotated readOnlyHint) and tools/call
// (every call succeeds with the text "ok <tool>"),
// ignores notifications, and refuses every other method. It returns when r
// ends.
func ServeMCP(r io.Reader, w io.Writer, tools []string) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	enc := json.NewEncoder(w)
	for sc.Scan() {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if json.Unmarshal(sc.Bytes(), &req) != nil || len(req.ID) == 0 {
			continue // a notification, or not JSON-RPC
		}
		resp := map[string]any{"jsonrpc": "2.0", "id": req.ID}
		switch req.Method {
		case "initialize":
			var p struct {
				ProtocolVersion string `json:"protocolVersion"`
			}
			_ = json.Unmarshal(req.Params, &p)
			resp["result"] = map[string]any{"protocolVersion": p.ProtocolVersion,
				"capabilities": map[string]any{"tools": map[string]any{}},
				"serverInfo":   map[string]any{"name": "claudecodetest", "version": "1"}}
		case "ping":
			resp["result"] = map[string]any{}
		case "tools/list":
			var list []any
			for _, n := range tools {
				tool := map[string]any{"name": n, "description": "test tool " + n,
					"inputSchema": map[string]any{"type": "object", "properties": map[string]any{"text": map[string]any{"type": "string"}}}}
				if strings.HasPrefix(n, "ro_") {
					tool["annotations"] = map[string]any{"readOnlyHint": true}
				}
				list = append(list, tool)
			}
			resp["result"] = map[string]any{"tools": list}
		case "tools/call":
			var p struct {
				Name string `json:"name"`
			}
			_ = json.Unmarshal(req.Params, &p)
			resp["result"] = map[string]any{"content": []any{map[string]any{"type": "text", "text": "ok " + p.Name}}}
		default:
			resp["error"] = map[string]any{"code": -32601, "message": "method not found: " + req.Method}
		}
		if err := enc.Encode(resp); err != nil {
			return err
		}
	}
	return sc.Err()
}
