package projection

// This file holds the canonical dumps: of a State (Dump, StateHash) and
// of a Store's file (Store.Dump, Store.DumpHash).

import (
	"bufio"
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	bolt "go.etcd.io/bbolt"

	"github.com/sessionledger/ledger/events"
)

// Dump returns the state's canonical dump: every part of the folded state
// in key order, canonically encoded, so two states are equal exactly when
// their dumps are byte-identical. Derived caches are not part of it. A
// state committed to a store reads its history back for it, and answers
// the error (with the code events.CodeStorage) when it cannot.
//
// The dump is the canonical JSON of one object: chains, checks (by decimal
// sequence), ids, policies, policy, position, sessions, time, toolsets,
// turns and yields.
func (s *State) Dump() ([]byte, error) {
	var buf bytes.Buffer
	if err := s.writeDump(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// StateHash is the content hash of the canonical dump.
func (s *State) StateHash() (string, error) {
	h := sha256.New()
	w := bufio.NewWriterSize(h, 64<<10)
	if err := s.writeDump(w); err != nil {
		return "", err
	}
	if err := w.Flush(); err != nil {
		return "", err
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}

// writeDump writes the dump section by section: each value is the
// canonical form of its JSON, and canonical JSON is made of canonical
// parts, so the whole is the canonical form of the dumped object.
func (s *State) writeDump(w io.Writer) error { return s.dumpWith(w, s.writeDumpFrom) }

// dumpWith runs write on the state's history (nil for a state in memory),
// once the commits under way are done.
func (s *State) dumpWith(w io.Writer, write func(io.Writer, func(bucket []byte, fn func(k, v []byte) error) error) error) error {
	if err := s.wait(); err != nil {
		return err
	}
	if s.hist == nil {
		return write(w, nil)
	}
	err := s.hist.scan(func(each func(bucket []byte, fn func(k, v []byte) error) error) error {
		return write(w, each)
	})
	if err != nil {
		return readError(s.hist.Path(), err)
	}
	return nil
}

// writeDumpFrom writes the dump reading the history up to recent.base with
// each (nil for a state in memory).
//
// Each section is entries in canonical key order: a bucket read as the
// dump goes (stored), or the sessions bucket's values sorted by session
// key, with what was folded since (sorted) merged over them. No section is
// a map of every key: at a million records the ids were a million map
// entries made, sorted and held (8.0 against 4.8 s for the state hash of
// a million-record store). The dump is byte for byte the one of a map per
// section (oldWriteDumpFrom in state_dump_oracle_test.go,
// TestStateDumpMatchesMaps; TestSortEntriesAndMerge).
func (s *State) writeDumpFrom(w io.Writer, each func(bucket []byte, fn func(k, v []byte) error) error) error {
	d := dumper{w: w, scan: each}
	r := s.recent
	// What the sessions bucket holds of each session, by tag, in the
	// order of its slots: where each value is, to be encoded when its
	// turn comes.
	var sessions, yields, chains, turns []entry
	keys := map[uint64]events.SessionKey{}
	d.each(bucketSlots, func(k, v []byte) error {
		if len(k) != 8 || len(v) == 0 {
			return fmt.Errorf("bad slot %x", k)
		}
		keys[binary.BigEndian.Uint64(k)] = events.SessionKey(v[1:])
		return nil
	})
	// A slot holds a session, its turns, a yield and two chain heads at
	// most: room made once rather than grown (each is a million entries'
	// copies at a million records).
	sessions, turns = make([]entry, 0, len(keys)), make([]entry, 0, len(keys))
	chains = make([]entry, 0, 2*len(keys))
	lastTurns := uint64(0)
	d.each(bucketSessions, func(k, v []byte) error {
		n, tag, rest, ok := parseSessionKey(k)
		key, known := keys[n]
		if !ok || !known {
			return fmt.Errorf("bad session key %x", k)
		}
		switch tag {
		case tagSession:
			sessions = append(sessions, entry{string(key), lazy{raw: v, enc: canonSession}})
		case tagYield:
			yields = append(yields, entry{string(key), lazy{raw: v, enc: events.CanonicalJSON}})
		case tagTurn:
			// Keys sort by slot, then turn number: a slot's turns are
			// next to each other, in order.
			t := lazy{raw: v, enc: events.CanonicalJSON}
			if l := len(turns); l > 0 && lastTurns == n {
				turns[l-1].val.list = append(turns[l-1].val.list, t)
			} else {
				turns = append(turns, entry{string(key), lazy{list: []lazy{t}}})
			}
			lastTurns = n
		case tagChain:
			subj, ok := chainSubject(key, rest)
			if !ok {
				return fmt.Errorf("bad chain key %x", k)
			}
			chains = append(chains, entry{subj, lazy{raw: v, enc: canonString}})
		}
		return nil
	})
	d.raw("{")

	// The history a record changes in place: the newest value wins.
	d.section("chains", false)
	over := make([]entry, 0, len(r.chains))
	for subj, h := range r.chains {
		over = append(over, entry{subj, deferred(h)})
	}
	d.object(mergeOver(d.stored(bucketChains, canonString), merge(sortEntries(chains, nil), sortEntries(over, nil), nil), true))

	d.section("checks", true)
	var e []entry
	d.each(bucketLog, func(k, v []byte) error {
		_, c, err := parseLogValue(v)
		if err != nil || len(k) != 8 {
			return fmt.Errorf("bad log entry %x: %x", k, v)
		}
		if len(c) > 0 {
			e = append(e, entry{strconv.FormatUint(binary.BigEndian.Uint64(k), 10), lazy{raw: c, enc: events.CanonicalJSON}})
		}
		return nil
	})
	over = make([]entry, 0, len(r.checks))
	for seq, c := range r.checks {
		over = append(over, entry{strconv.FormatUint(seq, 10), deferred(c)})
	}
	d.object(slices.Values(merge(sortEntries(e, nil), sortEntries(over, nil), nil)))

	// An id keeps the sequence it first landed at: the store's.
	d.section("ids", true)
	over = make([]entry, 0, len(r.ids))
	for id, l := range r.ids {
		over = append(over, entry{id, deferred(l)})
	}
	d.object(mergeOver(d.stored(bucketIDs, canonLanded), sortEntries(over, nil), false))

	d.section("policies", true)
	d.put(d.value(s.policies).raw)
	d.section("policy", true)
	d.put(d.value(s.Policy()).raw)
	d.section("position", true)
	d.put(d.value(s.seq).raw)

	// Sessions: the stored ones, and those changed since (every one, for
	// a state in memory).
	d.section("sessions", true)
	over = make([]entry, 0, len(s.changed))
	for k := range s.changed {
		over = append(over, entry{string(k), deferred(s.sessions[k])})
	}
	if s.hist == nil {
		for k, sess := range s.sessions {
			over = append(over, entry{string(k), deferred(sess)})
		}
	}
	d.object(slices.Values(merge(sortEntries(sessions, nil), sortEntries(over, nil), nil)))

	d.section("time", true)
	d.put(d.value(s.lastTime).raw)

	d.section("toolsets", true)
	baseJSON := map[string][]byte{}
	d.each(bucketToolSetBases, func(k, v []byte) error {
		baseJSON[string(k)] = v
		return nil
	})
	base := toolSetBases(func(k []byte) ([]byte, error) { return baseJSON[string(k)], nil })
	over = make([]entry, 0, len(r.toolsets))
	for h, ts := range r.toolsets {
		over = append(over, entry{h, deferred(ts)})
	}
	d.object(mergeOver(d.stored(bucketToolSets, func(v []byte) ([]byte, error) {
		js, err := expandToolSet(v, base)
		if err != nil {
			return nil, err
		}
		return events.CanonicalJSON(js)
	}), sortEntries(over, nil), true))

	// Turns: each session's stored turns, then those folded since.
	d.section("turns", true)
	over = make([]entry, 0, len(r.turns))
	for k, tl := range r.turns {
		var l lazy
		for _, t := range tl.list {
			l.list = append(l.list, deferred(t))
		}
		over = append(over, entry{string(k), l})
	}
	d.object(slices.Values(merge(sortEntries(turns, appendList), sortEntries(over, appendList), appendList)))

	d.section("yields", true)
	over = make([]entry, 0, len(r.yields))
	for k, y := range r.yields {
		over = append(over, entry{string(k), deferred(y)})
	}
	d.object(slices.Values(merge(sortEntries(yields, nil), sortEntries(over, nil), nil)))

	d.raw("}")
	return d.err
}

// An entry is one member of a dump object: its key and its value.
type entry struct {
	key string
	val lazy
}

// sortEntries returns es sorted by key in canonical order (compareUTF16),
// es itself when it was (a new list when not), with one entry of those
// with equal keys, in the order they came:
// with combine (appendList, for lists of turns) when it is given, else the
// last one (as a map's assignments leave it).
func sortEntries(es []entry, combine func(a, b lazy) lazy) []entry {
	if !slices.IsSortedFunc(es, compareEntries) {
		// By key, then by the order they came: a total order, so an
		// unstable sort of keys and indexes (24 bytes a swap) rather than
		// a stable sort of the entries (96): a million ids of a state in
		// memory took 1.3 s this way, 8.1 s of CPU the other.
		type keyed struct {
			key string
			i   int
		}
		idx := make([]keyed, len(es))
		for i, x := range es {
			idx[i] = keyed{x.key, i}
		}
		slices.SortFunc(idx, func(a, b keyed) int {
			if c := compareUTF16(a.key, b.key); c != 0 {
				return c
			}
			return cmp.Compare(a.i, b.i)
		})
		sorted := make([]entry, len(es))
		for i, k := range idx {
			sorted[i] = es[k.i]
		}
		es = sorted
	}
	out := es[:0]
	for _, x := range es {
		if l := len(out); l > 0 && out[l-1].key == x.key {
			if combine != nil {
				x.val = combine(out[l-1].val, x.val)
			}
			out[l-1] = x
			continue
		}
		out = append(out, x)
	}
	return out
}

func compareEntries(a, b entry) int { return compareUTF16(a.key, b.key) }

// merge merges two sorted lists with no key twice in either: of a key in
// both, over's value wins, or combine(base's, over's) when combine is
// given.
func merge(base, over []entry, combine func(a, b lazy) lazy) []entry {
	if len(over) == 0 {
		return base
	}
	if len(base) == 0 {
		return over
	}
	out := make([]entry, 0, len(base)+len(over))
	i, j := 0, 0
	for i < len(base) && j < len(over) {
		switch c := compareEntries(base[i], over[j]); {
		case c < 0:
			out = append(out, base[i])
			i++
		case c > 0:
			out = append(out, over[j])
			j++
		default:
			x := over[j]
			if combine != nil {
				x.val = combine(base[i].val, x.val)
			}
			out = append(out, x)
			i, j = i+1, j+1
		}
	}
	out = append(out, base[i:]...)
	return append(out, over[j:]...)
}

// mergeOver is merge of a sorted sequence and a sorted list, as the
// sequence goes: of a key in both, over's value when overWins, else
// base's.
func mergeOver(base iter.Seq[entry], over []entry, overWins bool) iter.Seq[entry] {
	return func(yield func(entry) bool) {
		j := 0
		for x := range base {
			for j < len(over) && compareEntries(over[j], x) < 0 {
				if !yield(over[j]) {
					return
				}
				j++
			}
			if j < len(over) && over[j].key == x.key {
				if overWins {
					x = over[j]
				}
				j++
			}
			if !yield(x) {
				return
			}
		}
		for _, x := range over[j:] {
			if !yield(x) {
				return
			}
		}
	}
}

// appendList is the list of a's values then b's.
func appendList(a, b lazy) lazy {
	return lazy{list: append(slices.Clip(a.list), b.list...)}
}

// A lazy value is a dump value encoded when it is written: the raw bytes
// enc encodes (a stored value stays valid, mapped, for the read
// transaction), the canonical bytes when enc is nil, the canonical JSON of
// v when deferred (a value of the state in memory), or, with list, the
// JSON array of the list's values. The dump keeps in memory the keys of a
// section, not all its values encoded at once (at a million records,
// which took 9 GB).
type lazy struct {
	raw      []byte
	enc      func([]byte) ([]byte, error)
	list     []lazy
	v        any
	deferred bool
}

// deferred is v's canonical JSON, made when it is written.
func deferred(v any) lazy { return lazy{v: v, deferred: true} }

// bytes returns the value's canonical bytes.
func (l lazy) bytes() ([]byte, error) {
	if l.list != nil {
		out := []byte{'['}
		for i, v := range l.list {
			if i > 0 {
				out = append(out, ',')
			}
			b, err := v.bytes()
			if err != nil {
				return nil, err
			}
			out = append(out, b...)
		}
		return append(out, ']'), nil
	}
	if l.deferred {
		return canon(l.v)
	}
	if l.enc == nil {
		return l.raw, nil
	}
	return l.enc(l.raw)
}

func canonString(v []byte) ([]byte, error) { return canon(string(v)) }

func canonSession(v []byte) ([]byte, error) {
	sess, err := decodeSessionBinary(v)
	if err != nil {
		return nil, err
	}
	return canon(sess)
}

func canonLanded(v []byte) ([]byte, error) {
	l, err := parseLanded(v)
	if err != nil {
		return nil, err
	}
	return canon(l)
}

// dumper writes the dump and keeps its first error.
type dumper struct {
	w    io.Writer
	scan func(bucket []byte, fn func(k, v []byte) error) error
	err  error
	key  bytes.Buffer
}

func (d *dumper) raw(s string) { d.put([]byte(s)) }

func (d *dumper) put(b []byte) {
	if d.err == nil {
		_, d.err = d.w.Write(b)
	}
}

// section starts the member name of the dump object.
func (d *dumper) section(name string, comma bool) {
	if comma {
		d.raw(",")
	}
	d.raw(`"` + name + `":`)
}

// value is v's canonical JSON.
func (d *dumper) value(v any) lazy {
	c, err := canon(v)
	if err != nil && d.err == nil {
		d.err = err
	}
	return lazy{raw: c}
}

func canon(v any) ([]byte, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return events.CanonicalJSON(raw)
}

// each calls fn for every stored key of a bucket (nothing for a state in
// memory).
func (d *dumper) each(bucket []byte, fn func(k, v []byte) error) {
	if d.scan == nil || d.err != nil {
		return
	}
	if err := d.scan(bucket, fn); err != nil {
		d.err = err
	}
}

// stored is a stored bucket's entries in canonical key order, each value
// to be encoded by enc: read as the dump goes when the bucket's byte order
// is that order (no key holds a byte from 0xEE, which starts the
// characters from U+E000 on, where UTF-8's order and UTF-16's part), else
// read first and sorted (sortEntries).
func (d *dumper) stored(bucket []byte, enc func([]byte) ([]byte, error)) iter.Seq[entry] {
	inOrder := true
	d.each(bucket, func(k, _ []byte) error {
		if inOrder && slices.ContainsFunc(k, func(c byte) bool { return c >= 0xEE }) {
			inOrder = false
		}
		return nil
	})
	if !inOrder {
		var e []entry
		d.each(bucket, func(k, v []byte) error {
			e = append(e, entry{string(k), lazy{raw: v, enc: enc}})
			return nil
		})
		return slices.Values(sortEntries(e, nil))
	}
	return func(yield func(entry) bool) {
		d.each(bucket, func(k, v []byte) error {
			if !yield(entry{string(k), lazy{raw: v, enc: enc}}) {
				return errStopped
			}
			return nil
		})
		if d.err == errStopped {
			d.err = nil
		}
	}
}

// errStopped ends a bucket's read that its reader stopped.
var errStopped = errors.New("stopped")

// object writes es, sorted with no key twice, as a canonical JSON object.
func (d *dumper) object(es iter.Seq[entry]) {
	d.raw("{")
	// The values are encoded a block of keys at a time, the block's keys
	// shared among the processors, and written in key order: the same
	// bytes as one after another (TestDumpBlocksInOrder), the first error
	// in key order kept, and at most a block of values in memory at once.
	block := make([]entry, 0, dumpBlock)
	vals, errs := make([][]byte, dumpBlock), make([]error, dumpBlock)
	written := 0
	flush := func() {
		if d.err == nil {
			shares(len(block), workersFor(len(block), dumpApart), func(_, i int) bool {
				vals[i], errs[i] = block[i].val.bytes()
				return true
			})
			for i, x := range block {
				if written > 0 {
					d.raw(",")
				}
				written++
				d.key.Reset()
				events.WriteString(&d.key, x.key)
				d.key.WriteByte(':')
				d.put(d.key.Bytes())
				if errs[i] != nil && d.err == nil {
					d.err = errs[i]
				}
				d.put(vals[i])
				vals[i], errs[i] = nil, nil
			}
		}
		clear(block)
		block = block[:0]
	}
	for x := range es {
		block = append(block, x)
		if len(block) == dumpBlock {
			flush()
		}
	}
	flush()
	d.raw("}")
}

// dumpBlock is how many values of an object a dump encodes at a time, and
// dumpApart how many of them make a processor's share (fewer are encoded
// on one).
const (
	dumpBlock = 1024
	dumpApart = 128
)

// compareUTF16 orders strings by their UTF-16 code units, as canonical
// JSON orders object keys. That is byte order except where a character
// beyond U+FFFF meets one from U+E000 to U+FFFF.
func compareUTF16(a, b string) int {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	switch {
	case i == len(a) && i == len(b):
		return 0
	case i == len(a):
		return -1
	case i == len(b):
		return 1
	case a[i] < utf8.RuneSelf || b[i] < utf8.RuneSelf:
		// An ASCII byte starts a character in both strings.
		return int(a[i]) - int(b[i])
	}
	for i > 0 && !utf8.RuneStart(a[i]) {
		i--
	}
	ra, _ := utf8.DecodeRuneInString(a[i:])
	rb, _ := utf8.DecodeRuneInString(b[i:])
	if ua, ub := firstUnit(ra), firstUnit(rb); ua != ub {
		return int(ua) - int(ub)
	}
	if ra == rb {
		return strings.Compare(a, b) // not UTF-8; any fixed order will do
	}
	return int(ra) - int(rb)
}

// firstUnit is the first UTF-16 code unit of r.
func firstUnit(r rune) rune {
	if r >= 0x10000 {
		return 0xD800 + (r-0x10000)>>10
	}
	return r
}

// Dump writes the store's canonical dump: every bucket in name order, every
// key in key order, one JSON line each. Two stores hold the same state
// exactly when their dumps are byte-identical.
//
// Each line is byte for byte what json.Marshal makes of the map
// {"bucket": name, "key": hex key, "value": json.RawMessage(value)}, which
// is how it was first written (and what DumpHash of every earlier replica
// and verify hashed); appendDumpLine writes it without the reflection
// (TestStoreDumpMatchesMarshal, TestDumpLineMatchesMarshal).
func (st *Store) Dump(w io.Writer) error {
	return st.db.View(func(tx *bolt.Tx) error {
		bases := tx.Bucket(bucketToolSetBases)
		base := toolSetBases(func(k []byte) ([]byte, error) { return bases.Get(k), nil })
		// The lines are made a block of entries at a time, the block
		// shared among the processors, and written in the bucket's order
		// (TestStoreDumpMatchesMarshal); the keys and values stay valid,
		// mapped, until the transaction ends. A block's lines are made
		// while the block before it is written (and hashed, by DumpHash's
		// writer): two blocks, one made and one written, at a time.
		type kv struct{ k, v []byte }
		type batch struct {
			name  []byte
			kvs   []kv
			lines [][]byte
		}
		cur, prev := &batch{kvs: make([]kv, 0, dumpBlock), lines: make([][]byte, dumpBlock)}, &batch{kvs: make([]kv, 0, dumpBlock), lines: make([][]byte, dumpBlock)}
		write := func(b *batch) error {
			for i := range b.kvs {
				if _, err := w.Write(b.lines[i]); err != nil {
					return err
				}
			}
			b.kvs = b.kvs[:0]
			return nil
		}
		flush := func() error {
			made := make(chan struct{})
			go func(b *batch) {
				defer close(made)
				shares(len(b.kvs), workersFor(len(b.kvs), dumpApart), func(_, i int) bool {
					v := b.kvs[i].v
					if string(b.name) == string(bucketToolSets) {
						// The set, as the store held it before version 5;
						// an entry that does not join shows as stored.
						if js, err := expandToolSet(v, base); err == nil {
							v = js
						}
					}
					b.lines[i] = appendDumpLine(b.lines[i][:0], b.name, b.kvs[i].k, v)
					return true
				})
			}(cur)
			err := write(prev)
			<-made
			cur, prev = prev, cur
			return err
		}
		for _, name := range dumpOrder {
			err := tx.Bucket(name).ForEach(func(k, v []byte) error {
				if string(name) == string(bucketMeta) && string(k) == string(sumsKey) {
					return nil // not state: how the file checks itself (check.go)
				}
				cur.name = name
				if cur.kvs = append(cur.kvs, kv{k, v}); len(cur.kvs) == dumpBlock {
					return flush()
				}
				return nil
			})
			if err == nil {
				err = flush()
			}
			if err != nil {
				return err
			}
		}
		return write(prev)
	})
}

// dumpOrder is allBuckets in name order, the order of Store.Dump, but
// for the tool set bases (each set shows joined in "toolsets").
var dumpOrder = func() [][]byte {
	names := make([]string, 0, len(allBuckets))
	for _, b := range allBuckets {
		if string(b) != string(bucketToolSetBases) {
			names = append(names, string(b))
		}
	}
	sortStrings(names)
	out := make([][]byte, len(names))
	for i, n := range names {
		out[i] = []byte(n)
	}
	return out
}()

// appendDumpLine appends one line of Store.Dump, with its newline: the keys
// in json.Marshal's (sorted) order, the key in lower-case hex as
// fmt.Sprintf("%x") writes it.
func appendDumpLine(b, bucket, k, v []byte) []byte {
	b = append(b, `{"bucket":`...)
	b = appendMarshalString(b, bucket)
	b = append(b, `,"key":"`...)
	b = hex.AppendEncode(b, k)
	b = append(b, `","value":`...)
	b = appendDumpValue(b, bucket, k, v)
	return append(b, "}\n"...)
}

// appendDumpValue appends a stored value as JSON: the binary ones decoded,
// the rest as stored (as a hex string when it is not JSON), each as
// json.Marshal writes it inside a line (a json.RawMessage is compacted and
// its <, >, &, U+2028 and U+2029 escaped).
func appendDumpValue(b, bucket, k, v []byte) []byte {
	switch string(bucket) {
	case string(bucketChains):
		return appendMarshalString(b, v)
	case string(bucketIDs):
		if l, err := parseLanded(v); err == nil {
			b = append(b, `{"refused_effect":`...)
			b = strconv.AppendBool(b, l.RefusedEffect)
			b = append(b, `,"seq":`...)
			b = strconv.AppendUint(b, l.Seq, 10)
			return append(b, '}')
		}
	case string(bucketLog):
		if e, c, err := parseLogValue(v); err == nil && (len(c) == 0 || json.Valid(c)) {
			b = append(b, '{')
			if len(c) > 0 {
				b = append(b, `"check":`...)
				b = appendRawMessage(b, c)
				b = append(b, ',')
			}
			b = append(b, `"id":`...)
			b = appendMarshalString(b, e.ID)
			b = append(b, `,"time":`...)
			b = appendMarshalString(b, e.Time)
			b = append(b, `,"type":`...)
			b = appendMarshalString(b, e.Type)
			return append(b, '}')
		}
	case string(bucketSessions):
		_, tag, _, _ := parseSessionKey(k)
		switch {
		case tag == tagSession:
			if sess, err := decodeSessionBinary(v); err == nil {
				q, err := json.Marshal(sess) // compact and escaped already
				if err == nil {
					return append(b, q...)
				}
				return append(b, "null"...) // as the first version wrote it
			}
		case tag == tagChain:
			return appendMarshalString(b, v)
		case tag == tagCall && len(v) == 8:
			return strconv.AppendUint(b, binary.BigEndian.Uint64(v), 10)
		}
	}
	if json.Valid(v) {
		return appendRawMessage(b, v)
	}
	b = append(b, '"')
	b = hex.AppendEncode(b, v)
	return append(b, '"')
}

// appendMarshalString appends s as json.Marshal writes a string: as it is
// when every byte is printable ASCII other than ", \\, <, > and &, else by
// json.Marshal itself.
func appendMarshalString[S ~string | ~[]byte](b []byte, s S) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(string(s))
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// appendRawMessage appends valid JSON v as json.Marshal writes a
// json.RawMessage: as it is when it has no white space (even inside a
// string) and none of <, >, & and the byte that starts U+2028 and U+2029;
// else compacted, then HTML-escaped.
func appendRawMessage(b, v []byte) []byte {
	for _, c := range v {
		switch c {
		case ' ', '\t', '\n', '\r', '<', '>', '&', 0xe2:
			var c, e bytes.Buffer
			if json.Compact(&c, v) != nil {
				return append(b, v...) // not reached: v is valid
			}
			json.HTMLEscape(&e, c.Bytes())
			return append(b, e.Bytes()...)
		}
	}
	return append(b, v...)
}

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// DumpHash is the content hash of the store's canonical dump.
func (st *Store) DumpHash() (string, error) {
	h := sha256.New()
	w := bufio.NewWriterSize(h, 64<<10)
	if err := st.Dump(w); err != nil {
		return "", err
	}
	if err := w.Flush(); err != nil {
		return "", err
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}
