package agentclitest

import (
	"regexp"
	"strings"
)

// Step is one thing a scripted model turn does: say Text, or call the tool
// Tool with Args (a function call; Namespace for a namespaced Responses
// tool such as codex's multi_agent_v1). Custom, for the Responses API, makes
// the call a custom tool call whose input is the raw string Input (codex's
// apply_patch).
type Step struct {
	Text      string
	Tool      string
	Namespace string
	Args      map[string]any
	Custom    bool
	Input     string
	// ID is the call id; the server makes one when it is empty. Ids must be
	// unique within a run.
	ID string
	// ArgsFrom, when set, makes Args from the request being answered (an
	// argument only known at run time, such as a spawned agent's id).
	ArgsFrom func(Request) map[string]any `json:"-"`
}

// Say is a text step.
func Say(text string) Step { return Step{Text: text} }

// Call is a function-call step.
func Call(id, tool string, args map[string]any) Step { return Step{ID: id, Tool: tool, Args: args} }

// Turn is one scripted model response: its steps, in order.
type Turn []Step

// Scripts maps a script name to its turns. A conversation follows the
// script its first user text names as "script:NAME" (the main agent's
// prompt is "script:main"); its turn is the number of model responses it
// already holds since. Past the script's end, or when no script is named,
// the answer is the text "done".
type Scripts map[string][]Turn

var scriptRef = regexp.MustCompile(`script:([A-Za-z0-9_-]+)`)

// scriptIn is the first script named in the texts, in order, that the
// scripts hold ("" when none).
func scriptIn(texts []string, scripts Scripts) string {
	for _, s := range texts {
		for _, m := range scriptRef.FindAllStringSubmatch(s, -1) {
			if _, ok := scripts[m[1]]; ok {
				return m[1]
			}
		}
	}
	return ""
}

// turnOf is the turn the script answers for the conversation, or the
// final "done" turn past its end.
func (s Scripts) turnOf(script string, n int) Turn {
	if t, ok := s[script]; ok && n < len(t) && len(t[n]) > 0 {
		return t[n]
	}
	return Turn{Say("done")}
}

var unsafeID = regexp.MustCompile(`[^A-Za-z0-9]`)

func sanitize(s string) string {
	if s == "" {
		return "none"
	}
	return unsafeID.ReplaceAllString(s, "")
}

// Contains reports whether any of the strings holds sub.
func Contains(texts []string, sub string) bool {
	for _, s := range texts {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}
