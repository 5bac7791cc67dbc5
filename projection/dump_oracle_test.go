package projection

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"

	bolt "go.etcd.io/bbolt"
)

// OldStoreDump is Store.Dump as it was written before its lines were
// encoded by hand: a json.Marshal of a map per entry, the value a
// json.RawMessage (since SchemaVersion 5, with each tool set joined from
// its base and records, as the store held it before). It is the oracle of TestStoreDumpMatchesMarshal
// (store_dump_test.go): the dump's bytes, so DumpHash, which replicas and
// earlier verifies compare, must not change. Keep it as it is.
func OldStoreDump(st *Store, w io.Writer) error {
	return st.db.View(func(tx *bolt.Tx) error {
		names := make([]string, 0, len(allBuckets))
		for _, b := range allBuckets {
			if string(b) != string(bucketToolSetBases) { // since version 5
				names = append(names, string(b))
			}
		}
		sortStrings(names)
		bases := tx.Bucket(bucketToolSetBases)
		base := toolSetBases(func(k []byte) ([]byte, error) { return bases.Get(k), nil })
		for _, name := range names {
			err := tx.Bucket([]byte(name)).ForEach(func(k, v []byte) error {
				if name == string(bucketMeta) && string(k) == string(sumsKey) {
					return nil
				}
				if name == string(bucketToolSets) { // since version 5: the set as stored before
					js, err := expandToolSet(v, base)
					if err != nil {
						return err
					}
					v = js
				}
				line, err := json.Marshal(map[string]any{"bucket": name, "key": fmt.Sprintf("%x", k), "value": json.RawMessage(oldDumpValue(name, k, v))})
				if err != nil {
					return err
				}
				_, err = fmt.Fprintf(w, "%s\n", line)
				return err
			})
			if err != nil {
				return err
			}
		}
		return nil
	})
}

// OldDumpLine is the line OldStoreDump writes for one entry (without its
// newline), for TestDumpLineMatchesMarshal's values that no fold makes.
func OldDumpLine(bucket string, k, v []byte) ([]byte, error) {
	return json.Marshal(map[string]any{"bucket": bucket, "key": fmt.Sprintf("%x", k), "value": json.RawMessage(oldDumpValue(bucket, k, v))})
}

// DumpLine is the line Store.Dump writes for one entry (without its
// newline).
func DumpLine(bucket string, k, v []byte) []byte {
	b := appendDumpLine(nil, []byte(bucket), k, v)
	return b[:len(b)-1]
}

// oldDumpValue is dumpValue as OldStoreDump used it.
func oldDumpValue(bucket string, k, v []byte) []byte {
	var r any
	switch bucket {
	case string(bucketChains):
		r = string(v)
	case string(bucketIDs):
		if l, err := parseLanded(v); err == nil {
			r = map[string]any{"seq": l.Seq, "refused_effect": l.RefusedEffect}
		}
	case string(bucketLog):
		if e, c, err := parseLogValue(v); err == nil && (len(c) == 0 || json.Valid(c)) {
			m := map[string]any{"id": e.ID, "type": e.Type, "time": e.Time}
			if len(c) > 0 {
				m["check"] = json.RawMessage(c)
			}
			r = m
		}
	case string(bucketSessions):
		_, tag, _, _ := parseSessionKey(k)
		switch {
		case tag == tagSession:
			if sess, err := decodeSessionBinary(v); err == nil {
				r = sess
			}
		case tag == tagChain:
			r = string(v)
		case tag == tagCall && len(v) == 8:
			r = binary.BigEndian.Uint64(v)
		}
	}
	if r == nil && json.Valid(v) {
		return v
	}
	if r == nil {
		r = fmt.Sprintf("%x", v)
	}
	q, _ := json.Marshal(r)
	return q
}
