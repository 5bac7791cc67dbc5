package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/sessionledger/ledger/client"
	"github.com/sessionledger/ledger/envelope/ledgerpolicy"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/agenthook"
	"github.com/sessionledger/ledger/internal/cchook"
	"github.com/sessionledger/ledger/internal/natslog"
)

// agentsBench measures the hooks of the runtimes the ledger dialect
// serves (Codex CLI, Gemini CLI; issue 29): a pre-tool payload through
// `ledger hook codex` and `ledger hook gemini` as processes, against a
// no-op hook process of the same runtime fed the same payload (what the
// runtime would run with no ledger: codex and gemini take an empty answer
// as "go ahead"), and against that no-op plus one raw durable publish of
// the call's record (the floor of any hook that records the call before
// it runs). Ledger and no-op runs alternate, so drift cancels. Each run is
// a new call, allowed, recorded as one record.
//
// A round runs the no-op, the thin hook, the raw publish, and last the
// ledger binary's hook, after which the ledger commits what it folded
// (Flush): that process (the whole binary, a NATS connection of its own)
// leaves work behind it, its connection's teardown and the commit of its
// record, which would otherwise land in the next process's time. With the
// ledger binary's hook just before the thin one, the thin hook's ratio to
// its floor was 1.47 to 1.55x in three runs, against 1.40 to 1.49x in
// three taken in turn with them, the no-op's time the same (docs/bench.md,
// "the agents' measuring order").
func agentsBench(ctx context.Context, cfg *Config, rep *Report) error {
	if cfg.Exe == "" {
		rep.add(Row{Section: "agents", Name: "Codex and Gemini CLI hooks", Note: "not measured: no ledger binary (under go test the running binary is not the ledger)"})
		return nil
	}
	d := dir(cfg, "agents")
	n, err := startNodeListening(ctx, d)
	if err != nil {
		return err
	}
	defer n.close()
	project := filepath.Join(d, "project")
	if err := os.MkdirAll(project, 0o755); err != nil {
		return err
	}
	nc, err := natslog.ConnectEmbedded(n.ns, "agents")
	if err != nil {
		return err
	}
	defer nc.Close()
	ops := client.New(nc, client.Options{Timeout: 5 * time.Second})
	rounds := 100
	if cfg.Quick {
		rounds = 15
	}
	noop := []string{"sh", "-c", "cat >/dev/null"}
	env := append(os.Environ(), "HOME="+d, "LEDGER_BENCH_HOOKS_TOKEN="+benchHooksToken)
	// serve --hooks's handler, with the agent runtimes' paths as `ledger
	// serve` builds them (their requests to the API in process), on a Unix
	// socket: what the thin hook (ledger-hook --runtime R) reaches.
	paths := map[string]cchook.PathHook{}
	for _, rt := range []agenthook.Runtime{agenthook.Codex, agenthook.Gemini, agenthook.Qwen} {
		paths[rt.Path()] = &agenthook.HTTPHook{Hook: &agenthook.Hook{Runtime: rt,
			L:    cchook.ClientLedger{C: client.NewOn(n.srv, client.Options{Owner: rt.Name, Timeout: 2 * time.Second, Retries: 1, Coalesce: 1})},
			Opts: agenthook.Options{Where: "this ledger's API", SpawnWait: 2 * time.Second}}}
	}
	sock, stopSock, err := serveUnix(&cchook.Handler{Hook: &cchook.Hook{}, Token: benchHooksToken, Timeout: 5 * time.Second, Paths: paths})
	if err != nil {
		return err
	}
	defer stopSock()
	slim, how, why := slimBinary(ctx, cfg)
	for _, rt := range []struct {
		name, runtime, scope, allow, tool string
		input                             map[string]any
		start                             []map[string]any
		call                              func(i int) map[string]any
	}{
		{name: "codex", runtime: "codex@0.169.0", scope: "bench-codex", allow: "Bash", tool: "Bash",
			start: []map[string]any{
				{"hook_event_name": "SessionStart", "source": "startup"},
				{"hook_event_name": "UserPromptSubmit", "prompt": "bench", "turn_id": "0b0f4a55-0000-4000-8000-000000000001"},
			},
			call: func(i int) map[string]any {
				return map[string]any{"hook_event_name": "PreToolUse", "turn_id": "0b0f4a55-0000-4000-8000-000000000001",
					"tool_name": "Bash", "tool_input": map[string]any{"command": "echo hi"}, "tool_use_id": fmt.Sprintf("call_bench_%d", i)}
			}},
		{name: "qwen", runtime: "qwen@0.24.4", scope: "bench-qwen", allow: "run_shell_command", tool: "run_shell_command",
			start: []map[string]any{
				{"hook_event_name": "SessionStart", "source": "startup"},
				{"hook_event_name": "UserPromptSubmit", "prompt": "bench", "prompt_id": "bench-qwen-0001########1"},
			},
			call: func(i int) map[string]any {
				return map[string]any{"hook_event_name": "PreToolUse", "prompt_id": "bench-qwen-0001########1",
					"tool_name": "run_shell_command", "tool_input": map[string]any{"command": "echo hi"}, "tool_call_id": fmt.Sprintf("call_bench_%d", i)}
			}},
		{name: "gemini", runtime: "gemini@0.61.0", scope: "bench-gemini", allow: "run_shell_command", tool: "run_shell_command",
			start: []map[string]any{
				{"hook_event_name": "SessionStart", "source": "startup"},
				{"hook_event_name": "BeforeAgent", "prompt": "bench"},
			},
			call: func(i int) map[string]any {
				return map[string]any{"hook_event_name": "BeforeTool", "tool_name": "run_shell_command",
					"tool_input": map[string]any{"command": "echo hi"}, "timestamp": fmt.Sprintf("2026-12-02T10:00:%02d.%06dZ", i/1000000%60, i%1000000)}
			}},
	} {
		catalogue, ok := ledgerpolicy.Catalogue(rt.runtime)
		if !ok {
			return fmt.Errorf("bench: agents: no tool table for %s", rt.runtime)
		}
		doc, _ := json.Marshal(map[string]any{"runtime": rt.runtime, "permissions": map[string]any{"allow": []string{rt.allow}}})
		if _, err := ops.Append(ctx, client.SetPolicy(events.PolicySetData{Scope: rt.scope, Dialect: "ledger", Document: doc, Catalogue: catalogue})); err != nil {
			return fmt.Errorf("bench: agents: %s policy: %w", rt.name, err)
		}
		session := "bench-" + rt.name + "-0001"
		payload := func(m map[string]any) []byte {
			m["session_id"], m["cwd"] = session, project
			b, _ := json.Marshal(m)
			return b
		}
		argv := []string{cfg.Exe, "hook", rt.name, "--nats", n.ns.ClientURL(), "--scope", rt.scope}
		for _, ev := range rt.start {
			if _, err := runHook(ctx, argv, env, payload(ev), ""); err != nil {
				return fmt.Errorf("bench: agents: %s %s: %w", rt.name, ev["hook_event_name"], err)
			}
		}
		if _, err := runHook(ctx, argv, env, payload(rt.call(-1)), ""); err != nil {
			return fmt.Errorf("bench: agents: %s probe call: %w", rt.name, err)
		}
		record, err := recordBytes(ctx, n)
		if err != nil {
			return err
		}
		var probe struct {
			Type events.Type `json:"type"`
			Data struct {
				Effect bool `json:"effect"`
			} `json:"data"`
			Decided struct {
				Decision string `json:"decision"`
			} `json:"decided"`
		}
		if json.Unmarshal(record, &probe) != nil || probe.Type != events.ToolChecked || !probe.Data.Effect || probe.Decided.Decision != "allow" {
			return fmt.Errorf("bench: agents: %s's probe call was not allowed and started by one record: %s", rt.name, record)
		}
		thinArgv := []string{slim, "--runtime", rt.name, "--hooks", "unix:" + sock, "--token-env", "LEDGER_BENCH_HOOKS_TOKEN", "--scope", rt.scope}
		if why == "" {
			if _, err := runHook(ctx, thinArgv, env, payload(rt.call(-2)), ""); err != nil {
				return fmt.Errorf("bench: agents: %s thin probe call: %w", rt.name, err)
			}
			rec, err := recordBytes(ctx, n)
			if err != nil {
				return err
			}
			if json.Unmarshal(rec, &probe) != nil || probe.Type != events.ToolChecked || !probe.Data.Effect || probe.Decided.Decision != "allow" {
				return fmt.Errorf("bench: agents: %s's probe call through ledger-hook was not allowed and started by one record: %s", rt.name, rec)
			}
		}
		cfg.logf("bench: agents: %s: %d rounds of hook processes", rt.name, rounds)
		var via, base, publish, thin []time.Duration
		for i := 0; i < rounds; i++ {
			dn, err := runHook(ctx, noop, env, payload(rt.call(1_000_000+i)), "")
			if err != nil {
				return fmt.Errorf("bench: agents: the no-op hook: %w", err)
			}
			base = append(base, dn)
			if why == "" {
				dt, err := runHook(ctx, thinArgv, env, payload(rt.call(2_000_000+i)), "")
				if err != nil {
					return fmt.Errorf("bench: agents: %s through ledger-hook: %w", rt.name, err)
				}
				thin = append(thin, dt)
			}
			dp, err := rawPublish(ctx, n, record, fmt.Sprintf("agents-%s-%d", rt.name, i))
			if err != nil {
				return err
			}
			publish = append(publish, dp)
			dl, err := runHook(ctx, argv, env, payload(rt.call(i)), "")
			if err != nil {
				return fmt.Errorf("bench: agents: %s: %w", rt.name, err)
			}
			via = append(via, dl)
			if err := n.svc.Flush(ctx); err != nil {
				return err
			}
		}
		noop50, pub50 := ms(quantile(base, 0.5)), ms(quantile(publish, 0.5))
		row := ratioRow("agents", fmt.Sprintf("%s pre-tool hook through ledger hook %s (a process): p50", rt.runtime, rt.name), ms(quantile(via, 0.5)), noop50, "ms", "", nil)
		row.Note = fmt.Sprintf("raw = a no-op hook of the same runtime (sh -c 'cat >/dev/null': an empty answer lets %s go ahead), fed the same payload", rt.name)
		rep.add(row)
		row = ratioRow("agents", fmt.Sprintf("%s pre-tool hook through ledger hook %s, against the floor: p50", rt.runtime, rt.name), ms(quantile(via, 0.5)), noop50+pub50, "ms", "", nil)
		row.Note = fmt.Sprintf("floor %.2f ms = the no-op hook p50 %.2f ms + one raw durable JetStream publish of the call's record p50 %.3f ms (%d B)", noop50+pub50, noop50, pub50, len(record))
		rep.add(row)
		name := fmt.Sprintf("%s pre-tool hook through ledger-hook --runtime %s (Unix socket)", rt.runtime, rt.name)
		if why != "" {
			rep.add(Row{Section: "agents", Name: name + ": p50", Unit: "ms", NotMeasured: why})
			continue
		}
		row = ratioRow("agents", name+": p50", ms(quantile(thin, 0.5)), noop50, "ms", "", nil)
		row.Note = "the thin hook handing the payload to serve --hooks's handler (/hooks/" + rt.name + "), against the same no-op hook; " + how
		rep.add(row)
		row = ratioRow("agents", name+", against the floor: p50", ms(quantile(thin, 0.5)), noop50+pub50, "ms", "≤ 1.5x floor", func(r float64) bool { return r <= 1.5 })
		row.Note = fmt.Sprintf("floor %.2f ms = the no-op hook p50 %.2f ms + one raw durable publish p50 %.3f ms, as the hooks section's ledger-hook rows", noop50+pub50, noop50, pub50)
		rep.add(row)
	}
	return nil
}
