package openclaw

import (
	"bytes"
	"encoding/json"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
)

// A gateway's report of its plugins' tools (section 2.2): OpenClaw groups
// a session's plugin tools by the plugin metadata its loader attaches to
// each tool, so the tools of a bundled plugin (browser, memory-core's
// memory_get, xai's code_execution) are plugin tools in a gateway that
// loads it, whatever the operator's pluginTools says. The session-ledger
// plugin reads the gateway's plugin registry when a root starts and
// records it as session.started's plugin_tools; the root and every
// sub-agent under it are then decided twice, under the document's
// pluginTools and under the report (the report's plugin tools in place of
// the document's, as OpenClaw decides), and a tool is denied when either
// denies it. Where only the report denies, the reason says what pluginTools
// lacks (codePluginUnlisted) or holds wrongly (codePluginMislisted), so that
// the operator can make the document say what the gateway runs. Sessions
// without a report (every record from before it, other runtimes) decide by
// the document alone, as before.

// The causes of a denial that only the gateway's report gives, after the
// deciding layer's name (global:plugin_unlisted, subagent:plugin_mislisted).
const (
	causePluginUnlisted  = "plugin_unlisted"
	causePluginMislisted = "plugin_mislisted"
)

// maxReports bounds the reports an effective keeps compiled (a cache only).
const maxReports = 64

// report is the plugin_tools of a session's root start, decoded.
type report struct {
	raw   string
	tools map[string][]string
	root  events.SessionKey
	start envelope.RecordRef
	// call: the call's own report (CallPluginKey) named a plugin the
	// start's did not.
	call bool
}

// reportOf returns the report that decides s: its root's start's
// plugin_tools; nil when there is none.
func reportOf(w envelope.World, s *envelope.Session) *report {
	for r, n := s, 0; r != nil && n <= 1<<16; n++ {
		if r.Root() {
			if r.Start == nil || len(r.Start.PluginTools) == 0 {
				return nil
			}
			return &report{raw: string(r.Start.PluginTools), root: r.Key, start: r.Origin}
		}
		r = w.Session(r.Parent)
	}
	return nil
}

// CallPluginKey is the input key of a checked call with which the plugin
// reports the plugins that own the called tool in the gateway's registry
// at the call (a list of plugin ids). A root's start reports the registry
// when the root started; a plugin enabled later (a gateway restarted under
// a session it keeps) is in no start report, and a tool of it that the
// core catalogue also names would be decided as a core tool. The call's
// report adds its owners to the start's for that call (reportFor), so
// group:plugins and the plugin's id cover it as OpenClaw's own policy
// does (TestCallReportsPluginTool, conformance plugins-03).
const CallPluginKey = "ledger:plugin"

// callOwners returns the plugin ids input names under CallPluginKey, nil
// when it names none; ok is false when the value is not a list of
// non-empty strings.
//
// Its results are not named: a named result whose address json.Unmarshal
// takes lives on the heap from the call's start, an allocation for every
// check, most of which carry no input.
func callOwners(input json.RawMessage) ([]string, bool) {
	if len(input) == 0 || !bytes.Contains(input, []byte(CallPluginKey)) {
		return nil, true
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(input, &m) != nil {
		return nil, true // not an object: names no plugin
	}
	raw, present := m[CallPluginKey]
	if !present {
		return nil, true
	}
	var ids []string
	if json.Unmarshal(raw, &ids) != nil || len(ids) == 0 {
		return nil, false
	}
	for _, id := range ids {
		if strings.TrimSpace(id) == "" {
			return nil, false
		}
	}
	return ids, true
}

// reportFor is the report that decides tool for s at one call: the root's
// start report, with the plugins the call's input names (CallPluginKey)
// given the tool too; nil when neither names any plugin tool.
func reportFor(w envelope.World, s *envelope.Session, tool string, input json.RawMessage) *report {
	rep := reportOf(w, s)
	ids, _ := callOwners(input)
	if len(ids) == 0 {
		return rep
	}
	tools := map[string][]string{}
	root, start := events.SessionKey(""), envelope.RecordRef{}
	if rep != nil {
		if t, err := events.DecodePluginTools([]byte(rep.raw)); err == nil {
			tools = t
		}
		root, start = rep.root, rep.start
	} else if r := rootOf(w, s); r != nil {
		root, start = r.Key, r.Origin
	}
	changed := false
	for _, id := range ids {
		if !slices.Contains(tools[id], tool) {
			tools[id] = append(slices.Clone(tools[id]), tool)
			changed = true
		}
	}
	if !changed && rep != nil {
		return rep
	}
	raw, err := json.Marshal(tools) // map keys sorted: one text for one report
	if err != nil {
		return rep
	}
	return &report{raw: string(raw), root: root, start: start, call: true}
}

// reported returns e compiled with rep's plugin tools as the marks, nil
// when there is no report. A report that does not decode (one CheckEvent
// refuses; a recorded one always decodes) marks nothing.
func (e *effective) reported(ps *envelope.PolicyState, rep *report) *effective {
	if e == nil || rep == nil || ps == nil {
		return nil
	}
	if v, ok := e.reports.Load(rep.raw); ok {
		rv := v.(*reportView)
		rep.tools = rv.tools
		return rv.e
	}
	tools, err := events.DecodePluginTools([]byte(rep.raw))
	if err != nil {
		tools = map[string][]string{}
	}
	rv := &reportView{e: newEffectiveMarked(e.policy, ps, tools), tools: tools}
	rep.tools = tools
	if e.nreports.Add(1) <= maxReports {
		e.reports.Store(rep.raw, rv)
	}
	return rv.e
}

// reportView is an effective compiled with a report's plugin tools, and
// the report decoded.
type reportView struct {
	e     *effective
	tools map[string][]string
}

// owners returns the plugins (ids trimmed and lower-cased, sorted) that
// marks gives tool t to, under the release.
func owners(r *Release, marks map[string][]string, t string) []string {
	var out []string
	for id, tools := range marks {
		for _, x := range tools {
			if r.normalize(x) == t {
				pid := r.lower(r.trim(id))
				if !slices.Contains(out, pid) {
					out = append(out, pid)
				}
				break
			}
		}
	}
	sort.Strings(out)
	return out
}

// disagree is the denial of a tool the document allows and the report
// denies (vr, decided under the report): the deciding layer's code with
// the cause, the rule that matched under the report followed by what the
// document's pluginTools must say, and the record of that rule.
func (rep *report) disagree(e *effective, vr envelope.Verdict) envelope.Verdict {
	r := rep.reason(e, vr.Tool, vr.Reason)
	vr.Reason = r
	for i := range vr.Trace {
		if vr.Trace[i].Outcome == envelope.Removed || vr.Trace[i].Outcome == envelope.Decided {
			rr := r
			vr.Trace[i].Reason = &rr
		}
	}
	return vr
}

// reason rewrites why (the reason a tool t is denied under the report)
// into the reason that names the disagreement.
func (rep *report) reason(e *effective, t string, why envelope.Reason) envelope.Reason {
	layer, _, _ := strings.Cut(why.Code, ":")
	reported := owners(e.rel, rep.tools, t)
	listed := owners(e.rel, e.policy.Doc.PluginTools, t)
	at := "session.started of " + string(rep.root) + " at seq " + strconv.FormatUint(rep.start.Seq, 10)
	if rep.call {
		at += ", and the call's own report (" + CallPluginKey + ")"
	}
	var cause, rule string
	switch {
	case len(reported) > 0:
		cause = causePluginUnlisted
		rule = why.Rule + ", as the gateway reports " + strconv.Quote(t) + ": a tool of plugin " + strings.Join(reported, ", ") +
			" (" + at + "); pluginTools does not list it there: add " + strconv.Quote(t) + " to pluginTools." + reported[0]
	case len(listed) > 0:
		cause = causePluginMislisted
		rule = why.Rule + ", as the gateway reports " + strconv.Quote(t) + ": no plugin's tool (" + at + "); pluginTools lists it under " +
			strings.Join(listed, ", ") + ": remove it there"
	default:
		// Not reached by a difference in t's own marks; said as it is.
		cause = causePluginMislisted
		rule = why.Rule + ", as the gateway reports its plugins' tools (" + at + "), which pluginTools does not match"
	}
	return envelope.Reason{Code: layer + ":" + cause, Rule: rule, Record: why.Record}
}

// narrow is the tool set ts (under the document) with every tool that tr
// (the same session's under the report) denies moved to the denied tools,
// with the reason naming the disagreement; the denied tools stay in
// catalogue order.
func (rep *report) narrow(e *effective, s *envelope.Session, ts, tr envelope.ToolSet) envelope.ToolSet {
	denied := make(map[string]envelope.Reason, len(tr.Denied))
	for _, d := range tr.Denied {
		denied[d.Tool] = d.Reason
	}
	var moved []envelope.Denial
	allowed := ts.Allowed[:0:0]
	for _, t := range ts.Allowed {
		if why, ok := denied[t]; ok {
			moved = append(moved, envelope.Denial{Tool: t, Reason: rep.reason(e, t, why)})
			continue
		}
		allowed = append(allowed, t)
	}
	if len(moved) == 0 {
		return ts
	}
	order := func(t string) int {
		if i, ok := e.cat.index[t]; ok {
			return i
		}
		for j, raw := range s.Tools {
			if e.rel.normalize(raw) == t {
				return len(e.cat.names) + j
			}
		}
		return len(e.cat.names) + len(s.Tools)
	}
	all := append(slices.Clone(ts.Denied), moved...)
	sort.SliceStable(all, func(i, j int) bool { return order(all[i].Tool) < order(all[j].Tool) })
	return envelope.ToolSet{Allowed: allowed, Denied: all}
}
