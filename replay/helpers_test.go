package replay_test

import "github.com/sessionledger/ledger/projection"

type projectionState = projection.State

var zeroPos projection.Position
