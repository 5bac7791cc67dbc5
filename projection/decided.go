package projection

import (
	"unicode/utf8"

	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
)

// Decoding what a record decided, by hand. encoding/json was a tenth of a
// rebuild's CPU, most of it reflection over these few small structs. The
// ledger writes them in one plain form: no white space, each key once,
// strings without escapes, whole numbers. The readers below take that
// form only and report anything else (an escape, a space, a key they do
// not know that encoding/json would match case-insensitively, a value
// they cannot skip) as not theirs; the caller then decodes with
// encoding/json. So a reader either gives what encoding/json gives or
// nothing; FuzzDecidedDiff holds them to it.

// plain is a cursor over bytes in the plain form; the first thing it does
// not take clears ok, and it takes nothing after that.
type plain struct {
	b  []byte
	i  int
	ok bool
}

func newPlain(b []byte) *plain { return &plain{b: b, ok: true} }

// done reports whether every byte was read, in the plain form.
func (p *plain) done() bool { return p.ok && p.i == len(p.b) }

func (p *plain) fail() { p.ok = false }

// at reports whether the next byte is c.
func (p *plain) at(c byte) bool { return p.ok && p.i < len(p.b) && p.b[p.i] == c }

// take reads byte c.
func (p *plain) take(c byte) {
	if !p.at(c) {
		p.fail()
		return
	}
	p.i++
}

// lit reads the literal s.
func (p *plain) lit(s string) {
	if !p.ok || len(p.b)-p.i < len(s) || string(p.b[p.i:p.i+len(s)]) != s {
		p.fail()
		return
	}
	p.i += len(s)
}

// null reads null if it is next.
func (p *plain) null() bool {
	if p.at('n') {
		p.lit("null")
		return true
	}
	return false
}

// raw reads a string and returns its bytes between the quotes: no escape,
// no control character, valid UTF-8 (encoding/json would replace invalid
// bytes).
func (p *plain) raw() []byte {
	p.take('"')
	if !p.ok {
		return nil
	}
	start, ascii := p.i, true
	for ; p.i < len(p.b); p.i++ {
		switch c := p.b[p.i]; {
		case c == '"':
			s := p.b[start:p.i]
			p.i++
			if !ascii && !utf8.Valid(s) {
				p.fail()
			}
			return s
		case c == '\\' || c < 0x20:
			p.fail()
			return nil
		case c >= 0x80:
			ascii = false
		}
	}
	p.fail()
	return nil
}

// str reads a string, or null as "".
func (p *plain) str() string {
	if p.null() {
		return ""
	}
	return string(p.raw())
}

// uint reads a whole number without sign, fraction or exponent that fits
// in 64 bits (or null as 0).
func (p *plain) uint() uint64 {
	if p.null() {
		return 0
	}
	if !p.ok || p.i >= len(p.b) || !isDigit(p.b[p.i]) {
		p.fail()
		return 0
	}
	if p.b[p.i] == '0' {
		p.i++
		p.noMoreNumber()
		return 0
	}
	var v uint64
	for ; p.i < len(p.b) && isDigit(p.b[p.i]); p.i++ {
		d := uint64(p.b[p.i] - '0')
		if v > (1<<64-1-d)/10 {
			p.fail()
			return 0
		}
		v = 10*v + d
	}
	p.noMoreNumber()
	return v
}

// noMoreNumber fails on what would make the number just read a float.
func (p *plain) noMoreNumber() {
	if p.i < len(p.b) {
		switch p.b[p.i] {
		case '.', 'e', 'E', '-', '+':
			p.fail()
		default:
			if isDigit(p.b[p.i]) {
				p.fail() // a leading zero
			}
		}
	}
}

// int reads a whole number that fits an int, not negative (the ledger
// writes none).
func (p *plain) int() int {
	v := p.uint()
	if v > 1<<31-1 {
		p.fail()
		return 0
	}
	return int(v)
}

// bool reads true or false (or null as false).
func (p *plain) bool() bool {
	switch {
	case p.null():
		return false
	case p.at('t'):
		p.lit("true")
		return true
	default:
		p.lit("false")
		return false
	}
}

// strs reads an array of strings: null as nil, [] as empty, not nil.
func (p *plain) strs() []string {
	if p.null() {
		return nil
	}
	p.take('[')
	out := []string{}
	if p.at(']') {
		p.i++
		return out
	}
	for p.ok {
		out = append(out, p.str())
		if p.at(',') {
			p.i++
			continue
		}
		p.take(']')
		break
	}
	return out
}

// object reads an object whose keys are among names, calling member with
// the index of each key found (which then reads its value). A key not
// among names has its value skipped when it is a string or a number, and
// fails when encoding/json would match it to a name regardless of case;
// a key twice fails. null reads as an empty object.
func (p *plain) object(names []string, member func(k int)) {
	if p.null() {
		return
	}
	p.take('{')
	if p.at('}') {
		p.i++
		return
	}
	var seen uint64
	for p.ok {
		key := p.raw()
		p.take(':')
		if !p.ok {
			return
		}
		k := index(names, key)
		switch {
		case k >= 0 && seen&(1<<k) != 0:
			p.fail()
		case k >= 0:
			seen |= 1 << k
			member(k)
		case foldsTo(names, key):
			p.fail()
		default:
			p.skip()
		}
		if p.at(',') {
			p.i++
			continue
		}
		p.take('}')
		return
	}
}

// skip reads a string or a number it does not keep.
func (p *plain) skip() {
	if p.at('"') {
		p.raw()
		return
	}
	p.uint()
}

func index(names []string, key []byte) int {
	for k, n := range names {
		if n == string(key) {
			return k
		}
	}
	return -1
}

// foldsTo reports whether encoding/json might match key to one of names,
// which it does ignoring case when no name is exactly key. Any key that is
// not ASCII might (the Kelvin sign folds to k).
func foldsTo(names []string, key []byte) bool {
	for _, c := range key {
		if c >= 0x80 {
			return true
		}
	}
	for _, n := range names {
		if asciiEqualFold(n, key) {
			return true
		}
	}
	return false
}

// asciiEqualFold reports whether the ASCII strings n and key are equal
// ignoring case.
func asciiEqualFold(n string, key []byte) bool {
	if len(n) != len(key) {
		return false
	}
	for i := range len(n) {
		a, b := n[i], key[i]
		if 'A' <= a && a <= 'Z' {
			a += 'a' - 'A'
		}
		if 'A' <= b && b <= 'Z' {
			b += 'a' - 'A'
		}
		if a != b {
			return false
		}
	}
	return true
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

var (
	recordRefNames  = []string{"seq", "id", "type"}
	reasonNames     = []string{"code", "rule", "record"}
	checkNames      = []string{"decision", "reason", "revision", "envelope_hash", "prepared_at", "scope"}
	factsNames      = []string{"sandboxed", "mode", "background", "role"}
	resumeNames     = []string{"policy_source", "source_reason"}
	spawnNames      = []string{"envelope", "facts"}
	delegationNames = []string{"requester", "target", "deny"}
	envelopeNames   = []string{"requester", "agent", "depth", "role", "inherited_allow", "inherited_deny", "source",
		"delegated", "revision", "background", "mode", "extra_tools", "hash", "scope"}
	startNames = []string{"facts", "scope"}
)

func (p *plain) reason(r *envelope.Reason) {
	p.object(reasonNames, func(k int) {
		switch k {
		case 0:
			r.Code = p.str()
		case 1:
			r.Rule = p.str()
		case 2:
			if p.null() {
				r.Record = nil
				return
			}
			ref := &envelope.RecordRef{}
			p.object(recordRefNames, func(k int) {
				switch k {
				case 0:
					ref.Seq = p.uint()
				case 1:
					ref.ID = p.str()
				case 2:
					ref.Type = p.recordType()
				}
			})
			r.Record = ref
		}
	})
}

func (p *plain) facts(f *envelope.Facts) {
	p.object(factsNames, func(k int) {
		switch k {
		case 0:
			f.Sandboxed = p.bool()
		case 1:
			f.Mode = p.str()
		case 2:
			f.Background = p.bool()
		case 3:
			f.Role = p.str()
		}
	})
}

func (p *plain) envelope() *envelopeWire {
	if p.null() {
		return nil
	}
	w := &envelopeWire{}
	p.object(envelopeNames, func(k int) {
		switch k {
		case 0:
			w.Requester = events.SessionKey(p.str())
		case 1:
			w.Agent = p.str()
		case 2:
			w.Depth = p.int()
		case 3:
			w.Role = p.str()
		case 4:
			w.InheritedAllow = p.strs()
		case 5:
			w.InheritedDeny = p.strs()
		case 6:
			w.Source = p.str()
		case 7:
			if p.null() {
				return
			}
			d := &envelope.Delegation{}
			p.object(delegationNames, func(k int) {
				switch k {
				case 0:
					d.Requester = events.SessionKey(p.str())
				case 1:
					d.Target = p.str()
				case 2:
					d.Deny = p.strs()
				}
			})
			w.Delegated = d
		case 8:
			w.Revision = p.uint()
		case 9:
			w.Background = p.bool()
		case 10:
			w.Mode = p.str()
		case 11:
			w.ExtraTools = p.strs()
		case 12:
			w.Hash = p.str()
		case 13:
			w.Scope = p.str()
		}
	})
	return w
}

// plainCheck reads what a tool.checked decided; ok is false when raw is
// not in the plain form.
func plainCheck(raw []byte) (*CheckDecided, bool) {
	v := &CheckDecided{}
	return v, plainCheckInto(raw, v)
}

// plainCheckInto is plainCheck into v (the fold decodes a check into its
// decoded record: one allocation less), its decision one of the
// constants when it is one (another, when its decision is known).
func plainCheckInto(raw []byte, v *CheckDecided) bool {
	p := newPlain(raw)
	p.object(checkNames, func(k int) {
		switch k {
		case 0:
			v.Decision = p.decision()
		case 1:
			p.reason(&v.Reason)
		case 2:
			v.Revision = p.uint()
		case 3:
			v.EnvelopeHash = p.str()
		case 4:
			v.PreparedAt = p.uint()
		case 5:
			v.Scope = p.str()
		}
	})
	return p.done()
}

// recordType reads a record type: a known one is its constant.
func (p *plain) recordType() events.Type {
	b := p.raw()
	for _, t := range events.Types {
		if string(b) == string(t) {
			return t
		}
	}
	return events.Type(b)
}

// decision reads a decision: a known one is its constant.
func (p *plain) decision() envelope.Decision {
	b := p.raw()
	for _, d := range [...]envelope.Decision{envelope.Allow, envelope.Deny, envelope.Ask} {
		if string(b) == string(d) {
			return d
		}
	}
	return envelope.Decision(b)
}

// plainStart reads what a session.started decided.
func plainStart(raw []byte) (*StartDecided, bool) {
	p, v := newPlain(raw), &StartDecided{}
	p.object(startNames, func(k int) {
		if k == 0 {
			p.facts(&v.Facts)
		} else {
			v.Scope = p.str()
		}
	})
	return v, p.done()
}

// plainResume reads what a session.resumed decided.
func plainResume(raw []byte) (*ResumeDecided, bool) {
	p, v := newPlain(raw), &ResumeDecided{}
	p.object(resumeNames, func(k int) {
		if k == 0 {
			v.PolicySource = p.str()
		} else {
			v.SourceReason = p.str()
		}
	})
	return v, p.done()
}

// plainSpawn reads what a session.spawned decided.
func plainSpawn(raw []byte) (*spawnWire, bool) {
	p, w := newPlain(raw), &spawnWire{}
	p.object(spawnNames, func(k int) {
		if k == 0 {
			w.Envelope = p.envelope()
		} else {
			p.facts(&w.Facts)
		}
	})
	return w, p.done()
}
