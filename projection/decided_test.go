package projection

import (
	"encoding/json"
	"reflect"
	"testing"
)

// The decided values of a real log (the scale workload's), as the ledger
// writes them, by the kind that reads each.
var plainDecided = []struct{ kind, raw string }{
	{"start", `{"facts":{"role":"main"},"seq":2}`},
	{"start", `{"facts":{"background":true,"mode":"plan","role":"worker","sandboxed":true},"seq":2}`},
	{"spawn", `{"envelope":{"agent":"coder","delegated":null,"depth":1,"hash":"sha256:bde1767247af90af36be88b1fcb8a9920c475aa3e2921333c97476be95e12bd0","inherited_allow":null,"inherited_deny":["gateway"],"requester":"agent:main:w0","revision":1,"role":"orchestrator","source":"config"},"facts":{"role":"orchestrator"},"seq":4}`},
	{"spawn", `{"envelope":{"agent":"reviewer","background":false,"delegated":{"deny":[],"requester":"agent:main:w0","target":"reviewer"},"depth":2,"extra_tools":[],"hash":"sha256:00","inherited_allow":[],"inherited_deny":[],"mode":"acceptEdits","requester":"agent:coder:subagent:w0-c","revision":18446744073709551615,"role":"leaf","source":"delegated"},"facts":{"mode":"acceptEdits"},"seq":5}`},
	{"spawn", `{"envelope":null,"facts":null}`},
	{"check", `{"decision":"allow","envelope_hash":"sha256:bde1767247af90af36be88b1fcb8a9920c475aa3e2921333c97476be95e12bd0","reason":{"code":""},"revision":1,"seq":7}`},
	{"check", `{"decision":"deny","prepared_at":7,"prev":"sha256:12a0","reason":{"code":"agent:deny","record":{"id":"01KDVDNA01DBK7GFTFQQMHPVNR","seq":1,"type":"policy.set"},"rule":"tools.deny: é"},"revision":0,"seq":8}`},
	{"check", `{"decision":"ask","reason":{"code":"x","record":null,"rule":null}}`},
	{"resume", `{"policy_source":"completion_handoff","prev":"sha256:8ed33475a8ae867721acd0fc3fdb86709a449e4b3f9ba532cf06d8b7989ee09d","seq":13}`},
	{"resume", `{"policy_source":"persisted_child","source_reason":"ünïcode","seq":0}`},
	{"resume", `{}`},
	{"resume", `null`},
}

// Forms the plain readers leave to encoding/json, by the kind that must
// not take each.
var notPlain = []struct{ kind, raw string }{
	{"check", ``},
	{"start", ` {"facts":{}}`},
	{"start", `{"facts":{}} `},
	{"check", `{"decision":"al\u006cow","reason":{"code":""}}`},
	{"check", `{"decision":"allow","decision":"deny"}`},
	{"check", `{"Decision":"deny"}`},
	{"resume", `{"POLICY_SOURCE":"x"}`},
	{"spawn", "{\"\u212a\":1}"}, // the Kelvin sign, which folds to k
	{"check", `{"revision":-1}`},
	{"check", `{"revision":1.5}`},
	{"check", `{"revision":1e3}`},
	{"check", `{"revision":01}`},
	{"check", `{"revision":18446744073709551616}`},
	{"check", `{"revision":"1"}`},
	{"resume", `{"prev":{"nested":1}}`},
	{"resume", `{"prev":[1]}`},
	{"resume", `{"prev":true}`},
	{"start", `{"facts":{"sandboxed":"yes"}}`},
	{"spawn", `{"envelope":{"depth":-1}}`},
	{"spawn", `{"envelope":{"inherited_deny":["a",1]}}`},
	{"spawn", `{"envelope":{"delegated":[]}}`},
	{"check", "{\"decision\":\"bad \xff utf-8\"}"},
	{"check", "{\"decision\":\"tab\there\"}"},
	{"check", `{"decision":"allow"`},
	{"check", `{"decision":"allow"}}`},
	{"check", `{"decision" : "allow"}`},
	{"check", `[]`},
	{"check", `"allow"`},
}

// decodeBoth decodes raw as each kind of decided value with the plain
// reader and with encoding/json, and returns the kinds whose plain reader
// took it. Where a plain reader takes raw, encoding/json must decode it
// without error to the same value.
func decodeBoth(t *testing.T, raw []byte) map[string]bool {
	t.Helper()
	took := map[string]bool{}
	check := func(kind string, got any, ok bool, want any) {
		t.Helper()
		if !ok {
			return
		}
		took[kind] = true
		if err := json.Unmarshal(raw, want); err != nil {
			t.Fatalf("%s: the plain reader took %q, which encoding/json refuses: %v", kind, raw, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s of %q:\nplain %#v\njson  %#v", kind, raw, got, want)
		}
	}
	c, ok := plainCheck(raw)
	check("check", c, ok, &CheckDecided{})
	s, ok := plainStart(raw)
	check("start", s, ok, &StartDecided{})
	r, ok := plainResume(raw)
	check("resume", r, ok, &ResumeDecided{})
	w, ok := plainSpawn(raw)
	check("spawn", w, ok, &spawnWire{})
	return took
}

func TestDecidedPlain(t *testing.T) {
	for _, c := range plainDecided {
		if !decodeBoth(t, []byte(c.raw))[c.kind] {
			t.Errorf("%s: the %s reader left it to encoding/json", c.raw, c.kind)
		}
	}
	for _, c := range notPlain {
		if decodeBoth(t, []byte(c.raw))[c.kind] {
			t.Errorf("%q: the %s reader took it", c.raw, c.kind)
		}
	}
}

// The decoding the fold uses gives what encoding/json gives, in either
// form, errors included.
func TestDecidedSameAsJSON(t *testing.T) {
	for _, c := range append(append(plainDecided[:0:0], plainDecided...), notPlain...) {
		raw := c.raw
		got, gerr := orJSON(plainCheck, json.RawMessage(raw))
		want, werr := decided[CheckDecided](json.RawMessage(raw))
		if (gerr == nil) != (werr == nil) || gerr == nil && !reflect.DeepEqual(got, want) {
			t.Errorf("%q: %+v %v, want %+v %v", raw, got, gerr, want, werr)
		}
		sp, serr := decodeSpawn(json.RawMessage(raw))
		var w spawnWire
		werr = json.Unmarshal([]byte(raw), &w)
		if (serr == nil) != (werr == nil) || serr == nil && !reflect.DeepEqual(sp, &SpawnDecided{Envelope: w.Envelope.envelope(), Facts: w.Facts}) {
			t.Errorf("spawn %q: %+v %v, want %+v %v", raw, sp, serr, w, werr)
		}
	}
}

func FuzzDecidedDiff(f *testing.F) {
	for _, c := range append(append(plainDecided[:0:0], plainDecided...), notPlain...) {
		f.Add([]byte(c.raw))
	}
	f.Fuzz(func(t *testing.T, raw []byte) { decodeBoth(t, raw) })
}

// BenchmarkDecided decodes the decided values of a real log, by hand
// (plain) and with encoding/json (json).
func BenchmarkDecided(b *testing.B) {
	for _, kind := range []string{"start", "spawn", "check", "resume"} {
		var raws [][]byte
		for _, c := range plainDecided {
			if c.kind == kind {
				raws = append(raws, []byte(c.raw))
			}
		}
		b.Run(kind+"/plain", func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				raw := raws[i%len(raws)]
				var ok bool
				switch kind {
				case "start":
					_, ok = plainStart(raw)
				case "spawn":
					_, ok = plainSpawn(raw)
				case "check":
					_, ok = plainCheck(raw)
				case "resume":
					_, ok = plainResume(raw)
				}
				if !ok {
					b.Fatalf("%s left to encoding/json", raw)
				}
			}
		})
		b.Run(kind+"/json", func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				raw := raws[i%len(raws)]
				var v any
				switch kind {
				case "start":
					v = &StartDecided{}
				case "spawn":
					v = &spawnWire{}
				case "check":
					v = &CheckDecided{}
				case "resume":
					v = &ResumeDecided{}
				}
				if err := json.Unmarshal(raw, v); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
