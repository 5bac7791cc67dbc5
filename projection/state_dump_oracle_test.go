package projection

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"

	"github.com/sessionledger/ledger/events"
)

// oldWriteDumpFrom is writeDumpFrom as it was before its sections were
// sorted lists: a map of every key of a section, sorted when written. It
// is the oracle of TestStateDumpMatchesMaps: the dump's bytes, so
// StateHash, which replays and verifies print and compare, must not
// change. Keep it as it is.
func (s *State) oldWriteDumpFrom(w io.Writer, each func(bucket []byte, fn func(k, v []byte) error) error) error {
	d := dumper{w: w, scan: each}
	r := s.recent
	// What the sessions bucket holds of each session, by tag: where each
	// value is, to be encoded when its turn comes.
	stored := struct {
		sessions, yields, chains map[string]lazy
		turns                    map[string]lazy
	}{map[string]lazy{}, map[string]lazy{}, map[string]lazy{}, map[string]lazy{}}
	keys := map[uint64]events.SessionKey{}
	d.each(bucketSlots, func(k, v []byte) error {
		if len(k) != 8 || len(v) == 0 {
			return fmt.Errorf("bad slot %x", k)
		}
		keys[binary.BigEndian.Uint64(k)] = events.SessionKey(v[1:])
		return nil
	})
	d.each(bucketSessions, func(k, v []byte) error {
		n, tag, rest, ok := parseSessionKey(k)
		key, known := keys[n]
		if !ok || !known {
			return fmt.Errorf("bad session key %x", k)
		}
		switch tag {
		case tagSession:
			stored.sessions[string(key)] = lazy{raw: v, enc: canonSession}
		case tagYield:
			stored.yields[string(key)] = lazy{raw: v, enc: events.CanonicalJSON}
		case tagTurn:
			// Keys sort by turn number.
			l := stored.turns[string(key)]
			l.list = append(l.list, lazy{raw: v, enc: events.CanonicalJSON})
			stored.turns[string(key)] = l
		case tagChain:
			subj, ok := chainSubject(key, rest)
			if !ok {
				return fmt.Errorf("bad chain key %x", k)
			}
			stored.chains[subj] = lazy{raw: v, enc: canonString}
		}
		return nil
	})
	d.raw("{")

	// The history a record changes in place: the newest value wins.
	d.section("chains", false)
	e := oldEntries(&d, bucketChains, canonString)
	maps.Copy(e, stored.chains)
	for subj, h := range r.chains {
		e[subj] = d.value(h)
	}
	oldObject(&d, e)

	d.section("checks", true)
	e = map[string]lazy{}
	d.each(bucketLog, func(k, v []byte) error {
		if _, c, err := parseLogValue(v); err == nil && len(c) > 0 {
			e[strconv.FormatUint(binary.BigEndian.Uint64(k), 10)] = lazy{raw: c, enc: events.CanonicalJSON}
		}
		return nil
	})
	for seq, c := range r.checks {
		e[strconv.FormatUint(seq, 10)] = d.value(c)
	}
	oldObject(&d, e)

	// An id keeps the sequence it first landed at: the store's.
	d.section("ids", true)
	e = oldEntries(&d, bucketIDs, canonLanded)
	for id, l := range r.ids {
		if _, ok := e[id]; !ok {
			e[id] = d.value(l)
		}
	}
	oldObject(&d, e)

	d.section("policies", true)
	d.put(d.value(s.policies).raw)
	d.section("policy", true)
	d.put(d.value(s.Policy()).raw)
	d.section("position", true)
	d.put(d.value(s.seq).raw)

	// Sessions: the stored ones, and those changed since (every one, for
	// a state in memory).
	d.section("sessions", true)
	e = stored.sessions
	for k := range s.changed {
		e[string(k)] = d.value(s.sessions[k])
	}
	if s.hist == nil {
		for k, sess := range s.sessions {
			e[string(k)] = d.value(sess)
		}
	}
	oldObject(&d, e)

	d.section("time", true)
	d.put(d.value(s.lastTime).raw)

	d.section("toolsets", true)
	baseJSON := map[string][]byte{}
	d.each(bucketToolSetBases, func(k, v []byte) error {
		baseJSON[string(k)] = v
		return nil
	})
	base := toolSetBases(func(k []byte) ([]byte, error) { return baseJSON[string(k)], nil })
	e = oldEntries(&d, bucketToolSets, func(v []byte) ([]byte, error) {
		js, err := expandToolSet(v, base)
		if err != nil {
			return nil, err
		}
		return events.CanonicalJSON(js)
	})
	for h, ts := range r.toolsets {
		e[h] = d.value(ts)
	}
	oldObject(&d, e)

	// Turns: each session's stored turns (keys sort by session, then turn
	// number), then those folded since.
	d.section("turns", true)
	e = stored.turns
	for k, tl := range r.turns {
		l := e[string(k)]
		for _, t := range tl.list {
			l.list = append(l.list, d.value(t))
		}
		e[string(k)] = l
	}
	oldObject(&d, e)

	d.section("yields", true)
	e = stored.yields
	for k, y := range r.yields {
		e[string(k)] = d.value(y)
	}
	oldObject(&d, e)

	d.raw("}")
	return d.err
}

// oldEntries reads a stored bucket as values by key, each to be encoded
// by enc.
func oldEntries(d *dumper, bucket []byte, enc func([]byte) ([]byte, error)) map[string]lazy {
	e := map[string]lazy{}
	d.each(bucket, func(k, v []byte) error {
		e[string(k)] = lazy{raw: v, enc: enc}
		return nil
	})
	return e
}

// oldObject writes e as a canonical JSON object, one value after another.
func oldObject(d *dumper, e map[string]lazy) {
	keys := slices.Collect(maps.Keys(e))
	slices.SortFunc(keys, compareUTF16)
	d.raw("{")
	for i, k := range keys {
		if i > 0 {
			d.raw(",")
		}
		d.key.Reset()
		events.WriteString(&d.key, k)
		d.key.WriteByte(':')
		d.put(d.key.Bytes())
		v, err := e[k].bytes()
		if err != nil && d.err == nil {
			d.err = err
		}
		d.put(v)
	}
	d.raw("}")
}

// OldStateDump is the dump oldWriteDumpFrom makes of s.
func OldStateDump(s *State) ([]byte, error) {
	var b bytes.Buffer
	err := s.dumpWith(&b, s.oldWriteDumpFrom)
	return b.Bytes(), err
}
