// Package agentclitest drives the real Codex CLI (@openai/codex), Gemini
// CLI (@google/gemini-cli), GitHub Copilot CLI (@github/copilot) and Qwen
// Code (@qwen-code/qwen-code), at the versions tools/npm/pins.json pins,
// offline, so that their hooks can be observed and the ledger's hook
// adapters tested against them (issue 29). Its suite is tests/agentcli; what
// it found is in docs/codex-cli-hooks.md, docs/gemini-cli-hooks.md,
// docs/copilot-cli-hooks.md and docs/qwen-code-hooks.md.
//
// RunCopilot and RunQwen speak to the same scripted Responses API as
// RunCodex (Copilot's bring-your-own-model with COPILOT_OFFLINE=true, Qwen's
// --auth-type openai-responses): no GitHub login, no other endpoint.
//
// RunCodex and RunGemini run the CLI once, headless, in a temporary project
// and HOME, against a scripted model on loopback: Responses (the OpenAI
// Responses API as codex streams it) or GeminiAPI (the Gemini API's
// streamGenerateContent), each answering from Scripts: per conversation, the
// script its first user text names ("script:NAME"; the main agent's prompt is
// "script:main"), turn by turn (say a text, call a tool). Both servers bind
// 127.0.0.1:0 and record every request (its tools, texts and the tool
// outputs the CLI sent back) for assertions.
//
// The hook the CLIs run is the recorder: the test binary itself
// (HookCommand; a suite's TestMain calls HookIfAsked first), which appends
// each payload and its environment to the run's hooks directory and answers
// by the case's Rules (allow by default, or any stdout, stderr, exit code and
// delay: a denial in the CLI's format, a crash, a timeout).
//
// # Invariants
//
//   - Only loopback: the model is the scripted server; the CLI's environment
//     is built from nothing (PATH, HOME, TMPDIR and what the run needs), so
//     no credential or proxy is inherited; telemetry and update checks are off.
//   - Bounded: every run has a deadline (Case.Timeout, 90 s by default); on
//     it the CLI's whole process group is killed and the test fails.
//   - The CLIs are the reference: a missing CLI, or one at another version,
//     fails the test under CI=true and skips it elsewhere, naming
//     tools/npm/install.
package agentclitest
