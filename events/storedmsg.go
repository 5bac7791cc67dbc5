package events

// StoredMsg is a stored record with its sequence on the log and the
// content hash the store keeps beside it ("" when there is none). It is
// what a log adapter reads back for a tamper check (replay.CheckChain):
// defined here so that an adapter needs no package above events
// (tests/arch's TestNatslogDeps).
type StoredMsg struct {
	Seq  uint64
	Data []byte
	Hash string
}
