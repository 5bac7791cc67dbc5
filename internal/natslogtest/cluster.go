// Package natslogtest runs JetStream clusters in the test's process for
// the tests of the clustered deployment (tests/cluster,
// tests/faults, natslog's TestRollingOnACluster). It is test
// support: no production package imports it (tests/arch's
// TestTestSupportStaysOut).
package natslogtest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"strings"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Cluster is a JetStream cluster of nats-servers in this process, listening
// on loopback.
type Cluster struct {
	Servers []*server.Server
	opts    []*server.Options
}

// StartCluster starts n clustered servers with JetStream under dir (one
// store per node) and waits until JetStream has a meta leader.
func StartCluster(ctx context.Context, dir string, n int) (*Cluster, error) {
	ports, err := freePorts(n)
	if err != nil {
		return nil, err
	}
	routes := make([]string, n)
	for i, p := range ports {
		routes[i] = fmt.Sprintf("nats-route://127.0.0.1:%d", p)
	}
	c := &Cluster{}
	for i := 0; i < n; i++ {
		o := &server.Options{
			ServerName: fmt.Sprintf("n%d", i+1),
			Host:       "127.0.0.1",
			Port:       -1,
			JetStream:  true,
			StoreDir:   filepath.Join(dir, fmt.Sprintf("n%d", i+1)),
			Cluster:    server.ClusterOpts{Name: "ledger", Host: "127.0.0.1", Port: ports[i]},
			Routes:     server.RoutesFromStr(strings.Join(routes, ",")),
			NoSigs:     true,
			NoLog:      true,
			SyncAlways: true,
		}
		c.opts = append(c.opts, o)
		if err := c.start(i); err != nil {
			c.Shutdown()
			return nil, err
		}
	}
	return c, c.WaitReady(ctx)
}

func (c *Cluster) start(i int) error {
	s, err := server.NewServer(c.opts[i])
	if err != nil {
		return fmt.Errorf("natslogtest: cluster node %d: %w", i+1, err)
	}
	go s.Start()
	if !s.ReadyForConnections(30 * time.Second) {
		return fmt.Errorf("natslogtest: cluster node %d did not start", i+1)
	}
	// Keep the client port the node got, so a restart listens where
	// clients knew it.
	if addr, ok := s.Addr().(*net.TCPAddr); ok {
		c.opts[i].Port = addr.Port
	}
	if i < len(c.Servers) {
		c.Servers[i] = s
	} else {
		c.Servers = append(c.Servers, s)
	}
	return nil
}

// URLs is the client URL of every running node, comma-separated.
func (c *Cluster) URLs() string {
	var urls []string
	for _, s := range c.Servers {
		if s != nil && s.Running() {
			urls = append(urls, s.ClientURL())
		}
	}
	return strings.Join(urls, ",")
}

// WaitReady waits until JetStream answers through every running node.
func (c *Cluster) WaitReady(ctx context.Context) error {
	for _, s := range c.Servers {
		if s == nil || !s.Running() {
			continue
		}
		nc, err := nats.Connect(s.ClientURL())
		if err != nil {
			return err
		}
		js, _ := jetstream.New(nc)
		for {
			actx, cancel := context.WithTimeout(ctx, time.Second)
			_, err := js.AccountInfo(actx)
			cancel()
			if err == nil {
				break
			}
			if ctx.Err() != nil {
				nc.Close()
				return fmt.Errorf("natslogtest: cluster not ready: %w", err)
			}
			select {
			case <-ctx.Done():
			case <-time.After(100 * time.Millisecond):
			}
		}
		nc.Close()
	}
	return nil
}

// Stop shuts node i down (its store stays for Restart).
func (c *Cluster) Stop(i int) {
	c.Servers[i].Shutdown()
	c.Servers[i].WaitForShutdown()
}

// Restart starts node i again on its store and ports.
func (c *Cluster) Restart(i int) error {
	return c.start(i)
}

// Shutdown stops every node.
func (c *Cluster) Shutdown() {
	for _, s := range c.Servers {
		if s != nil {
			s.Shutdown()
			s.WaitForShutdown()
		}
	}
}

// StreamLeader returns the index of the node leading the stream, or -1.
func (c *Cluster) StreamLeader(stream string) int {
	for i, s := range c.Servers {
		if s != nil && s.Running() && s.JetStreamIsStreamLeader(server.DEFAULT_GLOBAL_ACCOUNT, stream) {
			return i
		}
	}
	return -1
}

func freePorts(n int) ([]int, error) {
	var ports []int
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	for i := 0; i < n; i++ {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, errors.Join(errors.New("natslogtest: no free port"), err)
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}
