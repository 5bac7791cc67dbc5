package natslog

import (
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
)

// EmbeddedConfig configures the in-process nats-server. The zero value
// (with Dir set) is the ledger's default: no network listener, JetStream
// file storage under Dir, fsync on every write.
type EmbeddedConfig struct {
	// Dir holds the JetStream store (Dir/jetstream). Required.
	Dir string
	// SyncInterval, when non-zero, replaces fsync-on-every-write with a
	// periodic fsync: faster, but acknowledged writes of the last interval
	// are lost if the machine loses power.
	SyncInterval time.Duration
	// GroupSync, with SyncInterval 0, has the server write without an
	// fsync of its own (it syncs every GroupSyncServerInterval), for a
	// log whose appends sync the store themselves before they are
	// answered (StreamConfig.Sync, OpenGroupSync on Dir): acknowledged
	// writes are on disk as with an fsync on every write, and the writers
	// of a moment share one fsync. A record may then be read (by a
	// follower, a replica) before it is on disk. The server's name says
	// so to its clients (GroupSyncNameSuffix): the writers that cannot
	// sync its store ask a log opened with the GroupSync to
	// (GroupSyncSubject).
	GroupSync bool
	// Listen, when non-empty ("127.0.0.1:4222", or ":-1" for a random
	// port), also accepts NATS clients over TCP.
	Listen string
	// Name is the server name; default "ledger-embedded". With GroupSync
	// it ends with GroupSyncNameSuffix.
	Name string
	// ConfigFile, when set, is a NATS server configuration file (for
	// example with the authorization block 'ledger serve --gen-auth'
	// writes) read before the settings above are applied; ConfigText is the
	// same given as text.
	ConfigFile string
	ConfigText string
	// ReadyTimeout bounds how long StartEmbedded waits for the server to
	// accept clients; it restores every stream first, which after a crash
	// can mean rescanning the store. 0 means 30s.
	ReadyTimeout time.Duration
}

// Validate reports every problem with the configuration at once.
func (c *EmbeddedConfig) Validate() error {
	var errs []error
	if c.Dir == "" {
		errs = append(errs, errors.New("natslog: the embedded server needs a data directory"))
	}
	if c.SyncInterval < 0 {
		errs = append(errs, errors.New("natslog: sync interval must not be negative"))
	}
	if c.GroupSync && c.SyncInterval != 0 {
		errs = append(errs, errors.New("natslog: group sync makes every acknowledged write durable; it does not go with a sync interval"))
	}
	if c.ReadyTimeout < 0 {
		errs = append(errs, errors.New("natslog: ready timeout must not be negative"))
	}
	return errors.Join(errs...)
}

// GroupSyncServerInterval is how often a server started for group sync
// (EmbeddedConfig.GroupSync) syncs its store by itself: the log's own
// syncs make the appends durable, and this one covers what else the
// server writes (consumers' state).
const GroupSyncServerInterval = time.Minute

// StartEmbedded starts an in-process nats-server with JetStream and waits
// until it is ready. Stop it with Shutdown then WaitForShutdown.
func StartEmbedded(cfg EmbeddedConfig) (*server.Server, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	name := cfg.Name
	if name == "" {
		name = "ledger-embedded"
	}
	opts := &server.Options{}
	switch {
	case cfg.ConfigFile != "":
		if err := opts.ProcessConfigFile(cfg.ConfigFile); err != nil {
			return nil, fmt.Errorf("natslog: %s: %w", cfg.ConfigFile, err)
		}
	case cfg.ConfigText != "":
		if err := opts.ProcessConfigString(cfg.ConfigText); err != nil {
			return nil, fmt.Errorf("natslog: server configuration: %w", err)
		}
	}
	if cfg.GroupSync {
		// Every client reads the mark when it connects (GroupSyncNameSuffix).
		name += GroupSyncNameSuffix
	}
	opts.ServerName = name
	opts.JetStream = true
	opts.StoreDir = filepath.Clean(cfg.Dir)
	opts.NoSigs, opts.NoLog = true, true
	opts.DontListen = cfg.Listen == ""
	opts.SyncAlways = cfg.SyncInterval == 0 && !cfg.GroupSync
	switch {
	case cfg.SyncInterval > 0:
		opts.SyncInterval = cfg.SyncInterval
	case cfg.GroupSync:
		opts.SyncInterval = GroupSyncServerInterval
	}
	if cfg.Listen != "" {
		host, port, err := splitHostPort(cfg.Listen)
		if err != nil {
			return nil, err
		}
		opts.Host, opts.Port = host, port
	}
	ns, err := server.NewServer(opts)
	if err != nil {
		return nil, fmt.Errorf("natslog: embedded server: %w", err)
	}
	wait := cfg.ReadyTimeout
	if wait == 0 {
		wait = 30 * time.Second
	}
	go ns.Start()
	if !ns.ReadyForConnections(wait) {
		ns.Shutdown()
		return nil, fmt.Errorf("natslog: embedded server did not become ready in %s", wait)
	}
	return ns, nil
}

// ConnectEmbedded connects to an embedded server in-process (no TCP).
func ConnectEmbedded(ns *server.Server, name string, opts ...nats.Option) (*nats.Conn, error) {
	return nats.Connect("", append([]nats.Option{nats.InProcessServer(ns), nats.Name(name), nats.MaxReconnects(-1)}, opts...)...)
}

func splitHostPort(s string) (string, int, error) {
	var host string
	var port int
	i := len(s) - 1
	for i >= 0 && s[i] != ':' {
		i--
	}
	if i < 0 {
		return "", 0, fmt.Errorf("natslog: listen address %q must be host:port", s)
	}
	host = s[:i]
	if _, err := fmt.Sscanf(s[i+1:], "%d", &port); err != nil {
		return "", 0, fmt.Errorf("natslog: listen address %q: bad port", s)
	}
	if host == "" {
		host = "0.0.0.0"
	}
	return host, port, nil
}
