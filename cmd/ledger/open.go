package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/sessionledger/ledger/client"
	"github.com/sessionledger/ledger/internal/dialects"
	"github.com/sessionledger/ledger/internal/natslog"
	"github.com/sessionledger/ledger/internal/service"
	"github.com/sessionledger/ledger/projection"
)

// ledgerFlags say where the log is and where the projection lives.
type ledgerFlags struct {
	data, natsURL, creds, stream, projection, listen string
	replicas                                         int
	syncInterval                                     time.Duration
	serverFsync                                      bool
	logger                                           *slog.Logger
	onConflict                                       func()
	onRound                                          func(records int)
	user, password, natsConfig                       string
	rollSubjects                                     string
	residentMB                                       int
	// create lets the command create the ledger (the data directory, the
	// stream) when there is none: serve, demo and append. Every other
	// command refuses a place that holds no ledger rather than answer
	// from an empty one it just made.
	create bool
	// persistProjection keeps the projection in DATA/projection.db even
	// against --nats when neither --projection nor --data was given
	// (serve: a replica's projection must survive it).
	persistProjection bool
	fs                *flag.FlagSet
}

func (f *ledgerFlags) register(fs *flag.FlagSet) {
	f.fs = fs
	fs.StringVar(&f.data, "data", envOr("LEDGER_DATA", "ledger-data"), "data directory: the embedded server's JetStream store and the projection file (env LEDGER_DATA)")
	fs.StringVar(&f.natsURL, "nats", os.Getenv("NATS_URL"), "use the NATS server or cluster at this URL instead of the embedded server (env NATS_URL)")
	fs.StringVar(&f.creds, "creds", os.Getenv("NATS_CREDS"), "NATS credentials file for --nats (env NATS_CREDS)")
	fs.StringVar(&f.stream, "stream", "LEDGER", "the JetStream stream name")
	fs.IntVar(&f.replicas, "replicas", 1, "stream replicas when the stream is created (3 on a cluster)")
	fs.StringVar(&f.projection, "projection", "", "the bbolt projection file (default DATA/projection.db)")
	fs.IntVar(&f.residentMB, "resident-budget", projection.DefaultResidentBudget>>20, "keep the projection file's pages mapped in this process while the file is at most this many `MiB` (0: never),\nso that no query waits on a page fault; past that they are let go at every commit, to keep the resident set small")
	fs.StringVar(&f.user, "user", os.Getenv("NATS_USER"), "NATS user name (env NATS_USER); with the embedded server and --nats-config, the ledger service's user")
	fs.StringVar(&f.password, "password", os.Getenv("NATS_PASSWORD"), "NATS password (env NATS_PASSWORD)")
	fs.StringVar(&f.natsConfig, "nats-config", "", "embedded server only: a NATS server configuration file to load, for example the authorization block 'ledger serve --gen-auth' writes")
	fs.StringVar(&f.rollSubjects, "roll-subjects", "", "roll the log to a new stream (STREAM-2, ...) once the current one holds this many distinct subjects\n(default 900000; 'off' never rolls); every writer should use the same value (docs/rolling-streams.md)")
	fs.DurationVar(&f.syncInterval, "sync-interval", 0, "embedded server only: fsync every interval instead of on every write (faster; loses the last interval's acknowledged writes on power loss; rounds of appends are then pipelined rather than sent as atomic batches)")
	fs.BoolVar(&f.serverFsync, "server-fsync", false, "embedded server only, without --sync-interval: let the server fsync every write itself, as before group sync.\nBy default the ledger syncs the stream's files once for all the appends acknowledged by then, before it answers them (docs/operations.md, \"Durability\")")
}

// durability says how an acknowledged append reaches the disk, for
// serve's "serving" line (TestServeSaysItsDurability).
func (f *ledgerFlags) durability(h *ledgerHandle) string {
	switch {
	case f.natsURL != "" && strings.HasSuffix(h.nc.ConnectedServerName(), natslog.GroupSyncNameSuffix):
		return "group sync of the ledger that runs the server at --nats: each append waits for that ledger to sync the store"
	case f.natsURL != "":
		return "the NATS server's settings (--nats)"
	case h.sync != nil:
		return "group sync: the ledger syncs the store before it answers an append, once for the appends acknowledged by then"
	case f.syncInterval > 0:
		return "the embedded server fsyncs every " + f.syncInterval.String() + ": the last interval's acknowledged appends are lost on power loss"
	default:
		return "the embedded server fsyncs every write"
	}
}

// groupSync reports whether the embedded server runs under the ledger's
// group sync: a standalone server of the ledger's own (no --nats-config,
// one replica) that is to make every acknowledged write durable, on Linux.
func (f *ledgerFlags) groupSync() bool {
	return f.natsURL == "" && f.natsConfig == "" && f.replicas <= 1 && f.syncInterval == 0 && !f.serverFsync && runtime.GOOS == "linux"
}

// residentBudget is --resident-budget as projection.StoreOptions takes it.
func (f *ledgerFlags) residentBudget() int {
	if f.residentMB <= 0 {
		return -1 // 0 MiB: no file is small enough
	}
	return f.residentMB << 20
}

// dataGiven reports whether the data directory was named (--data or
// LEDGER_DATA) rather than left at its default.
func (f *ledgerFlags) dataGiven() bool {
	given := os.Getenv("LEDGER_DATA") != ""
	if f.fs != nil {
		f.fs.Visit(func(fl *flag.Flag) {
			if fl.Name == "data" {
				given = true
			}
		})
	}
	return given
}

// noLedger is the error of a read command pointed at a place that holds no
// ledger: a usage error (exit 2), since nothing was read.
func (f *ledgerFlags) noLedger(why string) error {
	// Each command is printed as it runs, with the flags that name this
	// place, not wrapped in quotes of its own (a quoted word inside would
	// end them).
	c := f.conn()
	where, create := "in "+f.data, c.Command("serve")+" (or: "+c.Command("append")+", or: "+c.Command("demo")+")"
	if f.natsURL != "" {
		where, create = "at "+redactURL(f.natsURL), c.Command("serve")+" (or: "+c.Command("append")+")"
	}
	return &exitError{code: 2, kind: "no_ledger", msg: fmt.Sprintf("no ledger %s: %s; create one with: %s", where, why, create)}
}

// connectTimeout bounds connecting to NATS (the TCP dial and the
// handshake), so that a server that is not there is reported at once.
const connectTimeout = 1500 * time.Millisecond

// checkEmbedded finds, before the embedded server starts, what would make
// it fail slowly or without saying why: a --listen address that another
// process holds (the server would wait for a listener that never comes), a
// --nats-config that requires a user when none is given, or a user or
// password it does not know (the in-process connection would be closed
// with no reason given).
func (f *ledgerFlags) checkEmbedded() error {
	if f.listen != "" {
		if _, port, err := net.SplitHostPort(f.listen); err == nil && port != "0" && port != "-1" {
			ln, err := net.Listen("tcp", f.listen)
			if err != nil {
				return fmt.Errorf("--listen %s: %w (another ledger serve or nats-server? pick another address, or --nats to use that server)", f.listen, err)
			}
			ln.Close()
		}
	}
	if f.natsConfig == "" {
		return nil
	}
	opts, err := server.ProcessConfigFile(f.natsConfig)
	if err != nil {
		return fmt.Errorf("--nats-config %s: %w", f.natsConfig, err)
	}
	if len(opts.Users) == 0 && len(opts.Nkeys) == 0 && opts.Username == "" && opts.Authorization == "" && opts.AuthCallout == nil && len(opts.TrustedOperators) == 0 {
		return nil
	}
	if f.user == "" && f.creds == "" {
		return usageError("--nats-config %s requires a user: give --user and --password (or NATS_USER and NATS_PASSWORD) of the ledger service's user, as 'ledger serve --gen-auth' wrote it (\"ledger\" by default)", f.natsConfig)
	}
	if f.user == "" || len(opts.Users) == 0 {
		return nil
	}
	for _, u := range opts.Users {
		if u.Username != f.user {
			continue
		}
		if !strings.HasPrefix(u.Password, "$2") && u.Password != f.password {
			return usageError("--user %s: the password is not the one %s gives that user", f.user, f.natsConfig)
		}
		return nil
	}
	return usageError("--user %s is not a user of %s", f.user, f.natsConfig)
}

// startEmbedded starts the embedded server, giving up when ctx ends (a
// SIGTERM while a large store is restored); a server that becomes ready
// after that is shut down.
func startEmbedded(ctx context.Context, cfg natslog.EmbeddedConfig) (*server.Server, error) {
	type started struct {
		ns  *server.Server
		err error
	}
	ch := make(chan started, 1)
	go func() {
		ns, err := natslog.StartEmbedded(cfg)
		ch <- started{ns, err}
	}()
	select {
	case r := <-ch:
		return r.ns, r.err
	case <-ctx.Done():
		go func() {
			if r := <-ch; r.ns != nil {
				r.ns.Shutdown()
			}
		}()
		return nil, ctx.Err()
	}
}

// checkJetStream reports at once a server without JetStream, which
// opening the stream would otherwise retry for seconds. Any other answer is
// left to natslog.Open.
//
// A user whose role may not use JetStream's API (an orchestrator or
// operator of 'ledger serve --gen-auth') is refused at once too
// (readForbidden), not after the retries of natslog.Open.
func (f *ledgerFlags) checkJetStream(ctx context.Context, nc *nats.Conn, url string) error {
	js, err := jetstream.New(nc)
	if err != nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	p := watchPermissions(nc)
	defer p.stop()
	refused, err := p.do(ctx, "$JS.API.INFO", func(ctx context.Context) error {
		_, err := js.AccountInfo(ctx)
		return err
	})
	if refused != "" {
		return &readForbidden{user: f.user, server: redactURL(url), refused: refused}
	}
	if errors.Is(err, jetstream.ErrJetStreamNotEnabled) || errors.Is(err, jetstream.ErrJetStreamNotEnabledForAccount) {
		return fmt.Errorf("NATS at %s: %w: the ledger's log is a JetStream stream (run nats-server -js)", redactURL(url), err)
	}
	return nil
}

// checkStream refuses, for a command that may not create the ledger, a
// server that has no stream of that name. Other errors are left to
// natslog.Open, which retries them (a cluster's meta leader may not be
// elected yet).
func (f *ledgerFlags) checkStream(ctx context.Context, nc *nats.Conn) error {
	if f.create {
		return nil
	}
	js, err := jetstream.New(nc)
	if err != nil {
		return nil
	}
	name := f.stream
	if name == "" {
		name = "LEDGER"
	}
	if _, err := js.Stream(ctx, name); errors.Is(err, jetstream.ErrStreamNotFound) {
		if f.natsURL == "" {
			return f.noLedger(fmt.Sprintf("its NATS store holds no stream %s", name))
		}
		return f.noLedger(fmt.Sprintf("the server has no stream %s", name))
	}
	return nil
}

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}

// ledgerHandle is an open log, projection and service.
type ledgerHandle struct {
	sync  *natslog.GroupSync // the embedded server's store, under group sync
	ns    *server.Server
	nc    *nats.Conn
	log   *natslog.Log
	store *projection.Store
	svc   *service.Service
}

// openLog connects to the log (starting the embedded server unless --nats
// is given) and opens nothing more: what log, replay, what-if and verify
// read. They open no service, which without a projection file would fold
// the whole log in memory before they start (at a million records, 16 s
// and a heap of several GB).
func (f *ledgerFlags) openLog(ctx context.Context) (*ledgerHandle, error) {
	h := &ledgerHandle{}
	ok := false
	defer func() {
		if !ok {
			h.Close()
		}
	}()
	var err error
	if f.natsURL == "" {
		natsDir := filepath.Join(f.data, "nats")
		if err := f.checkEmbedded(); err != nil {
			return nil, err
		}
		if !f.create {
			if _, err := os.Stat(natsDir); err != nil {
				return nil, f.noLedger(natsDir + " does not exist")
			}
		} else if err := os.MkdirAll(f.data, 0o755); err != nil {
			return nil, fmt.Errorf("data directory: %w", err)
		}
		if f.groupSync() {
			if err := os.MkdirAll(natsDir, 0o755); err != nil {
				return nil, fmt.Errorf("data directory: %w", err)
			}
			if h.sync, err = natslog.OpenGroupSync(natsDir); err != nil {
				return nil, err
			}
		}
		h.ns, err = startEmbedded(ctx, natslog.EmbeddedConfig{Dir: natsDir, SyncInterval: f.syncInterval,
			GroupSync: h.sync != nil, Listen: f.listen, ConfigFile: f.natsConfig})
		if err != nil {
			return nil, err
		}
		h.nc, err = natslog.ConnectEmbedded(h.ns, "ledger", append(f.authOptions(), nats.Timeout(connectTimeout))...)
		if err != nil {
			return nil, fmt.Errorf("connecting to the embedded server as %q: %w", f.user, err)
		}
	} else {
		opts := append([]nats.Option{nats.Name("ledger"), nats.MaxReconnects(-1), nats.Timeout(connectTimeout)}, f.authOptions()...)
		h.nc, err = nats.Connect(f.natsURL, opts...)
		if err != nil {
			return nil, fmt.Errorf("connecting to NATS at %s: %w (is a NATS server with JetStream running there, reachable from here, and are --user/--password or --creds right?)", redactURL(f.natsURL), err)
		}
		if err := f.checkJetStream(ctx, h.nc, f.natsURL); err != nil {
			return nil, err
		}
	}
	if err := f.checkStream(ctx, h.nc); err != nil {
		return nil, err
	}
	roll, err := natslog.ParseRollSubjects(f.rollSubjects)
	if err != nil {
		return nil, err
	}
	// A command that only reads (verify, log, export, the queries, ...)
	// as a NATS user reads with direct gets: it makes no consumer and
	// never creates or updates a stream, so an auditor of 'ledger serve
	// --gen-auth', which may do neither, runs it
	// (hostile.TestIsolationAuditorMakesNoConsumer). Without a user it
	// reads with consumers, twice as fast (BenchmarkRead in natslog).
	direct := !f.create && (f.user != "" || f.creds != "")
	h.log, err = natslog.Open(ctx, h.nc, natslog.StreamConfig{Name: f.stream, Replicas: f.replicas, RollSubjects: roll, Logger: f.logger,
		DirectReads: direct, Sync: h.sync})
	if err != nil {
		return nil, err
	}
	ok = true
	return h, nil
}

// open connects to the log, opens the projection and the service over it,
// and catches it up.
func (f *ledgerFlags) open(ctx context.Context) (*ledgerHandle, error) {
	h, err := f.openLog(ctx)
	if err != nil {
		return nil, err
	}
	ok := false
	defer func() {
		if !ok {
			h.Close()
		}
	}()
	standalone := f.natsURL == "" && f.natsConfig == "" && f.replicas <= 1
	cfg := service.Config{Log: h.log, Dialects: dialects.All(), Logger: f.logger, OnConflict: f.onConflict, OnRound: f.onRound,
		// A standalone embedded server that does not fsync every write
		// takes a round of appends faster pipelined than as one atomic
		// batch (which it stages in a temporary store first); one that
		// does takes a small round faster as single appends. Under group
		// sync the server does not fsync, and pipelined rounds share the
		// log's syncs (natslog.GroupSync).
		Pipeline: standalone && (f.syncInterval > 0 || h.sync != nil)}
	if standalone && f.syncInterval == 0 && h.sync == nil {
		cfg.BatchFrom = service.FsyncBatchFrom
	}
	if path := f.projectionPath(); path != "" {
		if f.projection == "" {
			if err := os.MkdirAll(f.data, 0o755); err != nil {
				return nil, fmt.Errorf("data directory: %w", err)
			}
		}
		if h.store, err = projection.OpenStore(path, projection.StoreOptions{ResidentBudget: f.residentBudget()}); err != nil {
			return nil, err
		}
		// The file is checked right after opening it, before the service
		// catches it up, by every command: a decision made or answered
		// from a file whose bytes changed on disk would be an allow the
		// policy never gave, and append would record it
		// (TestDamagedProjectionRefusedByEveryCommand). Checked then, the
		// file is the one the last run left, and a replica starting from
		// nothing checks an empty file rather than walking every page of
		// the one it just caught up, which mapped all of it (a 745 MB file
		// made a replica's peak RSS 913 MB); what the catch-up writes is
		// covered by the content sums each commit keeps.
		if err := h.store.Check(); err != nil {
			return nil, err
		}
		cfg.Store = h.store
	}
	if h.svc, err = service.Open(ctx, cfg); err != nil {
		return nil, err
	}
	ok = true
	return h, nil
}

// projectionPath is the projection file: --projection, else
// DATA/projection.db; "" means fold the log in memory, which a command
// other than serve does against --nats when it was given neither, rather
// than create ./ledger-data where nobody asked for it.
func (f *ledgerFlags) projectionPath() string {
	switch {
	case f.projection != "":
		return f.projection
	case f.natsURL != "" && !f.persistProjection && !f.dataGiven():
		return ""
	}
	return filepath.Join(f.data, "projection.db")
}

func (f *ledgerFlags) authOptions() []nats.Option {
	var opts []nats.Option
	if f.creds != "" {
		opts = append(opts, nats.UserCredentials(f.creds))
	}
	if f.user != "" {
		// The roles of 'ledger serve --gen-auth' let a user receive
		// replies only under its own inbox prefix.
		opts = append(opts, nats.UserInfo(f.user, f.password), nats.CustomInboxPrefix(client.InboxPrefix(f.user)))
	}
	return opts
}

// Close releases everything in reverse order.
func (h *ledgerHandle) Close() {
	if h == nil {
		return
	}
	if h.store != nil {
		if h.svc != nil {
			_ = h.svc.Flush(context.Background())
		}
		h.store.Close()
	}
	if h.nc != nil {
		h.nc.Close()
	}
	if h.ns != nil {
		h.ns.Shutdown()
		h.ns.WaitForShutdown()
	}
	if h.sync != nil {
		_ = h.sync.Close()
	}
}
