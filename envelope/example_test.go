package envelope_test

import (
	"fmt"

	"github.com/sessionledger/ledger/envelope"
)

// The example envelope of the claude-code reference, section 11: sealing
// hashes the RFC 8785 bytes of the envelope without its hash.
func ExampleEnvelope_Seal() {
	env := &envelope.Envelope{
		Requester: "lead", Agent: "Explore", Depth: 1, Role: "subagent",
		InheritedAllow: []string{"Agent", "Bash", "Read"}, InheritedDeny: []string{},
		Source: "parent_pool", Revision: 1, Mode: "default", ExtraTools: []string{},
	}
	env.Seal()
	fmt.Println(env.Hash)
	fmt.Println(env.Verified("lead"), env.Verified("someone-else"))
	// Output:
	// sha256:b2d966ceb189c2acf8a3ba046c2cd3098916b1e92f0951ee0d79ec7cfbe16250
	// true false
}
