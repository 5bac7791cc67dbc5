package wire

// An append request is an event, the JSON of events.Event (its actor may
// be left out: the subject names it), on the append or policy subject; on
// the append subject also a JSON array of up to MaxBatchEvents session
// events, decided in order, each against the state that includes the ones
// before it.

// MaxBatchEvents is the most events one batch append may carry.
const MaxBatchEvents = 1000

// AppendResult answers an append.
type AppendResult struct {
	Seq uint64 `json:"seq"`
	ID  string `json:"id"`
	// Duplicate: an event with this id was appended before; Seq is that
	// first record's.
	Duplicate bool `json:"duplicate,omitempty"`
}

// AppendOutcome is one event's answer to a batch append: its result, or
// its error (with the sequence of the record that decided it, if any).
type AppendOutcome struct {
	Seq       uint64     `json:"seq,omitempty"`
	ID        string     `json:"id,omitempty"`
	Duplicate bool       `json:"duplicate,omitempty"`
	Error     *ErrorBody `json:"error,omitempty"`
}

// Result is the outcome's AppendResult (meaningful when Error is nil).
func (o AppendOutcome) Result() AppendResult {
	return AppendResult{Seq: o.Seq, ID: o.ID, Duplicate: o.Duplicate}
}
