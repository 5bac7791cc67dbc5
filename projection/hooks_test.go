package projection

import "github.com/sessionledger/ledger/events"

// DropPages lets benchmarks start from the pages a commit leaves
// resident: none of the file.
func DropPages(st *Store) { st.dropPages() }

// Holds reports whether a state holds a session in memory, and how many
// it holds.
func Holds(s *State, key events.SessionKey) (bool, int) {
	_, ok := s.sessions[key]
	return ok, len(s.sessions)
}
