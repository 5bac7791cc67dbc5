package projection

import (
	"encoding/json"
	"strconv"

	"github.com/sessionledger/ledger/events"
)

// Dump returns the state's canonical dump: every part of the folded state
// in key order, canonically encoded, so two states are equal exactly when
// their dumps are byte-identical. Derived caches are not part of it.
func (s *State) Dump() []byte {
	checks := make(map[string]*check, len(s.checks))
	for seq, c := range s.checks {
		checks[strconv.FormatUint(seq, 10)] = c
	}
	v := map[string]any{
		"position": s.seq,
		"time":     s.lastTime,
		"policy":   s.policy,
		"sessions": s.sessions,
		"ids":      s.ids,
		"yields":   s.yields,
		"checks":   checks,
		"turns":    s.turns,
		"toolsets": s.toolsets,
		"policies": s.policies,
		"chains":   s.chains,
	}
	b, err := json.Marshal(v)
	if err != nil {
		panic("projection: dump does not encode: " + err.Error())
	}
	c, err := events.CanonicalJSON(b)
	if err != nil {
		panic("projection: dump is not canonical JSON: " + err.Error())
	}
	return c
}

// StateHash is the content hash of the canonical dump.
func (s *State) StateHash() string { return events.HashBytes(s.Dump()) }
