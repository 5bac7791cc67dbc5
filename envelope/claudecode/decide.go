package claudecode

import (
	"bytes"
	"encoding/json"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/sessionledger/ledger/envelope"
)

// The decision steps of section 9.3 after the pool, in order.
const (
	stepAgentType = iota
	stepEndConversation
	stepDenyRules
	stepAskRules
	stepUserInteraction
	stepCriticalPath
	stepProtectedPath
	stepMode
	stepAllowRules
	stepDefaults
	stepDontAsk
	numSteps
)

var stepNames = [numSteps]string{
	"agent_type", "end_conversation", "deny_rules", "ask_rules", "user_interaction",
	"critical_path", "protected_path", "mode", "allow_rules", "defaults", "dont_ask",
}

// call is one call of one tool with its input (section 9.1).
type call struct {
	tool       string
	obj        json.RawMessage // the input when it is a valid JSON object; nil otherwise
	primary    string
	hasPrimary bool

	pathDone bool
	path     inPath
	bashLine *bashLine
	// where is the input's PathsKey, read into ctx when the call first
	// resolves a path (at).
	where   json.RawMessage
	ctxDone bool
	ctx     *pathCtx
	// cut are the parameters left out as too long (the input's CutKey).
	cut []string
	// agentType is the agent an Agent call launches (Compiled.agentType),
	// when it is not its subagent_type as written; set by launches.
	agentType string
}

// launches reads which agent an Agent call launches, when that is another
// name than its subagent_type (agenttype.go).
func (c *call) launches(comp *Compiled) *call {
	if c.tool == toolAgent && c.hasPrimary && comp != nil {
		if t := comp.agentType(c.primary); t != c.primary {
			c.agentType = t
		}
	}
	return c
}

// newCall reads what a decision needs of a call's input: its primary
// parameter, where it runs and the parameters cut. An object's members are
// looked up as written (member) rather than decoded into a map, and a
// plain string value is taken as it is (plainString);
// TestNewCallIsMapDecode holds this to decoding the object.
func newCall(tool string, input json.RawMessage) *call {
	c := &call{tool: tool}
	field := primaryField(tool)
	switch jsonKind(input) {
	case '"':
		var s string
		if json.Unmarshal(input, &s) == nil && field != "" && s != "" {
			c.primary, c.hasPrimary = s, true
		}
	case '{':
		if !json.Valid(input) {
			break
		}
		c.obj = input
		var cut, raw, pattern json.RawMessage
		members(input, func(k, v []byte) { // the last member of a name is the one kept, as in a decode
			switch {
			case keyIs(k, PathsKey):
				c.where = v
			case keyIs(k, CutKey):
				cut = v
			case field != "" && keyIs(k, field):
				raw = v
			case tool == toolGlob && keyIs(k, "pattern"):
				pattern = v
			}
		})
		if pattern != nil && jsonKind(pattern) == '"' {
			// Claude Code 2.1.328 checks a Glob whose pattern is absolute
			// against the pattern's directory before its first wildcard,
			// whatever its path says: Read(./secret/**) denies pattern
			// PROJECT/secret/* (TestDifferential/files-search-*).
			var s string
			if json.Unmarshal(pattern, &s) == nil && strings.HasPrefix(s, "/") {
				raw, _ = json.Marshal(globBase(s))
			}
		}
		if cut != nil {
			_ = json.Unmarshal(cut, &c.cut)
		}
		if raw != nil && jsonKind(raw) == '"' {
			s, plain := plainString(raw)
			if !plain && json.Unmarshal(raw, &s) != nil {
				s = ""
			}
			if s != "" {
				c.primary, c.hasPrimary = s, true
			}
		}
	}
	return c
}

// globBase is the directory of an absolute Glob pattern before its first
// segment with a wildcard, "/" at least.
func globBase(pattern string) string {
	segs := strings.Split(pattern, "/")
	n := 0
	for n < len(segs)-1 && !strings.ContainsAny(segs[n], "*?[{") {
		n++
	}
	if b := strings.Join(segs[:n], "/"); b != "" {
		return b
	}
	return "/"
}

// linkedPaths are the other spellings of the call's path through symbolic
// links, which the input's PathsKey names ("resolved"): each absolute, in
// the call's context. nil when it names none (the path is decided as
// given).
func (c *call) linkedPaths() []inPath {
	if _, ok := c.inputPath(); !ok {
		return nil
	}
	ctx := c.at()
	if ctx == nil || len(ctx.resolved) == 0 {
		return nil
	}
	out := make([]inPath, len(ctx.resolved))
	for i, segs := range ctx.resolved {
		out[i] = inPath{kind: pathAbs, segs: segs, ctx: ctx}
	}
	return out
}

// inputPath returns the call's path; ok is false when it has none.
func (c *call) inputPath() (inPath, bool) {
	if !c.hasPrimary {
		return inPath{}, false
	}
	if !c.pathDone {
		c.path, c.pathDone = c.resolve(c.primary), true
	}
	return c.path, true
}

// resolve reads a path of the call: absolute when the call says where it
// runs (PathsKey), else as written (section 9.5).
func (c *call) resolve(s string) inPath {
	if ctx := c.at(); ctx != nil {
		return ctx.resolve(s)
	}
	return parseInputPath(s)
}

// at is where the call runs (the input's PathsKey); nil when the input
// does not say.
func (c *call) at() *pathCtx {
	if !c.ctxDone {
		if c.where != nil {
			c.ctx = parsePathCtx(c.where)
		}
		c.ctxDone = true
	}
	return c.ctx
}

// wordPath reads a path word of a Bash command (quotes removed): $HOME and
// $HOME/... are the home directory, as Bash expands them and Claude Code
// 2.1.328 reads them (cat $HOME/.aws/credentials is denied by
// Read(~/.aws/**): TestDifferential/i25-anchors-*). false for a word whose
// value depends on any other expansion (${HOME}, $VAR): it cannot be read
// before it runs.
func (c *call) wordPath(w string) (inPath, bool) {
	if rest, ok := strings.CutPrefix(w, "$HOME"); ok && (rest == "" || rest[0] == '/') {
		w = "~" + rest
	}
	if strings.ContainsAny(w, "$`") {
		return inPath{}, false
	}
	p := c.resolve(w)
	if p.ctx != nil && p.ctx.collect != nil {
		p.ctx.collect(p)
	}
	return p, true
}

// bash returns the parsed command of a Bash or Monitor call (nil without
// one).
func (c *call) bash() *bashLine {
	if !c.hasPrimary {
		return nil
	}
	if c.bashLine == nil {
		c.bashLine = parseBash(c.primary)
	}
	return c.bashLine
}

// param returns the literal text of a top-level scalar parameter.
func (c *call) param(p string) (string, bool) {
	if c.obj == nil {
		return "", false
	}
	raw, ok := member(c.obj, p)
	if !ok {
		return "", false
	}
	raw = bytes.TrimSpace(raw)
	switch k := jsonKind(raw); {
	case k == '"':
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return "", false
		}
		return s, true
	case k == 't' || k == 'f' || k == '-' || k >= '0' && k <= '9':
		return string(raw), true
	}
	return "", false
}

// matches reports whether a rule that applies to the call matches it
// (section 9.2). Command rules on Bash and Monitor are checked by the
// caller against the right texts; here they match deny and ask texts.
func (rr *ruleRef) matches(c *call, dirs []inPath) bool {
	r := rr.r
	switch r.specKind {
	case specNone:
		return true
	case specParam:
		return rr.paramMatches(c)
	case specCommand:
		l := c.bash()
		if l == nil || c.tool != toolBash && c.tool != toolMonitor {
			return false
		}
		if rr.b == bAllow {
			return false // allow rules approve per subcommand
		}
		if r.writtenOnly() {
			for i := range l.subs {
				if r.cmd.writtenMatch(l.subs[i].raw) {
					return true
				}
			}
			return false
		}
		cmd := r.cmdFor()
		for _, t := range l.denyTexts {
			if cmd.match(t) {
				return true
			}
		}
		return false
	case specPowerShell:
		return c.tool == toolPowerShell && c.hasPrimary && r.cmd.match(strings.Join(strings.Fields(c.primary), " "))
	case specPath:
		if r.path.star && rr.b != bAllow {
			return true // Read(*) in deny and ask rules: every call, as the bare rule
		}
		p, ok := c.inputPath()
		if !ok {
			return false
		}
		if rr.b == bAllow && r.name == toolEdit && isReadClass(c.tool) &&
			(p.protected() || slices.ContainsFunc(c.linkedPaths(), inPath.protected)) {
			// An Edit allow rule approves a read as the write it implies:
			// Claude Code 2.1.328 asks for Read ~/.gitconfig, ~/.git/config,
			// ~/.vscode/s.json and ~/.Claude/a.txt under Edit(~/**) and
			// Edit(//**), as it asks for writing them, and reads
			// ~/.config/other/a.txt and ~/.claude/worktrees/w.txt (row 95;
			// TestDifferential/genuser-edit-protected-read-*).
			return false
		}
		if r.path.matchIn(p, rr.b, dirs) {
			return true
		}
		if rr.b != bAllow {
			// Deny and ask rules also speak about the path through its
			// links, as Claude Code 2.1.328 reads them (section 9.5). An
			// allow rule must approve every spelling: linksAllowed.
			for _, q := range c.linkedPaths() {
				if r.path.matchIn(q, rr.b, dirs) {
					return true
				}
			}
		}
		return false
	case specDomain:
		if c.tool != toolWebFetch || !c.hasPrimary {
			return false
		}
		h, unsure := hostRead(c.primary)
		// A host IDNA refuses matches every deny and ask domain rule
		// (section 0.3).
		return r.domain.match(h) || unsure && rr.b != bAllow
	case specAgentTypes:
		// The type as written, or the agent it launches (agenttype.go).
		if c.tool != toolAgent || !c.hasPrimary {
			return false
		}
		for _, t := range r.types {
			if t == c.primary || c.agentType != "" && t == c.agentType {
				return true
			}
		}
		return false
	case specSkill:
		// Claude Code 2.1.328 reads a Skill rule's name form in deny and
		// allow rules only, and its parameter form (skill:<glob>, or any
		// other parameter) in deny and ask rules (row 90;
		// TestDifferential/genskills-*).
		if c.tool != toolSkill {
			return false
		}
		if r.param != "" && rr.paramMatches(c) {
			return true
		}
		return rr.b != bAsk && c.hasPrimary && r.skill.match(c.primary) &&
			// An allow approves no name with a ":" (a namespace, such as
			// the ones Claude Code reserves for synced skills).
			!(rr.b == bAllow && strings.Contains(c.primary, ":"))
	}
	return false
}

// paramMatches is a parameter rule (deny and ask only) against the call.
func (rr *ruleRef) paramMatches(c *call) bool {
	r := rr.r
	// Claude Code 2.1.328 ignores parameter rules on MCP tools: a deny
	// mcp__srv__danger(text:a) lets {"text":"a"} run
	// (TestDifferential/i25-mcp-param-rules).
	if rr.b == bAllow || isContentField(r.param) || isMCP(c.tool) {
		return false
	}
	if slices.Contains(c.cut, r.param) {
		return true // a value too long to record: fails closed
	}
	v, ok := c.param(r.param)
	if ok && c.tool == toolSkill && r.param == "skill" {
		// The skill as its name form reads it (bareSkill): deny
		// Skill(skill:hello) refuses "/hello"
		// (TestDifferential/genskills-slash-*). The value as written
		// still counts.
		return globMatch(r.value, v) || globMatch(r.value, bareSkill(v))
	}
	return ok && globMatch(r.value, v)
}

// firstRule returns the first rule of list b that applies to and matches
// the call.
func (v *view) firstRule(b behavior, c *call) *ruleRef {
	for i := range v.e.rules[b] {
		rr := &v.e.rules[b][i]
		if rr.r.applies(c.tool, b) && rr.matches(c, v.workDirs()) {
			if b == bAllow && rr.r.name == toolEdit && isReadClass(c.tool) && v.editHeld(c) {
				continue
			}
			return rr
		}
	}
	return nil
}

// editHeld reports an Edit deny or ask rule that speaks about the path of
// c, a read: an Edit allow rule approves a read only where writing the
// path is not held. Claude Code 2.1.328 asks for Read ~/a.txt and
// ~/gp/a.txt under allow Edit(~/**) beside deny or ask Edit(~/*), and
// reads them with no such rule or with deny Edit(~/zz.txt) (row 147,
// TestDifferential/editallowheld-*; TestEditAllowHeldRead). A bare Edit
// deny or ask rule holds every path.
func (v *view) editHeld(c *call) bool {
	for _, b := range []behavior{bDeny, bAsk} {
		for i := range v.e.rules[b] {
			rr := &v.e.rules[b][i]
			if rr.r.nameKind != nameExact || rr.r.name != toolEdit {
				continue
			}
			if rr.r.specKind == specNone || rr.r.specKind == specPath && rr.matches(c, v.workDirs()) {
				return true
			}
		}
	}
	return false
}

// workDirs are the policy's additionalDirectories, which a deny or ask
// path pattern without a root is also read below (matchBelow).
func (v *view) workDirs() []inPath {
	if v.e.c == nil {
		return v.ruleDirs
	}
	return v.e.c.dirs
}

func (v *view) ruleReason(code string, rr *ruleRef) envelope.Reason {
	return envelope.Reason{Code: code, Rule: rr.where, Record: v.ref(rr.rec)}
}

// outcome is a decision with its reason and the step that made it.
type outcome struct {
	d      envelope.Decision
	reason envelope.Reason
	step   int
	ok     bool
	detail string // what the step says about a subcommand, when it has more to say
}

func decided(step int, d envelope.Decision, r envelope.Reason) outcome {
	return outcome{d: d, reason: r, step: step, ok: true}
}

// decide runs section 9.3 for a call of a tool in the pool.
func (v *view) decide(c *call, steps []envelope.Step) (outcome, []envelope.Step) {
	var out outcome
	var detailBuf [numSteps]string
	var outcomeBuf [numSteps]envelope.Outcome
	detail, outcomes := detailBuf[:], outcomeBuf[:]
	for i := range outcomes {
		outcomes[i] = envelope.Absent
	}
	set := func(step int, o envelope.Outcome, d string) {
		outcomes[step] = o
		if d != "" {
			detail[step] = d
		}
	}
	t := c.tool

	// 2. The main-thread agent's Agent(type) list.
	if t == toolAgent && v.kind == kindRoot && v.def != nil && !v.def.anyType {
		outcomes[stepAgentType] = envelope.Kept
		if !v.brief {
			detail[stepAgentType] = "may spawn: " + strings.Join(v.def.types, ", ")
		}
		// Both the type as written and the agent it launches must be
		// listed (agenttype.go).
		if c.hasPrimary && (!v.def.allowsType(c.primary) || c.agentType != "" && !v.def.allowsType(c.agentType)) {
			var entries []toolEntry
			for _, e := range v.def.tools {
				if e.kind == entExact && e.name == toolAgent {
					entries = append(entries, e)
				}
			}
			out = decided(stepAgentType, envelope.Deny, envelope.Reason{Code: codeTypeNotListed,
				Rule: "tools: " + quoteList(entries), Record: v.rev()})
		}
	}
	// 3. EndConversation in the pool needs nothing.
	if !out.ok && t == toolEndConversation {
		out = decided(stepEndConversation, envelope.Allow, envelope.Reason{Code: codeDefaultNoPermFree})
	}
	// 4, 5. Deny, then ask rules.
	if !out.ok {
		set(stepDenyRules, envelope.Kept, "")
		if rr := v.firstRule(bDeny, c); rr != nil {
			out = decided(stepDenyRules, envelope.Deny, v.ruleReason(codePermissionDeny, rr))
		} else if rr, seg, path := v.commandPathDeny(c); rr != nil {
			out = decided(stepDenyRules, envelope.Deny, v.ruleReason(codePermissionDeny, rr))
			if !v.brief {
				detail[stepDenyRules] = strconv.Quote(seg) + " " + pathVerb(seg) + " " + strconv.Quote(path)
			}
		} else if rr, script := v.shellScriptDeny(c, 0); rr != nil {
			out = decided(stepDenyRules, envelope.Ask, v.ruleReason(codeDenyInScript, rr))
			if !v.brief {
				detail[stepDenyRules] = "a deny rule matches a command inside the shell -c script " + strconv.Quote(script)
			}
		} else if t == toolBash && v.e.cmdDenyCaveat != "" {
			detail[stepDenyRules] = v.e.cmdDenyCaveat
		}
	}
	if !out.ok {
		set(stepAskRules, envelope.Kept, "")
		if rr := v.firstRule(bAsk, c); rr != nil {
			out = decided(stepAskRules, envelope.Ask, v.ruleReason(codePermissionAsk, rr))
		}
	}
	// 6. AskUserQuestion always asks.
	if !out.ok && t == toolAskUserQuestion {
		out = decided(stepUserInteraction, envelope.Ask, envelope.Reason{Code: codeUserInteraction})
	}
	// 7. Critical removals.
	isCmd := t == toolBash || t == toolMonitor
	if !out.ok && isCmd {
		set(stepCriticalPath, envelope.Kept, "")
		if arg, ok := c.removesCritical(v.e.c.dirs); ok {
			out = decided(stepCriticalPath, envelope.Ask, envelope.Reason{Code: codeCriticalPath})
			if !v.brief {
				detail[stepCriticalPath] = "removes the critical path " + strconv.Quote(arg)
			}
		} else if l := c.bash(); l != nil && l.openDollar {
			out = decided(stepCriticalPath, envelope.Ask, envelope.Reason{Code: codeCriticalPath})
			if !v.brief {
				detail[stepCriticalPath] = "leaves a $( or ${ open, or begins a command in $( ) with a backquote, so no removal in it can be ruled out"
			}
		} else if l != nil && l.subscriptQuote {
			out = decided(stepCriticalPath, envelope.Ask, envelope.Reason{Code: codeCriticalPath})
			if !v.brief {
				detail[stepCriticalPath] = "holds quoted text in a subscript of an expansion, which the release reads as code it cannot check, so no removal in it can be ruled out"
			}
		} else if l != nil && l.doubleParen {
			out = decided(stepCriticalPath, envelope.Ask, envelope.Reason{Code: codeCriticalPath})
			if !v.brief {
				detail[stepCriticalPath] = "gives a command an argument holding (( , which the shell refuses and the release's parser misreads, so no removal in it can be ruled out"
			}
		} else if l != nil && l.keywordAfterPrefix {
			out = decided(stepCriticalPath, envelope.Ask, envelope.Reason{Code: codeCriticalPath})
			if !v.brief {
				detail[stepCriticalPath] = "runs a reserved word after an assignment or a redirection, which the release's parser misreads, so no removal in it can be ruled out"
			}
		}
	}
	if !out.ok && v.e.c != nil && v.e.c.blockWrites && isEditClass(t) {
		if o, blocked := v.writeBlock(c); blocked {
			out = o
			if !v.brief {
				detail[stepProtectedPath] = o.detail
			}
		}
	}
	if !out.ok && v.e.c != nil && v.e.c.blockReads {
		if o, blocked := v.readBlock(c); blocked {
			out = o
			if !v.brief {
				detail[stepProtectedPath] = o.detail
			}
		}
	}
	// 8. Protected paths, mode, allow rules, defaults.
	if !out.ok {
		if isCmd {
			out = v.decideCommand(c, outcomes, detail)
			if l := c.bash(); out.d == envelope.Allow && v.mode != modeBypass && l != nil && l.background() && v.toolApproves(c) {
				out = decided(stepProtectedPath, envelope.Ask, envelope.Reason{Code: codeBackgroundOp})
				if !v.brief {
					detail[stepProtectedPath] = "a command of the line runs in the background (&)"
				}
			}
		} else {
			out = v.decideOnce(c, outcomes, detail)
		}
	}
	// 9. dontAsk turns every prompt into a denial.
	orig, converted := out, false
	if v.mode == modeDontAsk {
		outcomes[stepDontAsk] = envelope.Kept
		if out.d == envelope.Ask {
			converted = true
			out.d, out.reason = envelope.Deny, envelope.Reason{Code: codeDontAsk, Rule: "mode: \"dontAsk\"", Record: v.origin()}
		}
	}
	if steps != nil {
		for i := 0; i < numSteps; i++ {
			st := envelope.Step{Layer: stepNames[i], Outcome: outcomes[i], Detail: detail[i]}
			switch {
			case i == stepDontAsk:
				if converted {
					r := out.reason
					st.Outcome, st.Reason = envelope.Decided, &r
					st.Detail = "was " + orig.reason.Code
				}
			case i == orig.step:
				r := orig.reason
				st.Outcome, st.Reason = envelope.Decided, &r
			case i > orig.step && (st.Outcome != envelope.Absent || applicableStep(i, c, v)):
				st.Outcome = envelope.Skipped
			}
			steps = append(steps, st)
		}
	}
	return out, steps
}

// toolApproves reports whether the line is approved without a bare Bash
// allow rule: by allow rules with a specifier, the read-only list or
// acceptEdits, as Claude Code 2.1.328's Bash tool approves a command
// itself. Only such an approval is held back by a background '&': under
// a bare Bash allow rule the CLI runs make x & and asks for ls &
// (TestDifferential/sh4-background-bare-default).
func (v *view) toolApproves(c *call) bool {
	nv := *v
	nv.noBare, nv.brief = true, true
	var outcomes [numSteps]envelope.Outcome
	var detail [numSteps]string
	return nv.decideCommand(c, outcomes[:], detail[:]).d == envelope.Allow
}

// commandPathDeny checks the paths a Bash command reads or writes against
// the Read (reads) and Edit (writes and creations) deny rules, as Claude
// Code 2.1.328 does: a Read deny rule blocks "cat .env" as it blocks
// Read(.env). It returns the first matching rule, the segment and the path.
func (v *view) commandPathDeny(c *call) (*ruleRef, string, string) {
	if c.tool != toolBash && c.tool != toolMonitor {
		return nil, "", ""
	}
	l := c.bash()
	if l == nil {
		return nil, "", ""
	}
	// cd is where the line's cd commands moved it so far: a path is
	// matched where the call runs and, after a cd, from where the cd went.
	var cd cdDir
	matchAt := func(tool, w string) *ruleRef {
		ip, ok := c.wordPath(w)
		if !ok {
			return nil
		}
		// Claude Code 2.1.328 matches a command's path through its
		// symbolic links too (bashlinks.go): any spelling recorded.
		spellings := ip.spellings()
		for i := range v.e.rules[bDeny] {
			rr := &v.e.rules[bDeny][i]
			if rr.r.specKind != specPath || rr.r.nameKind != nameExact || rr.r.name != tool {
				continue
			}
			if rr.r.path.star {
				// Read(*) denies the file tools every call, and no path
				// of a command: Claude Code 2.1.328 runs cat a.txt under
				// it, and denies it under Read(**) (row 120,
				// TestDifferential/readstar-*); Edit(*) likewise, and it
				// runs touch t1.txt and echo x > o1.txt under it in
				// acceptEdits (TestDifferential/editstar-*;
				// TestEditStarWrite).
				continue
			}
			if rr.r.path.matchIn(ip, bDeny, v.workDirs()) {
				return rr
			}
			for _, q := range spellings {
				if rr.r.path.matchIn(q, bDeny, v.workDirs()) {
					return rr
				}
			}
		}
		return nil
	}
	match := func(tool, w string) *ruleRef {
		if rr := matchAt(tool, w); rr != nil {
			return rr
		}
		for _, moved := range cd.paths(w) {
			if rr := matchAt(tool, moved); rr != nil {
				return rr
			}
		}
		if cd.overflow && !absoluteWord(w) {
			return v.firstPathDeny(tool)
		}
		return nil
	}
	// A redirection's target is not expanded: Claude Code 2.1.328 asks
	// for echo x >> $HOME/.bashrc ("Redirect target ... contains $")
	// where Edit(~/.bashrc) would deny the path (TestDifferential/
	// i25h-anchors-*); redirectAsk asks for it.
	// A target is read as the shell reads it: Claude Code 2.1.328 denies
	// echo x > lock\ed/p1.txt under Edit(./locked/**), in
	// bypassPermissions too (TestDifferential/pathspell-*).
	target := func(tool, w string) *ruleRef {
		if strings.ContainsAny(w, "$`") {
			return nil
		}
		return match(tool, shellWord(w))
	}
	for si, seg := range l.pathSegs {
		// A redirection inside a nested command ($(echo x > .env)) is a
		// target too.
		_, outs, ins := splitRedirs(seg)
		for _, t := range outs {
			if rr := target(toolEdit, t); rr != nil {
				return rr, strings.Join(seg, " "), t
			}
		}
		for _, t := range ins {
			if rr := target(toolRead, t); rr != nil {
				return rr, strings.Join(seg, " "), t
			}
		}
		// The command past the redirections written before it: Claude
		// Code 2.1.328 denies > f rm locked/a as rm locked/a (row 54;
		// TestDifferential/leadredir-paths-*).
		words := seg
		if leadRedirect(seg) > 0 {
			words = denyWords(seg, stripPaths)
		}
		// The command's own words: a redirection is no operand (its
		// target was checked above). Claude Code 2.1.328 denies cp a.txt
		// locked/c1.txt 2>&1 under Edit(./locked/**), the copy's
		// destination being locked/c1.txt, and runs cat a.txt >
		// secret/o1.txt under Read(./secret/**) (row 105,
		// TestRedirectIsNoOperand).
		words, _, _ = splitRedirs(words)
		if len(words) == 0 {
			cd.step(seg)
			continue
		}
		// A writing command named by its path is the command: the
		// release denies /bin/cp gp/a.txt n15.txt under Edit(./gp/**)
		// (row 108).
		name := shellWord(words[0])
		if n := pathCommandName(name); n != words[0] {
			words = append([]string{n}, words[1:]...)
		}
		op, paths, ok := commandPaths(words)
		if !ok {
			cd.step(seg)
			continue
		}
		tool := toolRead
		if op != opRead && !(words[0] == "sed" && sedReads(words[1:])) {
			tool = toolEdit
		}
		plainCp := name == "cp" && l.pathSegPlain(si) && plainCopy(words, paths)
		for i, p := range paths {
			if plainCp && i < len(paths)-1 {
				// The sources of a cp without options are only read: Read
				// deny rules see them (readsToo), Edit deny rules its
				// destination alone, as a read-only sed's files are read:
				// the release runs cp gp/a.txt n1.txt and sed -n p
				// gp/a.txt under Edit(./gp/**) in bypassPermissions and
				// denies cp n0.txt gp/c.txt, mv gp/m.txt n3.txt and
				// sed p gp/a.txt (row 104, TestDifferential/editdenysrc-*).
				// With an option (cp -t locked a.txt) every path stays
				// Edit's: which one is written is the option's to say; so
				// it does with a destination the shell would expand (the
				// release denies cp gp/a.txt ~/gp/c1.txt there and runs
				// cp gp/a.txt HOME/gp/c4.txt).
				continue
			}
			// The path as the shell reads it: the release denies cat
			// secr\et/s.txt under Read(./secret/**) (leadredir-paths-*).
			if rr := match(tool, shellWord(p)); rr != nil {
				return rr, strings.Join(seg, " "), p
			}
		}
		for _, p := range readsToo(words[0], paths) {
			if rr := match(toolRead, p); rr != nil {
				return rr, strings.Join(seg, " "), p
			}
		}
		if op == opRead || words[0] == "sed" && sedReads(words[1:]) {
			for _, p := range globOperands(words[0], words[1:], paths) {
				if !unquotedGlobIn(l.line, p) {
					continue // a glob the line quotes is a name (segments lose quotes)
				}
				if rr := match(toolRead, shellWord(p)); rr != nil {
					return rr, strings.Join(seg, " "), p
				}
			}
		}
		cd.step(seg)
	}
	// Redirection targets: Edit deny rules for where output goes, Read
	// deny rules for where input comes from (Claude Code 2.1.328 denies
	// echo x > .env under Edit(//**/.env), in every mode:
	// TestDifferential/i25-anchors-*, i25-redirect-bypassPermissions).
	cd = cdDir{}
	for i := range l.subs {
		sub := &l.subs[i]
		for _, t := range sub.outs {
			if rr := target(toolEdit, t); rr != nil {
				return rr, sub.raw, t
			}
		}
		for _, t := range sub.ins {
			if rr := target(toolRead, t); rr != nil {
				return rr, sub.raw, t
			}
		}
		cd.step(unquoteAll(sub.args))
	}
	return nil, "", ""
}

// firstPathDeny is the first deny rule with a path pattern for one of
// tools, which a command's path read from anywhere may match (Read(*)
// and Edit(*) match no path of a command): what a line whose directory
// cannot be followed is denied by (cdDir's overflow).
func (v *view) firstPathDeny(tools ...string) *ruleRef {
	for i := range v.e.rules[bDeny] {
		rr := &v.e.rules[bDeny][i]
		if rr.r.specKind == specPath && rr.r.nameKind == nameExact && slices.Contains(tools, rr.r.name) && !rr.r.path.star {
			return rr
		}
	}
	return nil
}

// plainCopy reports a cp whose sources are only read, as Claude Code
// 2.1.328 reads them (cli.js: the copy's words literal, its options before
// the paths each -[pfinv]+ or --, every path matching
// /^(?!\d+$)[\w./][^*?[#^=]*$/): words (the command's, without
// redirections) are cp, such options and its paths, none with a $ or a
// backquote, the last path not expanded by the shell either. A comment's
// # fails the path test, so a cp before a comment keeps every path Edit's
// (stricter than the release, which drops the comment: section 0.3). The
// caller adds what the release asks of the segment: cp written first, by
// that name (no assignment or wrapper before it, not /bin/cp). The
// release denies timeout 5 cp gp/a.txt n2.txt, cp gp/a.txt n=5.txt and cp
// gp/a.txt 5 under Edit(./gp/**) and runs cp gp/a.txt n1.txt and cp -p
// gp/a.txt n8.txt in bypassPermissions (row 108, TestCopySourcesRead).
func plainCopy(words, paths []string) bool {
	if len(paths) < 2 || !plainTarget(paths[len(paths)-1]) {
		return false
	}
	opts := len(words) - 1 - len(paths)
	if opts < 0 {
		return false
	}
	for i, w := range words[1:] {
		if strings.ContainsAny(w, "$`") || i < opts && !copyOption(w) {
			return false
		}
	}
	for _, p := range paths {
		if !literalCopyPath(shellWord(p)) {
			return false
		}
	}
	return true
}

// pathCommandName is the writing command a command word names by its
// path or its spelling, as Claude Code 2.1.328 reads it (cli.js eN):
// /bin/cp and /usr/bin/rm are cp and rm, CP and cp.exe are cp; any other
// word is itself.
func pathCommandName(w string) string {
	base := w[strings.LastIndexAny(w, `/\`)+1:]
	switch base {
	case "rm", "rmdir", "tee", "cp", "mv":
		return base
	}
	switch l := strings.TrimSuffix(strings.ToLower(base), ".exe"); l {
	case "tee", "cp", "mv":
		return l
	}
	return w
}

// copyOption is an option the release lets before a plain cp's paths:
// -[pfinv]+ or --.
func copyOption(w string) bool {
	if w == "--" {
		return true
	}
	return len(w) > 1 && w[0] == '-' && strings.Trim(w[1:], "pfinv") == ""
}

// literalCopyPath is the release's test of a plain cp's path,
// /^(?!\d+$)[\w./][^*?[#^=]*$/ (JavaScript's \w is ASCII).
func literalCopyPath(p string) bool {
	if p == "" || strings.ContainsAny(p, "*?[#^=") {
		return false
	}
	c := p[0]
	if !(c == '_' || c == '.' || c == '/' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
		return false
	}
	return strings.Trim(p, "0123456789") != ""
}

// plainTarget reports a path the shell does not expand: no leading ~, no
// $ or backquote, no glob or brace.
func plainTarget(p string) bool {
	return !strings.HasPrefix(p, "~") && !strings.ContainsAny(p, "$`") && !shellExpands(p)
}

// readsToo are the paths of a writing command that it also reads, which
// Read deny rules see: the sources of cp and mv (every path but the last),
// and sed's files. Claude Code 2.1.328 denies cp secret/s.txt cp3.txt and
// sed -n p secret/s.txt under Read(./secret/**) (TestDifferential/
// sh3-reads-*).
func readsToo(cmd string, paths []string) []string {
	switch cmd {
	case "cp", "mv":
		if len(paths) >= 2 {
			return paths[:len(paths)-1]
		}
	case "sed":
		return paths
	}
	return nil
}

// commandDenyCaveat is the warning, for a Bash call no deny rule stopped
// while Bash command deny rules exist, of what such rules never see: a
// command word made by substitution ($(echo rm) f), find's -delete and
// -exec, unlink. Claude Code 2.1.328 lets those run too
// (TestDifferential/bypass-rm), so the ledger says so rather than implying
// the rules cover them. Made once per effective policy (buildEffective).
func commandDenyCaveat(deny []ruleRef) string {
	var rules []string
	for i := range deny {
		if r := deny[i].r; r.specKind == specCommand && r.applies(toolBash, bDeny) {
			rules = append(rules, r.text)
		}
	}
	if len(rules) == 0 {
		return ""
	}
	if len(rules) > 3 {
		rules = append(rules[:3], "...")
	}
	return "warning: command deny rules (" + strings.Join(rules, ", ") + ") do not stop a command word made by substitution ($(echo rm) f), find -delete or -exec, or unlink; Claude Code " +
		"lets those run too: deny the tool, or use a sandbox, where that matters"
}

// shellScriptDeny looks inside "bash -c SCRIPT" (sh, zsh, dash, ksh too):
// Claude Code 2.1.328 asks when a deny rule matches a command of the
// script (internal/claudecodetest TestDifferential/bypass-rm: "A
// permission rule denies a command inside this shell -c script").
func (v *view) shellScriptDeny(c *call, depth int) (*ruleRef, string) {
	if c.tool != toolBash || depth > 2 {
		return nil, ""
	}
	l := c.bash()
	if l == nil {
		return nil, ""
	}
	// A script after a cd runs where the cd went: Claude Code 2.1.328 asks
	// for cd locked && bash -c 'rm c2.txt' under Edit(./locked/**)
	// (TestDifferential/shell-c-cd-*), so the script is also read after
	// that cd.
	var cd cdDir
	for i := range l.subs {
		if !mentionsShell(l.subs[i].words) {
			cd.step(unquoteAll(l.subs[i].args))
			continue // the common case: nothing to unquote and strip
		}
		ws := make([]string, len(l.subs[i].words))
		for j, w := range l.subs[i].words {
			ws[j] = unquote(w)
		}
		written, ok := shellScript(stripDeep(ws), l.subs[i].words)
		if !ok {
			cd.step(unquoteAll(l.subs[i].args)) // cd bash names a shell too
			continue
		}
		for _, dir := range cd.dirs() {
			if rr, script := v.scriptDeny(c, written, dir, depth); rr != nil {
				return rr, script
			}
		}
		if cd.overflow {
			// Run from a directory none of the readings kept is.
			if rr := v.firstPathDeny(toolRead, toolEdit); rr != nil {
				return rr, written
			}
		}
		cd.step(unquoteAll(l.subs[i].args))
	}
	// A shell run inside a substitution, a subshell or a group: Claude
	// Code 2.1.328 asks for (bash -c 'rm f') and echo $(bash -c 'rm f')
	// under Bash(rm:*), in bypassPermissions too (TestDifferential/
	// shlaunch-*). Its words are the shell's reading (quotedSegments), so
	// the script is one word; where the call runs is not moved by a cd.
	for _, seg := range l.shellSegs {
		if written, ok := shellScript(stripDeep(seg), seg); ok {
			if rr, script := v.scriptDeny(c, written, "", depth); rr != nil {
				return rr, script
			}
		}
	}
	return nil, ""
}

// scriptDeny is the deny rule that matches a command of the -c script
// written (as shellScript returns it) of a shell the call c runs, after a
// cd to dir when dir is not empty, and the script's reading it matched.
func (v *view) scriptDeny(c *call, written, dir string, depth int) (*ruleRef, string) {
	// The script as the shell reads it (bash -c "sh -c 'cat x'" runs
	// sh -c 'cat x'), and with every quote deleted, the reading the
	// dialect always had: a deny rule that matches either asks.
	for _, script := range scriptReadings(written) {
		// The script runs where the call runs: its paths are read
		// against the call's project and home, as Claude Code 2.1.328
		// reads them (it asks for bash -c 'rm /p/plock/x' under
		// Edit(/plock/**) and runs bash -c 'rm ../locked/x' under
		// Edit(./locked/**) in bypassPermissions:
		// TestDifferential/shell-c-paths-*).
		inner := &call{tool: toolBash, primary: script, hasPrimary: script != "", where: c.where, ctx: c.at(), ctxDone: true}
		if rr := v.firstRule(bDeny, inner); rr != nil {
			return rr, script
		}
		if rr, _, _ := v.commandPathDeny(inner); rr != nil {
			return rr, script
		}
		if rr, _ := v.shellScriptDeny(inner, depth+1); rr != nil {
			return rr, script
		}
		if dir == "" {
			continue
		}
		moved := *inner
		moved.primary, moved.bashLine = "cd '"+strings.ReplaceAll(dir, "'", `'\''`)+"' && "+script, nil
		if rr, _, _ := v.commandPathDeny(&moved); rr != nil {
			return rr, script
		}
		if rr, _ := v.shellScriptDeny(&moved, depth+1); rr != nil {
			return rr, script
		}
	}
	return nil, ""
}

// mentionsShell reports whether a word names a shell shellScript reads
// (after quotes and a directory), so only such subcommands are unquoted.
func mentionsShell(words []string) bool {
	for _, w := range words {
		w = strings.Trim(w, `"'\\`)
		if i := strings.LastIndexByte(w, '/'); i >= 0 {
			w = w[i+1:]
		}
		switch w {
		case "bash", "sh", "zsh", "dash", "ksh", "ash":
			return true
		}
	}
	return false
}

// scriptReadings are the texts a deny rule is matched against for a shell
// -c script word as written: as the shell reads the word (shellWord), and
// with every quote deleted (unquote), when the two differ.
func scriptReadings(written string) []string {
	shell, bare := shellWord(written), unquote(written)
	if shell == bare {
		return []string{shell}
	}
	return []string{shell, bare}
}

// shellScript returns the script word of a shell run with -c, as written:
// ws are the subcommand's words unquoted and stripped; quoted are the same
// words as written. The script is the first word after the options when
// -c is among them: Claude Code 2.1.328 asks for bash -c -- 'rm f', bash
// --norc -c 'rm f' and busybox sh -c 'rm f' under Bash(rm:*), in
// bypassPermissions too (TestDifferential/shellinput-*).
func shellScript(ws, quoted []string) (string, bool) {
	if len(ws) > 0 && ws[0] == "busybox" {
		ws = ws[1:]
	}
	if len(ws) < 3 {
		return "", false
	}
	switch ws[0] {
	case "bash", "sh", "zsh", "dash", "ksh", "ash":
	default:
		return "", false
	}
	off := len(quoted) - len(ws) // the words stripDeep dropped
	script := func(i int) (string, bool) {
		if j := off + i; j >= 0 && j < len(quoted) {
			return quoted[j], true
		}
		return ws[i], true
	}
	withC := false
	for i := 1; i < len(ws); i++ {
		w := ws[i]
		switch {
		case w == "-" || w == "--":
			// The end of the options: the script follows when -c came
			// before (bash -c -- 'rm f' asks); after it, -c is a file's
			// name (bash - -c 'rm f' runs the file -c: Claude Code
			// 2.1.328 runs it in bypassPermissions, shlaunch-*).
			if withC && i+1 < len(ws) {
				return script(i + 1)
			}
			return "", false
		case strings.HasPrefix(w, "--"): // the long options
			if w == "--rcfile" || w == "--init-file" {
				i++ // its file
			}
		case len(w) > 1 && (w[0] == '-' || w[0] == '+'):
			withC = withC || w[0] == '-' && strings.IndexByte(w[1:], 'c') >= 0
			if strings.ContainsAny(w[1:], "oO") {
				i++ // -o NAME, -O NAME (shopt)
			}
		default:
			if withC {
				return script(i)
			}
			return "", false
		}
	}
	return "", false
}

func pathVerb(seg string) string {
	name, _, _ := strings.Cut(seg, " ")
	switch pathCommands[name].op {
	case opRead:
		return "reads"
	case opCreate:
		return "creates"
	}
	return "writes"
}

// applicableStep reports whether a step that was not reached would have
// applied to the call (so the trace says Skipped, not Absent).
func applicableStep(step int, c *call, v *view) bool {
	switch step {
	case stepAgentType:
		return c.tool == toolAgent && v.kind == kindRoot && v.def != nil && !v.def.anyType
	case stepEndConversation:
		return c.tool == toolEndConversation
	case stepUserInteraction:
		return c.tool == toolAskUserQuestion
	case stepCriticalPath:
		return c.tool == toolBash || c.tool == toolMonitor
	case stepProtectedPath:
		return isEditClass(c.tool)
	case stepDontAsk:
		return v.mode == modeDontAsk
	}
	return true
}

// modeReason names the session's mode as the reason's rule.
func (v *view) modeReason(code string) envelope.Reason {
	return envelope.Reason{Code: code, Rule: v.modeText(), Record: v.origin()}
}

// decideOnce runs step 8 for every tool but Bash and Monitor.
func (v *view) decideOnce(c *call, outcomes []envelope.Outcome, detail []string) outcome {
	t := c.tool
	p, hasPath := c.inputPath()
	linked := c.linkedPaths()
	if isEditClass(t) {
		outcomes[stepProtectedPath] = envelope.Kept
		if hasPath && c.at() != nil && c.at().link {
			// Claude Code 2.1.328 refuses to write through a path that is
			// itself a symbolic link, in every mode ("Refusing to write
			// ...: it is a symbolic link. Write to the link's target path
			// instead."; TestDifferential/files-symlinks-*).
			if !v.brief {
				detail[stepProtectedPath] = strconv.Quote(c.primary) + " is a symbolic link"
			}
			return decided(stepProtectedPath, envelope.Deny, envelope.Reason{Code: codeSymlinkWrite})
		}
		if hasPath && (p.writeGuarded() || slices.ContainsFunc(linked, inPath.writeGuarded)) {
			if !v.brief {
				detail[stepProtectedPath] = strconv.Quote(c.primary) + " is a protected path"
				if p.suspicious() || slices.ContainsFunc(linked, inPath.suspicious) {
					detail[stepProtectedPath] = strconv.Quote(c.primary) + " names a suspicious Windows path pattern"
				}
			}
			if v.mode == modeBypass {
				return decided(stepProtectedPath, envelope.Allow, v.modeReason(codeModeBypass))
			}
			return decided(stepProtectedPath, envelope.Ask, envelope.Reason{Code: codeProtectedPath})
		}
	}
	if t == toolRead && hasPath && (p.suspicious() || slices.ContainsFunc(linked, inPath.suspicious)) {
		// Claude Code 2.1.328 asks to read a path naming a Windows
		// pattern, whatever rule would approve it ("Claude requested
		// permissions to read from ..., which contains a suspicious
		// Windows path pattern"), and reads it in bypassPermissions;
		// Grep, Glob and cat read it (row 123,
		// TestDifferential/winreads-*).
		outcomes[stepProtectedPath] = envelope.Kept
		if !v.brief {
			detail[stepProtectedPath] = strconv.Quote(c.primary) + " names a suspicious Windows path pattern"
		}
		if v.mode == modeBypass {
			return decided(stepProtectedPath, envelope.Allow, v.modeReason(codeModeBypass))
		}
		return decided(stepProtectedPath, envelope.Ask, envelope.Reason{Code: codeProtectedPath})
	}
	outcomes[stepMode] = envelope.Kept
	if !v.brief {
		detail[stepMode] = "mode " + v.mode
	}
	switch v.mode {
	case modeBypass:
		return decided(stepMode, envelope.Allow, v.modeReason(codeModeBypass))
	case modeAcceptEdits:
		if isEditClass(t) && (!hasPath || v.inside(p, linked)) {
			return decided(stepMode, envelope.Allow, v.modeReason(codeModeAcceptEdits))
		}
	case modePlan:
		// An MCP tool is held too: Claude Code 2.1.328 holds in plan mode
		// every MCP tool that its server does not mark read-only, before
		// its allow rules ("Cannot call ... while in plan mode."), and a
		// call's payload does not say what the server marks, so every MCP
		// tool is held (row 87; TestPlanHoldsMCPTools,
		// TestDifferential/gentools-plan-*).
		if isEditClass(t) || isMCP(t) {
			return decided(stepMode, envelope.Ask, v.modeReason(codeModePlan))
		}
	}
	outcomes[stepAllowRules] = envelope.Kept
	if rr := v.firstRule(bAllow, c); rr != nil && v.linksAllowed(c, linked) {
		return decided(stepAllowRules, envelope.Allow, v.ruleReason(codePermissionAllow, rr))
	}
	outcomes[stepDefaults] = envelope.Kept
	switch {
	case isReadClass(t):
		if !hasPath || v.inside(p, linked) {
			return decided(stepDefaults, envelope.Allow, envelope.Reason{Code: codeDefaultReadOnly})
		}
		if !v.brief {
			detail[stepDefaults] = strconv.Quote(c.primary) + " is outside the working directories"
		}
		return decided(stepDefaults, envelope.Ask, envelope.Reason{Code: codeDefaultPrompt})
	case isPermissionFree(t):
		return decided(stepDefaults, envelope.Allow, envelope.Reason{Code: codeDefaultNoPermFree})
	case t == toolWebFetch && c.hasPrimary && preapproved(c.primary):
		if !v.brief {
			detail[stepDefaults] = strconv.Quote(c.primary) + " is on Claude Code's preapproved documentation list"
		}
		return decided(stepDefaults, envelope.Allow, envelope.Reason{Code: codePreapproved})
	}
	return decided(stepDefaults, envelope.Ask, envelope.Reason{Code: codeDefaultPrompt})
}

// inside reports whether a call's path p and each of its spellings
// through links are inside the working directories (section 9.5).
func (v *view) inside(p inPath, linked []inPath) bool {
	if !p.inside(v.e.c.dirs) {
		return false
	}
	for _, q := range linked {
		if !q.inside(v.e.c.dirs) {
			return false
		}
	}
	return true
}

// linksAllowed reports whether an allow rule that applies to the call
// approves each spelling of its path through links (section 9.5): a bare
// one approves any, a path rule its own.
func (v *view) linksAllowed(c *call, linked []inPath) bool {
	for _, q := range linked {
		ok := false
		for i := range v.e.rules[bAllow] {
			rr := &v.e.rules[bAllow][i]
			if rr.r.applies(c.tool, bAllow) && (rr.r.specKind == specNone || rr.r.specKind == specPath && rr.r.path.match(q, bAllow)) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

// decideCommand runs step 8 for Bash and Monitor: once per top-level
// subcommand, keeping the most restrictive result (the first subcommand
// with it gives the reason).
func (v *view) decideCommand(c *call, outcomes []envelope.Outcome, detail []string) outcome {
	l := c.bash()
	var subs []*bashSub
	if l != nil {
		for i := range l.subs {
			subs = append(subs, &l.subs[i])
		}
	}
	if len(subs) == 0 {
		subs = []*bashSub{nil} // a call without a command
	}
	var best outcome
	var notes [numSteps][]string
	for _, s := range subs {
		o := v.decideSub(c, l, s, outcomes)
		switch {
		case o.detail != "":
			notes[o.step] = append(notes[o.step], o.detail)
		case s != nil && len(subs) > 1 && !v.brief:
			notes[o.step] = append(notes[o.step], strconv.Quote(s.raw)+": "+string(o.d)+" ("+o.reason.Code+")")
		}
		if !best.ok || o.d.Stricter(best.d) {
			best = o
		}
	}
	for i := range notes {
		if len(notes[i]) > 0 {
			detail[i] = strings.Join(notes[i], "; ")
		}
	}
	return best
}

func (v *view) decideSub(c *call, l *bashLine, s *bashSub, outcomes []envelope.Outcome) outcome {
	t := c.tool
	reach := func(step int) {
		if outcomes[step] == envelope.Absent {
			outcomes[step] = envelope.Kept
		}
	}
	ro := s != nil && l.readOnly(s)
	if ro && (s.xargs || s.args[0] == "xargs") && v.hasReadDeny() && !xargsPrints(s) {
		// The paths xargs hands a reader cannot be checked against a Read
		// deny rule: Claude Code 2.1.328 asks for find . -name '*.txt' |
		// xargs grep x under Read(./secret/**) (TestDifferential/
		// diropts-default) and runs ls | xargs grep x with no rule
		// (wrapawk-default).
		ro = false
	}
	reach(stepMode)
	switch v.mode {
	case modeBypass:
		return decided(stepMode, envelope.Allow, v.modeReason(codeModeBypass))
	case modeAcceptEdits:
		// Its output redirected as for a command an allow rule approves:
		// Claude Code 2.1.328 runs touch f > o.txt and rm f 2>/dev/null in
		// acceptEdits, and asks for mkdir d > /tmp/o.txt and touch f >
		// ~/o.txt (TestDifferential/acceptredir-acceptEdits).
		// Monitor's commands too: the release starts Monitor "touch f",
		// "mkdir d" and "rm f" in acceptEdits (TestDifferential/
		// acceptmon-acceptEdits).
		// A path outside the working directories that an Edit allow rule
		// opens is approved too: Claude Code 2.1.328 runs touch ~/gp/t1.txt
		// in acceptEdits under Edit(~/gp/**), and asks for touch
		// ~/gp/.git/t9 (protected) and touch ../other/t3.txt (row 98;
		// TestDifferential/genscopes-accept-edit-acceptEdits).
		open := func(p inPath) bool { return v.pathAllowed(p, toolEdit) }
		if (t == toolBash || t == toolMonitor) && s != nil && !s.quoted && l.fsApproved(s, v.e.c.dirs, c, open) && fsLinksApproved(c, s, v.e.c.dirs, open) &&
			v.redirectsApproved(c, l, s) {
			return decided(stepMode, envelope.Allow, v.modeReason(codeModeAcceptEdits))
		}
	case modePlan:
		// Claude Code 2.1.328 runs a Bash command an allow rule matches in
		// plain plan mode (testdata/claude-code-cli); only what no rule
		// allows and is not read-only asks.
		if t == toolBash && !ro {
			reach(stepAllowRules)
			if rr := v.commandAllow(t, l, s); rr != nil {
				return v.approve(c, l, s, rr, outcomes)
			}
			return decided(stepMode, envelope.Ask, v.modeReason(codeModePlan))
		}
	}
	reach(stepAllowRules)
	if rr := v.commandAllow(t, l, s); rr != nil {
		return v.approve(c, l, s, rr, outcomes)
	}
	reach(stepDefaults)
	if ro {
		return v.approve(c, l, s, nil, outcomes)
	}
	return decided(stepDefaults, envelope.Ask, envelope.Reason{Code: codeDefaultPrompt})
}

// xargsPrints reports an xargs whose command only prints its arguments
// (echo, printf).
func xargsPrints(s *bashSub) bool {
	w := s.args
	if w[0] == "xargs" {
		for len(w) > 0 && (w[0] == "xargs" || strings.HasPrefix(w[0], "-")) {
			w = w[1:]
		}
	}
	return len(w) > 0 && (w[0] == "echo" || w[0] == "printf")
}

// approve decides a subcommand an allow rule (rr) or the read-only list
// (rr nil) approves. A bare Bash allow rule approves it whole. Otherwise
// Claude Code 2.1.328 still asks when an output redirection needs
// approval, or a path the command reads or writes is outside the working
// directories and no allow rule opens it (TestDifferential/i25-redirect-*,
// i25-readonly-*, i25-bare-bash-allow).
func (v *view) approve(c *call, l *bashLine, s *bashSub, rr *ruleRef, outcomes []envelope.Outcome) outcome {
	ok := decided(stepDefaults, envelope.Allow, envelope.Reason{Code: codeDefaultReadOnly})
	if rr != nil {
		ok = decided(stepAllowRules, envelope.Allow, v.ruleReason(codePermissionAllow, rr))
	}
	if s == nil {
		return ok
	}
	if rr != nil && rr.r.specKind == specNone {
		if o, asked := v.protectedAsk(c, s, pathsOf(s)); asked {
			return o
		}
		return ok
	}
	if l.cds > 1 || l.moves > 0 && l.git {
		// Claude Code 2.1.328 asks for a line that changes directory more
		// than once ("Multiple directory changes in one command require
		// approval for clarity": cd src && cd ., pushd src && popd under
		// Bash(cd:*), Bash(pushd:*), Bash(popd:*); row 86;
		// TestDifferential/genmulticd-*), or that changes directory and
		// runs git ("This command changes directory before running a
		// version-control command": cd src && git status, git log -1 &&
		// cd src && ls, if true; then cd src && git diff HEAD; fi; row 83;
		// TestDifferential/gencdgit*-*), whatever approved its commands.
		o := decided(stepProtectedPath, envelope.Ask, envelope.Reason{Code: codePathScope})
		if !v.brief {
			o.detail = "the line changes directory more than once, which the release asks to have approved"
			if l.cds < 2 {
				o.detail = "the line changes directory and runs git, which can pick up hooks or configuration from the directory it moves to"
			}
		}
		return o
	}
	sp := pathsOf(s)
	if code, why, w := uncheckable(l, s, sp); code != "" {
		o := decided(stepProtectedPath, envelope.Ask, envelope.Reason{Code: code})
		if !v.brief {
			o.detail = strconv.Quote(s.raw) + " " + why + " " + strconv.Quote(w)
		}
		return o
	}
	if target, why := v.redirectAsk(c, l, s); why != "" {
		o := decided(stepProtectedPath, envelope.Ask, envelope.Reason{Code: codeRedirect})
		if !v.brief {
			o.detail = strconv.Quote(s.raw) + ": " + why + " " + strconv.Quote(target)
		}
		return o
	}
	if w := v.readAfterCd(l, s); w != "" {
		o := decided(stepProtectedPath, envelope.Ask, envelope.Reason{Code: codePathScope})
		if !v.brief {
			o.detail = strconv.Quote(s.raw) + " reads " + strconv.Quote(w) + " after a cd while a Read deny rule exists"
		}
		return o
	}
	if sp.ok && sp.op != opRead && len(l.subs) > 1 && l.hasCd() {
		// A write in a line with a cd asks whatever approved it: Claude
		// Code 2.1.328 asks for cd src && sed -i s/a/b/ a.txt under
		// Bash(* a.txt) ("Commands that change directories and perform
		// write operations require explicit approval": row 80;
		// TestDifferential/genallow1-default), as acceptEdits does
		// (fsApproved).
		o := decided(stepProtectedPath, envelope.Ask, envelope.Reason{Code: codePathScope})
		if !v.brief {
			o.detail = strconv.Quote(s.raw) + " writes after a cd in the line, where the release cannot tell the working directory"
		}
		return o
	}
	if p, verb := v.outOfScope(c, s, sp); p != "" {
		o := decided(stepProtectedPath, envelope.Ask, envelope.Reason{Code: codePathScope})
		if !v.brief {
			o.detail = strconv.Quote(s.raw) + " " + verb + " " + strconv.Quote(p) + ", outside the working directories"
		}
		return o
	}
	if o, asked := v.protectedAsk(c, s, sp); asked {
		return o
	}
	return ok
}

// protectedAsk asks for a subcommand that writes a protected path,
// whatever allow rule approved it, a bare one too (the checks above ask
// first for a redirection or a path out of scope): Claude Code 2.1.328
// asks for touch .claude/p3, cp .git/keep n12.txt, echo hi >
// .vscode/p6.json and echo hi > ~/.bashrc under Bash and under
// Bash(touch:*), Bash(cp:*), Bash(echo:*) ("... which is a sensitive
// file"), and runs them in bypassPermissions, which never asks here
// (row 111, TestDifferential/wholebash-prot*; TestProtectedWritesAsk).
func (v *view) protectedAsk(c *call, s *bashSub, sp subPaths) (outcome, bool) {
	w := protectedWrite(c, s, sp)
	if w == "" {
		return outcome{}, false
	}
	o := decided(stepProtectedPath, envelope.Ask, envelope.Reason{Code: codeProtectedPath})
	if !v.brief {
		o.detail = strconv.Quote(s.raw) + " writes " + strconv.Quote(w) + ", a protected path"
	}
	return o, true
}

// protectedWrite returns the first path subcommand s writes (an output
// redirection's target, a path of a command that writes: cp's sources
// too) that is protected (paths.go) by any of its spellings, or "".
func protectedWrite(c *call, s *bashSub, sp subPaths) string {
	prot := func(w string) bool {
		p, ok := c.wordPath(w)
		return ok && (p.writeGuarded() || slices.ContainsFunc(p.spellings(), inPath.writeGuarded))
	}
	for _, t := range s.outs {
		if t != "/dev/null" && prot(t) {
			return t
		}
	}
	if sp.ok && sp.op != opRead {
		for _, w := range sp.paths {
			if prot(w) {
				return w
			}
		}
	}
	return ""
}

// subPaths is a subcommand's words unquoted and the operation and paths
// its command has (commandPaths), read once for every check of approve.
type subPaths struct {
	words []string
	op    string
	paths []string
	ok    bool // the command is one whose paths the release reads
}

// pathsOf is s's subPaths. A command env runs is read past env, as the
// path rules read it (envPathWords): an allow rule that names env approves
// env itself, and Claude Code 2.1.328 still checks the paths of what it
// runs; it asks for env ls ../outside, env FOO=1 touch ../outside/t1.txt
// and env rm ../outside/o.txt under Bash(env:*) (row 79;
// TestDifferential/genallow1-default). An unquoted glob among a reading
// command's arguments is a path it reads (globOperands, row 81).
func pathsOf(s *bashSub) subPaths {
	// A comment's words are no operands (the deny rules read them still:
	// section 0.3): Claude Code 2.1.328 runs cd src # c d as cd src, and
	// asks for cd # c as for cd, where home is outside the working
	// directories; cd src '#' c asks (TestCdComment).
	sp := subPaths{words: unquoteAll(beforeComment(s.args))}
	if len(sp.words) > 1 && sp.words[0] == "env" && envPathWords(sp.words) > 0 {
		sp.words = stripWords(sp.words, stripPaths)
	}
	sp.op, sp.paths, sp.ok = commandPaths(sp.words)
	if sp.ok && sp.words[0] == "sed" {
		// A printing sed reads: Claude Code 2.1.328 gives its path check
		// the operation "read" when its sed check finds the line
		// read-only (cli.js: "sed" && H0(...) ? "read"), so cd src &&
		// sed -n 1p a.txt runs under Bash(sed:*) where cd src && sed -i
		// s/a/b/ a.txt asks (TestDifferential/genallow1-cd-default).
		if ok, _ := sedReadOnly(sp.words[1:]); ok {
			sp.op = opRead // sp.words are unquoted already
		}
	}
	if sp.ok && sp.op == opRead {
		raw := s.args[len(s.args)-len(sp.words):]
		for _, w := range globOperands(sp.words[0], raw[1:], sp.paths) {
			if u := shellWord(w); !slices.Contains(sp.paths, u) {
				sp.paths = append(slices.Clip(sp.paths), u)
			}
		}
	}
	return sp
}

// sedReads reports a sed whose options and script (a, the words after
// sed) only print: the release's path check reads its files as a read.
func sedReads(a []string) bool {
	ok, _ := sedReadOnly(unquoteAll(a))
	return ok
}

// uncheckable returns the first of the checks below that makes Claude
// Code 2.1.328 ask for a subcommand whatever approved it: its reason code,
// the verb for the trace and the word; code is "" when none does.
func uncheckable(l *bashLine, s *bashSub, sp subPaths) (code, why, word string) {
	if w, code, why := uncheckedWrite(sp); code != "" {
		return code, why, w
	}
	if w, why := inputAsk(l, s); why != "" {
		return codeRedirect, why, w
	}
	if w, why := redirShape(s); why != "" {
		return codeRedirect, why, w
	}
	if w, why := uncheckedArgs(sp.words); why != "" {
		return codePathScope, why, w
	}
	if w := envChdir(sp.words); w != "" {
		return codePathScope, "changes directory, which the release cannot check before it runs, with", w
	}
	if w := tildePath(sp); w != "" {
		return codePathScope, "names a tilde form (~user, ~+, ~-) the release does not check:", w
	}
	if s.wrapWhy != "" {
		return codeUncheckedCommand, s.wrapWhy, s.wrapWord
	}
	if s.timeAfterPrefix {
		return codeUncheckedCommand, "runs time after an assignment or a redirection, behind an if or a loop, which the release's parser misreads:", "time"
	}
	if w := procEnviron(s); w != "" {
		return codeUncheckedCommand, "names a process's environment, which the release asks for (/proc/*/environ):", w
	}
	if len(s.words) > 0 && keywords[sp.words[0]] && s.words[0] != sp.words[0] {
		// 'if' true, "then": Claude Code 2.1.328 asks ("Shell keyword
		// 'if' as command name — tree-sitter mis-parse": TestDifferential/
		// wrapawk-allowed-default).
		return codeUncheckedCommand, "is a shell keyword written as a command name, which the release's parser misreads:", s.words[0]
	}
	if w, why := builtinUnchecked(sp.words, s.args); why != "" {
		return codeUncheckedCommand, why, w
	}
	if len(sp.words) > 0 && s.xargs && (sp.words[0] == "find" || sp.words[0] == "jq") {
		return codeUncheckedCommand, "is given arguments by xargs, which the release cannot check:", sp.words[0]
	}
	return "", "", ""
}

// procEnvironRe is the release's pattern of a process's environment.
var procEnvironRe = regexp.MustCompile(`/proc/.*/environ`)

// procEnviron returns a word of the command or a redirection target that
// names a process's environment as the release's pattern reads it, "" for
// none: Claude Code 2.1.328 asks for cat /proc/self/environ, printf %s
// /proc/self/environ and echo /proc//environ whatever approved them, and
// runs echo /proc/environ, echo /PROC/self/environ and echo x #
// /proc/self/environ (TestDifferential/genfound4-*).
func procEnviron(s *bashSub) string {
	if w := procEnvironIn(s.args); w != "" {
		return w
	}
	if w := procEnvironIn(s.outs); w != "" {
		return w
	}
	return procEnvironIn(s.ins)
}

func procEnvironIn(words []string) string {
	for _, w := range words {
		if strings.HasPrefix(w, "#") {
			break // a comment: the rest of the line is no word
		}
		if u := shellWord(w); strings.Contains(u, "/proc/") && procEnvironRe.MatchString(u) {
			return w
		}
	}
	return ""
}

// uncheckedWrite returns what makes Claude Code 2.1.328 ask for a
// command that writes or creates files whatever approved it (an allow rule
// with a specifier, the read-only list, acceptEdits, plan mode's rules):
// a path the shell would expand ("Glob patterns are not allowed in write
// operations", "Brace characters in write target require manual
// approval": touch gw?.txt, rm gr1*, cp a*.txt free/, sed s/a/b/ gs*.txt,
// touch gl}1), or cp and mv with any option, "--" included ("cp with
// flags requires manual approval to ensure path safety": cp -r free gcr,
// mv -f a b). It returns the word, the reason code and the verb for the
// trace, or "" when there is none. A bare Bash allow rule and
// bypassPermissions run them (TestDifferential/globwrite-*, fsflags-*).
func uncheckedWrite(sp subPaths) (word, code, why string) {
	if !sp.ok || sp.op == opRead {
		return "", "", ""
	}
	if cmd := sp.words[0]; cmd == "cp" || cmd == "mv" {
		for _, w := range sp.words[1:] {
			if strings.HasPrefix(w, "-") {
				return w, codeCopyOptions, "gives " + cmd + " an option, which can change where it writes:"
			}
		}
	}
	for _, p := range sp.paths {
		if shellExpands(p) {
			return p, codeWriteExpansion, "writes a path the shell would expand,"
		}
	}
	return "", "", ""
}

// inputAsk returns the first input redirection of s that Claude Code
// 2.1.328 asks for whatever approved the command, and why: a source the
// shell would expand (cat < free/*.txt: "Input redirection from
// 'free/*.txt' requires manual approval: the file it names depends on glob
// expansion or a directory change in the same command"), a tilde form
// (cat < ~+/f), or a relative source after a cd in the line (cd free &&
// cat < f.txt; cat < /abs after a cd runs) (TestDifferential/redirforms-*,
// envchdir-*).
func inputAsk(l *bashLine, s *bashSub) (string, string) {
	// The sources as written (s.ins has them unquoted), read over every
	// word: a < in a [[ ]] is asked for too ([[ a < $HOME/x ]] asks).
	if slices.ContainsFunc(s.words, func(w string) bool { return strings.IndexByte(w, '<') >= 0 }) {
		_, _, raws := rawRedirs(s.words)
		for _, src := range raws {
			if redirUnread(src) {
				return src, "reads its input from a target the release does not read (an expansion, or one joined to other text),"
			}
		}
	}
	for _, src := range s.ins {
		switch {
		case shellExpands(src), tildeForm(src):
			return src, "reads its input from a path the shell would expand,"
		case l.hasCd() && !strings.HasPrefix(src, "/"):
			return src, "reads its input after a cd in the line from"
		}
	}
	return "", ""
}

// redirShape returns the first redirection target of s (after a [[ ]],
// whose < and > compare) whose shape Claude Code 2.1.328's redirection
// reader refuses, asking whatever approved the command, and why: a target
// starting with ! or = ("zsh clobber or history expansion", "zsh expands
// to PATH binary": echo a > '!x.txt', cat < '=a.txt'), one holding a
// newline, a >& or <& target starting with - but the - that closes a
// descriptor (echo a >&-x: bash closes it and passes x on), and a >&
// target outside [A-Za-z0-9./_-], which bash expands a second time
// (echo a >&'a b.txt', echo a >&a+b.txt; echo a >&x.txt writes x.txt),
// and the <> operator ("Unrecognized redirect shape": echo a <> x.txt
// under Bash(echo:*)) (TestDifferential/redirreader-*; TestRedirShapes).
func redirShape(s *bashSub) (string, string) {
	words := s.words
	if end := condEndWord(words); end >= 0 {
		words = words[end+1:]
	}
	for i := 0; i < len(words); i++ {
		w := words[i]
		j := redirAt(w)
		if j < 0 {
			continue
		}
		in, here, dup, k := redirOp(w[j:])
		t := w[j+k:]
		if t == "" && i+1 < len(words) {
			i++
			t = words[i]
		}
		if here || t == "" {
			continue
		}
		u := unquote(t)
		switch {
		case strings.HasPrefix(w[j:], "<>"):
			return u, "opens for reading and writing (<>), a redirection the release does not read, on"
		case u == "":
		case u[0] == '!' || u[0] == '=':
			return u, "redirects to a target starting with " + u[:1] + ", which zsh expands,"
		case strings.IndexByte(u, '\n') >= 0:
			return u, "redirects to a target holding a newline,"
		case dup && u != "-" && u[0] == '-':
			return u, "closes a descriptor and passes the rest on as an argument:"
		case dup && !in && !dupTarget(u):
			return u, "redirects with >& to a target bash expands a second time,"
		}
	}
	return "", ""
}

// dupTarget reports a >& target the release reads as a path or a
// descriptor: letters, digits and . / _ - only.
func dupTarget(u string) bool {
	for i := 0; i < len(u); i++ {
		c := u[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '/' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// redirUnread reports a redirection target, as written, that Claude Code
// 2.1.328 asks for whatever approved the command: one holding a $ or a
// backtick that no backslash escapes (its test reads the target's text,
// quotes and all) and that is not one quoted string. So an expansion
// alone (cat < $HOME: "A variable in this command can't be checked before
// it runs"), one joined to text (cat < $HOME/notes.txt, cat <"$HOME"/x,
// cat < '$a'b: "Redirect target concatenation contains $/`") ask, and
// cat < "$HOME/notes.txt" and cat < "$HOME" are read as paths
// (TestDifferential/homeredirects-acceptEdits, inputconcat-acceptEdits;
// TestInputConcat).
func redirUnread(w string) bool {
	return unescapedExpansion(w) && !oneQuoted(w)
}

// unescapedExpansion reports a $ or backtick in w after an even number of
// backslashes (none included), quotes not read: the release's
// /(?:^|[^\\])(?:\\\\)*[`$]/.
func unescapedExpansion(w string) bool {
	for i := 0; i < len(w); i++ {
		if w[i] != '$' && w[i] != '`' {
			continue
		}
		n := 0
		for j := i - 1; j >= 0 && w[j] == '\\'; j-- {
			n++
		}
		if n%2 == 0 {
			return true
		}
	}
	return false
}

// oneQuoted reports a word that is one quoted string: '...' or "...",
// whose closing quote is its last byte.
func oneQuoted(w string) bool {
	if len(w) < 2 || w[0] != '\'' && w[0] != '"' {
		return false
	}
	q := w[0]
	for i := 1; i < len(w); i++ {
		switch {
		case w[i] == '\\' && q == '"':
			i++
		case w[i] == q:
			return i == len(w)-1
		}
	}
	return false
}

// homeQuoted reports a target written as one double-quoted string that
// begins with $HOME and holds no other $ or backtick: the release reads it
// as a path under the home directory (echo x > "$HOME/o5.txt" writes
// there in acceptEdits with HOME a working directory:
// TestDifferential/inputconcat-acceptEdits).
func homeQuoted(w string) bool {
	if !oneQuoted(w) || w[0] != '"' {
		return false
	}
	rest, ok := strings.CutPrefix(w[1:len(w)-1], "$HOME")
	return ok && (rest == "" || rest[0] == '/') && !strings.ContainsAny(rest, "$`\\")
}

// uncheckedArgs returns an argument Claude Code 2.1.328 cannot check
// before the command runs, whatever approved it, and why: a second
// directory of cd (zsh's cd OLD NEW: cd free free asks under Bash(cd:*))
// (TestDifferential/uncheckable-allowed-default). awk's options are
// awkProgram's.
func uncheckedArgs(words []string) (string, string) {
	if len(words) > 0 && words[0] == "cd" {
		if p := positional(words[1:]); len(p) >= 2 {
			return p[1], "gives cd a second directory,"
		}
	}
	return "", ""
}

// envChdir returns the directory option of an env that runs the command
// in another directory (-C DIR, -CDIR, --chdir DIR, --chdir=DIR), or "":
// Claude Code 2.1.328 asks for env -C free ls under Bash(env:*) ("'env -C'
// can't be checked before it runs") and runs it in bypassPermissions
// (TestDifferential/lnpushd-*, envchdir-*).
func envChdir(words []string) string {
	if len(words) == 0 || words[0] != "env" {
		return ""
	}
	for i := 1; i < len(words); i++ {
		switch w := words[i]; {
		case w == "-C", w == "--chdir", strings.HasPrefix(w, "--chdir="), strings.HasPrefix(w, "-C"):
			return w
		case w == "-u", w == "--unset":
			i++ // its value
		case w == "--", !strings.HasPrefix(w, "-"):
			return "" // the command (or an assignment) begins
		}
	}
	return ""
}

// tildePath returns the first path of the command that starts with a
// tilde form other than ~ and ~/ (~root/x, ~+, ~-/a.txt), or "": Claude
// Code 2.1.328 asks for them in a read or a write whatever approved it
// ("Tilde expansion variants (~user, ~+, ~-) in paths require manual
// approval": cat ~root/pf1.txt, ls ~+ under Bash(cat:*), Bash(ls:*) and in
// acceptEdits; echo ~+, which reads no path, runs:
// TestDifferential/pathforms-*, toocomplex-*).
func tildePath(sp subPaths) string {
	for _, p := range sp.paths {
		if tildeForm(p) {
			return p
		}
	}
	return ""
}

// tildeForm reports a word that starts with '~' and is neither ~ nor
// under ~/.
func tildeForm(w string) bool {
	return strings.HasPrefix(w, "~") && w != "~" && !strings.HasPrefix(w, "~/")
}

// shellExpands reports a word with a character Claude Code 2.1.328 reads
// as a glob or a brace expansion in a write target: '*', '?', '{', '}', or
// a '[' closed by a later ']'. Quoted or escaped, they count the same
// (touch 'gq*.txt' asks); a lone '[' or ']' does not (touch 'gl[1' runs in
// acceptEdits: TestDifferential/globwrite-acceptEdits).
func shellExpands(w string) bool {
	if strings.ContainsAny(w, "*?{}") {
		return true
	}
	i := strings.IndexByte(w, '[')
	return i >= 0 && strings.IndexByte(w[i+1:], ']') >= 0
}

// readAfterCd returns the relative path (or "." for none) a reading
// subcommand of a line with a cd reads while a Read deny rule exists, or
// "": Claude Code 2.1.328 asks for cd locked && ls under Read(./secret/**)
// ("ls reads a file by a relative path after a cd in a compound command;
// which file that is cannot be resolved statically while a Read() deny rule
// is configured": TestDifferential/sh3-cd-*), and runs cd src && ls
// without one (i25-readonly-more).
func (v *view) readAfterCd(l *bashLine, s *bashSub) string {
	if len(l.subs) < 2 || len(s.args) == 0 || s.args[0] == "cd" || !l.hasCd() || !v.hasReadDeny() {
		return ""
	}
	op, paths, ok := commandPaths(unquoteAll(s.args))
	if !ok || op != opRead {
		return ""
	}
	if len(paths) == 0 {
		return "."
	}
	for _, w := range paths {
		if !strings.HasPrefix(w, "/") && w != "~" && !strings.HasPrefix(w, "~/") {
			return w
		}
	}
	return ""
}

// hasReadDeny reports a Read deny rule, bare or with a path.
func (v *view) hasReadDeny() bool {
	for i := range v.e.rules[bDeny] {
		if r := v.e.rules[bDeny][i].r; r.nameKind == nameExact && r.name == toolRead {
			return true
		}
	}
	return false
}

// redirectAsk returns the first output redirection of s that needs
// approval and why ("" when none does). Claude Code 2.1.328 lets a
// redirection to /dev/null through, and one into the working directories
// (not a protected path) in acceptEdits, or one an Edit allow rule with a
// path approves (a bare Edit rule does not); Edit ask rules do not speak
// about targets (deny rules do: commandPathDeny). With a cd anywhere in the
// line any redirection asks, since the target's directory cannot be told.
func (v *view) redirectAsk(c *call, l *bashLine, s *bashSub) (string, string) {
	var raws []string
	if len(s.outs) > 0 {
		_, raws, _ = condSplit(s.words, rawRedirs)
	}
	for i, t := range s.outs {
		if t == "/dev/null" {
			continue
		}
		if l.hasCd() {
			return t, "redirects its output after a cd to"
		}
		if len(raws) != len(s.outs) {
			return t, "redirects its output to a target not found as written,"
		}
		// "$HOME/o.txt" is a path under the home directory (homeQuoted),
		// which wordPath reads so; every other target holding a $ or a
		// backtick asks (plainTarget: echo x > $HOME, > "$HOME"/o.txt,
		// the release's redirUnread).
		home := homeQuoted(raws[i]) && plainTarget(t[len("$HOME"):])
		if !home && !plainTarget(t) {
			// Claude Code 2.1.328 asks for echo x > gr*.txt, echo x >
			// ~+/rf1.txt, echo x > ~/gp/r1.txt and echo x > $HOME/gp/r5.txt
			// in every mode but bypassPermissions, whatever Edit allow
			// rule or working directory holds the path ("Shell expansion
			// syntax in paths requires manual approval", "Redirect target
			// concatenation contains $": TestDifferential/globwrite-*,
			// redirforms-*, tilderedir-*).
			return t, "redirects its output to a path the shell would expand,"
		}
		p, ok := c.wordPath(t)
		if !ok || innerDotDot(t) {
			return t, "redirects its output to"
		}
		if v.mode == modeAcceptEdits && !s.quoted && p.insideAll(v.e.c.dirs) && !p.guardedAny() {
			continue
		}
		if !p.suspicious() && v.pathAllowedAll(p, toolEdit) {
			// A suspicious target asks under an Edit allow rule too
			// (echo x > r. under Edit(**): row 123).
			continue
		}
		return t, "redirects its output to"
	}
	return "", ""
}

// redirectsApproved reports a subcommand whose output redirections
// redirectAsk lets through.
func (v *view) redirectsApproved(c *call, l *bashLine, s *bashSub) bool {
	_, why := v.redirectAsk(c, l, s)
	return why == ""
}

// outOfScope returns the first path subcommand s reads or writes (its
// command's paths, bashpaths.go, and its input redirections) that is
// outside the working directories and that no Read (for reads) or Edit
// (for writes) allow rule with a path opens, with the verb for the trace;
// "" when there is none.
func (v *view) outOfScope(c *call, s *bashSub, sp subPaths) (string, string) {
	words, op, paths := sp.words, sp.op, sp.paths
	check := func(w, op string) bool {
		p, ok := c.wordPath(w)
		if !ok || innerDotDot(w) {
			return false
		}
		if p.insideAll(v.e.c.dirs) {
			return true
		}
		if op == opRead {
			// A read: each spelling through links (bashlinks.go) inside,
			// or opened by a Read or Edit allow rule; Claude Code 2.1.328
			// reads the path with every link resolved.
			return v.readOpen(p)
		}
		return v.pathAllowedAll(p, toolEdit)
	}
	for _, w := range paths {
		if !check(w, op) {
			return w, pathVerb(strings.Join(words, " "))
		}
	}
	for _, w := range s.ins {
		// /dev/null gives no input: Claude Code 2.1.328 runs </dev/null
		// ls -la and ls -la < /dev/null (TestDifferential/leadredir-*).
		if w != "/dev/null" && !check(w, opRead) {
			return w, "reads"
		}
	}
	return "", ""
}

// readBlock decides a call under permissions.blockReadsOutsideWorkingDirectories,
// in every mode and whatever rule approves it, as Claude Code 2.1.328
// does: a read tool (Read, Grep, Glob, LSP) given a path outside the
// working directories is denied ("... is outside ..."), and a Bash or
// Monitor command that reads one, changes directory to one or names a
// path it cannot place is asked for ("Reads outside the working
// directories are blocked (permissions.blockReadsOutsideWorkingDirectories)":
// cat /etc/hostname, ls /, head -1 ~/notes.txt, cd .. && ls, under a bare
// Bash rule and in bypassPermissions too); writes are left to the other
// steps (row 125, TestDifferential/blockreads-*; TestReadBlock).
func (v *view) readBlock(c *call) (outcome, bool) {
	dirs := v.e.c.dirs
	if isReadClass(c.tool) {
		p, ok := c.inputPath()
		if !ok || p.insideAll(dirs) {
			return outcome{}, false
		}
		o := decided(stepProtectedPath, envelope.Deny, envelope.Reason{Code: codeReadBlock})
		o.detail = strconv.Quote(c.primary) + " is outside the working directories, and reads there are blocked"
		return o, true
	}
	l := c.bash()
	if l == nil || c.tool != toolBash && c.tool != toolMonitor {
		return outcome{}, false
	}
	blocked := func(s *bashSub, w string) (outcome, bool) {
		o := decided(stepProtectedPath, envelope.Ask, envelope.Reason{Code: codeReadBlock})
		o.detail = strconv.Quote(s.raw) + " reads " + strconv.Quote(w) + ", outside the working directories, and reads there are blocked"
		return o, true
	}
	for i := range l.subs {
		s := &l.subs[i]
		sp := pathsOf(s)
		reads := append([]string(nil), s.ins...)
		if sp.ok && sp.op == opRead {
			reads = append(reads, sp.paths...)
		}
		for _, w := range reads {
			// /dev/null too: the release asks for cat < /dev/null.
			if p, ok := c.wordPath(w); !ok || innerDotDot(w) || !p.insideAll(dirs) {
				return blocked(s, w)
			}
		}
	}
	return outcome{}, false
}

// writeBlock decides a file tool's write under
// permissions.blockWritesOutsideWorkingDirectories, in every mode and
// whatever rule approves it, as Claude Code 2.1.328 does: a Write, Edit or
// NotebookEdit of a path outside the working directories, or of a Claude
// Code settings file (.claude/settings.json, .claude/settings.local.json)
// inside them, is denied; Bash is not limited (row 126,
// TestDifferential/blockwrites-*; TestWriteBlock).
func (v *view) writeBlock(c *call) (outcome, bool) {
	p, ok := c.inputPath()
	if !ok {
		return outcome{}, false
	}
	n := len(p.segs)
	settings := n >= 2 && strings.EqualFold(protectedName(p.segs[n-2]), ".claude") &&
		(strings.EqualFold(p.segs[n-1], "settings.json") || strings.EqualFold(p.segs[n-1], "settings.local.json"))
	if p.insideAll(v.e.c.dirs) && !settings {
		return outcome{}, false
	}
	o := decided(stepProtectedPath, envelope.Deny, envelope.Reason{Code: codeWriteBlock})
	o.detail = strconv.Quote(c.primary) + " is outside the working directories, and writes there are blocked"
	if settings {
		o.detail = strconv.Quote(c.primary) + " is a Claude Code settings file, and writes to it are blocked"
	}
	return o, true
}

// innerDotDot reports a ".." after a directory segment (sub/../a.txt):
// Claude Code 2.1.328 approves no such path of a command, since the
// directory may be a link leading elsewhere ("Path contains '..' traversal
// after a directory segment": TestDifferential/i25h-readonly-scope,
// i25h-redirect-acceptEdits). A leading ../ is resolved as usual.
func innerDotDot(w string) bool {
	named := false
	for seg := range strings.SplitSeq(w, "/") {
		switch seg {
		case "", ".":
		case "..":
			if named {
				return true
			}
		default:
			named = true
		}
	}
	return false
}

// pathAllowed reports whether an allow rule with a path of tool (Read or
// Edit) approves p. Only tool's own rules do: Claude Code 2.1.328 asks for
// cat ~/gp/a.txt under Edit(~/gp/**) and Edit(~/**), where Read(~/**)
// opens it (row 95; TestDifferential/genuser-bash-read-*).
func (v *view) pathAllowed(p inPath, tool string) bool {
	for i := range v.e.rules[bAllow] {
		r := v.e.rules[bAllow][i].r
		if r.specKind == specPath && r.nameKind == nameExact && r.name == tool && r.path.match(p, bAllow) {
			return true
		}
	}
	return false
}

// commandAllow returns the allow rule that approves subcommand s: a bare
// one when there is one, else the first that matches.
func (v *view) commandAllow(t string, l *bashLine, s *bashSub) *ruleRef {
	// A bare rule (Bash, Bash(*)) approves the line whole wherever it is
	// written: Claude Code 2.1.328 runs git diff > o1.txt and git diff >
	// ../outside/o6.txt under Bash(git diff *) and Bash(*), and under
	// Bash(git diff *) and Bash, where the specific rule alone asks for the
	// redirection (row 110, TestDifferential/wholebash-*;
	// TestBareAllowWins).
	if !v.noBare {
		for i := range v.e.rules[bAllow] {
			if rr := &v.e.rules[bAllow][i]; rr.r.specKind == specNone && rr.r.applies(t, bAllow) {
				return rr
			}
		}
	}
	wrapText := "" // s.wrapText(), once a rule needs it
	for i := range v.e.rules[bAllow] {
		rr := &v.e.rules[bAllow][i]
		if !rr.r.applies(t, bAllow) {
			continue
		}
		switch rr.r.specKind {
		case specCommand:
			// An exact rule compares the command as written: Claude Code
			// 2.1.328 runs make build under Bash(make build) and asks for
			// make  build and make<TAB>build, which a rule with a * or :*
			// still matches (TestDifferential/sh4-quote-allow-*).
			// A redirection before the command word hides it from allow
			// rules: Claude Code 2.1.328 asks for 2>/dev/null rm f and
			// < a.txt rm f under Bash(rm:*), as for an rm no rule allows
			// (TestDifferential/leadredir-allowed-default); deny rules see
			// through it (denyWords).
			// An exact or prefix rule written with a run of blanks
			// matches the subcommand written with the same blanks
			// (rules.go, writtenMatch): Claude Code 2.1.328 runs
			// touch  a1.txt under Bash(touch  a1.txt) and asks for
			// touch a2.txt under Bash(touch  a2.txt)
			// (TestDifferential/rulespaces-*).
			if s == nil || l.broken || s.nested || leadRedirect(s.words) != 0 {
				continue
			}
			if rr.r.writtenOnly() {
				if rr.r.cmd.writtenMatch(s.raw) {
					return rr
				}
				continue
			}
			cmd := rr.r.cmdFor()
			if s.spaced && cmd.exact() {
				continue
			}
			if cmd.match(s.allowText) {
				return rr
			}
			if len(s.wrapWords) > 0 {
				if wrapText == "" {
					wrapText = s.wrapText()
				}
				if cmd.match(wrapText) {
					return rr
				}
			}
		}
	}
	return nil
}

// decideTool is Decide over a view: the pool first, then section 9.3.
// Without trace (v.brief) the verdict has no trace and the steps make none
// of their details; the tool, decision and reason are the same
// (TestDecideBriefIsDecide).
func (v *view) decideTool(tool string, input json.RawMessage) envelope.Verdict {
	t := normalizeTool(tool)
	exempt := t == toolEndConversation && v.e.bareDenied(t) != nil && v.endExempt()
	if v.brief {
		if r, removed := v.reason(t, -1, exempt, nil); removed {
			return envelope.Verdict{Tool: t, Decision: envelope.Deny, Reason: r}
		}
		out, _ := v.decide(newCall(t, input).launches(v.e.c), nil)
		return envelope.Verdict{Tool: t, Decision: out.d, Reason: out.reason}
	}
	trace := make([]envelope.Step, 0, int(numLayers)+numSteps)
	if r, removed := v.reason(t, -1, exempt, &trace); removed {
		for i := 0; i < numSteps; i++ {
			trace = append(trace, envelope.Step{Layer: stepNames[i], Outcome: envelope.Skipped})
		}
		return envelope.Verdict{Tool: t, Decision: envelope.Deny, Reason: r, Trace: trace}
	}
	out, trace := v.decide(newCall(t, input).launches(v.e.c), trace)
	return envelope.Verdict{Tool: t, Decision: out.d, Reason: out.reason, Trace: trace}
}

// CallPath is the absolute path the decision of a call of tool reads: the
// path of a Read, Edit, Write, MultiEdit, NotebookEdit, LSP, Grep or Glob
// call (a Glob's absolute pattern's directory), read where the input's
// PathsKey says the call runs. false for any other call, one without a
// path, or one whose path does not read absolute. The Claude Code hook
// resolves it through symbolic links on the machine the call is made on
// and records what it finds under PathsKey ("resolved", "link"; section
// 9.5).
func CallPath(tool string, input json.RawMessage) (string, bool) {
	t := normalizeTool(tool)
	if !isReadClass(t) && !isEditClass(t) {
		return "", false
	}
	p, ok := newCall(t, input).inputPath()
	if !ok || p.kind != pathAbs || p.ctx == nil {
		return "", false
	}
	return "/" + strings.Join(p.segs, "/"), true
}
