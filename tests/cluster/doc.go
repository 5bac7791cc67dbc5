// Package cluster holds the tests of the clustered deployment: a real
// 3-node in-process JetStream cluster with an R3 stream and several ledger
// replicas, each with its own bbolt projection and the micro service.
package cluster
