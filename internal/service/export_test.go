package service

// WaitingForRounds is how many callers of lock wait for the rounds in
// flight to end, for the tests of rounds.go.
func (s *Service) WaitingForRounds() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.waiting
}

// SetFoldFault makes fault answer for every fold of a record s decided
// (an error fails it), for TestAppendFaults.
func (s *Service) SetFoldFault(fault func() error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.foldFault = fault
}

// CommitState is the commit policy's state (commit.go): off, background
// or foreground.
func (s *Service) CommitState() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.commits.state.String()
}
